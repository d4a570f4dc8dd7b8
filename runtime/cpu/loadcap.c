/* loadcap.c - the threads a run may use on a busy machine: no more than the cores other processes leave idle.
 *
 * With more threads than idle cores, a parallel region waits at its end for a thread that
 * shares its core with another process: at 2 threads on 2 cores beside one busy process,
 * resnet_small at batch 1 takes 233-717 us per run whatever libgomp's wait setting, against
 * 166 us at one thread (bench/RESULTS.md, "OpenMP under load"). With DY2ST_ADAPT_THREADS=1
 * a count above 1 is capped at the idle cores, measured as the machine's busy time (/proc/stat)
 * less this process's own (getrusage: its spinning threads are its own) over the last 0.1 s.
 * Results stay those of the count used. */
#include "loadcap.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define INTERVAL_NS 100000000LL /* how often the load is measured */

static struct {
    pthread_once_t once;
    bool enabled;
    double hz;
    pthread_mutex_t lock;     /* guards the snapshot below */
    bool have;                /* a snapshot was taken */
    long long busy;           /* the machine's busy jiffies then */
    double self;              /* this process's CPU seconds then */
    long long t_ns;           /* when (monotonic) */
    atomic_llong next_ns;     /* when to measure again */
    atomic_int cap;           /* idle cores at the last measurement; 0: none yet */
} L = {.once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER};

static void init(void)
{
    const char *e = getenv("DY2ST_ADAPT_THREADS");
    L.enabled = e && strcmp(e, "1") == 0;
    long hz = sysconf(_SC_CLK_TCK);
    L.hz = hz > 0 ? (double)hz : 100.0;
}

bool d2_loadcap_enabled(void)
{
    pthread_once(&L.once, init);
    return L.enabled;
}

int d2_loadcap_parse_stat(const char *text, long long *busy, long long *total, int *ncpu)
{
    if (strncmp(text, "cpu ", 4) != 0)
        return -1;
    /* user nice system idle iowait irq softirq steal (guest time is inside user) */
    long long v[8] = {0};
    const char *p = text + 4;
    int n = 0;
    for (; n < 8; n++) {
        char *end;
        v[n] = strtoll(p, &end, 10);
        if (end == p || v[n] < 0)
            break;
        p = end;
    }
    if (n < 4)
        return -1;
    *busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
    *total = *busy + v[3] + v[4];
    int c = 0;
    for (const char *l = strchr(text, '\n'); l; l = strchr(l + 1, '\n'))
        if (strncmp(l + 1, "cpu", 3) == 0 && l[4] >= '0' && l[4] <= '9')
            c++;
    *ncpu = c;
    return c > 0 ? 0 : -1;
}

int d2_loadcap_decide(int want, double others, int ncpu)
{
    double idle = (double)ncpu - (others > 0 ? others : 0);
    int cap = idle >= 1.5 ? (int)(idle + 0.5) : 1;
    return want < cap ? want : cap;
}

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The "cpu" lines of /proc/stat (the rest, interrupt counts, can be long) into buf. */
static bool read_stat(char *buf, size_t size)
{
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return false;
    size_t used = 0;
    while (used + 1 < size && fgets(buf + used, (int)(size - used), f)) {
        if (strncmp(buf + used, "cpu", 3) != 0) {
            buf[used] = '\0';
            break;
        }
        used += strlen(buf + used);
    }
    fclose(f);
    return used > 0;
}

static double self_cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

/* Takes a snapshot and, with an earlier one, updates the cap; called under L.lock. */
static void measure(long long t)
{
    char buf[16384];
    long long busy, total;
    int ncpu;
    if (!read_stat(buf, sizeof buf) || d2_loadcap_parse_stat(buf, &busy, &total, &ncpu) != 0) {
        atomic_store(&L.next_ns, LLONG_MAX); /* no /proc: never cap */
        return;
    }
    double self = self_cpu_s();
    if (L.have && t > L.t_ns) {
        double wall = (double)(t - L.t_ns) * 1e-9;
        double others = ((double)(busy - L.busy) / L.hz - (self - L.self)) / wall;
        atomic_store(&L.cap, d2_loadcap_decide(INT_MAX, others, ncpu));
    }
    L.have = true;
    L.busy = busy;
    L.self = self;
    L.t_ns = t;
    atomic_store(&L.next_ns, t + INTERVAL_NS);
}

int d2_loadcap_threads(int want)
{
    if (want <= 1)
        return want;
    long long t = now_ns();
    if (t >= atomic_load(&L.next_ns) && pthread_mutex_trylock(&L.lock) == 0) {
        if (t >= atomic_load(&L.next_ns))
            measure(t);
        pthread_mutex_unlock(&L.lock);
    }
    int cap = atomic_load(&L.cap);
    return cap > 0 && cap < want ? cap : want;
}
