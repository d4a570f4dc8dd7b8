/* kswitch.c - the switches of the CPU backend's own kernels, and the CPU check. */
#include "kswitch.h"

#include <stdlib.h>
#include <string.h>

int d2_kswitch_get(atomic_int *slot, const char *var)
{
    int m = atomic_load(slot);
    if (m >= 0)
        return m;
    const char *e = getenv(var);
    m = 0;
    if (e && (strcmp(e, "always") == 0 || strcmp(e, "1") == 0))
        m = 1;
    else if (e && (strcmp(e, "never") == 0 || strcmp(e, "0") == 0))
        m = 2;
    int expect = -1; /* a setter's value, stored meanwhile, wins */
    atomic_compare_exchange_strong(slot, &expect, m);
    return atomic_load(slot);
}

bool d2_cpu_avx512f(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    static int has = -1; /* racing first calls store the same value */
    int h = __atomic_load_n(&has, __ATOMIC_RELAXED);
    if (h < 0) {
        __builtin_cpu_init();
        h = __builtin_cpu_supports("avx512f");
        __atomic_store_n(&has, h, __ATOMIC_RELAXED);
    }
    return h;
#else
    return false;
#endif
}
