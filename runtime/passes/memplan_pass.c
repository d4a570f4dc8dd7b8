/* memplan_pass.c - the static memory plan (BuildStrategy.memory_optimize): block 0's
 * intermediate values are placed by liveness into one arena per run.
 *
 * The Program is not rewritten: sizes depend on the run's input shapes, so the executor plans
 * (runtime/memplan.c). This pass only selects it: d2_passes_prepare calls
 * d2_exec_enable_memplan, after d2_exec_enable_inplace so that an in-place output shares its
 * input's slot. */
#include "passes.h"

int d2_pass_memplan(d2_program *p, const d2_pass_ctx *cx, d2_err *err)
{
    (void)p;
    (void)cx;
    (void)err;
    return 0;
}
