/* diag.c - collects diagnostics in the arena and renders them with the source line and a caret. */
#include "syntax/diag.h"

#include <string.h>

d2_span d2_span_from_offsets(const char *src, size_t len, size_t start, size_t end)
{
    d2_span s = {0};
    if (start > len)
        start = len;
    if (end > len)
        end = len;
    if (end < start)
        end = start;
    uint32_t line = 1;
    size_t bol = 0;
    for (size_t i = 0; i < end; i++) {
        if (i == start) {
            s.line = line;
            s.col = (uint32_t)(i - bol);
        }
        if (src[i] == '\n') {
            line++;
            bol = i + 1;
        }
    }
    if (start == end) {
        s.line = line;
        s.col = (uint32_t)(end - bol);
    }
    s.end_line = line;
    s.end_col = (uint32_t)(end - bol);
    s.start = (uint32_t)start;
    s.end = (uint32_t)end;
    return s;
}

void d2_diag_init(d2_diag *d, d2_arena *arena)
{
    memset(d, 0, sizeof *d);
    d->arena = arena;
}

void d2_diag_set_source(d2_diag *d, const char *file, const char *src, size_t len)
{
    d->file = file ? d2_arena_strdup(d->arena, file) : NULL;
    if (file && !d->file)
        d->oom = true;
    d->src = src;
    d->len = src ? len : 0;
}

/* Length of the valid UTF-8 sequence at s[0, n), or 0 when s[0] does not
 * start one. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
                              : c >= 0xF0 && c <= 0xF4 ? 4
                                                       : 0;
    if (!len || len > n)
        return 0;
    for (size_t k = 1; k < len; k++)
        if ((s[k] & 0xC0) != 0x80)
            return 0;
    return len;
}

/* Characters in s[0, n): each valid UTF-8 sequence counts one, and so does
 * each byte that is not part of one. */
static uint32_t count_chars(const char *s, size_t n)
{
    uint32_t c = 0;
    for (size_t i = 0; i < n; c++) {
        size_t l = utf8_len((const unsigned char *)s + i, n - i);
        i += l ? l : 1;
    }
    return c;
}

/* A printable copy of a source line: NULs and bytes that are not valid
 * UTF-8 become '?', one for one, so character columns are unchanged. */
static char *copy_line(d2_arena *a, const char *s, size_t n)
{
    char *r = d2_arena_strndup(a, s, n);
    if (!r)
        return NULL;
    for (size_t i = 0; i < n;) {
        size_t l = utf8_len((const unsigned char *)r + i, n - i);
        if (!l || r[i] == '\0') {
            r[i++] = '?';
            continue;
        }
        i += l;
    }
    return r;
}

/* Bytes of a source line shown in a diagnostic before it is clipped. */
#define SHOWN_LINE_MAX 160

/* Fills the character based position and the copy of the source line. */
static void locate(d2_diag *d, d2_diag_item *it)
{
    const d2_span *sp = &it->span;
    it->line = sp->line;
    it->width = 1;
    if (!d->src || sp->line == 0)
        return;
    size_t start = sp->start <= d->len ? sp->start : d->len;
    size_t bol = start;
    while (bol > 0 && d->src[bol - 1] != '\n')
        bol--;
    size_t eol = start;
    while (eol < d->len && d->src[eol] != '\n')
        eol++;
    size_t text_end = eol;
    if (text_end > bol && d->src[text_end - 1] == '\r')
        text_end--;
    it->col = count_chars(d->src + bol, start - bol) + 1;
    size_t end = sp->end < start ? start : sp->end;
    if (end > text_end)
        end = text_end > start ? text_end : start;
    /* a long line is shown around the position, its cut ends marked "..." */
    size_t from = bol, to = text_end;
    if (text_end - bol > SHOWN_LINE_MAX) {
        from = start - bol > SHOWN_LINE_MAX / 2 ? start - SHOWN_LINE_MAX / 2 : bol;
        while (from > bol && ((unsigned char)d->src[from] & 0xC0) == 0x80)
            from--;
        to = from + SHOWN_LINE_MAX < text_end ? from + SHOWN_LINE_MAX : text_end;
        while (to < text_end && ((unsigned char)d->src[to] & 0xC0) == 0x80)
            to++;
        if (end > to)
            end = to > start ? to : start;
    }
    uint32_t w = count_chars(d->src + start, end - start);
    it->width = w ? w : 1;
    const char *pre = from > bol ? "..." : "", *post = to < text_end ? "..." : "";
    it->caret_col = (uint32_t)strlen(pre) + count_chars(d->src + from, start - from) + 1;
    char *text = copy_line(d->arena, d->src + from, to - from);
    it->source_line = text && (*pre || *post) ? d2_arena_printf(d->arena, "%s%s%s", pre, text, post)
                                              : text;
}

d2_diag_item *d2_diag_vadd(d2_diag *d, d2_diag_severity sev, d2_span span, const char *fmt,
                           va_list ap)
{
    d->count++;
    if (sev == D2_DIAG_ERROR)
        d->nerrors++;
    else if (sev == D2_DIAG_WARNING)
        d->nwarnings++;
    d2_diag_item *it = d2_arena_alloc(d->arena, sizeof *it);
    if (!it) {
        d->oom = true;
        return NULL;
    }
    it->severity = sev;
    it->file = d->file;
    it->span = span;
    it->message = d2_arena_vprintf(d->arena, fmt, ap);
    locate(d, it);
    if (!it->message || (span.line && d->src && !it->source_line)) {
        d->oom = true;
        return NULL;
    }
    if (d->last)
        d->last->next = it;
    else
        d->first = it;
    d->last = it;
    return it;
}

d2_diag_item *d2_diag_add(d2_diag *d, d2_diag_severity sev, d2_span span, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    d2_diag_item *it = d2_diag_vadd(d, sev, span, fmt, ap);
    va_end(ap);
    return it;
}

const char *d2_diag_severity_name(d2_diag_severity sev)
{
    switch (sev) {
    case D2_DIAG_ERROR: return "error";
    case D2_DIAG_WARNING: return "warning";
    case D2_DIAG_NOTE: return "note";
    }
    return "error";
}

void d2_diag_render_item(const d2_diag_item *it, d2_buf *out)
{
    const char *file = it->file ? it->file : "<input>";
    if (it->line)
        d2_buf_printf(out, "%s:%u:%u: %s: %s\n", file, it->line, it->col,
                      d2_diag_severity_name(it->severity), it->message);
    else
        d2_buf_printf(out, "%s: %s: %s\n", file, d2_diag_severity_name(it->severity),
                      it->message);
    if (!it->source_line)
        return;
    d2_buf_puts(out, it->source_line);
    d2_buf_puts(out, "\n");
    /* the source line is valid UTF-8 (see copy_line) */
    const char *s = it->source_line;
    for (uint32_t c = 1; c < it->caret_col && *s; s++) {
        if (((unsigned char)*s & 0xC0) == 0x80)
            continue;
        d2_buf_append(out, *s == '\t' ? "\t" : " ", 1);
        c++;
    }
    d2_buf_puts(out, "^");
    for (uint32_t i = 1; i < it->width; i++)
        d2_buf_puts(out, "~");
    d2_buf_puts(out, "\n");
}

void d2_diag_render(const d2_diag *d, d2_buf *out)
{
    for (const d2_diag_item *it = d->first; it; it = it->next)
        d2_diag_render_item(it, out);
}
