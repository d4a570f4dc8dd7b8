/* replay.c - runs a fuzz target without libFuzzer: feeds it every file of the given corpora, optionally mutated. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Usage: replay [--mutate N] [--seed S] [--crash-dir DIR] PATH...
 *
 * Each PATH is a file or a directory whose regular files (not those whose
 * names start with '.') are taken in name order. Every file is passed to
 * the linked target's LLVMFuzzerTestOneInput once, in a buffer of exactly
 * its size so that sanitizers see any read past the end. With --mutate N,
 * each file is also passed N times with a few random edits (bit flips,
 * special bytes, insertions, deletions, truncation), from a generator seeded
 * with S (default 1), so a run is repeatable. When the process dies on a
 * signal or a sanitizer report, the input that killed it is written to
 * DIR/crash-<seed file>-<k> (DIR defaults to the current directory) and its
 * name printed, ready to be passed back as a PATH. */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

/* The input being run, for the crash handlers. */
static const char *cur_name;
static long cur_mutation = -1;
static const uint8_t *cur_data;
static size_t cur_size;
static const char *crash_dir = ".";

static uint64_t rng_state = 1;

/* xorshift64*: small, fast, and the same on every platform. */
static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}

static void put(const char *s)
{
    ssize_t r = write(2, s, strlen(s));
    (void)r;
}

/* Writes the current input to the crash directory. Uses only
 * async-signal-safe calls: it runs from signal handlers. */
static void save_crash(void)
{
    static int saved;
    if (!cur_name || saved)
        return;
    saved = 1;
    put("replay: crashed on ");
    put(cur_name);
    if (cur_mutation < 0) {
        put("\n");
        return;
    }
    char num[24], path[4096];
    int k = 0;
    unsigned long m = (unsigned long)cur_mutation;
    char rev[24];
    do {
        rev[k++] = (char)('0' + m % 10);
        m /= 10;
    } while (m);
    for (int i = 0; i < k; i++)
        num[i] = rev[k - 1 - i];
    num[k] = '\0';
    const char *base = strrchr(cur_name, '/');
    base = base ? base + 1 : cur_name;
    size_t n = 0;
    const char *parts[] = {crash_dir, "/crash-", base, "-", num};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        size_t l = strlen(parts[i]);
        if (n + l >= sizeof path)
            return;
        memcpy(path + n, parts[i], l);
        n += l;
    }
    path[n] = '\0';
    put(", mutation ");
    put(num);
    put("; input saved as ");
    put(path);
    put("\n");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return;
    size_t off = 0;
    while (off < cur_size) {
        ssize_t w = write(fd, cur_data + off, cur_size - off);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    close(fd);
}

static void on_signal(int sig)
{
    save_crash();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Reads a whole file into a buffer of exactly its size (one byte for an
 * empty file). The caller frees it. */
static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *buf = NULL;
    size_t n = 0;
    if (fseek(f, 0, SEEK_END) == 0) {
        long end = ftell(f);
        if (end >= 0 && fseek(f, 0, SEEK_SET) == 0) {
            n = (size_t)end;
            buf = malloc(n ? n : 1);
            if (buf && fread(buf, 1, n, f) != n) {
                free(buf);
                buf = NULL;
            }
        }
    }
    fclose(f);
    *size = n;
    return buf;
}

static void run(const char *name, long mutation, const uint8_t *data, size_t size)
{
    cur_name = name;
    cur_mutation = mutation;
    cur_data = data;
    cur_size = size;
    LLVMFuzzerTestOneInput(data, size);
}

/* Applies 1 to 4 random edits to buf (len bytes, capacity cap); returns the
 * new length. */
static size_t mutate(uint8_t *buf, size_t len, size_t cap)
{
    static const uint8_t special[] = {0x00, 0x01, 0x7f, 0x80, 0xff, '0', '9', '\n', '"', '[', ',', ':', '(', ')', '-'};
    int edits = 1 + (int)(rng() % 4);
    for (int e = 0; e < edits; e++) {
        size_t pos = len ? (size_t)(rng() % len) : 0;
        switch (rng() % 6) {
        case 0: /* flip a bit */
            if (len)
                buf[pos] ^= (uint8_t)(1u << (rng() % 8));
            break;
        case 1: /* a random byte */
            if (len)
                buf[pos] = (uint8_t)rng();
            break;
        case 2: /* a byte parsers care about */
            if (len)
                buf[pos] = special[rng() % sizeof special];
            break;
        case 3: /* insert a byte */
            if (len < cap) {
                memmove(buf + pos + 1, buf + pos, len - pos);
                buf[pos] = special[rng() % sizeof special];
                len++;
            }
            break;
        case 4: /* delete a run */
            if (len) {
                size_t del = 1 + (size_t)(rng() % 8);
                if (del > len - pos)
                    del = len - pos;
                memmove(buf + pos, buf + pos + del, len - pos - del);
                len -= del;
            }
            break;
        default: /* truncate */
            len = pos;
            break;
        }
    }
    return len;
}

