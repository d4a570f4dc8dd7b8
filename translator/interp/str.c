/* str.c - strings: construction, UTF-8 helpers, str methods. */
#include "interp/interp_priv.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- strings ---- */

/* Eight bytes at a time, then a final avalanche: names are hashed on every
 * attribute lookup, and a byte-at-a-time loop was a visible share of them. */
uint64_t d2i_hash_bytes(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull ^ (n * 0x9e3779b97f4a7c15ull);
    const char *end = s + n;
    const size_t len = n;
    for (; n > 8; s += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
    }
    /* the last 1..8 bytes, read as at most two overlapping loads */
    uint64_t w = 0;
    if (len >= 8) {
        memcpy(&w, end - 8, 8);
    } else if (n >= 4) {
        uint32_t lo, hi;
        memcpy(&lo, s, 4);
        memcpy(&hi, end - 4, 4);
        w = (uint64_t)lo | (uint64_t)hi << 32;
    } else if (n) {
        w = (uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[n / 2] << 8 |
            (uint64_t)(unsigned char)s[n - 1] << 16;
    }
    if (n) {
        h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h ? h : 1;
}

d2_obj *d2i_str_alloc(d2_interp *I, size_t len)
{
    if (!d2i_size_ok(I, len, 1, 1, "str"))
        return NULL;
    return d2_obj_alloc(I, D2_OBJ_STR, NULL, sizeof(d2_str) + len + 1);
}

/* Sets len, the NUL and the hash of a string filled in place. */
d2_obj *d2i_str_finish(d2_obj *o, size_t len)
{
    d2_str *s = D2_AS(d2_str, o);
    s->len = len;
    s->s[len] = 0;
    s->hash = d2i_hash_bytes(s->s, len);
    return o;
}

d2_obj *d2_str_new(d2_interp *I, const char *s, size_t len)
{
    if (len == 0 && I->st->empty_str)
        return d2_incref(I->st->empty_str);
    if (len == 1 && (unsigned char)s[0] < 128 && I->st->chars[(unsigned char)s[0]])
        return d2_incref(I->st->chars[(unsigned char)s[0]]);
    d2_obj *o = d2i_str_alloc(I, len);
    if (!o)
        return NULL;
    memcpy(D2_AS(d2_str, o)->s, s, len);
    d2i_str_finish(o, len);
    if (len == 1 && (unsigned char)s[0] < 128)
        I->st->chars[(unsigned char)s[0]] = d2_incref(o);
    return o;
}

d2_obj *d2_str_from(d2_interp *I, const char *s) { return d2_str_new(I, s, strlen(s)); }

d2_obj *d2_str_printf(d2_interp *I, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char tmp[256];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    d2_obj *r;
    if (n < 0) {
        r = d2_raise(I, "ValueError", "bad format");
    } else if ((size_t)n < sizeof tmp) {
        r = d2_str_new(I, tmp, (size_t)n);
    } else {
        char *big = d2_malloc((size_t)n + 1);
        if (!big) {
            va_end(ap2);
            return d2_raise(I, "MemoryError", "out of memory");
        }
        vsnprintf(big, (size_t)n + 1, fmt, ap2);
        r = d2_str_new(I, big, (size_t)n);
        d2_free(big);
    }
    va_end(ap2);
    return r;
}

d2_obj *d2i_str_from_buf(d2_interp *I, d2_buf *b)
{
    if (b->oom) {
        d2_buf_free(b);
        return d2_raise(I, "MemoryError", "out of memory");
    }
    d2_obj *r = d2_str_new(I, b->data ? b->data : "", b->len);
    d2_buf_free(b);
    return r;
}

uint32_t d2i_utf8_decode(const char *s, size_t len, size_t *i)
{
    unsigned char c = (unsigned char)s[*i];
    uint32_t cp;
    int extra;
    if (c < 0x80) {
        (*i)++;
        return c;
    } else if ((c & 0xE0) == 0xC0) {
        cp = c & 0x1F;
        extra = 1;
    } else if ((c & 0xF0) == 0xE0) {
        cp = c & 0x0F;
        extra = 2;
    } else if ((c & 0xF8) == 0xF0) {
        cp = c & 0x07;
        extra = 3;
    } else {
        (*i)++;
        return 0xFFFD;
    }
    (*i)++;
    for (int k = 0; k < extra && *i < len; k++) {
        unsigned char d = (unsigned char)s[*i];
        if ((d & 0xC0) != 0x80)
            break;
        cp = (cp << 6) | (d & 0x3F);
        (*i)++;
    }
    return cp;
}

size_t d2i_utf8_encode(uint32_t cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    } else if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    } else if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

bool d2i_is_ascii(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] >= 0x80)
            return false;
    return true;
}


