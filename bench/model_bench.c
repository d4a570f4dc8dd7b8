/* model_bench.c - run latency of a saved model through the public C API, at a given batch. */
#include <dy2st/dy2st.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU seconds (user + system) this process has used, and its minor page faults. */
static double cpu_s(long *minflt)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    *minflt = ru.ru_minflt;
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* -n: times up to n single runs (stopping after 2 s), prints their median, 90th percentile,
 * maximum and mean and the CPU time per run; returns the exit status. */
static int single_runs(dy2st_model *m, dy2st_tensor **in, int ni, dy2st_tensor **out, int no,
                       int n, const char *name, int batch)
{
    double *t = malloc((size_t)n * sizeof *t);
    if (!t) {
        fprintf(stderr, "model_bench: out of memory\n");
        return 1;
    }
    dy2st_status st = {0};
    long f0, f1;
    double c0 = cpu_s(&f0), start = now();
    int done = 0;
    while (done < n && (done < 3 || now() - start < 2.0)) {
        double a = now();
        int rc = dy2st_model_run(m, in, ni, out, no, &st);
        t[done] = (now() - a) * 1e6;
        if (rc != 0) {
            fprintf(stderr, "model_bench: %s\n", dy2st_status_message(&st));
            free(t);
            return 1;
        }
        for (int j = 0; j < no; j++)
            dy2st_tensor_free(out[j]);
        done++;
    }
    double cpu = (cpu_s(&f1) - c0) / done * 1e6, mean = 0;
    for (int i = 0; i < done; i++)
        mean += t[i] / done;
    qsort(t, (size_t)done, sizeof t[0], cmp_double);
    printf("%s batch %d: single runs: %d, median %.1f, p90 %.1f, max %.1f, mean %.1f us; "
           "cpu %.1f us/run, %.1f page faults/run\n",
           name, batch, done, t[done / 2], t[done * 9 / 10], t[done - 1], mean, cpu,
           (double)(f1 - f0) / done);
    free(t);
    return 0;
}

/* usage: model_bench MODEL [-i IN.npy]... [-n RUNS] [BATCH [SAMPLES [SEQ]]]: with -i,
 * the inputs are read from those files (one per model input, in order; BATCH
 * then only labels the output line); without, every float32 input gets
 * deterministic values, the first dynamic dim of each input takes BATCH and the
 * others SEQ (default BATCH: transformer_encoder's sequence length); prints the median time per
 * run in microseconds over SAMPLES samples of at least 50 ms each, and over
 * all samples the CPU time per run (less disturbed than the wall clock on a
 * busy machine) and the minor page faults per run. With -n RUNS, it instead times RUNS
 * single runs one by one (fewer when they take more than 2 s in all), and prints their
 * median, 90th percentile, maximum and mean and the CPU time per run: how single requests fare,
 * stalls included, where a sample's mean would hide them. */
