/* test_ops_nn.c - nn ops and GEMM: golden NumPy cases on every kernel set, GEMM API, errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpu/gemm.h"
#include "opcase.h"
#include "ops.h"
#include "../testutil.h"

#define GOLDEN D2_SRCDIR "/tests/golden/ops_nn.txt"

static const char *self_path;

static int setup(void **state)
{
    (void)state;
    d2_err err = {0};
    return d2_ops_init(&err);
}

/* Every small float32 shape d2_gemm computes without BLIS (blocks of 6 rows by 32 columns,
 * masked edges, packed transposed B) against a double-precision loop: m and n on both sides
 * of the block sizes, transposed operands, alpha and beta, and a C wider than the product
 * whose padding must stay untouched. Tolerance: 1e-5 of the sum of |a*b| (float32 rounding). */
static void test_gemm_small_shapes(void **state)
{
    (void)state;
    const int64_t ms[] = {1, 5, 6, 7, 13}, ns[] = {1, 15, 16, 17, 31, 32, 33, 70},
                  ks[] = {1, 3, 32};
    const double abs_[][2] = {{1, 0}, {0.5, 0.25}};
    float *a = malloc(sizeof(float) * 13 * 32), *b = malloc(sizeof(float) * 32 * 70);
    float *c = malloc(sizeof(float) * 13 * 75);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(c);
    for (int i = 0; i < 13 * 32; i++)
        a[i] = (float)((i * 37 % 23) - 11) / 8;
    for (int i = 0; i < 32 * 70; i++)
        b[i] = (float)((i * 53 % 29) - 14) / 16;
    int checked = 0;
    for (size_t im = 0; im < 5; im++)
        for (size_t in = 0; in < 8; in++)
            for (size_t ik = 0; ik < 3; ik++)
                for (int t = 0; t < 4; t++)
                    for (int s = 0; s < 2; s++) {
                        int64_t m = ms[im], n = ns[in], k = ks[ik], ldc = n + 5;
                        bool ta = t & 1, tb = t & 2;
                        int64_t lda = ta ? m : k, ldb = tb ? k : n;
                        double alpha = abs_[s][0], beta = abs_[s][1];
                        for (int i = 0; i < 13 * 75; i++)
                            c[i] = (float)(i % 7) - 3;
                        d2_err err = {0};
                        assert_int_equal(d2_gemm(D2_F32, ta, tb, m, n, k, alpha, a, lda, b, ldb,
                                                 beta, c, ldc, &err), 0);
                        for (int64_t i = 0; i < m; i++)
                            for (int64_t j = 0; j < ldc; j++) {
                                double c0 = (double)((i * ldc + j) % 7) - 3;
                                double got = c[i * ldc + j];
                                if (j >= n) {
                                    if (got != c0)
                                        fail_msg("%lldx%lldx%lld t%d: padding C[%lld,%lld] "
                                                 "changed", (long long)m, (long long)n,
                                                 (long long)k, t, (long long)i, (long long)j);
                                    continue;
                                }
                                double want = 0, mag = 0;
                                for (int64_t q = 0; q < k; q++) {
                                    double x = a[ta ? q * lda + i : i * lda + q];
                                    double y = b[tb ? j * ldb + q : q * ldb + j];
                                    want += x * y;
                                    mag += fabs(x * y);
                                }
                                want = alpha * want + beta * c0;
                                if (fabs(got - want) > 1e-5 * (mag + fabs(c0)) + 1e-30)
                                    fail_msg("%lldx%lldx%lld ta=%d tb=%d alpha=%g beta=%g: "
                                             "C[%lld,%lld] = %.9g, want %.9g", (long long)m,
                                             (long long)n, (long long)k, ta, tb, alpha, beta,
                                             (long long)i, (long long)j, got, want);
                            }
                        checked++;
                    }
    assert_int_equal(checked, 5 * 8 * 3 * 4 * 2);
    free(a);
    free(b);
    free(c);
}

static void test_golden(void **state)
{
    (void)state;
    int n = 0;
    assert_int_equal(opcase_run_file(NULL, GOLDEN, &n), 0);
    assert_true(n >= 150);
}

/* The same cases with two GEMM threads: BLIS's threaded paths and the
 * across-the-batch path of d2_gemm_batched. */
static void test_golden_two_threads(void **state)
{
    (void)state;
    int before = d2_gemm_threads();
    d2_gemm_set_threads(2);
    assert_int_equal(d2_gemm_threads(), 2);
    int n = 0;
    int failures = opcase_run_file(NULL, GOLDEN, &n);
    d2_gemm_set_threads(0);
    assert_int_equal(failures, 0);
    assert_int_equal(d2_gemm_threads(), before);
}

