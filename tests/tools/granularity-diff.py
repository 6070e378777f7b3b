#!/usr/bin/env python3
"""Run one `dtsim run` configuration at two --comm-granularity levels and
compare their iteration time and mean all-reduce time (comm_s).

  granularity-diff.py DTSIM REF OTHER [RUN ARGS...]

Prints one line per figure: its value at both levels and OTHER's relative
difference to REF, in percent with two decimals (deterministic: the
simulation is)."""
import json
import subprocess
import sys


def run(dtsim, granularity, args):
    out = subprocess.run([dtsim, "run", *args, "--comm-granularity", granularity,
                          "--format", "json", "--quiet"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("dtsim failed (%d): %s" % (out.returncode, out.stderr.strip()))
    return json.loads(out.stdout)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    dtsim, ref, other, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    a, b = run(dtsim, ref, args), run(dtsim, other, args)
    for name, get in (("iteration_time_s", lambda d: d["iteration_time_s"]),
                      ("comm_s", lambda d: d["breakdown"]["comm_s"])):
        x, y = get(a), get(b)
        print("%s: %s %.6f, %s %.6f, %+.2f%%" % (name, ref, x, other, y, 100 * (y / x - 1)))


if __name__ == "__main__":
    main()
