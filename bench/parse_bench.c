/* parse_bench.c - the hand-written parser against tree-sitter on the same files, alternating in one process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "syntax/arena.h"
#include "syntax/ast.h"
#include "syntax/pyparse.h"

/* Usage: parse_bench [-n ITERATIONS] FILE.py...
 * For each file: ITERATIONS rounds (default 200), each parsing the file once
 * with d2_pyparse and once with the tree-sitter path, a fresh arena per
 * parse; prints the mean CPU time (CLOCK_PROCESS_CPUTIME_ID) and wall time of
 * each, and the load average. Exits 1 when the fast parser falls back on a
 * file (its time would then be meaningless). */

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double wall_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            char *g = realloc(buf, cap = cap ? cap * 2 : 65536);
            if (!g) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = g;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        if (!r)
            break;
        n += r;
    }
    fclose(f);
    *len = n;
    return buf;
}

int main(int argc, char **argv)
{
    int iters = 200, first = 1;
    if (argc > 2 && strcmp(argv[1], "-n") == 0) {
        iters = atoi(argv[2]);
        first = 3;
    }
    if (first >= argc || iters <= 0) {
        fprintf(stderr, "usage: parse_bench [-n ITERATIONS] FILE.py...\n");
        return 2;
    }
    double load[3] = {0};
    if (getloadavg(load, 3) < 0)
        load[0] = -1;
    printf("load average %.2f, %d iterations, times per parse\n", load[0], iters);
    int rc = 0;
    for (int f = first; f < argc; f++) {
        size_t n;
        char *src = slurp(argv[f], &n);
        if (!src) {
            fprintf(stderr, "parse_bench: cannot read %s\n", argv[f]);
            return 2;
        }
        double c[2] = {0, 0}, w[2] = {0, 0};
        for (int r = 0; r < iters && !rc; r++) {
            for (int k = 0; k < 2; k++) {
                d2_arena *a = d2_arena_new();
                double c0 = cpu_s(), w0 = wall_s();
                const d2_ast_module *m = k ? d2_ast_parse_treesitter(a, argv[f], src, n, NULL)
                                           : d2_pyparse(a, argv[f], src, n);
                c[k] += cpu_s() - c0;
                w[k] += wall_s() - w0;
                if (!m) {
                    fprintf(stderr, "parse_bench: %s: %s gave no tree\n", argv[f],
                            k ? "tree-sitter" : "the fast parser");
                    rc = 1;
                }
                d2_arena_delete(a);
            }
        }
        if (!rc)
            printf("%-40s %7zu B  fast %8.1f us CPU (%8.1f wall)  tree-sitter %8.1f us CPU "
                   "(%8.1f wall)  %.1fx\n",
                   argv[f], n, c[0] / iters * 1e6, w[0] / iters * 1e6, c[1] / iters * 1e6,
                   w[1] / iters * 1e6, c[1] / c[0]);
        free(src);
    }
    return rc;
}