size_t d2i_str_offset(const d2_str *s, size_t idx)
{
    size_t c = 0;
    for (size_t i = 0; i < s->len; i++) {
        if (((unsigned char)s->s[i] & 0xC0) != 0x80) {
            if (c == idx)
                return i;
            c++;
        }
    }
    return s->len;
}

size_t d2i_chars_in(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

d2_obj *d2i_char(d2_interp *I, uint32_t cp)
{
    char b[4];
    size_t n = d2i_utf8_encode(cp, b);
    return d2_str_new(I, b, n);
}

d2_obj *d2i_str_concat(d2_interp *I, d2_obj *a, d2_obj *b)
{
    d2_str *x = D2_AS(d2_str, a), *y = D2_AS(d2_str, b);
    if (y->len == 0)
        return d2_incref(a);
    if (x->len == 0)
        return d2_incref(b);
    d2_obj *o = d2i_str_alloc(I, x->len + y->len);
    if (!o)
        return NULL;
    memcpy(D2_AS(d2_str, o)->s, x->s, x->len);
    memcpy(D2_AS(d2_str, o)->s + x->len, y->s, y->len);
    return d2i_str_finish(o, x->len + y->len);
}

/* ---- str methods ---- */

static d2_str *want_str(d2_interp *I, d2_obj *o, const char *fname)
{
    if (o->kind != D2_OBJ_STR) {
        d2_raise(I, "TypeError", "%s() argument must be str, not %s", fname, d2_type_name(o));
        return NULL;
    }
    return D2_AS(d2_str, o);
}


/* Optional start/end arguments of find/count/startswith, in characters,
 * converted to byte offsets [*b0, *b1) of s. */
static int str_range(d2_interp *I, d2_str *s, d2_obj **a, size_t n, size_t first, size_t *b0,
                     size_t *b1)
{
    int64_t len = (int64_t)d2i_str_chars(s), lo = 0, hi = len;
    if (n > first && a[first]->kind != D2_OBJ_NONE && d2_to_int64(I, a[first], "start", &lo) < 0)
        return -1;
    if (n > first + 1 && a[first + 1]->kind != D2_OBJ_NONE &&
        d2_to_int64(I, a[first + 1], "end", &hi) < 0)
        return -1;
    if (lo < 0)
        lo = lo + len < 0 ? 0 : lo + len;
    if (hi < 0)
        hi = hi + len < 0 ? 0 : hi + len;
    if (hi > len)
        hi = len;
    if (lo > len) {
        *b0 = s->len + 1;
        *b1 = s->len;
        return 0;
    }
    *b0 = d2i_str_offset(s, (size_t)lo);
    *b1 = hi < lo ? *b0 : d2i_str_offset(s, (size_t)hi);
    return 0;
}

METHOD(str_join)
{
    if (d2i_check_args(I, "join", n, 1, 1, kw) < 0)
        return NULL;
    d2_obj *seq = d2_list_from_iterable(I, a[0]);
    if (!seq)
        return NULL;
    d2_str *sep = D2_AS(d2_str, self);
    d2_list *l = D2_AS(d2_list, seq);
    uint64_t total = l->n ? (uint64_t)sep->len * (l->n - 1) : 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->items[i]->kind == D2_OBJ_STR)
            total += D2_AS(d2_str, l->items[i])->len;
    if (!d2i_size_ok(I, total, 1, 1, "str")) {
        d2_decref(seq);
        return NULL;
    }
    d2_buf b;
    d2_buf_init(&b);
    for (size_t i = 0; i < l->n; i++) {
        if (l->items[i]->kind != D2_OBJ_STR) {
            d2_raise(I, "TypeError", "sequence item %zu: expected str instance, %s found", i,
                     d2_type_name(l->items[i]));
            d2_buf_free(&b);
            d2_decref(seq);
            return NULL;
        }
        if (i)
            d2_buf_append(&b, sep->s, sep->len);
        d2_buf_append(&b, D2_AS(d2_str, l->items[i])->s, D2_AS(d2_str, l->items[i])->len);
    }
    d2_decref(seq);
    return d2i_str_from_buf(I, &b);
}

