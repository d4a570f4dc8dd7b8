/* loadcap.h - the threads a run may use on a busy machine: no more than the cores other processes leave idle. */
#ifndef D2_CPU_LOADCAP_H
#define D2_CPU_LOADCAP_H

#include <stdbool.h>

/* True when DY2ST_ADAPT_THREADS=1 was set at first use: d2_gemm_threads() then passes its
 * count through d2_loadcap_threads(). */
bool d2_loadcap_enabled(void);

/* want, or fewer: the cores the other processes of the machine left idle over the last
 * ~0.1 s (from /proc/stat, less this process's own CPU time), rounded, at least 1. Measures at
 * most every 0.1 s; until a first interval is measured, and where /proc/stat cannot be read,
 * returns want. Safe from any thread. */
int d2_loadcap_threads(int want);

/* The parts, for tests. Parses /proc/stat's text: the machine's busy and total jiffies (the
 * "cpu" line) and the number of "cpuN" lines; -1 when the text is not that. */
int d2_loadcap_parse_stat(const char *text, long long *busy, long long *total, int *ncpu);
/* The count for want when others keep `others` cores of ncpu busy. */
int d2_loadcap_decide(int want, double others, int ncpu);

#endif
