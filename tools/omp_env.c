/* omp_env.c - the dy2st command's default OpenMP wait policy: a short spin, set by re-executing itself.
 *
 * The CPU backend's parallel loops (dy2st's own, BLIS's and oneDNN's) run on libgomp. When a
 * team finishes, libgomp's threads spin GOMP_SPINCOUNT times (300000 by default, milliseconds)
 * before they sleep, and so does a thread waiting at a barrier. On an idle machine that saves a
 * wake-up per parallel region; on one where other processes keep the cores busy, the spinning
 * thread holds the core the thread it waits for needs, and single runs stall for up to hundreds
 * of milliseconds. 300 spins kept the idle speed of 2 threads and cut those stalls to a few
 * milliseconds (bench/RESULTS.md, "OpenMP under load"; README, "Threads and OpenMP").
 *
 * libgomp reads OMP_WAIT_POLICY and GOMP_SPINCOUNT once, in its constructor, before main runs,
 * and offers no call to change them afterwards; so the command sets the variable and executes
 * itself again, once: the variable being set is what stops a second re-execution, and a user's
 * own setting of either variable (any value) is left alone and wins. execv keeps the process
 * (its pid, which mpirun and shells wait on), its open files (stdin included), argv and the
 * rest of the environment; the exit status is the new image's. Programs using the C API
 * choose for themselves. */
#include "omp_env.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void d2_omp_env_default(char **argv)
{
    if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT"))
        return;
    /* only where libgomp is part of the process (a build without OpenMP has nothing to set) */
    if (!dlsym(RTLD_DEFAULT, "omp_get_max_threads"))
        return;
    /* under valgrind the new image would run outside it (no --trace-children by default) */
    const char *preload = getenv("LD_PRELOAD");
    if (preload && strstr(preload, "vgpreload"))
        return;
    if (setenv("GOMP_SPINCOUNT", D2_OMP_DEFAULT_SPINCOUNT, 0) != 0)
        return;
    execv("/proc/self/exe", argv);
    /* no /proc, say: go on with libgomp's default, and leave the environment as it was */
    unsetenv("GOMP_SPINCOUNT");
}