static bool is_space(unsigned char c)
{
    return c == ' ' || (c >= 9 && c <= 13) || c == 0x1c || c == 0x1d || c == 0x1e || c == 0x1f;
}

/* args[0] sep, args[1] maxsplit */
static d2_obj *split_impl(d2_interp *I, d2_obj *self, d2_obj **args, bool right, const char *fname)
{
    int64_t maxsplit;
    if (d2_to_int64(I, args[1], "maxsplit", &maxsplit) < 0)
        return NULL;
    d2_str *s = D2_AS(d2_str, self);
    d2_obj *out = d2_list_new(I, 0);
    if (!out)
        return NULL;
    /* pieces collected as byte ranges, in order of discovery */
    size_t cap = 16, np = 0;
    size_t *pieces = d2_malloc(cap * 2 * sizeof *pieces);
    if (!pieces) {
        d2_decref(out);
        return d2_raise(I, "MemoryError", "out of memory");
    }
#define PUSH(x, y)                                                                                 \
    do {                                                                                           \
        if (np == cap) {                                                                           \
            cap *= 2;                                                                              \
            size_t *q = d2_realloc(pieces, cap * 2 * sizeof *q);                                   \
            if (!q)                                                                                \
                goto oom;                                                                          \
            pieces = q;                                                                            \
        }                                                                                          \
        pieces[2 * np] = (x);                                                                      \
        pieces[2 * np + 1] = (y);                                                                  \
        np++;                                                                                      \
    } while (0)
    if (args[0]->kind == D2_OBJ_NONE) {
        if (!right) {
            size_t i = 0;
            int64_t splits = 0;
            while (i < s->len) {
                while (i < s->len && is_space((unsigned char)s->s[i]))
                    i++;
                if (i >= s->len)
                    break;
                if (maxsplit >= 0 && splits >= maxsplit) {
                    size_t e = s->len;
                    while (e > i && is_space((unsigned char)s->s[e - 1]))
                        e--;
                    PUSH(i, e);
                    break;
                }
                size_t j = i;
                while (j < s->len && !is_space((unsigned char)s->s[j]))
                    j++;
                PUSH(i, j);
                splits++;
                i = j;
            }
        } else {
            size_t i = s->len;
            int64_t splits = 0;
            while (i > 0) {
                while (i > 0 && is_space((unsigned char)s->s[i - 1]))
                    i--;
                if (i == 0)
                    break;
                if (maxsplit >= 0 && splits >= maxsplit) {
                    size_t b0 = 0;
                    while (b0 < i && is_space((unsigned char)s->s[b0]))
                        b0++;
                    PUSH(b0, i);
                    break;
                }
                size_t j = i;
                while (j > 0 && !is_space((unsigned char)s->s[j - 1]))
                    j--;
                PUSH(j, i);
                splits++;
                i = j;
            }
        }
    } else {
        d2_str *sep = want_str(I, args[0], fname);
        if (!sep)
            goto fail;
        if (sep->len == 0) {
            d2_raise(I, "ValueError", "empty separator");
            goto fail;
        }
        int64_t splits = 0;
        if (!right) {
            size_t i = 0;
            for (;;) {
                const char *f = (maxsplit < 0 || splits < maxsplit)
                                    ? memmem(s->s + i, s->len - i, sep->s, sep->len)
                                    : NULL;
                if (!f) {
                    PUSH(i, s->len);
                    break;
                }
                size_t p = (size_t)(f - s->s);
                PUSH(i, p);
                splits++;
                i = p + sep->len;
            }
        } else {
            size_t e = s->len;
            for (;;) {
                size_t p = SIZE_MAX;
                if ((maxsplit < 0 || splits < maxsplit) && e >= sep->len)
                    for (size_t k = e - sep->len + 1; k-- > 0;)
                        if (memcmp(s->s + k, sep->s, sep->len) == 0) {
                            p = k;
                            break;
                        }
                if (p == SIZE_MAX) {
                    PUSH(0, e);
                    break;
                }
                PUSH(p + sep->len, e);
                splits++;
                e = p;
            }
        }
    }
#undef PUSH
    for (size_t k = 0; k < np; k++) {
        size_t idx = right ? np - 1 - k : k;
        d2_obj *piece =
            d2_str_new(I, s->s + pieces[2 * idx], pieces[2 * idx + 1] - pieces[2 * idx]);
        if (!piece || d2_list_append(I, out, piece) < 0) {
            d2_decref(piece);
            goto fail;
        }
        d2_decref(piece);
    }
    d2_free(pieces);
    return out;
oom:
    d2_raise(I, "MemoryError", "out of memory");
fail:
    d2_free(pieces);
    d2_decref(out);
    return NULL;
}

