/* time.c - the time module: wall-clock and monotonic time. */
#include "lib/std/std.h"

#include <time.h>

D2_FN(time_time)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return d2_float_new(I, (double)ts.tv_sec + ts.tv_nsec * 1e-9);
}

D2_FN(time_perf_counter)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return d2_float_new(I, (double)ts.tv_sec + ts.tv_nsec * 1e-9);
}

static const d2_def TIME_DEFS[] = {
    D2_DEF_POS("time", "", time_time, NULL),
    D2_DEF_POS("perf_counter", "", time_perf_counter, NULL),
};

int d2_std_time_init(d2_interp *I)
{
    return d2_std_module_defs(I, "time", TIME_DEFS, D2_COUNTOF(TIME_DEFS)) ? 0 : -1;
}
