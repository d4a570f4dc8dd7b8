/* testutil.h - helpers the cmocka tests share: whole files and streams as strings, scratch
 * directories and temporary paths, golden-output diffs, .npz members by name, tolerance
 * checks, interpreters that print to a stream, and static op inference.
 * Failures are reported through cmocka (the calling test fails). */
#ifndef DY2ST_TEST_TESTUTIL_H
#define DY2ST_TEST_TESTUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "interp/interp.h"
#include "ops.h"
#include "tensor.h"

/* The whole file, NUL-terminated (malloc'd; the caller frees it); *len (if len) gets its
 * size. tu_read_file returns NULL when the file cannot be read; tu_load_file fails the test. */
char *tu_read_file(const char *path, size_t *len);
void *tu_load_file(const char *path, size_t *len);

/* Everything written to f so far, NUL-terminated (malloc'd); f is rewound. */
char *tu_slurp(FILE *f);

/* out = $TMPDIR/PREFIX_PID_TAG (/tmp when TMPDIR is unset); nothing is created. */
void tu_tmp_path(char *out, size_t n, const char *prefix, const char *tag);

/* Makes a fresh directory $TMPDIR/dy2st-TAG-XXXXXX and enters it, saving the old working
 * directory in oldcwd (n bytes); tu_leave_scratch goes back and removes the directory. */
void tu_enter_scratch(const char *tag, char *oldcwd, size_t n);
void tu_leave_scratch(const char *oldcwd);
/* The directory tu_enter_scratch made. */
const char *tu_scratch_dir(void);

/* Prints to stderr the first line where got and want differ. */
void tu_show_diff(const char *name, const char *got, const char *want);

/* An interpreter printing to out, warnings silenced. */
d2_interp *tu_new_interp(FILE *out);
/* The same with the paddle and numpy modules initialised. */
d2_interp *tu_new_paddle_interp(FILE *out);
/* The message of the pending exception ("Class: text", a static buffer); clears it. */
const char *tu_exc_message(d2_interp *I);
/* Runs tests/py_paddle/NAME.py and asserts that it prints NAME.out, which real
 * Paddle printed (tests/gen/gen_paddle_expected.py). */
void tu_run_paddle_golden(const char *name);
/* The same where the script prints values rounded to a fixed number of decimals: numbers in
 * the output may differ from the golden's by up to tol (one unit of the last printed
 * decimal: a value within a float ulp of a rounding boundary prints either way); everything
 * else must match exactly. */
void tu_run_paddle_golden_tol(const char *name, double tol);
/* Whether got equals want except for numbers that differ by at most tol. */
bool tu_text_close(const char *got, const char *want, double tol);

/* Runs src (named file) in a fresh interpreter made with the options opt (out and errout are
 * replaced) and returns what it printed (malloc'd), followed by the rendered diagnostics:
 * all of them (warnings included; nothing then goes to stderr) when all_diags, else only
 * when the run fails. *rc gets the status of the run. */
char *tu_run_source(const d2_interp_options *opt, const char *file, const char *src,
                    bool all_diags, int *rc);

/* Named tensors, e.g. the members of an .npz: tu_keep_array is a d2_npz_read callback
 * (ctx = the tu_arrays), keeping a reference to each member. */
#define TU_MAX_ARRAYS 512
typedef struct tu_arrays {
    int n;
    char *name[TU_MAX_ARRAYS];
    d2_tensor *t[TU_MAX_ARRAYS];
} tu_arrays;

int tu_keep_array(void *ctx, const char *name, d2_tensor *t, d2_err *err);
d2_tensor *tu_find_array(tu_arrays *a, const char *name);
void tu_free_arrays(tu_arrays *a);

/* A float32 tensor of the shape, filled deterministically from seed with values in [-1, 1). */
d2_tensor *tu_filled_f32(int ndim, const int64_t *shape, unsigned seed);
/* The largest |a - b| / max(1, |b|) over two float32 tensors of equal size; infinity where
 * either holds a NaN. */
double tu_max_rel_diff(const d2_tensor *a, const d2_tensor *b);

/* Runs op (one float32 input x, one output, attrs) on 1, 2 and 3 threads and asserts that the
 * three results are the same bit for bit; returns the one-thread result (new reference). The
 * thread count is back at its default afterwards. */
d2_tensor *tu_run_on_threads(d2_op_id op, const d2_attrs *attrs, d2_tensor *x);

/* The number after "KEY": in a JSON text; fails the test when KEY is missing. */
double tu_json_number(const char *json, const char *key);

/* Fails unless got and want have the same dtype and shape and every element has
 * |got - want| <= atol + rtol * |want|; the first bad elements are printed as
 * "WHAT: element I is X, REF gives Y". */
void tu_expect_close(const char *what, const d2_tensor *got, const d2_tensor *want, double rtol,
                     double atol, const char *ref);

/* ---- static op inference ---- */

/* A tensor type with the given dims (-1 = unknown). */
d2_type tu_ttype(d2_dtype dt, int ndim, const int64_t *dims);

/* Infers op `name` with attributes `attrs` (text form) on the given input types. */
int tu_infer(const char *name, const char *attrs, const d2_type *in, int n_in, d2_type *out,
             d2_err *err);

/* Fails unless t has dtype dt and the given dims. */
void tu_assert_shape(const d2_type *t, d2_dtype dt, int ndim, const int64_t *dims);

#endif
