#!/bin/sh
# Every read of a file in src/ goes through the input layer
# (src/core/input.c: dts_input_read and friends): it bounds the size
# (--max-input-size), reads pipes and FIFOs once and refuses what a results
# folder may not hold. A new call of a reader that has no limit fails this
# test; read with dts_input_read_text() or dts_input_read_regular() instead.
src="${top_srcdir:-.}/src"
pattern='(^|[^_a-zA-Z0-9])(g_file_get_contents|g_file_load_contents|g_key_file_load_from_file|g_key_file_load_from_dirs|g_key_file_load_from_data_dirs|g_mapped_file_new|xmlReadFile|xmlParseFile)[[:space:]]*\(|fopen[[:space:]]*\([^,]*,[[:space:]]*"r'
# Files allowed to read by themselves, each with its reason.
allowed='src/core/input.c
src/sim/config.c'
# - src/core/input.c is the input layer.
# - src/sim/config.c reads /proc/sys/vm/max_map_count, /proc/self/maps and
#   /proc/self/statm:
#   kernel files of bounded size, not user input.
[ -d "$src/core" ] || { echo "input: no sources under '$src'"; exit 99; }
for probe in 'g_file_get_contents (p, &t, NULL, e)' 'if (!g_key_file_load_from_file (kf, p, 0, e))' \
  'FILE *f = fopen (path, "rb");' 'x = g_mapped_file_new (p, FALSE, e);'; do
  printf '%s\n' "$probe" | grep -qE "$pattern" || { echo "input: pattern misses '$probe'"; exit 99; }
done
for probe in 'FILE *f = fopen (path, "wb");' 'dts_input_read (p, "x", e);' 'my_g_file_get_contents_x;'; do
  printf '%s\n' "$probe" | grep -qE "$pattern" && { echo "input: pattern flags '$probe'"; exit 99; }
done
hits=$(cd "$src/.." && grep -rnE "$pattern" src --include='*.c' --include='*.cc' --include='*.h' \
  | grep -vE "^[^:]+:[0-9]+:[[:space:]]*(/\\*|\\*)" \
  | while IFS= read -r line; do
      file=${line%%:*}
      printf '%s\n' "$allowed" | grep -qxF "$file" || printf '%s\n' "$line"
    done)
if [ -n "$hits" ]; then
  echo "input: files read outside src/core/input.c (use dts_input_read_text or dts_input_read_regular):"
  echo "$hits"
  exit 1
fi
echo "input: ok"