D2_FN(str_split) { return split_impl(I, self, a, false, def->name); }
D2_FN(str_rsplit) { return split_impl(I, self, a, true, def->name); }
static const d2_def STR_SPLIT = D2_DEF("split", "sep=None, maxsplit=-1", str_split, NULL);
static const d2_def STR_RSPLIT = D2_DEF("rsplit", "sep=None, maxsplit=-1", str_rsplit, NULL);

METHOD(str_splitlines)
{
    if (d2i_check_args(I, "splitlines", n, 0, 1, kw) < 0)
        return NULL;
    bool keep = n > 0 && d2_truthy(I, a[0]) == 1;
    d2_str *s = D2_AS(d2_str, self);
    d2_obj *out = d2_list_new(I, 0);
    size_t i = 0;
    while (out && i < s->len) {
        size_t j = i;
        while (j < s->len && s->s[j] != '\n' && s->s[j] != '\r')
            j++;
        size_t e = j;
        if (j < s->len) {
            if (s->s[j] == '\r' && j + 1 < s->len && s->s[j + 1] == '\n')
                j++;
            j++;
        }
        d2_obj *piece = d2_str_new(I, s->s + i, (keep ? j : e) - i);
        if (!piece || d2_list_append(I, out, piece) < 0) {
            d2_decref(piece);
            d2_decref(out);
            return NULL;
        }
        d2_decref(piece);
        i = j;
    }
    return out;
}

static d2_obj *strip_impl(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw, int which,
                          const char *fname)
{
    if (d2i_check_args(I, fname, n, 0, 1, kw) < 0)
        return NULL;
    d2_str *s = D2_AS(d2_str, self);
    d2_str *chars = NULL;
    if (n == 1 && a[0]->kind != D2_OBJ_NONE && !(chars = want_str(I, a[0], fname)))
        return NULL;
    size_t b0 = 0, e = s->len;
    if (!chars) {
        if (which & 1)
            while (b0 < e && is_space((unsigned char)s->s[b0]))
                b0++;
        if (which & 2)
            while (e > b0 && is_space((unsigned char)s->s[e - 1]))
                e--;
    } else {
        /* chars may hold multi-byte characters: strip whole code points */
        if (which & 1)
            while (b0 < e) {
                size_t j = b0;
                d2i_utf8_decode(s->s, s->len, &j);
                if (!memmem(chars->s, chars->len, s->s + b0, j - b0))
                    break;
                b0 = j;
            }
        if (which & 2)
            while (e > b0) {
                size_t j = e - 1;
                while (j > b0 && ((unsigned char)s->s[j] & 0xC0) == 0x80)
                    j--;
                if (!memmem(chars->s, chars->len, s->s + j, e - j))
                    break;
                e = j;
            }
    }
    if (b0 == 0 && e == s->len)
        return d2_incref(self);
    return d2_str_new(I, s->s + b0, e - b0);
}

METHOD(str_strip) { return strip_impl(I, self, a, n, kw, 3, "strip"); }
METHOD(str_lstrip) { return strip_impl(I, self, a, n, kw, 1, "lstrip"); }
METHOD(str_rstrip) { return strip_impl(I, self, a, n, kw, 2, "rstrip"); }

static d2_obj *affix_impl(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw, bool end,
                          const char *fname)
{
    if (d2i_check_args(I, fname, n, 1, 3, kw) < 0)
        return NULL;
    d2_str *s = D2_AS(d2_str, self);
    size_t b0, b1;
    if (str_range(I, s, a, n, 1, &b0, &b1) < 0)
        return NULL;
    d2_obj **cands = &a[0];
    size_t nc = 1;
    if (a[0]->kind == D2_OBJ_TUPLE) {
        cands = D2_AS(d2_tuple, a[0])->items;
        nc = D2_AS(d2_tuple, a[0])->n;
    }
    for (size_t i = 0; i < nc; i++) {
        if (cands[i]->kind != D2_OBJ_STR)
            return d2_raise(I, "TypeError",
                            "%s first arg must be str or a tuple of str, not %s", fname,
                            d2_type_name(cands[i]));
        d2_str *p = D2_AS(d2_str, cands[i]);
        if (b0 > b1 || b1 - b0 < p->len)
            continue;
        const char *at = end ? s->s + b1 - p->len : s->s + b0;
        if (memcmp(at, p->s, p->len) == 0)
            return d2_bool(I, true);
    }
    return d2_bool(I, false);
}