/* Child mode (see main): checks the kernel set and thread count the
 * environment asked for, then runs the golden cases. Exit status 0 = pass. */
static int child_main(const char *want_arch, int want_threads)
{
    d2_err err = {0};
    if (d2_ops_init(&err) < 0)
        return 10;
    if (strcmp(d2_gemm_arch_name(), want_arch) != 0) {
        fprintf(stderr, "kernel set %s, expected %s (%s)\n", d2_gemm_arch_name(), want_arch,
                d2_gemm_arch_reason());
        return 11;
    }
    if (d2_gemm_threads() != want_threads) {
        fprintf(stderr, "%d threads, expected %d\n", d2_gemm_threads(), want_threads);
        return 12;
    }
    int n = 0;
    return opcase_run_file(NULL, GOLDEN, &n) == 0 && n > 0 ? 0 : 13;
}

/* Runs this program in child mode with DY2ST_BLIS_ARCH=env_arch and
 * DY2ST_NUM_THREADS=threads; returns its exit status. */
static int run_child(const char *env_arch, const char *want_arch, const char *threads)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setenv("DY2ST_BLIS_ARCH", env_arch, 1);
        setenv("DY2ST_NUM_THREADS", threads, 1);
        execl(self_path, self_path, "--child", want_arch, threads, (char *)NULL);
        _exit(99);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

/* Every kernel set this CPU can run gives the golden results, and an
 * override naming kernels the CPU cannot run falls back to the best set. */
static void test_every_kernel_set(void **state)
{
    (void)state;
    int tried = 0;
    for (int a = 0; a < D2_GEMM_NUM_ARCHS; a++) {
        if (!d2_gemm_arch_supported((d2_gemm_arch)a))
            continue;
        const char *name = d2_gemm_arch_str((d2_gemm_arch)a);
        int rc = run_child(name, name, a == D2_GEMM_ARCH_GENERIC ? "2" : "1");
        if (rc != 0)
            fail_msg("kernel set %s: child exit status %d", name, rc);
        tried++;
    }
    assert_true(tried >= 1);
    if (!d2_gemm_arch_supported(D2_GEMM_ARCH_SKX)) {
        d2_gemm_arch best = d2_gemm_arch_current();
        assert_int_equal(run_child("skx", d2_gemm_arch_str(best), "1"), 0);
    }
    assert_int_equal(run_child("no-such-kernels", d2_gemm_arch_name(), "1"), 0);
}

/* /proc/cpuinfo (independent of cpuid) says whether the AVX-512 kernels must be chosen. */
static void test_arch_detection(void **state)
{
    (void)state;
    const char *env = getenv("DY2ST_BLIS_ARCH");
    if (env && *env)
        skip();
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        skip();
    char line[8192];
    bool avx512 = false, seen = false;
    while (!seen && fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) != 0)
            continue;
        seen = true;
        avx512 = strstr(line, " avx512f") && strstr(line, " avx512dq") &&
                 strstr(line, " avx512bw") && strstr(line, " avx512vl");
    }
    fclose(f);
    if (!seen)
        skip();
    assert_int_equal(d2_gemm_arch_supported(D2_GEMM_ARCH_SKX), avx512);
    if (avx512)
        assert_string_equal(d2_gemm_arch_name(), "skx");
    else
        assert_string_not_equal(d2_gemm_arch_name(), "skx");
    assert_true(d2_gemm_arch_supported(d2_gemm_arch_current()));
    assert_non_null(d2_gemm_arch_reason());
    if (d2_gemm_arch_current() != D2_GEMM_ARCH_BLIS)
        assert_non_null(d2_gemm_blis_cntx(d2_gemm_arch_current()));
    assert_null(d2_gemm_blis_cntx(D2_GEMM_ARCH_BLIS));
    for (int a = 0; a < D2_GEMM_NUM_ARCHS; a++)
        assert_int_equal(d2_gemm_arch_parse(d2_gemm_arch_str((d2_gemm_arch)a)), a);
    assert_int_equal(d2_gemm_arch_parse("knl"), -1);
    assert_null(d2_gemm_arch_str(D2_GEMM_NUM_ARCHS));
}

/* Naive reference for the GEMM API tests (row-major, strided operands). */
static double ref_at(const double *a, int64_t lda, bool t, int64_t i, int64_t p)
{
    return t ? a[p * lda + i] : a[i * lda + p];
}

