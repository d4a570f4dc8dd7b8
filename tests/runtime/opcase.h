/* opcase.h - golden op cases: a text file of op invocations with inputs and expected outputs.
 *
 * Format (one case per block; '#' starts a comment line):
 *   case NAME
 *   op OPNAME
 *   attrs TEXT                   optional; text-form attribute syntax: axis = 1, keepdim = true
 *   in DTYPE [d0,d1,...] v v v   one per input, values row-major; "in none" = absent optional
 *   out DTYPE [d0,...] v v v     one per expected output
 *   tol RTOL ATOL                optional; float outputs pass when |a-e| <= ATOL + RTOL*|e|
 *   error SUBSTRING              instead of outputs: the op must fail with this in its message
 *   end
 * Values are decimal numbers, nan, inf, -inf; bools are 0/1. Default tolerances:
 * float32 rtol 1e-5 atol 1e-6, float64 rtol 1e-12 atol 1e-12, integers and bools exact.
 * The generator scripts under tests/gen/ write these files from NumPy.
 */
#ifndef DY2ST_TEST_OPCASE_H
#define DY2ST_TEST_OPCASE_H

#include "backend.h"

/* Runs every case of the file on backend be (NULL = CPU). Prints each failure
 * to stderr. Returns the number of failed cases (or -1 if the file cannot be
 * read or parsed); *n_cases receives the number of cases run. */
int opcase_run_file(d2_backend *be, const char *path, int *n_cases);

#endif