int main(int argc, char **argv)
{
    /* -i FILE.npy (repeatable): the model's inputs in order, instead of generated values */
    const char *files[16];
    int nfiles = 0, na = 1, single = 0;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "-n") == 0) {
            char *end = NULL;
            long v = a + 1 < argc ? strtol(argv[a + 1], &end, 10) : 0;
            if (!end || *end || v < 1 || v > 1000000) {
                fprintf(stderr, "model_bench: -n needs a run count from 1 to 1000000\n");
                return 2;
            }
            single = (int)v;
            a++;
        } else if (strcmp(argv[a], "-i") == 0) {
            if (a + 1 >= argc || nfiles == 16) {
                fprintf(stderr, "model_bench: -i needs a .npy file (at most 16)\n");
                return 2;
            }
            files[nfiles++] = argv[++a];
        } else {
            argv[na++] = argv[a];
        }
    }
    argc = na;
    if (argc < 2) {
        fprintf(stderr, "usage: model_bench MODEL [-i IN.npy]... [-n RUNS] [BATCH [SAMPLES [SEQ]]]\n");
        return 2;
    }
    int batch = argc > 2 ? atoi(argv[2]) : 1, samples = argc > 3 ? atoi(argv[3]) : 7;
    int seq = argc > 4 ? atoi(argv[4]) : batch;
    if (batch < 1 || samples < 1 || samples > 101 || seq < 1) {
        fprintf(stderr, "model_bench: bad batch or sample count\n");
        return 2;
    }
    dy2st_status st = {0};
    dy2st_model *m = dy2st_model_load(argv[1], "cpu", &st);
    if (!m) {
        fprintf(stderr, "model_bench: %s\n", dy2st_status_message(&st));
        return 1;
    }
    int ni = dy2st_model_num_inputs(m), no = dy2st_model_num_outputs(m);
    dy2st_tensor *in[16] = {0}, *out[16] = {0};
    if (ni > 16 || no > 16) {
        fprintf(stderr, "model_bench: too many inputs or outputs\n");
        return 1;
    }
    if (nfiles && nfiles != ni) {
        fprintf(stderr, "model_bench: the model has %d inputs, %d -i files given\n", ni, nfiles);
        dy2st_model_free(m);
        return 2;
    }
    for (int i = 0; i < nfiles; i++) {
        in[i] = dy2st_tensor_load_npy(files[i], &st);
        if (!in[i]) {
            fprintf(stderr, "model_bench: %s\n", dy2st_status_message(&st));
            for (int j = 0; j < i; j++)
                dy2st_tensor_free(in[j]);
            dy2st_model_free(m);
            return 1;
        }
    }
    for (int i = nfiles; i < ni; i++) {
        dy2st_dtype dt;
        int64_t shape[DY2ST_MAX_DIMS], n = 1;
        int nd = dy2st_model_input_info(m, i, &dt, shape);
        bool first = true;
        for (int d = 0; d < nd; d++) {
            if (shape[d] < 0) {
                shape[d] = first ? batch : seq;
                first = false;
            }
            n *= shape[d];
        }
        float *v = malloc((size_t)n * sizeof *v);
        for (int64_t j = 0; j < n; j++)
            v[j] = (float)((j * 7919) % 1000) / 1000.0f - 0.5f;
        in[i] = dy2st_tensor_new(dt, nd, shape, v, &st);
        free(v);
        if (!in[i]) {
            fprintf(stderr, "model_bench: %s\n", dy2st_status_message(&st));
            return 1;
        }
    }
    /* warm-up, and the number of runs that fill 50 ms */
    int reps = 0;
    double t0 = now();
    while (now() - t0 < 0.1 || reps < 3) {
        if (dy2st_model_run(m, in, ni, out, no, &st) != 0) {
            fprintf(stderr, "model_bench: %s\n", dy2st_status_message(&st));
            for (int i = 0; i < ni; i++)
                dy2st_tensor_free(in[i]);
            dy2st_model_free(m);
            return 1;
        }
        for (int j = 0; j < no; j++)
            dy2st_tensor_free(out[j]);
        reps++;
    }
    if (single) {
        int rc = single_runs(m, in, ni, out, no, single, argv[1], batch);
        for (int i = 0; i < ni; i++)
            dy2st_tensor_free(in[i]);
        dy2st_model_free(m);
        return rc;
    }
    int per = (int)(reps * 0.05 / (now() - t0)) + 1;
    double t[101];
    long f0, f1;
    double c0 = cpu_s(&f0);
    for (int s = 0; s < samples; s++) {
        double a = now();
        for (int r = 0; r < per; r++) {
            dy2st_model_run(m, in, ni, out, no, &st);
            for (int j = 0; j < no; j++)
                dy2st_tensor_free(out[j]);
        }
        t[s] = (now() - a) / per * 1e6;
    }
    double cpu = (cpu_s(&f1) - c0) / ((double)per * samples) * 1e6;
    qsort(t, (size_t)samples, sizeof t[0], cmp_double);
    printf("%s batch %d: median %.1f us/run (min %.1f, max %.1f, %d runs per sample); "
           "cpu %.1f us/run, %.1f page faults/run\n",
           argv[1], batch, t[samples / 2], t[0], t[samples - 1], per, cpu,
           (double)(f1 - f0) / ((double)per * samples));
    for (int i = 0; i < ni; i++)
        dy2st_tensor_free(in[i]);
    dy2st_model_free(m);
    return 0;
}
