/* arena.h - bump allocator: one arena per source file owns its AST, strings and diagnostics. */
#ifndef DY2ST_ARENA_H
#define DY2ST_ARENA_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* Memory is taken from d2_malloc in big chunks and handed out by bumping a
 * pointer; nothing is freed individually. d2_arena_delete frees every chunk
 * at once, so whatever was allocated from an arena lives exactly as long as
 * the arena. Out of memory is sticky: once an allocation fails, d2_arena_oom
 * stays true and the failing call returns NULL. */
typedef struct d2_arena d2_arena;

/* A new empty arena; NULL when out of memory. The caller owns it. */
d2_arena *d2_arena_new(void);
/* Frees the arena and everything allocated from it. a may be NULL. */
void d2_arena_delete(d2_arena *a);

/* n zeroed bytes aligned for any type; NULL on out of memory. */
void *d2_arena_alloc(d2_arena *a, size_t n);
/* Resizes an allocation of old_n bytes to new_n bytes (the new tail zeroed).
 * The last allocation grows in place when its chunk has room; otherwise the
 * contents move and the old block is simply abandoned. p may be NULL. */
void *d2_arena_realloc(d2_arena *a, void *p, size_t old_n, size_t new_n);
/* NUL-terminated copy of n bytes of s (which may contain NULs). */
char *d2_arena_strndup(d2_arena *a, const char *s, size_t n);
char *d2_arena_strdup(d2_arena *a, const char *s);
/* printf into the arena. */
char *d2_arena_printf(d2_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *d2_arena_vprintf(d2_arena *a, const char *fmt, va_list ap);

bool d2_arena_oom(const d2_arena *a);
/* Bytes handed out so far (without chunk overhead); for statistics and tests. */
size_t d2_arena_used(const d2_arena *a);

#endif