/* Runs one corpus file and its mutations; returns 0, or -1 if unreadable. */
static int run_file(const char *path, long mutations)
{
    size_t size;
    uint8_t *seed = read_file(path, &size);
    if (!seed) {
        fprintf(stderr, "replay: cannot read %s: %s\n", path, strerror(errno));
        return -1;
    }
    uint8_t *exact = malloc(size ? size : 1);
    if (!exact) {
        free(seed);
        return -1;
    }
    memcpy(exact, seed, size);
    run(path, -1, exact, size);
    free(exact);

    size_t cap = size + 64;
    uint8_t *work = malloc(cap);
    for (long m = 0; work && m < mutations; m++) {
        memcpy(work, seed, size);
        size_t len = mutate(work, size, cap);
        /* copy into a buffer of exactly len bytes so overreads are caught */
        uint8_t *in = malloc(len ? len : 1);
        if (!in)
            break;
        memcpy(in, work, len);
        run(path, m, in, len);
        free(in);
    }
    free(work);
    free(seed);
    cur_name = NULL;
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every regular file of dir in name order; counts them into *count. */
static int run_dir(const char *dir, long mutations, long *count)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "replay: cannot open %s: %s\n", dir, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        if (ent->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(names, cap * sizeof *names);
            if (!nn) {
                rc = -1;
                break;
            }
            names = nn;
        }
        size_t l = strlen(dir) + strlen(ent->d_name) + 2;
        names[n] = malloc(l);
        if (!names[n]) {
            rc = -1;
            break;
        }
        snprintf(names[n], l, "%s/%s", dir, ent->d_name);
        n++;
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp_names);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (rc == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            if (run_file(names[i], mutations) != 0)
                rc = -1;
            (*count)++;
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    long mutations = 0;
    int first = 1;
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    while (first < argc && strncmp(argv[first], "--", 2) == 0) {
        const char *opt = argv[first];
        if (strcmp(opt, "--") == 0) {
            first++;
            break;
        }
        if (first + 1 >= argc) {
            fprintf(stderr, "replay: %s needs a value\n", opt);
            return 2;
        }
        const char *val = argv[first + 1];
        char *end;
        if (strcmp(opt, "--mutate") == 0) {
            mutations = strtol(val, &end, 10);
            if (*end || mutations < 0) {
                fprintf(stderr, "replay: bad --mutate '%s'\n", val);
                return 2;
            }
        } else if (strcmp(opt, "--seed") == 0) {
            rng_state = strtoull(val, &end, 10);
            if (*end || rng_state == 0) {
                fprintf(stderr, "replay: bad --seed '%s' (a positive integer)\n", val);
                return 2;
            }
        } else if (strcmp(opt, "--crash-dir") == 0) {
            crash_dir = val;
        } else {
            fprintf(stderr, "replay: unknown option '%s'\n", opt);
            return 2;
        }
        first += 2;
    }
    if (first >= argc) {
        fprintf(stderr, "usage: %s [--mutate N] [--seed S] [--crash-dir DIR] PATH...\n", argv[0]);
        return 2;
    }
    if (__sanitizer_set_death_callback)
        __sanitizer_set_death_callback(save_crash);
    signal(SIGSEGV, on_signal);
    signal(SIGBUS, on_signal);
    signal(SIGFPE, on_signal);
    signal(SIGILL, on_signal);
    signal(SIGABRT, on_signal);

    int rc = 0;
    long count = 0;
    for (int i = first; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
            rc = 1;
        } else if (S_ISDIR(st.st_mode)) {
            if (run_dir(argv[i], mutations, &count) != 0)
                rc = 1;
        } else {
            if (run_file(argv[i], mutations) != 0)
                rc = 1;
            count++;
        }
    }
    printf("replay: %ld inputs (%ld mutations each)\n", count, mutations);
    return rc;
}
