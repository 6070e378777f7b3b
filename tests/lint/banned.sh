#!/bin/sh
# Banned functions (in the spirit of git's banned.h): unbounded string
# functions and raw allocation. Use GLib's g_strlcpy, g_snprintf, g_strsplit,
# g_new/g_free instead.
src="${top_srcdir:-.}/src"
pattern='(^|[^_a-zA-Z0-9.>])(strcpy|strcat|sprintf|vsprintf|strtok|gets|malloc|calloc|realloc|free|atoi|atof)[[:space:]]*\('
hits=$(grep -rnE "$pattern" "$src" --include='*.c' --include='*.h' | grep -vE "^[^:]+:[0-9]+:[[:space:]]*(/\\*|\\*)" | grep -v "banned-ok" || true)
if [ -n "$hits" ]; then
  echo "banned functions used:"
  echo "$hits"
  exit 1
fi
echo "banned: ok"
