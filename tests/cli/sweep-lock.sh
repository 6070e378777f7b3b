#!/bin/sh
# One sweep per folder: a second sweep (or --collect, or --emit) in a
# folder that a running sweep holds fails at once, naming the holder's pid;
# a sweep killed with kill -9 takes its running points with it, and the
# folder is free again for the sweep that resumes it.
set -u
dtsim="${top_builddir:?}/dtsim"
out="${top_builddir}/tests/cli/sweep-lock.out"
rm -rf "$out"
mkdir -p "$out"
cd "$out" || exit 99
fail=0
bad () { echo "sweep-lock: $*"; fail=1; }
# A point that says it started, then takes its time (exec: the same pid).
cat > slow.sh <<'SH'
#!/bin/sh
echo $$ >> "$SWEEP_LOCK_PIDS"
exec sleep 60
SH
chmod +x slow.sh
export SWEEP_LOCK_PIDS="$out/pids"
: > pids
"$dtsim" sweep -q -j 2 --dtsim "$out/slow.sh" --vary gpus=1,2 -o study > /dev/null 2>&1 &
holder=$!
i=0
while [ "$(wc -l < pids)" -lt 2 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(wc -l < pids)" -eq 2 ] || bad "the first sweep did not start its points"

for args in "-q --dtsim $out/slow.sh --vary gpus=1,2" "-q --vary gpus=4 --emit parallel" \
  "--collect"; do
  if [ "$args" = --collect ]; then
    "$dtsim" sweep --collect study > /dev/null 2> err.txt
  else
    # shellcheck disable=SC2086
    "$dtsim" sweep $args -o study > /dev/null 2> err.txt
  fi
  rc=$?
  [ $rc -eq 1 ] || bad "sweep $args in a held folder: exit $rc, not 1"
  grep -q "^dtsim: error: study: another dtsim sweep (pid $holder) is using this folder" err.txt \
    || bad "sweep $args: unclear error: $(cat err.txt)"
done

# kill -9: the points go with the sweep.
kill -KILL "$holder"
wait "$holder" 2> /dev/null
i=0
alive=1
while [ $alive -eq 1 ] && [ $i -lt 50 ]; do
  alive=0
  for p in $(cat pids); do kill -0 "$p" 2> /dev/null && alive=1; done
  [ $alive -eq 1 ] && sleep 0.1
  i=$((i + 1))
done
[ $alive -eq 0 ] || { bad "points of a killed sweep still run"; for p in $(cat pids); do kill "$p" 2> /dev/null; done; }

# The folder is free: the sweep resumes there and finishes.
"$dtsim" sweep -q --vary gpus=1,2 -o study > /dev/null 2> err.txt || bad "resume failed: $(cat err.txt)"
[ -f study/results.csv ] || bad "no results after the resume"

cd "${top_builddir}" && [ "$fail" -eq 0 ] && rm -rf "$out" && echo "sweep-lock: ok"
exit "$fail"
