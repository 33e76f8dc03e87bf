#!/usr/bin/env python3
"""Checks the relative links of README.md and docs/*.md: every target file exists, and every `#anchor` (in the same
file or another Markdown file) names a heading of that file, slugged as GitHub does (lower case, punctuation
other than `-` and `_` dropped, spaces to `-`, a repeated slug suffixed `-1`, `-2`, …).

    python3 scripts/check-doc-links.py            # from anywhere; exit 1 and one line per broken link

Links inside code spans and fenced code blocks are not links and are skipped; absolute URLs (`http:`, `mailto:`)
are not checked.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"(?<!!)\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def prose_lines(text):
    """The lines outside fenced code blocks, with code spans blanked out, numbered from 1."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            yield number, re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), line)


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"`([^`]*)`", r"\1", heading)               # code spans keep their text
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)      # links keep their text
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)                      # \w keeps letters, digits and _
    return text.replace(" ", "-")


def anchors(path):
    """Every heading anchor of a Markdown file."""
    seen, found = {}, set()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        match = None if fenced else HEADING.match(line)
        if match:
            base = slug(match.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    return found


def check(doc):
    errors = []
    text = doc.read_text(encoding="utf-8")
    for number, line in prose_lines(text):
        for match in LINK.finditer(line):
            target = match.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue
            path, _, anchor = target.partition("#")
            file = (doc.parent / path).resolve() if path else doc
            where = f"{doc.relative_to(ROOT)}:{number}: {target}"
            if not file.exists():
                errors.append(f"{where}: no such file")
            elif anchor:
                if file.suffix != ".md":
                    errors.append(f"{where}: an anchor into a file that is not Markdown")
                elif anchor not in anchors(file):
                    errors.append(f"{where}: no heading #{anchor} in {file.relative_to(ROOT)}")
    return errors


def main():
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    errors = [e for doc in docs for e in check(doc)]
    for error in errors:
        print(error)
    print(f"{len(docs)} files checked, {len(errors)} broken links", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
