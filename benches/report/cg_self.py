#!/usr/bin/env python3
"""Self cost per function of one callgrind output file, for any recorded event (Ir, I1mr, D1mr, D1mw, Bcm, ...).

callgrind_annotate attributes every cost of a part file dumped mid-run (benches/http/callgrind.sh's
`*.out.PID.1`) to the thread's entry function; this reads the file itself. With --callers NAME it shows instead
which functions call NAME and what those calls cost (inclusive), e.g. who calls memcpy.

    benches/report/cg_self.py FILE EVENT [N]
    benches/report/cg_self.py FILE EVENT [N] --callers memcpy

Costs are totals over the file; divide by its requests for a per-request figure. Works on files written with or
without --compress-strings.
"""
import collections
import re
import sys


def main():
    args = [a for a in sys.argv[1:]]
    callers = None
    if "--callers" in args:
        i = args.index("--callers")
        callers = args[i + 1]
        del args[i : i + 2]
    path, event = args[0], args[1]
    top = int(args[2]) if len(args) > 2 else 40
    names, cost = {}, collections.Counter()
    fn = cfn = None
    col = None
    after_calls = False

    def name(text):
        m = re.match(r"\((\d+)\)(?: (.*))?", text)
        if not m:
            return text
        if m.group(2):
            names[m.group(1)] = m.group(2)
        return names.get(m.group(1), "?" + m.group(1))

    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("events:"):
                col = line.split()[1:].index(event) + 1
            elif line.startswith("fn="):
                fn = name(line[3:])
            elif line.startswith("cfn="):
                cfn = name(line[4:])
            elif line.startswith("calls="):
                after_calls = True
            elif line and (line[0].isdigit() or line[0] in "+-*"):
                parts = line.split()
                value = int(parts[col]) if len(parts) > col else 0
                if after_calls:
                    after_calls = False
                    if callers is not None and callers in (cfn or ""):
                        cost[fn] += value
                elif callers is None and fn:
                    cost[fn] += value
    total = sum(cost.values())
    print(f"total {event} {total}" + (f" (calls to *{callers}*)" if callers else " (self)"))
    for f, c in cost.most_common(top):
        print(f"{c:>12} {100 * c / max(total, 1):5.1f}% {f[:150]}")


if __name__ == "__main__":
    main()