/* Checks d2_gemm on m x n x k with padded leading dims, both transposes,
 * alpha and beta, in float64 and float32 (integer-valued data: exact). */
static void check_gemm(int64_t m, int64_t n, int64_t k, bool ta, bool tb, double alpha, double beta)
{
    int64_t lda = (ta ? m : k) + 3, ldb = (tb ? k : n) + 2, ldc = n + 5;
    int64_t ra = ta ? k : m, rb = tb ? n : k;
    double *a = calloc((size_t)(ra * lda), sizeof *a), *b = calloc((size_t)(rb * ldb), sizeof *b);
    double *c = calloc((size_t)(m * ldc), sizeof *c), *want = calloc((size_t)(m * ldc), sizeof *c);
    float *af = calloc((size_t)(ra * lda), sizeof *af);
    float *bf = calloc((size_t)(rb * ldb), sizeof *bf);
    float *cf = calloc((size_t)(m * ldc), sizeof *cf);
    assert_true(a && b && c && want && af && bf && cf);
    for (int64_t i = 0; i < ra * lda; i++)
        af[i] = (float)(a[i] = (double)((i * 7) % 11) - 5);
    for (int64_t i = 0; i < rb * ldb; i++)
        bf[i] = (float)(b[i] = (double)((i * 5) % 9) - 4);
    for (int64_t i = 0; i < m * ldc; i++)
        cf[i] = (float)(c[i] = want[i] = (double)(i % 5) - 2);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double s = 0;
            for (int64_t p = 0; p < k; p++)
                s += ref_at(a, lda, ta, i, p) * ref_at(b, ldb, tb, p, j);
            want[i * ldc + j] = alpha * s + beta * want[i * ldc + j];
        }
    d2_err err = {0};
    assert_int_equal(d2_gemm(D2_F64, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, &err),
                     0);
    assert_int_equal(d2_gemm(D2_F32, ta, tb, m, n, k, alpha, af, lda, bf, ldb, beta, cf, ldc, &err),
                     0);
    for (int64_t i = 0; i < m * ldc; i++) {
        if (c[i] != want[i] || (double)cf[i] != want[i])
            fail_msg("gemm %lldx%lldx%lld ta=%d tb=%d: element %lld is %g / %g, expected %g",
                     (long long)m, (long long)n, (long long)k, ta, tb, (long long)i, c[i],
                     (double)cf[i], want[i]);
    }
    free(a);
    free(b);
    free(c);
    free(want);
    free(af);
    free(bf);
    free(cf);
}

static void test_gemm_api(void **state)
{
    (void)state;
    static const int64_t sizes[][3] = {{1, 1, 1}, {5, 3, 1}, {1, 7, 4}, {6, 1, 9},  {17, 13, 11},
                                       {40, 3, 30}, {3, 50, 64}, {64, 70, 33}, {130, 97, 120}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int t = 0; t < 4; t++)
            check_gemm(sizes[s][0], sizes[s][1], sizes[s][2], t & 1, t & 2, t == 3 ? -2.0 : 1.0,
                       t == 1 ? 0.5 : t == 2 ? 1.0 : 0.0);
    check_gemm(4, 5, 0, false, false, 1.0, 0.5); /* k = 0 only scales C */
    check_gemm(4, 5, 6, false, true, 0.0, 2.0);  /* alpha = 0 only scales C */
}

/* beta = 0 overwrites C even where it held NaN. */
static void test_gemm_beta_zero_overwrites(void **state)
{
    (void)state;
    float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[4] = {NAN, NAN, NAN, NAN};
    d2_err err = {0};
    assert_int_equal(d2_gemm(D2_F32, false, false, 2, 2, 2, 1.0, a, 2, b, 2, 0.0, c, 2, &err), 0);
    for (int i = 0; i < 4; i++)
        assert_true(c[i] == a[i]);
    float z[4] = {NAN, NAN, NAN, NAN};
    assert_int_equal(d2_gemm(D2_F32, false, false, 2, 2, 0, 1.0, NULL, 1, NULL, 2, 0.0, z, 2, &err),
                     0);
    for (int i = 0; i < 4; i++)
        assert_true(z[i] == 0.0f);
}

