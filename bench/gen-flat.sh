#!/bin/sh
# gen-flat.sh N [GPU] - print a flat SimGrid platform of N GPUs on stdout:
# one <cluster> whose hosts each have a private split-duplex 100 Gb/s, 1 us
# link to a non-blocking FATPIPE backbone (the contention-free platform of
# tests/data/flat-16.xml at any size). Used by bench/run.sh.
set -e
n=${1:?usage: gen-flat.sh N [GPU]}
gpu=${2:-V100-SXM2-16GB}
case $n in
  ''|*[!0-9]*) echo "gen-flat.sh: N must be a positive integer, got '$n'" >&2; exit 2 ;;
esac
[ "$n" -ge 1 ] || { echo "gen-flat.sh: N must be >= 1" >&2; exit 2; }
cat <<XML
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- flat-$n: $n x $gpu on a non-blocking crossbar (bench/gen-flat.sh). -->
<platform version="4.1">
  <zone id="world" routing="Full">
    <cluster id="flat" prefix="gpu" suffix="" radical="0-$((n - 1))" speed="15.7Tf"
             bw="100Gbps" lat="1us" sharing_policy="SPLITDUPLEX"
             bb_bw="100TBps" bb_lat="0us" bb_sharing_policy="FATPIPE">
      <prop id="gpu" value="$gpu"/>
    </cluster>
  </zone>
</platform>
XML
