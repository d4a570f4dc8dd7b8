/* run_model.c - sample program: load a dy2st model through the public C API and run it.
 *
 *   run_model MODEL [NAME=FILE.npy | FILE.npy]...
 *
 * Prints the model's inputs and outputs, builds each input from the given
 * .npy file (NAME=FILE, or plain FILEs in input order) or, when none is
 * given, from zeros (dynamic dims taken as 1), runs the model and prints each
 * output. Uses nothing but <dy2st/dy2st.h>.
 */
#include <dy2st/dy2st.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_decl(const char *name, dy2st_dtype dt, int ndim, const int64_t *shape)
{
    printf("  %s: %s[", name, dy2st_dtype_name(dt));
    for (int d = 0; d < ndim; d++)
        printf("%s%lld", d ? "," : "", (long long)shape[d]);
    printf("]\n");
}

static void print_tensor(const char *name, const dy2st_tensor *t)
{
    int64_t shape[DY2ST_MAX_DIMS];
    int nd = dy2st_tensor_ndim(t);
    for (int d = 0; d < nd; d++)
        shape[d] = dy2st_tensor_dim(t, d);
    print_decl(name, dy2st_tensor_dtype(t), nd, shape);
    int64_t n = dy2st_tensor_numel(t), show = n < 10 ? n : 10;
    const void *data = dy2st_tensor_data(t);
    printf("    [");
    for (int64_t i = 0; i < show; i++) {
        if (i)
            printf(", ");
        switch (dy2st_tensor_dtype(t)) {
        case DY2ST_FLOAT32: printf("%g", ((const float *)data)[i]); break;
        case DY2ST_FLOAT64: printf("%g", ((const double *)data)[i]); break;
        case DY2ST_INT32: printf("%d", (int)((const int32_t *)data)[i]); break;
        case DY2ST_INT64: printf("%lld", (long long)((const int64_t *)data)[i]); break;
        case DY2ST_BOOL: printf("%s", ((const unsigned char *)data)[i] ? "true" : "false"); break;
        default: printf("?"); break;
        }
    }
    printf("%s]\n", n > show ? ", ..." : "");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s MODEL [NAME=FILE.npy | FILE.npy]...\n", argv[0]);
        return 2;
    }
    dy2st_status st = {0};
    dy2st_model *m = dy2st_model_load(argv[1], NULL, &st);
    if (!m) {
        fprintf(stderr, "run_model: %s\n", dy2st_status_message(&st));
        return 1;
    }
    int n_in = dy2st_model_num_inputs(m), n_out = dy2st_model_num_outputs(m);
    int rc = 1;
    dy2st_tensor **in = calloc((size_t)n_in + 1, sizeof *in);
    dy2st_tensor **out = calloc((size_t)n_out + 1, sizeof *out);
    if (!in || !out) {
        fprintf(stderr, "run_model: out of memory\n");
        goto done;
    }

    printf("dy2st %s, model %s\ninputs:\n", dy2st_version(), argv[1]);
    for (int i = 0; i < n_in; i++) {
        dy2st_dtype dt;
        int64_t shape[DY2ST_MAX_DIMS];
        int nd = dy2st_model_input_info(m, i, &dt, shape);
        print_decl(dy2st_model_input_name(m, i), dt, nd, shape);
    }
    printf("outputs:\n");
    for (int i = 0; i < n_out; i++) {
        dy2st_dtype dt;
        int64_t shape[DY2ST_MAX_DIMS];
        int nd = dy2st_model_output_info(m, i, &dt, shape);
        print_decl(dy2st_model_output_name(m, i), dt, nd, shape);
    }

    /* inputs from the command line */
    for (int a = 2, next = 0; a < argc; a++) {
        const char *eq = strchr(argv[a], '=');
        int idx = next;
        const char *file = argv[a];
        if (eq) {
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)(eq - argv[a]), argv[a]);
            idx = dy2st_model_input_index(m, name);
            file = eq + 1;
            if (idx < 0) {
                fprintf(stderr, "run_model: the model has no input named '%s'\n", name);
                goto done;
            }
        } else {
            next++;
        }
        if (idx >= n_in) {
            fprintf(stderr, "run_model: more files than the model's %d inputs\n", n_in);
            goto done;
        }
        dy2st_tensor_free(in[idx]);
        in[idx] = dy2st_tensor_load_npy(file, &st);
        if (!in[idx]) {
            fprintf(stderr, "run_model: %s\n", dy2st_status_message(&st));
            goto done;
        }
    }
    /* zeros for the rest */
    for (int i = 0; i < n_in; i++) {
        if (in[i])
            continue;
        dy2st_dtype dt;
        int64_t shape[DY2ST_MAX_DIMS];
        int nd = dy2st_model_input_info(m, i, &dt, shape);
        for (int d = 0; d < nd; d++)
            if (shape[d] < 0)
                shape[d] = 1;
        in[i] = dy2st_tensor_new(dt, nd, shape, NULL, &st);
        if (!in[i]) {
            fprintf(stderr, "run_model: %s\n", dy2st_status_message(&st));
            goto done;
        }
    }

    if (dy2st_model_run(m, in, n_in, out, n_out, &st) != 0) {
        fprintf(stderr, "run_model: %s\n", dy2st_status_message(&st));
        goto done;
    }
    printf("results:\n");
    for (int i = 0; i < n_out; i++)
        print_tensor(dy2st_model_output_name(m, i), out[i]);
    rc = 0;
done:
    for (int i = 0; in && i < n_in; i++)
        dy2st_tensor_free(in[i]);
    for (int i = 0; out && i < n_out; i++)
        dy2st_tensor_free(out[i]);
    free(in);
    free(out);
    dy2st_model_free(m);
    return rc;
}
