/* testlib.h - helpers shared by the Check suites under tests/unit/. */
#ifndef DTS_TESTLIB_H
#define DTS_TESTLIB_H

#include <check.h>
#include <glib.h>
#include "cost/framework.h"
#include "platform/gpu.h"

/* Run SUITE (CK_NORMAL) and return the process exit status: 0 if every test
 * passed, 1 otherwise. */
int dts_test_run (Suite *suite);

/* Write CONTENT to a new temporary file named *SUFFIX (e.g. ".xml"); returns its
 * path (owned). The file is removed at process exit. */
char *dts_test_write_tmp (const char *content, const char *suffix);

/* The shipped GPU catalogue (owned); fails the test where it does not load. */
DtsGpuCatalog *dts_test_gpu_catalog (void);

/* A framework profile parsed from TEXT as file "t.conf", id "t" (owned);
 * fails the test where it does not parse. */
DtsFramework *dts_test_profile (const char *text);

/* Path of the shared data directory ($DTSIM_SHARED) or NULL when absent. */
const char *dts_test_shared_dir (void);

/* Path of a file under the source tree ($top_srcdir, or "."); owned. */
char *dts_test_srcpath (const char *relative);

/* Assert |A - B| <= TOL |B|, printing both expressions and values
 * (needs <math.h>). */
#define assert_rel(a, b, tol)                                                                  \
  ck_assert_msg (fabs ((a) - (b)) <= (tol) * fabs (b), "%s = %.12g, %s = %.12g: relative "    \
                 "difference %.3g > %g", #a, (double) (a), #b, (double) (b),                   \
                 fabs ((a) - (b)) / fabs (b), (double) (tol))

/* A test input NAME: tests/data/NAME.xml in the source tree, else the
 * shipped file of SUBDIR ("platforms", "workloads"); owned, or NULL. */
char *dts_test_input_path (const char *name, const char *subdir);

/* Assert that ERROR is set in DTS_ERROR with CODE and that its message
 * contains every NULL-terminated fragment given. */
void dts_test_assert_error (const GError *error, int code, ...) G_GNUC_NULL_TERMINATED;

/* Fills RESULT from SETUP; runs in the child of dts_test_run_in_child(). */
typedef void (*DtsTestChildFunc) (const void *setup, void *result);

/* Run FUNC (SETUP, RESULT) in a forked child and copy the RESULT_SIZE bytes it
 * leaves in RESULT back into the caller's RESULT, which must be plain data (no
 * pointers: they would point into the child). SimGrid runs once per process,
 * so a suite that runs several simulations runs each one here; a child that
 * aborts, or sends back fewer bytes, fails the current test with a message
 * "WHAT died (status N)". */
void dts_test_run_in_child (DtsTestChildFunc func, const void *setup, void *result,
                            gsize result_size, const char *what);

/* The sum of the durations of the compute operations of PHASE in PROG
 * (a schedule program: GArray of DtsOp; PHASE a DtsPhase). */
double dts_test_phase_sum (const GArray *prog, int phase);

#endif
