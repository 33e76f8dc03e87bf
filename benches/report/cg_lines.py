#!/usr/bin/env python3
"""Code footprint of a callgrind dump: the 64-byte instruction-cache lines a measured window executed.

Needs a dump made with `--dump-instr=yes --compress-pos=no --compress-strings=no` (benches/http/callgrind.sh takes
them through VALGRIND_OPTS). For each line the most-executed instruction in it gives how often the line ran; a
line run at least once per request counts 1, a rarer one its share (runs / requests). Prints the expected lines
touched per request and their KiB, the 4 KiB pages of the lines run on every request, then the objects and the TOP functions that contribute most lines.

    benches/report/cg_lines.py DUMP REQUESTS [TOP]
"""
import collections
import signal
import sys


def fail(message):
    sys.exit("cg_lines.py: " + message)


def main():
    if len(sys.argv) not in (3, 4) or not all(a.isdigit() for a in sys.argv[2:]) or int(sys.argv[2]) == 0:
        fail("usage: cg_lines.py DUMP REQUESTS [TOP] (REQUESTS > 0: the requests the dump's window measured)")
    path, requests = sys.argv[1], int(sys.argv[2])
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    positions = None
    line_runs = {}  # line -> max Ir of one instruction in it
    line_owner = {}
    ob = fn = "?"
    skip_next = False
    with open(path, errors="replace") as f:
        for raw in f:
            if raw.startswith("positions:"):
                positions = raw.split()[1:]
                if positions[:1] != ["instr"]:
                    break
            elif raw.startswith(("+", "-", "*")) and positions:
                fail("the dump has compressed positions: make it with --compress-pos=no")
            elif raw.startswith("ob="):
                ob = raw[3:].strip()
            elif raw.startswith("fn="):
                fn = raw[3:].strip()
            elif raw.startswith("calls="):
                skip_next = True
            elif raw.startswith("0x"):
                if skip_next:  # the call site's inclusive cost, not this instruction's own runs
                    skip_next = False
                    continue
                parts = raw.split()
                ir = int(parts[2]) if len(parts) > 2 else 0
                if ir == 0:
                    continue
                line = int(parts[0], 16) >> 6
                if ir > line_runs.get(line, 0):
                    line_runs[line] = ir
                    line_owner[line] = (ob.rsplit("/", 1)[-1], fn)
            else:
                skip_next = False
    if positions is None or positions[:1] != ["instr"]:
        fail("%s has no instruction addresses: make the dump with --dump-instr=yes --compress-pos=no "
             "--compress-strings=no" % path)
    if not line_runs:
        fail("%s: no instruction ran in the measured window" % path)
    share = {l: min(1.0, r / requests) for l, r in line_runs.items()}
    total = sum(share.values())
    every = sum(1 for r in line_runs.values() if r >= requests)
    pages = len({l >> 6 for l, r in line_runs.items() if r >= requests})  # 4 KiB pages of those lines
    print(f"lines executed: {len(line_runs)}; per request {total:.0f} ({total * 64 / 1024:.1f} KiB); "
          f"run on every request: {every}, on {pages} pages of 4 KiB")
    by_ob = collections.Counter()
    by_fn = collections.Counter()
    for l, s in share.items():
        by_ob[line_owner[l][0]] += s
        by_fn[line_owner[l]] += s
    for o, s in by_ob.most_common(8):
        print(f"  {s:7.0f}  {o}")
    print(f"top {top} functions by lines per request:")
    for (o, f), s in by_fn.most_common(top):
        print(f"  {s:6.1f}  {f[:150]}")


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    main()
