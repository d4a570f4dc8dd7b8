/* print.c - printing tensors the way Paddle does (str and repr of paddle.Tensor). */
#include "lib/paddle/paddle_priv.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

/* ======================================================================
 * Printing tensors the way Paddle does (paddle/tensor/to_string.py)
 * ====================================================================== */

enum { PD_PRECISION = 8, PD_THRESHOLD = 1000, PD_EDGE = 3, PD_LINEWIDTH = 80 };

/* One element without padding (_format_item with max_width 0). */
static void pd_item(d2_buf *b, const d2_tensor *t, int64_t i)
{
    if (d2_dtype_is_float(t->dtype)) {
        double v = d2_tensor_get_f64(t, i);
        if (isnan(v))
            d2_buf_puts(b, "nan");
        else if (ceil(v) == v)
            d2_buf_printf(b, "%.0f.", v);
        else
            d2_buf_printf(b, "%.*f", PD_PRECISION, v);
    } else if (t->dtype == D2_BOOL) {
        d2_buf_puts(b, d2_tensor_get_i64(t, i) ? "True" : "False");
    } else {
        d2_buf_printf(b, "%" PRId64, d2_tensor_get_i64(t, i));
    }
}

static int pd_item_width(const d2_tensor *t, int64_t i)
{
    d2_buf b;
    d2_buf_init(&b);
    pd_item(&b, t, i);
    int w = (int)b.len;
    d2_buf_free(&b);
    return w;
}

static void pd_item_padded(d2_buf *b, const d2_tensor *t, int64_t i, int maxw, bool sgn)
{
    size_t start = b->len;
    pd_item(b, t, i);
    int len = (int)(b->len - start);
    if (maxw <= len)
        return;
    bool neg = d2_tensor_get_f64(t, i) < 0;
    if (sgn && !neg) {
        /* ' ' + item.ljust(maxw - 1) */
        d2_buf_puts(b, " ");
        memmove(b->data + start + 1, b->data + start, (size_t)len);
        b->data[start] = ' ';
        len++;
    }
    for (; len < maxw; len++)
        d2_buf_puts(b, " ");
}

/* Visits the elements _to_summary keeps (the first and last PD_EDGE along
 * every dim longer than 2 * PD_EDGE) to find the widest item and a sign. */
static void pd_width_rec(const d2_tensor *t, int dim, int64_t off, int *maxw, bool *sgn)
{
    if (dim == t->ndim) {
        int w = pd_item_width(t, off);
        if (w > *maxw)
            *maxw = w;
        if (t->dtype != D2_BOOL && d2_tensor_get_f64(t, off) < 0)
            *sgn = true;
        return;
    }
    int64_t n = t->shape[dim], stride = 1;
    for (int d = dim + 1; d < t->ndim; d++)
        stride *= t->shape[d];
    for (int64_t k = 0; k < n; k++) {
        if (n > 2 * PD_EDGE && k == PD_EDGE)
            k = n - PD_EDGE;
        pd_width_rec(t, dim + 1, off + k * stride, maxw, sgn);
    }
}

static void pd_format_rec(d2_buf *b, const d2_tensor *t, int dim, int64_t off, bool summary,
                          int indent, int maxw, bool sgn)
{
    int64_t n = t->shape[dim], stride = 1;
    for (int d = dim + 1; d < t->ndim; d++)
        stride *= t->shape[d];
    bool last = dim == t->ndim - 1;
    int per_line = (PD_LINEWIDTH - indent) / (maxw + 2);
    if (per_line < 1)
        per_line = 1;
    d2_buf_puts(b, "[");
    int64_t cnt = 0; /* entries written, "..." included */
    for (int64_t k = 0; k < n; k++, cnt++) {
        bool dots = summary && n > 2 * PD_EDGE && k == PD_EDGE;
        if (cnt > 0) {
            if (last && cnt % per_line != 0) {
                d2_buf_puts(b, ", ");
            } else {
                d2_buf_puts(b, ",");
                for (int s = 0; s < (last ? 1 : t->ndim - dim - 1); s++)
                    d2_buf_puts(b, "\n");
                for (int s = 0; s < indent + 1; s++)
                    d2_buf_puts(b, " ");
            }
        }
        if (dots) {
            d2_buf_puts(b, "...");
            k = n - PD_EDGE - 1;
            continue;
        }
        if (last)
            pd_item_padded(b, t, off + k * stride, maxw, sgn);
        else
            pd_format_rec(b, t, dim + 1, off + k * stride, summary, indent + 1, maxw, sgn);
    }
    d2_buf_puts(b, "]");
}

void d2_pd_shape_list_str(d2_buf *b, const d2_shape *s)
{
    d2_buf_puts(b, "[");
    for (int i = 0; i < s->ndim; i++)
        d2_buf_printf(b, "%s%" PRId64, i ? ", " : "", s->dims[i]);
    d2_buf_puts(b, "]");
}

/* Paddle's str(tensor); for symbolic tensors a one-line description. */
d2_obj *d2_pd_tensor_str(d2_interp *I, d2_obj *o)
{
    d2_tensor_obj *to = TOBJ(o);
    d2_buf b;
    d2_buf_init(&b);
    if (!to->t && D2_MODE(I)->up.static_var_text && D2_MODE(I)->up.static_var_text(I, o, &b)) {
        /* a Variable of a Program built by hand: Paddle's text */
    } else if (!to->t) {
        d2_buf_puts(&b, "Tensor(shape=");
        d2_pd_shape_list_str(&b, &to->type.shape);
        d2_buf_printf(&b, ", dtype=%s, symbolic, var=%s)", dtname(to->type.dtype),
                      to->builder ? to->builder->prog->vars[to->var].name : "?");
    } else {
        d2_tensor *h = d2_pd_host(I, o, "Tensor.__str__");
        if (!h) {
            d2_buf_free(&b);
            return NULL;
        }
        if (to->persistable)
            d2_buf_puts(&b, "Parameter containing:\n");
        d2_buf_puts(&b, "Tensor(shape=");
        d2_shape s;
        d2_tensor_get_shape(h, &s);
        d2_pd_shape_list_str(&b, &s);
        d2_buf_printf(&b, ", dtype=%s, place=Place(cpu), stop_gradient=%s,\n       ",
                      dtname(h->dtype), to->stop_gradient ? "True" : "False");
        int64_t n = d2_tensor_numel(h);
        int maxw = 0;
        bool sgn = false;
        if (n > 0)
            pd_width_rec(h, 0, 0, &maxw, &sgn);
        if (h->ndim == 0)
            pd_item_padded(&b, h, 0, maxw, sgn);
        else
            pd_format_rec(&b, h, 0, 0, n > PD_THRESHOLD, 7, maxw, sgn);
        d2_buf_puts(&b, ")");
        d2_tensor_unref(h);
    }
    if (b.oom) {
        d2_buf_free(&b);
        return nomem(I);
    }
    d2_obj *r = d2_str_new(I, b.data ? b.data : "", b.len);
    d2_buf_free(&b);
    return r;
}