METHOD(str_startswith) { return affix_impl(I, self, a, n, kw, false, "startswith"); }
METHOD(str_endswith) { return affix_impl(I, self, a, n, kw, true, "endswith"); }

METHOD(str_removeprefix)
{
    if (d2i_check_args(I, "removeprefix", n, 1, 1, kw) < 0)
        return NULL;
    d2_str *s = D2_AS(d2_str, self), *p = want_str(I, a[0], "removeprefix");
    if (!p)
        return NULL;
    if (p->len <= s->len && memcmp(s->s, p->s, p->len) == 0)
        return d2_str_new(I, s->s + p->len, s->len - p->len);
    return d2_incref(self);
}

METHOD(str_removesuffix)
{
    if (d2i_check_args(I, "removesuffix", n, 1, 1, kw) < 0)
        return NULL;
    d2_str *s = D2_AS(d2_str, self), *p = want_str(I, a[0], "removesuffix");
    if (!p)
        return NULL;
    if (p->len && p->len <= s->len && memcmp(s->s + s->len - p->len, p->s, p->len) == 0)
        return d2_str_new(I, s->s, s->len - p->len);
    return d2_incref(self);
}

METHOD(str_replace)
{
    if (d2i_check_args(I, "replace", n, 2, 3, kw) < 0)
        return NULL;
    d2_str *s = D2_AS(d2_str, self), *old = want_str(I, a[0], "replace"), *new_ = NULL;
    if (!old || !(new_ = want_str(I, a[1], "replace")))
        return NULL;
    int64_t count = -1;
    if (n == 3 && d2_to_int64(I, a[2], "count", &count) < 0)
        return NULL;
    if (new_->len > old->len) { /* the result grows: size it before building it */
        uint64_t k = 0;
        if (old->len == 0) {
            k = d2i_str_chars(s) + 1;
        } else {
            for (const char *p = s->s, *e = s->s + s->len;
                 (p = memmem(p, (size_t)(e - p), old->s, old->len)) != NULL; p += old->len)
                k++;
        }
        if (count >= 0 && (uint64_t)count < k)
            k = (uint64_t)count;
        if (!d2i_size_ok(I, k, new_->len - old->len, 1, "str") ||
            !d2i_size_ok(I, k * (new_->len - old->len) + s->len, 1, 1, "str"))
            return NULL;
    }
    d2_buf b;
    d2_buf_init(&b);
    if (old->len == 0) {
        /* insert new before every character and at the end */
        size_t i = 0;
        int64_t done = 0;
        while (i <= s->len) {
            if (count < 0 || done < count) {
                d2_buf_append(&b, new_->s, new_->len);
                done++;
            }
            if (i == s->len)
                break;
            size_t j = i;
            d2i_utf8_decode(s->s, s->len, &j);
            d2_buf_append(&b, s->s + i, j - i);
            i = j;
        }
        return d2i_str_from_buf(I, &b);
    }
    size_t i = 0;
    int64_t done = 0;
    for (;;) {
        const char *f =
            (count < 0 || done < count) ? memmem(s->s + i, s->len - i, old->s, old->len) : NULL;
        if (!f) {
            d2_buf_append(&b, s->s + i, s->len - i);
            break;
        }
        size_t p = (size_t)(f - s->s);
        d2_buf_append(&b, s->s + i, p - i);
        d2_buf_append(&b, new_->s, new_->len);
        i = p + old->len;
        done++;
    }
    return d2i_str_from_buf(I, &b);
}

/* Byte offset of the first/last occurrence of sub in s[b0,b1), or -1. */
static int64_t find_bytes(d2_str *s, d2_str *sub, size_t b0, size_t b1, bool last)
{
    if (b0 > b1 || b1 - b0 < sub->len)
        return -1;
    if (!last) {
        if (sub->len == 0)
            return (int64_t)b0;
        const char *f = memmem(s->s + b0, b1 - b0, sub->s, sub->len);
        return f ? (int64_t)(f - s->s) : -1;
    }
    for (size_t k = b1 - sub->len + 1; k-- > b0;)
        if (memcmp(s->s + k, sub->s, sub->len) == 0)
            return (int64_t)k;
    return -1;
}

