/* kswitch.h - what the CPU backend's own kernels share: their on/off switch and the CPU check. */
#ifndef DY2ST_CPU_KSWITCH_H
#define DY2ST_CPU_KSWITCH_H

#include <stdatomic.h>
#include <stdbool.h>

/* A kernel's switch: 0 automatic, 1 always, 2 never (the values of the kernels' mode enums).
 * *slot caches it, -1 until known: a setter stores into it; otherwise the environment
 * variable var (auto, always or 1, never or 0) is read once, at first use. */
int d2_kswitch_get(atomic_int *slot, const char *var);

/* Whether this CPU runs AVX-512F (checked once; false off x86-64). */
bool d2_cpu_avx512f(void);

#endif
