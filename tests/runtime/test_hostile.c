/* test_hostile.c - the hostile saved models of tests/hostile through the C API: clean errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dy2st/dy2st.h"

#define HOSTILE_DIR D2_SRCDIR "/tests/hostile"

/* Reads the case's expect file: mode and needle (newlines stripped). */
static void read_expect(const char *dir, char mode[64], char needle[512])
{
    char path[1200];
    snprintf(path, sizeof path, "%s/expect", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(mode, 64, f));
    if (!fgets(needle, 512, f))
        needle[0] = 0;
    fclose(f);
    mode[strcspn(mode, "\n")] = 0;
    needle[strcspn(needle, "\n")] = 0;
}

/* One case: loading fails (mode load), or running fails (mode run), with a
 * status whose message holds the needle; the outputs stay NULL. */
static void run_case(const char *name)
{
    char dir[1024], path[1200], mode[64], needle[512];
    snprintf(dir, sizeof dir, "%s/%s", HOSTILE_DIR, name);
    read_expect(dir, mode, needle);
    snprintf(path, sizeof path, "%s/model.d2m", dir);
    dy2st_status st = {0};
    dy2st_model *m = dy2st_model_load(path, "cpu", &st);
    if (strcmp(mode, "load") == 0) {
        assert_null(m);
        assert_int_not_equal(st.code, 0);
        if (!strstr(st.message, needle))
            fail_msg("%s: '%s' does not contain '%s'", name, st.message, needle);
        return;
    }
    if (!m)
        fail_msg("%s: load failed: %s", name, st.message);
    if (strcmp(mode, "run") == 0) {
        int ni = dy2st_model_num_inputs(m), no = dy2st_model_num_outputs(m);
        dy2st_tensor *in[8] = {0}, *out[8];
        assert_true(ni <= 8 && no <= 8);
        for (int i = 0; i < ni; i++) {
            snprintf(path, sizeof path, "%s/%s.npy", dir, dy2st_model_input_name(m, i));
            in[i] = dy2st_tensor_load_npy(path, &st);
            if (!in[i])
                fail_msg("%s: %s", name, st.message);
        }
        for (int i = 0; i < no; i++)
            out[i] = (dy2st_tensor *)1; /* must be overwritten with NULL */
        assert_int_not_equal(dy2st_model_run(m, in, ni, out, no, &st), 0);
        assert_int_not_equal(st.code, 0);
        if (!strstr(st.message, needle))
            fail_msg("%s: '%s' does not contain '%s'", name, st.message, needle);
        for (int i = 0; i < no; i++)
            assert_null(out[i]);
        for (int i = 0; i < ni; i++)
            dy2st_tensor_free(in[i]);
    } else {
        assert_string_equal(mode, "load-only");
    }
    dy2st_model_free(m);
}

static void test_every_case(void **state)
{
    (void)state;
    DIR *d = opendir(HOSTILE_DIR);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        run_case(e->d_name);
        n++;
    }
    closedir(d);
    assert_true(n >= 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_case),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
