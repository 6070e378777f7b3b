#!/bin/sh
# Stand-in for dtsim as the child of `dtsim sweep --dtsim THIS`: appends the
# point's --gpus and --batch-size arguments to $SWEEP_LOG and runs $DTSIM.
# When the arguments hold $SWEEP_KILL_AT (e.g. --gpus=8), it kills the
# sweep, its parent, with SIGKILL first, as a crash or `kill -9` would, and
# fails without writing a result: the sweep dies with this point unfinished.
# When they hold $SWEEP_DIE_AT, the child kills itself with SIGKILL, as the
# out-of-memory killer would.
log=
for a in "$@"; do
  case $a in --gpus=* | --batch-size=*) log="$log $a" ;; esac
done
echo "${log# }" >> "${SWEEP_LOG:?}"
if [ -n "${SWEEP_KILL_AT:-}" ]; then
  case " $* " in
    *" $SWEEP_KILL_AT "*) kill -KILL "$PPID"; exit 1 ;;
  esac
fi
if [ -n "${SWEEP_DIE_AT:-}" ]; then
  case " $* " in
    *" $SWEEP_DIE_AT "*) kill -KILL $$ ;;
  esac
fi
exec "${DTSIM:?}" "$@"