/* Strided batches, with a shared (stride 0) operand, one thread and several. */
static void test_gemm_batched(void **state)
{
    (void)state;
    enum { B = 7, M = 5, N = 6, K = 4 };
    double a[B][M][K], b[K][N], c[B][M][N];
    for (int i = 0; i < B; i++)
        for (int r = 0; r < M; r++)
            for (int p = 0; p < K; p++)
                a[i][r][p] = (i * 3 + r * 5 + p) % 7 - 3;
    for (int p = 0; p < K; p++)
        for (int j = 0; j < N; j++)
            b[p][j] = (p * 2 + j) % 5 - 2;
    for (int threads = 1; threads <= 3; threads++) {
        d2_gemm_set_threads(threads);
        memset(c, 0, sizeof c);
        d2_err err = {0};
        assert_int_equal(d2_gemm_batched(D2_F64, false, false, M, N, K, 1.0, a, K, M * K, b, N, 0,
                                         0.0, c, N, M * N, B, &err),
                         0);
        for (int i = 0; i < B; i++)
            for (int r = 0; r < M; r++)
                for (int j = 0; j < N; j++) {
                    double s = 0;
                    for (int p = 0; p < K; p++)
                        s += a[i][r][p] * b[p][j];
                    assert_true(c[i][r][j] == s);
                }
    }
    d2_gemm_set_threads(0);
    /* attention's shape: float32, B transposed, every item tiny; the batch call gives each
     * item bit for bit what a single product gives */
    enum { H = 5, S = 6, D = 8 };
    float q[H][S][D], kk[H][S][D], got[H][S][S], want[S][S];
    for (int h = 0; h < H; h++)
        for (int r = 0; r < S; r++)
            for (int p = 0; p < D; p++) {
                q[h][r][p] = (float)((h * 7 + r * 3 + p) % 11 - 5) / 7.0f;
                kk[h][r][p] = (float)((h * 5 + r + p * 3) % 13 - 6) / 9.0f;
            }
    d2_err err = {0};
    assert_int_equal(d2_gemm_batched(D2_F32, false, true, S, S, D, 0.5, q, D, S * D, kk, D, S * D,
                                     0.0, got, S, S * S, H, &err),
                     0);
    for (int h = 0; h < H; h++) {
        assert_int_equal(d2_gemm(D2_F32, false, true, S, S, D, 0.5, q[h], D, kk[h], D, 0.0, want,
                                 S, &err),
                         0);
        assert_memory_equal(got[h], want, sizeof want);
        for (int r = 0; r < S; r++)
            for (int j = 0; j < S; j++) {
                double e = 0;
                for (int p = 0; p < D; p++)
                    e += (double)q[h][r][p] * kk[h][j][p];
                assert_true(fabs(0.5 * e - got[h][r][j]) < 1e-5);
            }
    }
}

static void test_gemm_errors(void **state)
{
    (void)state;
    float x[16] = {0};
    int32_t xi[4] = {0};
    d2_err err = {0};
    assert_int_equal(d2_gemm(D2_I32, false, false, 2, 2, 2, 1, xi, 2, xi, 2, 0, xi, 2, &err), -1);
    assert_int_equal(err.code, D2_ERR_DTYPE);
    assert_non_null(strstr(err.msg, "int32"));
    d2_err_clear(&err);
    assert_int_equal(d2_gemm(D2_F32, false, false, -1, 2, 2, 1, x, 2, x, 2, 0, x, 2, &err), -1);
    assert_non_null(strstr(err.msg, "negative size"));
    d2_err_clear(&err);
    assert_int_equal(d2_gemm(D2_F32, false, false, 2, 3, 4, 1, x, 3, x, 3, 0, x, 3, &err), -1);
    assert_non_null(strstr(err.msg, "leading dimension"));
    d2_err_clear(&err);
    assert_int_equal(d2_gemm(D2_F32, true, false, 3, 2, 2, 1, x, 2, x, 2, 0, x, 2, &err), -1);
    assert_non_null(strstr(err.msg, "leading dimension"));
    d2_err_clear(&err);
    assert_int_equal(d2_gemm_batched(D2_F32, false, false, 2, 2, 2, 1, x, 2, 4, x, 2, 4, 0, x, 2, 3,
                                     2, &err),
                     -1);
    assert_non_null(strstr(err.msg, "overlap"));
    d2_err_clear(&err);
    assert_int_equal(d2_gemm_batched(D2_F32, false, false, 2, 2, 2, 1, x, 2, 4, x, 2, 4, 0, x, 2, 4,
                                     -1, &err),
                     -1);
    assert_non_null(strstr(err.msg, "negative"));
}

