/* time.c - the time module: wall-clock and monotonic time, sleeping, strftime. */
#include "lib/std/std.h"

#include <errno.h>
#include <math.h>
#include <time.h>

D2_FN(time_time)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return d2_float_new(I, (double)ts.tv_sec + ts.tv_nsec * 1e-9);
}

D2_FN(time_perf_counter)
{
    return d2_float_new(I, d2_monotonic_s());
}

/* CPU time of the process (all its threads), in seconds */
D2_FN(time_process_time)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return d2_raise(I, "OSError", "process_time: the CPU clock cannot be read");
    return d2_float_new(I, (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec);
}

D2_FN(time_sleep) /* a[0] secs */
{
    double secs;
    if (d2_to_double(I, a[0], "sleep() argument", &secs) < 0)
        return NULL;
    if (!(secs >= 0))
        return d2_raise(I, "ValueError", "sleep length must be non-negative");
    struct timespec ts = {(time_t)secs, (long)((secs - floor(secs)) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
    return d2_none(I);
}

D2_FN(time_time_ns)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return d2_int_new(I, (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
}

/* strftime(format[, secs]): the local time now (or at secs since the epoch; a
 * struct_time tuple is not supported). */
D2_FN(time_strftime) /* a[0] format, a[1] secs or NULL */
{
    const char *fmt = d2_to_cstr(I, a[0], "strftime() format");
    if (!fmt)
        return NULL;
    double secs;
    if (a[1]) {
        if (d2_to_double(I, a[1], "strftime() time (seconds since the epoch in dy2st)", &secs) <
            0)
            return NULL;
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        secs = (double)ts.tv_sec;
    }
    time_t t = (time_t)secs;
    struct tm tm;
    if (!localtime_r(&t, &tm))
        return d2_raise(I, "OverflowError", "timestamp out of range for platform time_t");
    char buf[1024];
    size_t n = *fmt ? strftime(buf, sizeof buf, fmt, &tm) : 0;
    if (*fmt && n == 0)
        return d2_raise(I, "ValueError", "strftime() result too long or empty");
    return d2_str_new(I, buf, n);
}

static const d2_def TIME_DEFS[] = {
    D2_DEF_POS("sleep", "secs, /", time_sleep, NULL),
    D2_DEF_POS("time_ns", "", time_time_ns, NULL),
    D2_DEF_POS("monotonic", "", time_perf_counter, NULL),
    D2_DEF_POS("strftime", "format, [t], /", time_strftime, NULL),
    D2_DEF_POS("time", "", time_time, NULL),
    D2_DEF_POS("perf_counter", "", time_perf_counter, NULL),
    D2_DEF_POS("process_time", "", time_process_time, NULL),
};

int d2_std_time_init(d2_interp *I)
{
    return d2_std_module_defs(I, "time", TIME_DEFS, D2_COUNTOF(TIME_DEFS)) ? 0 : -1;
}
