#!/usr/bin/env python3
"""Check `dtsim allreduce --svg -` against the plan it draws.

usage: allreduce-steps-check.py DTSIM ARGS...

Runs DTSIM allreduce ARGS --svg - and DTSIM allreduce ARGS --dump-plan; the
picture must be well-formed XML with one arrow (path class "xfer") per send
of the dumped plan, coloured as the receiver's reduce or copy (the dump's
"reduce" receives). Prints the counts; exits 1 when they differ."""
import re
import subprocess
import sys
import xml.etree.ElementTree as E

NS = "{http://www.w3.org/2000/svg}"
REDUCE, COPY = "#3b75af", "#e1812c"


def main():
    dtsim, args = sys.argv[1], sys.argv[2:]
    svg = subprocess.run([dtsim, "allreduce", *args, "--svg", "-"], check=True,
                         capture_output=True, text=True).stdout
    root = E.fromstring(svg)
    arrows = [e for e in root.iter(NS + "path") if e.get("class") == "xfer"]
    reduce = sum(1 for e in arrows if e.get("stroke") == REDUCE)
    copy = sum(1 for e in arrows if e.get("stroke") == COPY)
    dump = subprocess.run([dtsim, "allreduce", *args, "--dump-plan"], check=True,
                          capture_output=True, text=True).stdout
    sends = recv_reduce = recv_copy = 0
    for line in dump.splitlines():
        m = re.match(r"\s+participant \d+ \(rank \d+\) step \d+ \[[^]]*\]: (.*)", line)
        if not m:
            continue
        for x in m.group(1).split("; "):
            if x.startswith("send "):
                sends += 1
            elif x.startswith("recv "):
                if " reduce" in x:
                    recv_reduce += 1
                else:
                    recv_copy += 1
    print(f"arrows {len(arrows)} (reduce {reduce}, copy {copy}); "
          f"plan sends {sends}, receives reduce {recv_reduce}, copy {recv_copy}")
    ok = len(arrows) == sends and reduce == recv_reduce and copy == recv_copy and sends > 0
    print("match" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
