# common.sh - the command line and set-up shared by the example studies
# (whatif-bandwidth.sh, scaling.sh, bucket-size.sh, and those in async-sgd/,
# hybrid-parallel/ and k80-cluster/), sourced by each one:
#
#   here=$(cd "$(dirname "$0")" && pwd)
#   . "$here/common.sh"
#   example_parse_args "$@"
#
# Every study takes the same arguments, [-o DIR] [--quick] [--no-plot] [DTSIM],
# and prints the comment block that heads it for -h/--help. The functions set
# variables for the sourcing script (out, quick, plot, dtsim, csv, tmp, term)
# and read its here, the directory of the script and of this file.
# shellcheck shell=sh disable=SC2034,SC2154

# The script's name, for messages.
example_name=$(basename "$0")

example_usage() {
  echo "usage: $example_name [-o DIR] [--quick] [--no-plot] [DTSIM]" >&2
  exit 2
}

# Exits 1 with one line on stderr unless $dtsim is a program that runs.
example_check_dtsim() {
  command -v "$dtsim" >/dev/null 2>&1 || {
    echo "$example_name: error: no dtsim at '$dtsim' (run from the build directory or pass DTSIM)" >&2
    exit 1
  }
}

# Runs "$dtsim" ARGS and prints its standard output; when dtsim fails (its own
# error is already on stderr), says which command failed and exits 1. Use it
# as json=$(example_dtsim ARGS) || exit 1: a pipeline into a reader would hide
# the failure behind the reader's errors and exit status.
example_dtsim() {
  example_out=$("$dtsim" "$@") || {
    echo "$example_name: error: '$dtsim $*' failed" >&2
    exit 1
  }
  printf '%s\n' "$example_out"
}

# Sets out, quick (yes/no), plot (yes/no) and dtsim from the arguments, checks
# that dtsim runs, and exports DTSIM_DATADIR when the script runs from the
# source tree and the caller has not set it.
example_parse_args() {
  out=./whatif-out
  quick=no
  plot=yes
  dtsim=./dtsim
  while [ $# -gt 0 ]; do
    case $1 in
      -o) [ $# -ge 2 ] || example_usage; out=$2; shift 2 ;;
      --quick) quick=yes; shift ;;
      --no-plot) plot=no; shift ;;
      # The help is the comment block after the #! line, up to the first line
      # that is not a comment.
      -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
      -*) example_usage ;;
      *) dtsim=$1; shift ;;
    esac
  done
  example_check_dtsim
  # An uninstalled dtsim built out of tree finds its platforms and workloads
  # through DTSIM_DATADIR; the studies live in the source tree's examples/.
  if [ -z "${DTSIM_DATADIR:-}" ] && [ -f "$here/../platforms/gpus.xml" ]; then
    DTSIM_DATADIR=$(cd "$here/.." && pwd)
    export DTSIM_DATADIR
  fi
}

# Sets csv to DIR/NAME.csv for NAME given, and tmp to the file that collects
# its rows until the sweep is complete (then `mv "$tmp" "$csv"`; removed if the
# script stops before).
example_csv_begin() {
  mkdir -p "$out"
  csv=$out/$1.csv
  tmp=$csv.tmp
  trap 'rm -f "$tmp"' EXIT
  : > "$tmp"
}

# After the table: exits when --no-plot was given or gnuplot is missing (saying
# so), otherwise sets term to the best PNG terminal gnuplot has.
example_plot_setup() {
  [ "$plot" = yes ] || exit 0
  if ! command -v gnuplot >/dev/null 2>&1; then
    echo "no plot: gnuplot is not installed (Debian: apt-get install gnuplot-nox), then rerun"
    exit 0
  fi
  term=png
  gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1 && term=pngcairo
}

# Runs gnuplot on the script read from stdin, after the lines every study's
# plot starts with: a WIDTH x HEIGHT PNG in file PNG (terminal term, 11-point
# font) from comma-separated columns with a header row.
example_gnuplot() {
  {
    printf 'set terminal %s size %s,%s font ",11"\n' "$term" "$1" "$2"
    printf 'set output "%s"\n' "$3"
    printf 'set datafile separator ","\nset datafile columnheaders\n'
    cat
  } | gnuplot
}
