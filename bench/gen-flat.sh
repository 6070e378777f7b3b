#!/bin/sh
# gen-flat.sh N [GPU] - print a flat SimGrid platform of N GPUs on stdout:
# one <cluster> whose hosts each have a private split-duplex 100 Gb/s, 1 us
# link to a non-blocking FATPIPE backbone (the contention-free platform of
# tests/data/flat-16.xml at any size). Used by bench/run.sh.
#
# FLAT_BACKBONE=none leaves the backbone out: the same crossbar for the
# simulation (a 100 TB/s FATPIPE never limits a 100 Gb/s flow and adds no
# latency, so every simulated time is the same). Useful to check that: dtsim
# turns such a FATPIPE link into an unlimited SHARED one because SimGrid
# 3.32's solver pays O(F^2) per rate change on a FATPIPE link crossed by F
# flows (doc/SIMULATION.md, "Cost of simulating").
set -e
n=${1:?usage: gen-flat.sh N [GPU]}
gpu=${2:-V100-SXM2-16GB}
case $n in
  ''|*[!0-9]*) echo "gen-flat.sh: N must be a positive integer, got '$n'" >&2; exit 2 ;;
esac
[ "$n" -ge 1 ] || { echo "gen-flat.sh: N must be >= 1" >&2; exit 2; }
case ${FLAT_BACKBONE:-fatpipe} in
  fatpipe)
    backbone='
             bb_bw="100TBps" bb_lat="0us" bb_sharing_policy="FATPIPE"'
    what="a non-blocking crossbar" ;;
  none)
    backbone=''
    what="a non-blocking crossbar without backbone link" ;;
  *) echo "gen-flat.sh: FLAT_BACKBONE must be fatpipe or none, got '$FLAT_BACKBONE'" >&2; exit 2 ;;
esac
cat <<XML
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- flat-$n: $n x $gpu on $what (bench/gen-flat.sh). -->
<platform version="4.1">
  <zone id="world" routing="Full">
    <cluster id="flat" prefix="gpu" suffix="" radical="0-$((n - 1))" speed="15.7Tf"
             bw="100Gbps" lat="1us" sharing_policy="SPLITDUPLEX"$backbone>
      <prop id="gpu" value="$gpu"/>
    </cluster>
  </zone>
</platform>
XML