static d2_obj *find_impl(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw, bool last,
                         bool raise, const char *fname)
{
    if (d2i_check_args(I, fname, n, 1, 3, kw) < 0)
        return NULL;
    d2_str *s = D2_AS(d2_str, self), *sub = want_str(I, a[0], fname);
    if (!sub)
        return NULL;
    size_t b0, b1;
    if (str_range(I, s, a, n, 1, &b0, &b1) < 0)
        return NULL;
    int64_t p = find_bytes(s, sub, b0, b1, last);
    if (p < 0) {
        if (raise)
            return d2_raise(I, "ValueError", "substring not found");
        return d2_int_new(I, -1);
    }
    return d2_int_new(I, (int64_t)d2i_chars_in(s->s, (size_t)p));
}

METHOD(str_find) { return find_impl(I, self, a, n, kw, false, false, "find"); }
METHOD(str_rfind) { return find_impl(I, self, a, n, kw, true, false, "rfind"); }
METHOD(str_index) { return find_impl(I, self, a, n, kw, false, true, "index"); }
METHOD(str_rindex) { return find_impl(I, self, a, n, kw, true, true, "rindex"); }

METHOD(str_count)
{
    if (d2i_check_args(I, "count", n, 1, 3, kw) < 0)
        return NULL;
    d2_str *s = D2_AS(d2_str, self), *sub = want_str(I, a[0], "count");
    if (!sub)
        return NULL;
    size_t b0, b1;
    if (str_range(I, s, a, n, 1, &b0, &b1) < 0)
        return NULL;
    if (b0 > b1)
        return d2_int_new(I, 0);
    if (sub->len == 0)
        return d2_int_new(I, (int64_t)d2i_chars_in(s->s + b0, b1 - b0) + 1);
    int64_t c = 0;
    size_t i = b0;
    for (;;) {
        int64_t p = find_bytes(s, sub, i, b1, false);
        if (p < 0)
            break;
        c++;
        i = (size_t)p + sub->len;
    }
    return d2_int_new(I, c);
}

static d2_obj *map_chars(d2_interp *I, d2_obj *self, int mode)
{
    d2_str *s = D2_AS(d2_str, self);
    d2_obj *r = d2i_str_alloc(I, s->len);
    if (!r)
        return NULL;
    char *o = D2_AS(d2_str, r)->s;
    bool start = true;
    for (size_t i = 0; i < s->len; i++) {
        char c = s->s[i];
        bool lower = c >= 'a' && c <= 'z', upper = c >= 'A' && c <= 'Z';
        switch (mode) {
        case 0: /* upper */
            o[i] = lower ? (char)(c - 32) : c;
            break;
        case 1: /* lower */
            o[i] = upper ? (char)(c + 32) : c;
            break;
        case 2: /* capitalize */
            o[i] = i == 0 ? (lower ? (char)(c - 32) : c) : (upper ? (char)(c + 32) : c);
            break;
        case 3: /* title */
            o[i] = start ? (lower ? (char)(c - 32) : c) : (upper ? (char)(c + 32) : c);
            break;
        default: /* swapcase */
            o[i] = lower ? (char)(c - 32) : upper ? (char)(c + 32) : c;
            break;
        }
        start = !(lower || upper);
    }
    return d2i_str_finish(r, s->len);
}

METHOD(str_upper)
{
    (void)a;
    return d2i_check_args(I, "upper", n, 0, 0, kw) < 0 ? NULL : map_chars(I, self, 0);
}
METHOD(str_lower)
{
    (void)a;
    return d2i_check_args(I, "lower", n, 0, 0, kw) < 0 ? NULL : map_chars(I, self, 1);
}
METHOD(str_capitalize)
{
    (void)a;
    return d2i_check_args(I, "capitalize", n, 0, 0, kw) < 0 ? NULL : map_chars(I, self, 2);
}
METHOD(str_title)
{
    (void)a;
    return d2i_check_args(I, "title", n, 0, 0, kw) < 0 ? NULL : map_chars(I, self, 3);
}
METHOD(str_swapcase)
{
    (void)a;
    return d2i_check_args(I, "swapcase", n, 0, 0, kw) < 0 ? NULL : map_chars(I, self, 4);
}

