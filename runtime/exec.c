/* exec.c - executor. */
#include "base.h"
#include "exec.h"
d2_prepared *d2_exec_prepare(const d2_program *p, d2_backend *be, d2_err *err)
{ (void)p; (void)be; d2_err_set(err, D2_ERR_UNSUPPORTED, "executor not implemented"); return NULL; }
void d2_exec_free(d2_prepared *pp) { (void)pp; }
int d2_exec_run(d2_prepared *pp, d2_tensor **inputs, int n_in, d2_tensor **outputs, int n_out, d2_err *err)
{ (void)pp; (void)inputs; (void)n_in; (void)outputs; (void)n_out; return d2_err_set(err, D2_ERR_UNSUPPORTED, "executor not implemented"); }
