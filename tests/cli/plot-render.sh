#!/bin/sh
# Render the plots of a small sweep and of dtsim plot with a real gnuplot
# (skipped, exit 77, when there is none): PNG and SVG files that are
# pictures, not empty files or error pages.
set -eu
gnuplot=$(command -v gnuplot || true)
if [ -z "$gnuplot" ]; then
  echo "plot-render: no gnuplot, skipped"
  exit 77
fi
dtsim="${top_builddir:?}/dtsim"
out="${top_builddir}/tests/cli/plot-render.out"
rm -rf "$out"
"$dtsim" sweep -q --plot --vary gpus=4,8,16 --vary 'link:*-ib.bandwidth=25Gbps,100Gbps' \
  -o "$out" > /dev/null
"$dtsim" plot "$out/results.csv" --x gpus --y iteration_time_s --series series \
  -o "$out/iter.png" > /dev/null
fail=0
for f in throughput speedup breakdown iter; do
  # PNG signature: \211 P N G.
  if [ "$(head -c 4 "$out/$f.png" | od -An -c | tr -d ' ')" != '211PNG' ]; then
    echo "plot-render: $f.png is not a PNG"; fail=1
  fi
done
for f in throughput speedup breakdown; do
  if ! grep -q '<svg' "$out/$f.svg" || ! grep -q '</svg>' "$out/$f.svg"; then
    echo "plot-render: $f.svg is not an SVG"; fail=1
  fi
  # The legend holds every series.
  if [ "$f" != breakdown ] && ! grep -q '100Gbps' "$out/$f.svg"; then
    echo "plot-render: $f.svg lacks the 100Gbps series"; fail=1
  fi
done
[ "$fail" -eq 0 ] && rm -rf "$out" && echo "plot-render: ok"
exit "$fail"
