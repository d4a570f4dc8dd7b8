/* test_lazylib.c - oneDNN and LAPACKE are not loaded at start, and are opened and used on their first call.
 * Sanitizer builds (D2_LINKED_AT_START) link both as usual, so there they are loaded from the start. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <link.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include <lapacke.h>
#ifdef DY2ST_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>
#endif

static int find_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    const char **want = data;
    if (info->dlpi_name && strstr(info->dlpi_name, *want)) {
        *want = NULL;
        return 1;
    }
    return 0;
}

/* Whether a shared object whose path contains name is loaded in this process. */
static bool loaded(const char *name)
{
    const char *want = name;
    dl_iterate_phdr(find_cb, &want);
    return want == NULL;
}

/* Runs first: nothing has called LAPACKE yet, so it is not loaded; a solve
 * opens it and gives x with A x = b. */
static void test_lapacke_opened_on_first_call(void **state)
{
    (void)state;
#ifdef D2_LINKED_AT_START
    assert_true(loaded("liblapacke"));
#else
    assert_false(loaded("liblapacke"));
#endif
    double a[4] = {4, 1, 2, 3}, b[2] = {1, 2}; /* row-major [[4, 1], [2, 3]] */
    const double a0[4] = {4, 1, 2, 3}, b0[2] = {1, 2};
    lapack_int ipiv[2];
    assert_int_equal(LAPACKE_dgesv(LAPACK_ROW_MAJOR, 2, 1, a, 2, ipiv, b, 1), 0);
    for (int i = 0; i < 2; i++)
        assert_true(fabs(a0[2 * i] * b[0] + a0[2 * i + 1] * b[1] - b0[i]) < 1e-12);
    assert_true(loaded("liblapacke"));
}

static void test_dnnl_opened_on_first_call(void **state)
{
    (void)state;
#ifdef DY2ST_HAVE_DNNL
#ifdef D2_LINKED_AT_START
    assert_true(loaded("libdnnl"));
#else
    assert_false(loaded("libdnnl"));
#endif
    dnnl_memory_desc_t md;
    dnnl_dims_t dims = {2, 3, 4, 5};
    assert_int_equal(dnnl_memory_desc_init_by_tag(&md, 4, dims, dnnl_f32, dnnl_nchw), dnnl_success);
    assert_int_equal(dnnl_memory_desc_get_size(&md), 2 * 3 * 4 * 5 * sizeof(float));
    assert_true(loaded("libdnnl"));
#else
    skip();
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lapacke_opened_on_first_call),
        cmocka_unit_test(test_dnnl_opened_on_first_call),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
