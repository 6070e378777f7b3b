#!/bin/sh
# No command runs from data: hostile strings (backquotes, $(...), gnuplot's
# system(...), quotes of both kinds, newlines) in a CSV's cells and column
# names, in series labels, in the -o name, in a platform file's name and in
# a sweep's run options go through every script dtsim writes (the gnuplot
# scripts of `dtsim plot` and `sweep --plot`, the --emit job lists); the
# scripts are run (sh always, gnuplot when there is one) and no CANARY
# file may appear. Values a script cannot hold (a newline) are refused.
set -u
dtsim="${top_builddir:?}/dtsim"
out="${top_builddir}/tests/cli/hostile-scripts.out"
rm -rf "$out"
mkdir -p "$out"
cd "$out" || exit 99
fail=0
bad () { echo "hostile-scripts: $*"; fail=1; }
canaries () { find "$out" -name 'CANARY*' | grep -q . && bad "a command ran: $1"; }
gnuplot=$(command -v gnuplot || true)
[ -n "$gnuplot" ] || echo "hostile-scripts: no gnuplot: the plot scripts are written, not run"
[ -n "$gnuplot" ] || export DTSIM_GNUPLOT=none

# A CSV whose header, series and x values are hostile.
cat > hostile.csv <<'CSV'
"x`touch CANARY1`","y$(touch CANARY2)","s'; system(""touch CANARY3""); '"
1,2,"`touch CANARY4`"
2,3,"$(touch CANARY5)"
1,4,"a"",system('touch CANARY6'),"""
2,5,"\"
CSV
"$dtsim" plot hostile.csv --x 'x`touch CANARY1`' --y 'y$(touch CANARY2)' \
  --series "s'; system(\"touch CANARY3\"); '" -o 'p`touch CANARY7`$(touch CANARY8).png' \
  > /dev/null || bad "dtsim plot refused a hostile CSV it can plot safely"
[ -f 'p`touch CANARY7`$(touch CANARY8).gp' ] || bad "no gnuplot script written"
canaries "dtsim plot"
# Non-numeric x: the values go to the data file and become tick labels.
printf 'x,y\n"`touch CANARY9`",1\n"$(touch CANARY10)",2\n' > cat.csv
"$dtsim" plot cat.csv --x x --y y -o "cat'.svg" > /dev/null || bad "dtsim plot: categories"
canaries "dtsim plot, categories"
# A newline in a series label cannot be written: refused, exit 1.
printf 'x,y,s\n1,2,"a\nsystem(\x27touch CANARY11\x27)"\n' > newline.csv
"$dtsim" plot newline.csv --x x --y y --series s -o nl.png 2> err.txt > /dev/null
[ $? -eq 1 ] || bad "a newline in a label was not refused"
grep -q "a newline .* cannot be written into" err.txt || bad "unclear error: $(cat err.txt)"
canaries "newline label"
# gnuplot's - is an option: a script named -x.gp is still run as a file.
"$dtsim" plot cat.csv --x x --y y -o -e.png > /dev/null || bad "dtsim plot -o -e.png"

# sweep --plot over platform files whose names are hostile.
p="${DTSIM_DATADIR:?}/platforms/cluster-4x4-v100.xml"
cp "$p" 'q`touch CANARY12`.xml'
cp "$p" "r\$(touch CANARY13)'\"x.xml"
"$dtsim" sweep -q --plot --vary gpus=2,4 \
  --vary "platform=./q\`touch CANARY12\`.xml,./r\$(touch CANARY13)'\"x.xml" -o sweep \
  > /dev/null || bad "sweep --plot over hostile platform names failed"
[ -f sweep/breakdown.gp ] || bad "sweep --plot wrote no scripts"
canaries "sweep --plot"

# --emit: hostile run options and output directory; the job list is run
# by sh with 'true' standing in for dtsim.
"$dtsim" sweep --emit parallel --dtsim true --vary gpus=2,4 \
  --workload 'w`touch CANARY14`$(touch CANARY15)' -o 'e`touch CANARY16`' > /dev/null \
  || bad "--emit parallel with hostile values failed"
