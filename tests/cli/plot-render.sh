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
# gnuplot exits 0 when it cannot write its picture: dtsim must not say
# "wrote" then. /dev/full fails every write.
ln -s /dev/full "$out/full.png"
if "$dtsim" plot "$out/results.csv" --x gpus --y iteration_time_s -o "$out/full.png" \
  > "$out/full.out" 2>&1; then
  echo "plot-render: a picture written to /dev/full was reported as written"; fail=1
fi
grep -q "picture '.*full.png': cannot write: No space left on device" "$out/full.out" \
  || { echo "plot-render: unclear error: $(cat "$out/full.out")"; fail=1; }
if ls -A "$out" | grep -q '^[.]dtsim-plot'; then
  echo "plot-render: a temporary directory was left behind"; fail=1
fi
[ "$fail" -eq 0 ] && rm -rf "$out" && echo "plot-render: ok"
exit "$fail"
