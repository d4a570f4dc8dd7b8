/* peak.c - prints this CPU's measured float32 FMA peak at 1 and 2 threads (see peak_fma.c). */
#include "peak.h"

#include <stdio.h>
#include <stdlib.h>

/* usage: peak [SECONDS] (default 1 per thread count); prints the median of 5 measurements */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    if (seconds <= 0 || seconds > 60) {
        fprintf(stderr, "peak: SECONDS must be in (0, 60]\n");
        return 2;
    }
    printf("%7s %9s %6s %16s %16s\n", "threads", "isa", "lanes", "GFLOP/s (CPU)",
           "GFLOP/s (wall)");
    for (int t = 1; t <= 2; t++) {
        double cpu[5], wall[5];
        d2_peak p = {0};
        for (int r = 0; r < 5; r++) {
            if (d2_peak_measure(t, seconds / 5, &p) < 0) {
                fprintf(stderr, "peak: cannot start %d threads\n", t);
                return 1;
            }
            cpu[r] = p.gflops_cpu;
            wall[r] = p.gflops_wall;
        }
        qsort(cpu, 5, sizeof cpu[0], cmp_double);
        qsort(wall, 5, sizeof wall[0], cmp_double);
        printf("%7d %9s %6d %16.1f %16.1f\n", t, p.isa, p.width, cpu[2], wall[2]);
    }
    return 0;
}