sh 'e`touch CANARY16`/jobs.txt' || bad "jobs.txt did not run"
[ "$(wc -l < 'e`touch CANARY16`/jobs.txt')" -eq 2 ] || bad "jobs.txt is not one line per job"
"$dtsim" sweep --emit slurm --dtsim true --vary gpus=2,4 \
  --workload "w'\`touch CANARY17\`" -o 's$(touch CANARY18)%' > /dev/null \
  || bad "--emit slurm with hostile values failed"
grep -q "^#SBATCH --output='s\$(touch CANARY18)%%'/slurm-%A_%a.log\$" 's$(touch CANARY18)%/sweep.slurm' \
  || bad "#SBATCH --output line: $(grep output 's$(touch CANARY18)%/sweep.slurm')"
SLURM_ARRAY_TASK_ID=2 sh 's$(touch CANARY18)%/sweep.slurm' || bad "sweep.slurm did not run"
canaries "--emit"
# A newline cannot be one job per line, nor in a #SBATCH line: refused.
nl='a
touch CANARY19'
"$dtsim" sweep --emit parallel --dtsim true --vary gpus=2 --workload "$nl" -o nl1 \
  > /dev/null 2> err.txt
[ $? -eq 2 ] || bad "a newline in a base option was not refused"
grep -q "base run option 'a\\\\ntouch CANARY19': a newline" err.txt || bad "unclear: $(cat err.txt)"
"$dtsim" sweep --emit slurm --dtsim true --vary gpus=2 -o "$nl" > /dev/null 2> err.txt
[ $? -eq 1 ] || bad "a newline in the output directory was not refused"
grep -q "output directory 'a\\\\ntouch CANARY19': a newline" err.txt || bad "unclear: $(cat err.txt)"
"$dtsim" sweep --emit parallel --dtsim "$nl" --vary gpus=2 -o nl2 > /dev/null 2> err.txt
[ $? -eq 1 ] || bad "a newline in --dtsim was not refused"
canaries "newlines"
# Very long values: 120 kB of quotes, backquotes and $( in a run option go
# through the job list; a gnuplot string holds up to 4096 bytes.
long=$(printf "'\"\`\$(touch CANARY20)%.0s" $(seq 6000))
"$dtsim" sweep --emit parallel --dtsim true --vary gpus=2 --workload "$long" -o long \
  > /dev/null || bad "--emit with a 120 kB value failed"
sh long/jobs.txt || bad "the job list with a 120 kB value did not run"
label=$(printf "'\"\`\$(touch CANARY21)%.0s" $(seq 200))
printf 'x,"%s"\n1,2\n2,3\n' "$(printf '%s' "$label" | sed 's/"/""/g')" > long.csv
"$dtsim" plot long.csv --x x --y "$label" -o long.png > /dev/null \
  || bad "dtsim plot with a 4000-byte column name failed"
label="$label$label"
printf 'x,"%s"\n1,2\n2,3\n' "$(printf '%s' "$label" | sed 's/"/""/g')" > long.csv
"$dtsim" plot long.csv --x x --y "$label" -o long.png > /dev/null 2> err.txt
[ $? -eq 1 ] || bad "an 8000-byte column name was not refused"
grep -q "longer than 4096 bytes" err.txt || bad "unclear: $(cut -c1-200 err.txt)"
canaries "long values"

# A key file cannot name the program the points run.
printf '[sweep]\ndtsim = touch\n' > dtsim.ini
"$dtsim" sweep --config dtsim.ini --emit parallel --vary gpus=2 -o kf > /dev/null 2> err.txt
[ $? -eq 1 ] || bad "[sweep] dtsim was accepted from a key file"
grep -q "line 2: key 'dtsim': a key file cannot name a program to run" err.txt \
  || bad "unclear: $(cat err.txt)"

cd "${top_builddir}" && [ "$fail" -eq 0 ] && rm -rf "$out" && echo "hostile-scripts: ok"
exit "$fail"