/* Static-mode inference with unknown (-1) dims. */
static void test_infer_dynamic(void **state)
{
    (void)state;
    d2_err err = {0};
    d2_type out;
    {
        int64_t xs[3] = {-1, -1, 4}, ys[2] = {4, 5}, want[3] = {-1, -1, 5};
        d2_type in[2] = {tu_ttype(D2_F32, 3, xs), tu_ttype(D2_F32, 2, ys)};
        assert_int_equal(tu_infer("matmul", "", in, 2, &out, &err), 0);
        tu_assert_shape(&out, D2_F32, 3, want);
    }
    {
        int64_t xs[3] = {2, 3, -1}, ys[3] = {-1, 7, 3}, want[3] = {2, 3, 7};
        d2_type in[2] = {tu_ttype(D2_F64, 3, xs), tu_ttype(D2_F64, 3, ys)};
        assert_int_equal(tu_infer("matmul", "transpose_y = true", in, 2, &out, &err), 0);
        tu_assert_shape(&out, D2_F64, 3, want);
    }
    {
        int64_t xs[2] = {-1, 8}, ws[2] = {8, 3}, bs[1] = {3}, want[2] = {-1, 3};
        d2_type in[3] = {tu_ttype(D2_F32, 2, xs), tu_ttype(D2_F32, 2, ws), tu_ttype(D2_F32, 1, bs)};
        assert_int_equal(tu_infer("linear", "", in, 3, &out, &err), 0);
        tu_assert_shape(&out, D2_F32, 2, want);
    }
    {
        int64_t xs[4] = {-1, 3, -1, 9}, ws[4] = {6, 3, 3, 3}, want[4] = {-1, 6, -1, 5};
        d2_type in[2] = {tu_ttype(D2_F32, 4, xs), tu_ttype(D2_F32, 4, ws)};
        assert_int_equal(
            tu_infer("conv2d", "strides = [2, 2], paddings = [1, 1]", in, 2, &out, &err), 0);
        tu_assert_shape(&out, D2_F32, 4, want);
    }
    {
        int64_t xs[4] = {-1, 3, -1, -1}, want[4] = {-1, 3, 4, 2};
        d2_type in[1] = {tu_ttype(D2_F32, 4, xs)};
        assert_int_equal(
            tu_infer("pool2d", "pooling_type = \"avg\", adaptive = true, ksize = [4, 2]", in, 1,
                     &out, &err),
            0);
        tu_assert_shape(&out, D2_F32, 4, want);
    }
    {
        int64_t xs[4] = {2, 3, -1, 10}, want[4] = {2, 3, -1, 4};
        d2_type in[1] = {tu_ttype(D2_F32, 4, xs)};
        assert_int_equal(tu_infer("pool2d", "ksize = [3, 3], strides = [3, 3], ceil_mode = true",
                                  in, 1, &out, &err),
                         0);
        tu_assert_shape(&out, D2_F32, 4, want);
    }
    {
        int64_t is[2] = {-1, 7}, ws[2] = {100, 16}, want[3] = {-1, 7, 16};
        d2_type in[2] = {tu_ttype(D2_I64, 2, is), tu_ttype(D2_F32, 2, ws)};
        assert_int_equal(tu_infer("embedding", "", in, 2, &out, &err), 0);
        tu_assert_shape(&out, D2_F32, 3, want);
    }
    {
        int64_t xs[3] = {-1, 5, 6}, vs[1] = {30};
        d2_type in[3] = {tu_ttype(D2_F32, 3, xs), tu_ttype(D2_F32, 1, vs), tu_ttype(D2_F32, 1, vs)};
        assert_int_equal(tu_infer("layer_norm", "begin_norm_axis = 1", in, 3, &out, &err), 0);
        tu_assert_shape(&out, D2_F32, 3, xs);
        d2_type bad[2] = {tu_ttype(D2_F32, 3, xs), tu_ttype(D2_F32, 1, xs + 1)};
        assert_int_equal(tu_infer("layer_norm", "begin_norm_axis = 1", bad, 2, &out, &err), -1);
        assert_int_equal(err.code, D2_ERR_SHAPE);
        d2_err_clear(&err);
    }
    {
        /* a dynamic inner dim defers the K check to run time */
        int64_t xs[2] = {3, -1}, ys[2] = {5, 2}, want[2] = {3, 2};
        d2_type in[2] = {tu_ttype(D2_F32, 2, xs), tu_ttype(D2_F32, 2, ys)};
        assert_int_equal(tu_infer("matmul", "", in, 2, &out, &err), 0);
        tu_assert_shape(&out, D2_F32, 2, want);
    }
}

