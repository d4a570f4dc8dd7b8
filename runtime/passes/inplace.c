/* inplace.c - in-place execution (BuildStrategy.enable_inplace): an elementwise op writes its
 * output into an input buffer that dies at it.
 *
 * The Program is not rewritten: whether a buffer may be taken depends on who holds it at run
 * time (a caller's feed, a view, a loop's carried value), so the executor decides it. This
 * pass only selects the decision: d2_passes_prepare calls d2_exec_enable_inplace, which picks
 * at prepare time, per op, the input port that dies there (exec.c), and each run takes that
 * buffer when nothing else references it. */
#include "passes.h"

int d2_pass_inplace(d2_program *p, const d2_pass_ctx *cx, d2_err *err)
{
    (void)p;
    (void)cx;
    (void)err;
    return 0;
}
