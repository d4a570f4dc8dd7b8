/* test_loadcap.c - DY2ST_ADAPT_THREADS: /proc/stat's parsing, the cap rule, and a run's thread count capped while every core is kept busy. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpu/gemm.h"
#include "cpu/loadcap.h"

static void test_parse(void **state)
{
    (void)state;
    const char *text = "cpu  100 5 50 1000 20 3 2 1 7 0\n"
                       "cpu0 50 2 25 500 10 1 1 0 3 0\n"
                       "cpu1 50 3 25 500 10 2 1 1 4 0\n"
                       "intr 12345 0 1 2\n"
                       "ctxt 99\n";
    long long busy = 0, total = 0;
    int ncpu = 0;
    assert_int_equal(d2_loadcap_parse_stat(text, &busy, &total, &ncpu), 0);
    assert_int_equal(busy, 100 + 5 + 50 + 3 + 2 + 1); /* user nice system irq softirq steal */
    assert_int_equal(total, busy + 1000 + 20);        /* + idle iowait */
    assert_int_equal(ncpu, 2);
    /* an old kernel's four fields still parse */
    assert_int_equal(d2_loadcap_parse_stat("cpu 1 2 3 4\ncpu0 1 2 3 4\n", &busy, &total, &ncpu), 0);
    assert_int_equal(busy, 6);
    assert_int_equal(total, 10);
    assert_int_equal(ncpu, 1);
    /* not /proc/stat */
    assert_int_equal(d2_loadcap_parse_stat("intr 1 2 3\n", &busy, &total, &ncpu), -1);
    assert_int_equal(d2_loadcap_parse_stat("cpu 1 2\ncpu0 1 2\n", &busy, &total, &ncpu), -1);
    assert_int_equal(d2_loadcap_parse_stat("cpu 1 2 3 4\n", &busy, &total, &ncpu), -1);
    assert_int_equal(d2_loadcap_parse_stat("", &busy, &total, &ncpu), -1);
}

static void test_decide(void **state)
{
    (void)state;
    assert_int_equal(d2_loadcap_decide(2, 0.1, 2), 2);  /* idle machine: as asked */
    assert_int_equal(d2_loadcap_decide(2, 0.4, 2), 2);
    assert_int_equal(d2_loadcap_decide(2, 0.6, 2), 1);  /* most of a core busy elsewhere */
    assert_int_equal(d2_loadcap_decide(2, 1.0, 2), 1);
    assert_int_equal(d2_loadcap_decide(2, 5.0, 2), 1);  /* never below one */
    assert_int_equal(d2_loadcap_decide(8, 2.2, 8), 6);
    assert_int_equal(d2_loadcap_decide(4, 1.0, 8), 4);  /* enough idle cores left */
    assert_int_equal(d2_loadcap_decide(3, 0.0, 2), 2);  /* no more than the cores */
    assert_int_equal(d2_loadcap_decide(2, -0.3, 2), 2); /* jiffy rounding below zero */
    assert_int_equal(d2_loadcap_decide(1, 0.0, 2), 1);
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* With a busy process on every core, a run asking for as many threads as there are cores
 * gets one (DY2ST_ADAPT_THREADS=1 and DY2ST_NUM_THREADS are set in main). */
static void test_capped_when_busy(void **state)
{
    (void)state;
    FILE *f = fopen("/proc/stat", "r");
    if (!f) {
        skip();
        return;
    }
    char buf[16384];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    long long busy, total;
    int ncpu = 0;
    cpu_set_t set;
    /* the busy processes can cover every core only when this process may run on all of them */
    if (d2_loadcap_parse_stat(buf, &busy, &total, &ncpu) != 0 || ncpu > 8 ||
        sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) != ncpu) {
        skip();
        return;
    }
    assert_true(d2_loadcap_enabled());
    int want = atoi(getenv("DY2ST_NUM_THREADS")); /* set in main, above every core count here */
    pid_t kids[8];
    for (int i = 0; i < ncpu; i++) {
        kids[i] = fork();
        assert_true(kids[i] >= 0);
        if (kids[i] == 0) {
            alarm(10); /* whatever happens to the test, the loop ends */
            for (volatile unsigned long x = 0;; x++)
                ;
        }
    }
    sleep_s(0.05);
    int first = d2_gemm_threads(); /* a first snapshot, with the load running */
    sleep_s(0.3);
    int got = d2_gemm_threads();
    for (int i = 0; i < ncpu; i++) {
        kill(kids[i], SIGKILL);
        waitpid(kids[i], NULL, 0);
    }
    assert_int_equal(first, want); /* nothing measured yet: as asked */
    assert_int_equal(got, 1);
    /* a single thread is never touched */
    d2_gemm_set_run_threads(1);
    assert_int_equal(d2_gemm_threads(), 1);
    d2_gemm_set_run_threads(0);
}

int main(void)
{
    char want[24];
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(want, sizeof want, "%ld", (ncpu > 8 ? ncpu : 8) + 2);
    setenv("DY2ST_ADAPT_THREADS", "1", 1);
    setenv("DY2ST_NUM_THREADS", want, 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_decide),
        cmocka_unit_test(test_capped_when_busy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
