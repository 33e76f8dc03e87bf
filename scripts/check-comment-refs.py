#!/usr/bin/env python3
"""Checks the Markdown references in the comments of every `.rs` file: each cited `*.md` file exists, and each
section it cites names a heading (or a row) of that file.

    python3 scripts/check-comment-refs.py        # from anywhere; exit 1 and one line per broken reference

Consecutive comment lines (`//`, `///`, `//!`) are read as one text. A reference is a path ending in `.md`,
resolved against the repository's root, the comment's own directory, its crate, and `docs/`, followed by an
optional section:
- `FILE.md#anchor`: a heading anchor of FILE, slugged as GitHub does (`scripts/check-doc-links.py`);
- `FILE.md §N` or `FILE.md, §N`: a heading numbered `N.` (`## 1. Fuzzing`);
- `FILE.md "Title"`, `FILE.md, "Title"` or `FILE.md, section "Title"`: a heading that starts with Title;
- `FILE.md L3`, `FILE.md, L3` or `L3 (FILE.md)`: a row of a table whose first cell is `L3`, or a heading that
  starts with it.
Files outside this repository that comments cite by name are listed in EXTERNAL.
"""

import importlib.util
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# vendor/: third-party crates as published (vendor/hyper), whose comments are not ours to keep.
SKIP_DIRS = {"target", ".git", "node_modules", "vendor"}
# Cited by name, not in this repository.
EXTERNAL = {
    "extensions/community_extensions/seat-non-bid.md",  # IAB Tech Lab's openrtb repository
    "seat-non-bid.md",  # the same, by its file name
}

spec = importlib.util.spec_from_file_location("links", ROOT / "scripts" / "check-doc-links.py")
links = importlib.util.module_from_spec(spec)
spec.loader.exec_module(links)

PATH = r"(?<![\w./-])((?:[\w.-]+/)*[\w.-]+\.md)\b"
REF = re.compile(
    PATH
    + r"(?:#(?P<anchor>[\w-]+)"
    + r"|,?\s+§(?P<number>\d+)"
    + r"|,?\s+(?:section\s+)?\"(?P<title>[^\"]+)\""
    + r"|,?\s+(?P<row>[A-Z]\d+)\b)?"
)
ROW_FIRST = re.compile(r"\b(?P<row>[A-Z]\d+)\s+\(" + PATH + r"\)")


def comment_blocks(text):
    """(first line number, joined text) of each run of consecutive comment lines."""
    block, start = [], 0
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("//"):
            if not block:
                start = number
            block.append(re.sub(r"^//[/!]?\s?", "", stripped))
        elif block:
            yield start, " ".join(block)
            block = []
    if block:
        yield start, " ".join(block)


def resolve(name, rs):
    """The Markdown file a comment in `rs` means by `name`, or None."""
    crate = next((p for p in rs.parents if (p / "Cargo.toml").exists()), ROOT)
    for base in (ROOT, rs.parent, crate, ROOT / "docs"):
        candidate = (base / name).resolve()
        if candidate.is_file():
            return candidate
    return None


def headings(path):
    """The plain text of every heading of a Markdown file, outside fenced code."""
    out, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        match = None if fenced else links.HEADING.match(line)
        if match:
            text = re.sub(r"`([^`]*)`", r"\1", match.group(2))
            out.append(re.sub(r"[*_]", "", text).strip())
    return out


def first_cells(path):
    """The first cell of every table row of a Markdown file, without emphasis and code marks."""
    cells = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("|"):
            cells.add(re.sub(r"[*`]", "", line.strip("|").split("|")[0]).strip())
    return cells


def section_error(path, anchor=None, number=None, title=None, row=None):
    if anchor and anchor not in links.anchors(path):
        return f"no heading #{anchor}"
    if number and not any(re.match(rf"{number}\.?\s", h) for h in headings(path)):
        return f"no section §{number}"
    if title and not any(h.lower().startswith(title.lower()) for h in headings(path)):
        return f'no heading "{title}"'
    if row and row not in first_cells(path) and not any(h.startswith(row) for h in headings(path)):
        return f"no row or heading {row}"
    return None


def check(rs):
    errors = []
    for number, text in comment_blocks(rs.read_text(encoding="utf-8")):
        refs = [(m.group(1), m.groupdict()) for m in REF.finditer(text)]
        refs += [(m.group(2), {"row": m.group("row")}) for m in ROW_FIRST.finditer(text)]
        for name, parts in refs:
            if name in EXTERNAL or f"> {name}" in text:  # external, or a file a command writes
                continue
            where = f"{rs.relative_to(ROOT)}:{number}: {name}"
            path = resolve(name, rs)
            if path is None:
                errors.append(f"{where}: no such file")
                continue
            wanted = {k: parts.get(k) for k in ("anchor", "number", "title", "row") if parts.get(k)}
            problem = section_error(path, **wanted) if wanted else None
            if problem:
                errors.append(f"{where}: {problem} in {path.relative_to(ROOT)}")
    return errors


def main():
    errors = []
    for directory, subdirs, files in os.walk(ROOT):
        subdirs[:] = sorted(d for d in subdirs if d not in SKIP_DIRS)
        for name in sorted(files):
            if name.endswith(".rs"):
                errors += check(Path(directory) / name)
    for error in errors:
        print(error)
    print(f"comment references: {len(errors)} broken")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
