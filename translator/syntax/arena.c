/* arena.c - bump allocator in big chunks, all freed at once. */
#include "syntax/arena.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base.h"

#define CHUNK_SIZE (64 * 1024)
#define ALIGN (_Alignof(max_align_t))

typedef struct chunk {
    struct chunk *next;
    size_t size, used; /* bytes of data[] */
    max_align_t data[];
} chunk;

struct d2_arena {
    chunk *head; /* the chunk being filled; older chunks follow */
    void *last;  /* the most recent allocation, which may grow in place */
    size_t used;
    bool oom;
};

d2_arena *d2_arena_new(void) { return d2_calloc(1, sizeof(d2_arena)); }

void d2_arena_delete(d2_arena *a)
{
    if (!a)
        return;
    for (chunk *c = a->head, *next; c; c = next) {
        next = c->next;
        d2_free(c);
    }
    d2_free(a);
}

static size_t round_up(size_t n) { return (n + ALIGN - 1) & ~(ALIGN - 1); }

void *d2_arena_alloc(d2_arena *a, size_t n)
{
    if (a->oom)
        return NULL;
    if (n > SIZE_MAX / 2) {
        a->oom = true;
        return NULL;
    }
    n = round_up(n ? n : 1);
    chunk *c = a->head;
    if (!c || c->size - c->used < n) {
        /* Big requests get a chunk of their own, kept behind the current one so
         * that the current chunk's free space is not wasted. */
        size_t size = n > CHUNK_SIZE / 4 ? n : CHUNK_SIZE;
        chunk *nc = d2_malloc(sizeof(chunk) + size);
        if (!nc) {
            a->oom = true;
            return NULL;
        }
        nc->size = size;
        nc->used = 0;
        if (c && size != CHUNK_SIZE) {
            nc->next = c->next;
            c->next = nc;
        } else {
            nc->next = c;
            a->head = nc;
        }
        c = nc;
    }
    void *p = (char *)c->data + c->used;
    c->used += n;
    a->used += n;
    a->last = p;
    memset(p, 0, n);
    return p;
}

void *d2_arena_realloc(d2_arena *a, void *p, size_t old_n, size_t new_n)
{
    if (!p)
        return d2_arena_alloc(a, new_n);
    if (new_n <= old_n)
        return p;
    chunk *c = a->head;
    if (p == a->last && c && (char *)p >= (char *)c->data &&
        (char *)p < (char *)c->data + c->size) {
        size_t off = (size_t)((char *)p - (char *)c->data);
        size_t need = round_up(new_n);
        if (need <= c->size - off) {
            size_t had = c->used - off;
            if (need > had) {
                memset((char *)c->data + c->used, 0, need - had);
                a->used += need - had;
                c->used = off + need;
            }
            return p;
        }
    }
    void *q = d2_arena_alloc(a, new_n);
    if (q)
        memcpy(q, p, old_n);
    return q;
}

char *d2_arena_strndup(d2_arena *a, const char *s, size_t n)
{
    char *r = d2_arena_alloc(a, n + 1);
    if (r && n)
        memcpy(r, s, n);
    return r;
}

char *d2_arena_strdup(d2_arena *a, const char *s) { return d2_arena_strndup(a, s, strlen(s)); }

char *d2_arena_vprintf(d2_arena *a, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return d2_arena_strdup(a, "");
    char *r = d2_arena_alloc(a, (size_t)n + 1);
    if (r)
        vsnprintf(r, (size_t)n + 1, fmt, ap);
    return r;
}

char *d2_arena_printf(d2_arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *r = d2_arena_vprintf(a, fmt, ap);
    va_end(ap);
    return r;
}

bool d2_arena_oom(const d2_arena *a) { return a->oom; }

size_t d2_arena_used(const d2_arena *a) { return a->used; }
