# DTS_CHECK_CFLAG(FLAG, ACTION-IF-SUPPORTED)
# Run ACTION-IF-SUPPORTED when the C compiler accepts FLAG with -Werror.
AC_DEFUN([DTS_CHECK_CFLAG], [
  AC_MSG_CHECKING([whether $CC accepts $1])
  dts_save_CFLAGS="$CFLAGS"
  CFLAGS="$CFLAGS -Werror $1"
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
    [AC_MSG_RESULT([yes]); $2],
    [AC_MSG_RESULT([no])])
  CFLAGS="$dts_save_CFLAGS"
])
