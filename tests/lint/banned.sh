#!/bin/sh
# Banned functions (in the spirit of git's banned.h): unbounded string
# functions and raw allocation. Use GLib's g_strlcpy, g_snprintf, g_strsplit,
# g_new/g_free instead.
src="${top_srcdir:-.}/src"
pattern='(^|[^_a-zA-Z0-9.>])(strcpy|strcat|sprintf|vsprintf|strtok|gets|malloc|calloc|realloc|free|atoi|atof)[[:space:]]*\('
# A lint that finds nothing because it looked nowhere, or because its
# pattern matches nothing, would pass forever: check both first (99 is a
# hard error for automake's test driver).
[ -d "$src/core" ] || { echo "banned: no sources under '$src'"; exit 99; }
for probe in 'p = malloc (4);' '  free(p);' 'n = atoi (s);' 'sprintf (buf, "%d", n);'; do
  printf '%s\n' "$probe" | grep -qE "$pattern" || { echo "banned: pattern misses '$probe'"; exit 99; }
done
for probe in 'g_free (p);' 'g_malloc (4);' 'dts_json_free (j);' 'g_snprintf (b, 4, "x");'; do
  printf '%s\n' "$probe" | grep -qE "$pattern" && { echo "banned: pattern flags '$probe'"; exit 99; }
done
hits=$(grep -rnE "$pattern" "$src" --include='*.c' --include='*.h' | grep -vE "^[^:]+:[0-9]+:[[:space:]]*(/\\*|\\*)" | grep -v "banned-ok" || true)
if [ -n "$hits" ]; then
  echo "banned functions used:"
  echo "$hits"
  exit 1
fi
echo "banned: ok"
