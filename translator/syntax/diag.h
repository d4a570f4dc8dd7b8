/* diag.h - source spans and compiler-style diagnostics (file:line:col: severity: message). */
#ifndef DY2ST_DIAG_H
#define DY2ST_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "syntax/arena.h"
#include "base.h"

/* A region of one source file. Lines are 1-based; columns are 0-based byte
 * offsets from the start of the line (CPython's lineno/col_offset
 * convention); start/end are byte offsets into the whole source, end
 * exclusive. A span with line 0 is unknown. */
typedef struct d2_span {
    uint32_t line, col;
    uint32_t end_line, end_col;
    uint32_t start, end;
} d2_span;

/* The span of bytes [start, end) of src, lines and columns computed by
 * scanning src (O(start + end)). Offsets beyond len are clamped. */
d2_span d2_span_from_offsets(const char *src, size_t len, size_t start, size_t end);

typedef enum { D2_DIAG_ERROR, D2_DIAG_WARNING, D2_DIAG_NOTE } d2_diag_severity;

/* One diagnostic. Everything it points to lives in the owning arena. */
typedef struct d2_diag_item {
    struct d2_diag_item *next;
    d2_diag_severity severity;
    const char *file;
    d2_span span;        /* as reported, byte based */
    uint32_t line;       /* 1-based; 0 when the position is unknown */
    uint32_t col;        /* 1-based, counted in characters of the line */
    uint32_t width;      /* characters under the caret and tildes, >= 1 */
    const char *message;
    const char *source_line; /* the text of the line, without newline; NULL if unknown */
    uint32_t caret_col;  /* where col falls in source_line: a long line is shown clipped */
} d2_diag_item;

/* Collects the diagnostics of one or more source files in order. Item
 * strings live in the arena; the source text is borrowed from the caller
 * between d2_diag_set_source and the next call that adds an item (the
 * affected line is copied into the arena). */
typedef struct d2_diag {
    d2_arena *arena;
    d2_diag_item *first, *last;
    size_t count, nerrors, nwarnings;
    bool oom; /* an item could not be stored; counts still include it */
    const char *file, *src;
    size_t len;
} d2_diag;

void d2_diag_init(d2_diag *d, d2_arena *arena);
/* Names the file that following items refer to; file is copied, src is
 * borrowed (may be NULL: items then carry no source line). */
void d2_diag_set_source(d2_diag *d, const char *file, const char *src, size_t len);
/* Adds an item for span of the current source. Returns it, or NULL when out
 * of memory (d->oom is then set). */
d2_diag_item *d2_diag_add(d2_diag *d, d2_diag_severity sev, d2_span span, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
d2_diag_item *d2_diag_vadd(d2_diag *d, d2_diag_severity sev, d2_span span, const char *fmt,
                           va_list ap);

const char *d2_diag_severity_name(d2_diag_severity sev);
/* Appends one item as a compiler does:
 *   file:line:col: error: message
 *       source line
 *       ^~~~
 * The caret line copies tabs from the source line so the caret lines up. */
void d2_diag_render_item(const d2_diag_item *it, d2_buf *out);
/* Appends every item in order. */
void d2_diag_render(const d2_diag *d, d2_buf *out);

#endif
