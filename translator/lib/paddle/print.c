/* print.c - printing tensors the way Paddle does (str and repr of paddle.Tensor). */
#include "lib/paddle/paddle_priv.h"

#include <inttypes.h>
#include <string.h>

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
        d2_tensor_paddle_text(&b, h, to->stop_gradient);
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