/* An out-of-range id is a run-time error (D2_ERR_RUNTIME), not a crash. */
static void test_embedding_runtime_error(void **state)
{
    (void)state;
    d2_err err = {0};
    int64_t ids_v[3] = {0, 9, 1}, ish[1] = {3}, wsh[2] = {4, 2};
    float w_v[8] = {0};
    d2_tensor *in[2] = {d2_tensor_from_data(D2_I64, 1, ish, ids_v, &err),
                        d2_tensor_from_data(D2_F32, 2, wsh, w_v, &err)};
    d2_tensor *out = NULL;
    assert_int_equal(d2_op_run(NULL, D2_OP_embedding, NULL, in, 2, &out, 1, &err), -1);
    assert_int_equal(err.code, D2_ERR_RUNTIME);
    assert_non_null(strstr(err.msg, "embedding"));
    assert_non_null(strstr(err.msg, "id 9"));
    assert_null(out);
    d2_tensor_unref(in[0]);
    d2_tensor_unref(in[1]);
}

/* Runs conv2d (im2col path) and batched matmul with the k-th allocation
 * failing, for every k: each run fails cleanly with NOMEM or succeeds. */
static void test_out_of_memory(void **state)
{
    (void)state;
    int64_t xs[4] = {2, 2, 5, 5}, ws[4] = {3, 2, 3, 3}, ms[3] = {3, 4, 4};
    float xv[100], wv[54], mv[48];
    for (int i = 0; i < 100; i++)
        xv[i] = (float)(i % 7);
    for (int i = 0; i < 54; i++)
        wv[i] = (float)(i % 3) - 1;
    for (int i = 0; i < 48; i++)
        mv[i] = (float)(i % 5);
    d2_err err = {0};
    d2_tensor *x = d2_tensor_from_data(D2_F32, 4, xs, xv, &err);
    d2_tensor *w = d2_tensor_from_data(D2_F32, 4, ws, wv, &err);
    d2_tensor *m = d2_tensor_from_data(D2_F32, 3, ms, mv, &err);
    d2_attrs attrs, mattrs;
    assert_int_equal(d2_attrs_parse(d2_op_def(D2_OP_conv2d), "paddings = [1, 1]", &attrs, &err), 0);
    assert_int_equal(d2_attrs_parse(d2_op_def(D2_OP_matmul), "transpose_y = true", &mattrs, &err),
                     0);
    int successes = 0;
    for (long k = 0; k < 12; k++) {
        d2_tensor *in[2] = {x, w}, *min[2] = {m, m}, *out = NULL;
        d2_err_clear(&err);
        d2_alloc_fail_after(k);
        int rc = d2_op_run(NULL, D2_OP_conv2d, &attrs, in, 2, &out, 1, &err);
        d2_alloc_fail_after(-1);
        if (rc < 0) {
            assert_int_equal(err.code, D2_ERR_NOMEM);
            assert_null(out);
        } else {
            successes++;
        }
        d2_tensor_unref(out);
        out = NULL;
        d2_err_clear(&err);
        d2_alloc_fail_after(k);
        rc = d2_op_run(NULL, D2_OP_matmul, &mattrs, min, 2, &out, 1, &err);
        d2_alloc_fail_after(-1);
        if (rc < 0)
            assert_int_equal(err.code, D2_ERR_NOMEM);
        d2_tensor_unref(out);
    }
    assert_true(successes > 0);
    d2_attrs_free(&attrs);
    d2_attrs_free(&mattrs);
    d2_tensor_unref(x);
    d2_tensor_unref(w);
    d2_tensor_unref(m);
}

int main(int argc, char **argv)
{
    self_path = argv[0];
    if (argc == 4 && strcmp(argv[1], "--child") == 0)
        return child_main(argv[2], atoi(argv[3]));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_gemm_small_shapes),
        cmocka_unit_test(test_golden_two_threads),
        cmocka_unit_test(test_every_kernel_set),
        cmocka_unit_test(test_arch_detection),
        cmocka_unit_test(test_gemm_api),
        cmocka_unit_test(test_gemm_beta_zero_overwrites),
        cmocka_unit_test(test_gemm_batched),
        cmocka_unit_test(test_gemm_errors),
        cmocka_unit_test(test_infer_dynamic),
        cmocka_unit_test(test_embedding_runtime_error),
        cmocka_unit_test(test_out_of_memory),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
