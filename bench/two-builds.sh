# two-builds.sh - sourced by the benchmarks that run two dtsim builds side by
# side (compare.sh, analytic-scale.sh, async-ps.sh; two-builds.py reads back a
# side): checks the command line (OLD_BUILD
# NEW_BUILD, each a directory holding a dtsim binary) and /usr/bin/time,
# and exports DTSIM_DATADIR (the source tree unless set). Needs `here` (the
# benchmark's directory) and `name` (its file name, for messages).
[ $# -eq 2 ] || { echo "usage: $name OLD_BUILD NEW_BUILD" >&2; exit 2; }
for b in "$1" "$2"; do
  [ -x "$b/dtsim" ] || { echo "$name: no dtsim in '$b'" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "$name: needs /usr/bin/time (Debian package 'time')" >&2; exit 2; }
: "${DTSIM_DATADIR:=$(cd "$here/.." && pwd)}"
export DTSIM_DATADIR