static d2_obj *classify(d2_interp *I, d2_obj *self, size_t n, d2_dict *kw, int what,
                        const char *fname)
{
    if (d2i_check_args(I, fname, n, 0, 0, kw) < 0)
        return NULL;
    d2_str *s = D2_AS(d2_str, self);
    if (s->len == 0)
        return d2_bool(I, false);
    bool any_cased = false;
    for (size_t i = 0; i < s->len; i++) {
        unsigned char c = (unsigned char)s->s[i];
        bool dig = c >= '0' && c <= '9', alpha = (c | 32) >= 'a' && (c | 32) <= 'z';
        bool ok;
        switch (what) {
        case 0: ok = dig; break;
        case 1: ok = alpha || c >= 0x80; break;
        case 2: ok = dig || alpha || c >= 0x80; break;
        case 3: ok = is_space(c); break;
        case 4: /* isupper */
            ok = !(c >= 'a' && c <= 'z');
            any_cased |= c >= 'A' && c <= 'Z';
            break;
        case 5: /* islower */
            ok = !(c >= 'A' && c <= 'Z');
            any_cased |= c >= 'a' && c <= 'z';
            break;
        default: /* isidentifier */
            ok = alpha || c == '_' || c >= 0x80 || (dig && i > 0);
            break;
        }
        if (!ok)
            return d2_bool(I, false);
    }
    if (what == 4 || what == 5)
        return d2_bool(I, any_cased);
    return d2_bool(I, true);
}

METHOD(str_isdigit) { (void)a; return classify(I, self, n, kw, 0, "isdigit"); }
METHOD(str_isalpha) { (void)a; return classify(I, self, n, kw, 1, "isalpha"); }
METHOD(str_isalnum) { (void)a; return classify(I, self, n, kw, 2, "isalnum"); }
METHOD(str_isspace) { (void)a; return classify(I, self, n, kw, 3, "isspace"); }
METHOD(str_isupper) { (void)a; return classify(I, self, n, kw, 4, "isupper"); }
METHOD(str_islower) { (void)a; return classify(I, self, n, kw, 5, "islower"); }
METHOD(str_isidentifier) { (void)a; return classify(I, self, n, kw, 6, "isidentifier"); }

static d2_obj *pad_impl(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw, int align,
                        const char *fname)
{
    if (d2i_check_args(I, fname, n, 1, 2, kw) < 0)
        return NULL;
    int64_t width;
    if (d2_to_int64(I, a[0], "width", &width) < 0)
        return NULL;
    const char *fill = " ";
    size_t fl = 1;
    if (n == 2) {
        d2_str *f = want_str(I, a[1], fname);
        if (!f)
            return NULL;
        if (d2i_chars_in(f->s, f->len) != 1)
            return d2_raise(I, "TypeError",
                            "The fill character must be exactly one character long");
        fill = f->s;
        fl = f->len;
    }
    d2_str *s = D2_AS(d2_str, self);
    int64_t len = (int64_t)d2i_str_chars(s);
    if (width <= len)
        return d2_incref(self);
    int64_t pad = width - len, left = align == 0   ? 0
                                      : align == 2 ? pad
                                                   : pad / 2 + (pad & width & 1);
    int64_t right = pad - left;
    if (!d2i_size_ok(I, (uint64_t)width, 1, fl, "str"))
        return NULL;
    d2_buf b;
    d2_buf_init(&b);
    for (int64_t i = 0; i < left; i++)
        d2_buf_append(&b, fill, fl);
    d2_buf_append(&b, s->s, s->len);
    for (int64_t i = 0; i < right; i++)
        d2_buf_append(&b, fill, fl);
    return d2i_str_from_buf(I, &b);
}

METHOD(str_ljust) { return pad_impl(I, self, a, n, kw, 0, "ljust"); }
METHOD(str_center) { return pad_impl(I, self, a, n, kw, 1, "center"); }
METHOD(str_rjust) { return pad_impl(I, self, a, n, kw, 2, "rjust"); }

METHOD(str_zfill)
{
    if (d2i_check_args(I, "zfill", n, 1, 1, kw) < 0)
        return NULL;
    int64_t width;
    if (d2_to_int64(I, a[0], "width", &width) < 0)
        return NULL;
    d2_str *s = D2_AS(d2_str, self);
    int64_t len = (int64_t)d2i_str_chars(s);
    if (width <= len)
        return d2_incref(self);
    if (!d2i_size_ok(I, (uint64_t)width, 1, 1, "str"))
        return NULL;
    d2_buf b;
    d2_buf_init(&b);
    size_t i = 0;
    if (s->len && (s->s[0] == '-' || s->s[0] == '+')) {
        d2_buf_append(&b, s->s, 1);
        i = 1;
    }
    for (int64_t k = 0; k < width - len; k++)
        d2_buf_puts(&b, "0");
    d2_buf_append(&b, s->s + i, s->len - i);
    return d2i_str_from_buf(I, &b);
}

static d2_obj *partition_impl(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw,
                              bool last, const char *fname)
{
    if (d2i_check_args(I, fname, n, 1, 1, kw) < 0)
        return NULL;
    d2_str *s = D2_AS(d2_str, self), *sep = want_str(I, a[0], fname);
    if (!sep)
        return NULL;
    if (sep->len == 0)
        return d2_raise(I, "ValueError", "empty separator");
    int64_t p = find_bytes(s, sep, 0, s->len, last);
    d2_obj *x, *y, *z;
    if (p < 0) {
        x = last ? d2_str_new(I, "", 0) : d2_incref(self);
        y = d2_str_new(I, "", 0);
        z = last ? d2_incref(self) : d2_str_new(I, "", 0);
    } else {
        x = d2_str_new(I, s->s, (size_t)p);
        y = d2_incref(a[0]);
        z = d2_str_new(I, s->s + p + sep->len, s->len - (size_t)p - sep->len);
    }
    d2_obj *r = (x && y && z) ? d2_tuple_pack(I, 3, x, y, z) : NULL;
    d2_decref(x);
    d2_decref(y);
    d2_decref(z);
    return r;
}

METHOD(str_partition) { return partition_impl(I, self, a, n, kw, false, "partition"); }
METHOD(str_rpartition) { return partition_impl(I, self, a, n, kw, true, "rpartition"); }

METHOD(str_format_m)
{
    d2_str *s = D2_AS(d2_str, self);
    return d2i_str_format(I, s->s, s->len, a, n, kw);
}

METHOD(str_encode)
{
    (void)I;
    (void)a;
    (void)n;
    (void)kw;
    return d2_incref(self);
}

/* ---- registration: d2i_init_methods (containers.c) adds these to str ---- */

const method_def d2i_str_methods[] = {
    {"join", str_join, NULL}, {"split", NULL, &STR_SPLIT}, {"rsplit", NULL, &STR_RSPLIT},
    {"splitlines", str_splitlines, NULL}, {"strip", str_strip, NULL}, {"lstrip", str_lstrip, NULL},
    {"rstrip", str_rstrip, NULL}, {"startswith", str_startswith, NULL},
    {"endswith", str_endswith, NULL}, {"removeprefix", str_removeprefix, NULL},
    {"removesuffix", str_removesuffix, NULL}, {"replace", str_replace, NULL},
    {"find", str_find, NULL}, {"rfind", str_rfind, NULL}, {"index", str_index, NULL},
    {"rindex", str_rindex, NULL}, {"count", str_count, NULL}, {"upper", str_upper, NULL},
    {"lower", str_lower, NULL}, {"capitalize", str_capitalize, NULL}, {"title", str_title, NULL},
    {"swapcase", str_swapcase, NULL}, {"isdigit", str_isdigit, NULL},
    {"isdecimal", str_isdigit, NULL}, {"isnumeric", str_isdigit, NULL},
    {"isalpha", str_isalpha, NULL}, {"isalnum", str_isalnum, NULL}, {"isspace", str_isspace, NULL},
    {"isupper", str_isupper, NULL}, {"islower", str_islower, NULL},
    {"isidentifier", str_isidentifier, NULL}, {"ljust", str_ljust, NULL},
    {"rjust", str_rjust, NULL}, {"center", str_center, NULL}, {"zfill", str_zfill, NULL},
    {"partition", str_partition, NULL}, {"rpartition", str_rpartition, NULL},
    {"format", str_format_m, NULL}, {"encode", str_encode, NULL},
};
const size_t d2i_nstr_methods = D2_COUNTOF(d2i_str_methods);
