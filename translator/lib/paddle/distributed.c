/* distributed.c - paddle._dist, the collectives under paddle.distributed (whose Python part is
 * distributed_src.c): in-place all_reduce, reduce, broadcast and scatter of dygraph tensors,
 * all_gather, barrier, send and recv, groups, and the bucketed gradient averaging of paddle.DataParallel, on
 * runtime/dist.c (Open MPI, or one process). */
#include "lib/paddle/functions_priv.h"
#include "lib/paddle/paddle_priv.h"
#include "lib/paddle/tensor_api.h"
#include "lib/paddle/train.h"

#include "backend.h"
#include "dist.h"

#include <string.h>

/* The items of list or tuple o (borrowed), or NULL. */
static d2_obj **seq_items(d2_obj *o, size_t *n)
{
    if (o && o->kind == D2_OBJ_LIST) {
        *n = D2_AS(d2_list, o)->n;
        return D2_AS(d2_list, o)->items;
    }
    if (o && o->kind == D2_OBJ_TUPLE) {
        *n = D2_AS(d2_tuple, o)->n;
        return D2_AS(d2_tuple, o)->items;
    }
    return NULL;
}

static int started(d2_interp *I)
{
    d2_err err = {0};
    if (d2_dist_init(&err) < 0) {
        d2_raise_err(I, &err);
        return -1;
    }
    return 0;
}

/* A group id argument (None: the world). -1 with an exception. */
static int group_arg(d2_interp *I, d2_obj *o, const char *what)
{
    int64_t g = 0;
    if (!is_none(I, o) && d2_to_int64(I, o, "group", &g) < 0)
        return -1;
    if (g < 0 || d2_dist_size((d2_group)g) < 0) {
        d2_raise(I, "ValueError", "%s: no such group (%lld)", what, (long long)g);
        return -1;
    }
    return (int)g;
}

/* A fresh contiguous host copy of concrete tensor o (the collective's buffer). */
static d2_tensor *host_copy(d2_interp *I, d2_obj *o, const char *what)
{
    if (!is_tensor(o)) {
        d2_raise(I, "TypeError", "%s: expected a Tensor, got %s", what, d2_type_name(o));
        return NULL;
    }
    if (is_sym(o) || !TOBJ(o)->t || TOBJ(o)->t->kind != D2_VALUE_TENSOR) {
        d2_raise(I, "TypeError",
                 "%s: collectives run on dygraph tensors with data (in static mode use "
                 "fleet.distributed_optimizer)",
                 what);
        return NULL;
    }
    d2_err err = {0};
    d2_tensor *h = d2_tensor_copy_to(TOBJ(o)->t, NULL, &err);
    if (!h)
        d2_raise_err(I, &err);
    return h;
}

/* Writes h's values into the storage of tensor object dst (every object sharing it sees them,
 * as Paddle's in-place collectives). */
static int write_back(d2_interp *I, d2_obj *dst, d2_tensor *h)
{
    d2_tensor *d = TOBJ(dst)->t;
    d2_err err = {0};
    int64_t n = d2_tensor_numel(d);
    if (n == 0)
        return 0;
    if (!d2_tensor_is_contiguous(d) || !d->storage) {
        d2_raise(I, "ValueError", "paddle.distributed: the tensor is a strided view; the "
                                  "collective cannot write into it");
        return -1;
    }
    d2_backend *be = d->storage->backend ? d->storage->backend : d2_cpu_backend();
    d2_tensor *moved = NULL; /* a tensor on a device: the host values moved there first */
    if (be != d2_cpu_backend() && !(h = moved = d2_tensor_copy_to(h, be, &err))) {
        d2_raise_err(I, &err);
        return -1;
    }
    size_t es = d2_dtype_size(d->dtype);
    int rc = be->copy(be, d->storage->data, (size_t)d->offset * es, h->storage->data,
                      (size_t)h->offset * es, (size_t)n * es, &err);
    d2_tensor_unref(moved);
    if (rc < 0) {
        d2_raise_err(I, &err);
        return -1;
    }
    return 0;
}

static int redop_arg(d2_interp *I, d2_obj *o, const char *what, d2_redop *op)
{
    int64_t v = 0;
    if (!is_none(I, o) && d2_to_int64(I, o, "op", &v) < 0)
        return -1;
    if (v < D2_RED_SUM || v > D2_RED_AVG) {
        d2_raise(I, "ValueError", "%s: unknown ReduceOp %lld", what, (long long)v);
        return -1;
    }
    *op = (d2_redop)v;
    return 0;
}

D2_FN(DI_init)
{
    return started(I) < 0 ? NULL : d2_none(I);
}

D2_FN(DI_has_mpi) { return d2_bool(I, d2_dist_has_mpi()); }

D2_FN(DI_active)
{
    if (started(I) < 0)
        return NULL;
    return d2_bool(I, d2_dist_active());
}

D2_FN(DI_rank)
{
    int g;
    if (started(I) < 0 || (g = group_arg(I, a[0], "paddle.distributed.get_rank")) < 0)
        return NULL;
    return d2_int_new(I, d2_dist_rank(g));
}

D2_FN(DI_size)
{
    int g;
    if (started(I) < 0 || (g = group_arg(I, a[0], "paddle.distributed.get_world_size")) < 0)
        return NULL;
    return d2_int_new(I, d2_dist_size(g));
}

D2_FN(DI_world_rank)
{
    int g;
    int64_t r;
    if (started(I) < 0 || (g = group_arg(I, a[0], "paddle.distributed")) < 0 ||
        d2_to_int64(I, a[1], "rank", &r) < 0)
        return NULL;
    return d2_int_new(I, d2_dist_world_rank(g, (int)r));
}

D2_FN(DI_set_timeout)
{
    double s;
    if (d2_to_double(I, a[0], "timeout", &s) < 0)
        return NULL;
    if (!(s > 0))
        return d2_raise(I, "ValueError", "paddle.distributed: the timeout must be positive");
    d2_dist_set_timeout(s);
    return d2_none(I);
}

D2_FN(DI_timeout) { return d2_float_new(I, d2_dist_timeout()); }

/* all_reduce(tensor, op, group), reduce(tensor, dst, op, group) */
static d2_obj *reduce_call(d2_interp *I, d2_obj **a, const char *what, bool to_one)
{
    d2_redop op;
    int g;
    int64_t dst = -1;
    if (started(I) < 0 || redop_arg(I, a[to_one ? 2 : 1], what, &op) < 0 ||
        (g = group_arg(I, a[to_one ? 3 : 2], what)) < 0 ||
        (to_one && d2_to_int64(I, a[1], "dst", &dst) < 0))
        return NULL;
    d2_tensor *h = host_copy(I, a[0], what);
    if (!h)
        return NULL;
    d2_shape sh;
    d2_tensor_get_shape(h, &sh);
    d2_err err = {0};
    int rc = to_one ? d2_dist_reduce(g, what, d2_tensor_data(h), &sh, h->dtype, op, (int)dst,
                                     &err)
                    : d2_dist_all_reduce(g, what, d2_tensor_data(h), &sh, h->dtype, op, &err);
    if (rc < 0)
        d2_raise_err(I, &err);
    else if (!to_one || d2_dist_rank(g) == dst)
        rc = write_back(I, a[0], h);
    d2_tensor_unref(h);
    return rc < 0 ? NULL : d2_none(I);
}

D2_FN(DI_all_reduce) { return reduce_call(I, a, "paddle.distributed.all_reduce", false); }

D2_FN(DI_reduce) { return reduce_call(I, a, "paddle.distributed.reduce", true); }

/* broadcast(tensor, src, group): src is a rank of the group */
D2_FN(DI_broadcast)
{
    const char *what = "paddle.distributed.broadcast";
    int g;
    int64_t src;
    if (started(I) < 0 || d2_to_int64(I, a[1], "src", &src) < 0 ||
        (g = group_arg(I, a[2], what)) < 0)
        return NULL;
    d2_tensor *h = host_copy(I, a[0], what);
    if (!h)
        return NULL;
    d2_shape sh;
    d2_tensor_get_shape(h, &sh);
    d2_err err = {0};
    int rc = d2_dist_broadcast(g, what, d2_tensor_data(h), &sh, h->dtype, (int)src, &err);
    if (rc < 0)
        d2_raise_err(I, &err);
    else
        rc = write_back(I, a[0], h);
    d2_tensor_unref(h);
    return rc < 0 ? NULL : d2_none(I);
}

/* all_gather(tensor, group) -> [tensor of rank 0, ...] (new tensors) */
D2_FN(DI_all_gather)
{
    const char *what = "paddle.distributed.all_gather";
    int g;
    if (started(I) < 0 || (g = group_arg(I, a[1], what)) < 0)
        return NULL;
    d2_tensor *h = host_copy(I, a[0], what);
    if (!h)
        return NULL;
    d2_shape sh;
    d2_tensor_get_shape(h, &sh);
    int n = d2_dist_size(g);
    d2_err err = {0};
    int64_t shape[D2_MAX_DIMS + 1];
    shape[0] = n;
    for (int d = 0; d < sh.ndim; d++)
        shape[d + 1] = sh.dims[d];
    d2_obj *r = NULL;
    d2_tensor *all = sh.ndim < D2_MAX_DIMS
                         ? d2_tensor_new(NULL, h->dtype, sh.ndim + 1, shape, &err)
                         : NULL;
    if (!all) {
        if (!err.code)
            d2_err_set(&err, D2_ERR_UNSUPPORTED, "%s: too many dims", what);
        goto fail;
    }
    if (d2_dist_all_gather(g, what, d2_tensor_data(h), d2_tensor_data(all), &sh, h->dtype,
                           &err) < 0)
        goto fail;
    r = d2_list_new(I, 0);
    size_t nb = (size_t)d2_tensor_numel(h) * d2_dtype_size(h->dtype);
    for (int k = 0; r && k < n; k++) {
        d2_tensor *part = d2_tensor_from_data(h->dtype, sh.ndim, sh.dims,
                                              (char *)d2_tensor_data(all) + nb * (size_t)k, &err);
        d2_obj *o = part ? d2_tensor_wrap(I, part) : NULL;
        d2_tensor_unref(part);
        if (!o || d2_list_append(I, r, o) < 0)
            d2_setref(&r, NULL);
        d2_decref(o);
    }
    if (!r && !I->exc)
        goto fail;
    goto done;
fail:
    d2_raise_err(I, &err);
done:
    d2_tensor_unref(all);
    d2_tensor_unref(h);
    return r;
}

/* scatter(tensor, parts, src, group): on src, parts is a list of size(group) tensors shaped
 * like tensor; rank k's tensor takes parts[k]. */
D2_FN(DI_scatter)
{
    const char *what = "paddle.distributed.scatter";
    int g;
    int64_t src;
    if (started(I) < 0 || d2_to_int64(I, a[2], "src", &src) < 0 ||
        (g = group_arg(I, a[3], what)) < 0)
        return NULL;
    d2_tensor *h = host_copy(I, a[0], what), *all = NULL;
    if (!h)
        return NULL;
    d2_shape sh;
    d2_tensor_get_shape(h, &sh);
    int n = d2_dist_size(g), rc = -1;
    size_t nb = (size_t)d2_tensor_numel(h) * d2_dtype_size(h->dtype);
    d2_err err = {0};
    char *parts = NULL;
    if (d2_dist_rank(g) == src) {
        size_t np = 0;
        d2_obj **items = is_none(I, a[1]) ? NULL : seq_items(a[1], &np);
        if (!items || np != (size_t)n) {
            d2_raise(I, "ValueError", "%s: the source rank needs a list of %d tensors (one per "
                                      "rank of the group), got %s",
                     what, n, is_none(I, a[1]) ? "None" : "another length");
            goto done;
        }
        if (!(parts = d2_malloc(nb * (size_t)n + 1))) {
            nomem(I);
            goto done;
        }
        for (int k = 0; k < n; k++) {
            d2_tensor *p = host_copy(I, items[k], what);
            if (!p)
                goto done;
            d2_shape ps;
            d2_tensor_get_shape(p, &ps);
            if (p->dtype != h->dtype || !d2_shape_equal(&ps, &sh)) {
                d2_tensor_unref(p);
                d2_raise(I, "ValueError", "%s: tensor_list[%d] differs in shape or dtype from "
                                          "the output tensor",
                         what, k);
                goto done;
            }
            if (nb)
                memcpy(parts + nb * (size_t)k, d2_tensor_data(p), nb);
            d2_tensor_unref(p);
        }
    }
    if (d2_dist_scatter(g, what, parts, d2_tensor_data(h), &sh, h->dtype, (int)src, &err) < 0)
        d2_raise_err(I, &err);
    else
        rc = write_back(I, a[0], h);
done:
    d2_free(parts);
    d2_tensor_unref(all);
    d2_tensor_unref(h);
    return rc < 0 ? NULL : d2_none(I);
}

/* send(tensor, dst, group) / recv(tensor, src, group): dst and src are ranks of the group */
static d2_obj *p2p(d2_interp *I, d2_obj **a, bool sending)
{
    const char *what = sending ? "paddle.distributed.send" : "paddle.distributed.recv";
    int g;
    int64_t peer;
    if (started(I) < 0 || d2_to_int64(I, a[1], sending ? "dst" : "src", &peer) < 0 ||
        (g = group_arg(I, a[2], what)) < 0)
        return NULL;
    d2_tensor *h = host_copy(I, a[0], what);
    if (!h)
        return NULL;
    d2_shape sh;
    d2_tensor_get_shape(h, &sh);
    d2_err err = {0};
    int rc = sending ? d2_dist_send(g, what, d2_tensor_data(h), &sh, h->dtype, (int)peer, &err)
                     : d2_dist_recv(g, what, d2_tensor_data(h), &sh, h->dtype, (int)peer, &err);
    if (rc < 0)
        d2_raise_err(I, &err);
    else if (!sending)
        rc = write_back(I, a[0], h);
    d2_tensor_unref(h);
    return rc < 0 ? NULL : d2_none(I);
}

D2_FN(DI_send) { return p2p(I, a, true); }

D2_FN(DI_recv) { return p2p(I, a, false); }

/* The isend/irecv transfers in flight, by handle (an index): each holds the host buffer MPI
 * reads or writes and, for a receive, the tensor that takes the data at wait. A task never
 * waited for keeps its entry until the process ends. */
typedef struct p2p_task {
    d2_dist_req *req;
    d2_tensor *h;
    d2_obj *dst; /* irecv: the tensor written at wait; NULL for isend */
} p2p_task;
static p2p_task *g_tasks;
static size_t g_n_tasks;

/* isend(tensor, dst, group) / irecv(tensor, src, group): posts the transfer and returns its
 * handle for wait / test. */
static d2_obj *ip2p(d2_interp *I, d2_obj **a, bool sending)
{
    const char *what = sending ? "paddle.distributed.isend" : "paddle.distributed.irecv";
    int g;
    int64_t peer;
    if (started(I) < 0 || d2_to_int64(I, a[1], sending ? "dst" : "src", &peer) < 0 ||
        (g = group_arg(I, a[2], what)) < 0)
        return NULL;
    size_t k = 0;
    while (k < g_n_tasks && g_tasks[k].req)
        k++;
    if (k == g_n_tasks) {
        p2p_task *nt = d2_realloc(g_tasks, sizeof *nt * (g_n_tasks + 8));
        if (!nt)
            return nomem(I);
        memset(nt + g_n_tasks, 0, sizeof *nt * 8);
        g_tasks = nt;
        g_n_tasks += 8;
    }
    d2_tensor *h = host_copy(I, a[0], what);
    if (!h)
        return NULL;
    d2_shape sh;
    d2_tensor_get_shape(h, &sh);
    d2_err err = {0};
    d2_dist_req *r =
        sending ? d2_dist_isend(g, what, d2_tensor_data(h), &sh, h->dtype, (int)peer, &err)
                : d2_dist_irecv(g, what, d2_tensor_data(h), &sh, h->dtype, (int)peer, &err);
    if (!r) {
        d2_tensor_unref(h);
        return d2_raise_err(I, &err);
    }
    g_tasks[k] = (p2p_task){r, h, sending ? NULL : d2_incref(a[0])};
    return d2_int_new(I, (int64_t)k);
}

D2_FN(DI_isend) { return ip2p(I, a, true); }

D2_FN(DI_irecv) { return ip2p(I, a, false); }

static p2p_task *task_arg(d2_interp *I, d2_obj *o)
{
    int64_t k;
    if (d2_to_int64(I, o, "task", &k) < 0)
        return NULL;
    if (k < 0 || (size_t)k >= g_n_tasks || !g_tasks[k].req) {
        d2_raise(I, "ValueError", "paddle.distributed: task %lld is not in flight", (long long)k);
        return NULL;
    }
    return &g_tasks[k];
}

/* wait(task): waits for the transfer; a receive's data then goes into its tensor. */
D2_FN(DI_wait)
{
    p2p_task *t = task_arg(I, a[0]);
    if (!t)
        return NULL;
    d2_err err = {0};
    int rc = d2_dist_wait(t->req, &err);
    if (rc < 0) {
        t->req = NULL; /* the failed request stays with the broken layer */
        d2_raise_err(I, &err);
    } else if (t->dst) {
        rc = write_back(I, t->dst, t->h);
    }
    d2_tensor_unref(t->h);
    d2_decref(t->dst);
    *t = (p2p_task){NULL, NULL, NULL};
    return rc < 0 ? NULL : d2_none(I);
}

D2_FN(DI_test)
{
    p2p_task *t = task_arg(I, a[0]);
    return t ? d2_bool(I, d2_dist_test(t->req)) : NULL;
}

D2_FN(DI_barrier)
{
    const char *what = "paddle.distributed.barrier";
    int g;
    if (started(I) < 0 || (g = group_arg(I, a[0], what)) < 0)
        return NULL;
    d2_err err = {0};
    if (d2_dist_barrier(g, what, &err) < 0)
        return d2_raise_err(I, &err);
    return d2_none(I);
}

/* new_group(ranks) -> group id (every rank of the world calls it) */
D2_FN(DI_new_group)
{
    const char *what = "paddle.distributed.new_group";
    if (started(I) < 0)
        return NULL;
    size_t n = 0;
    d2_obj **items = is_seq(a[0]) ? seq_items(a[0], &n) : NULL;
    if (!items || n == 0)
        return d2_raise(I, "ValueError", "%s: ranks must be a non-empty list of ranks", what);
    int *ranks = d2_calloc(n + 1, sizeof *ranks);
    if (!ranks)
        return nomem(I);
    for (size_t i = 0; i < n; i++) {
        int64_t r;
        if (d2_to_int64(I, items[i], "ranks", &r) < 0) {
            d2_free(ranks);
            return NULL;
        }
        ranks[i] = (int)r;
    }
    d2_err err = {0};
    d2_group g = d2_dist_new_group(ranks, (int)n, &err);
    d2_free(ranks);
    if (g < 0)
        return d2_raise_err(I, &err);
    return d2_int_new(I, g);
}

/* spawn(nprocs, argv) -> the exit status of mpirun running argv as nprocs processes */
D2_FN(DI_spawn)
{
    int64_t n;
    if (d2_to_int64(I, a[0], "nprocs", &n) < 0)
        return NULL;
    if (n < 1 || n > 4096)
        return d2_raise(I, "ValueError", "paddle.distributed.spawn: nprocs must be 1 to 4096");
    size_t argc = 0;
    d2_obj **items = is_seq(a[1]) ? seq_items(a[1], &argc) : NULL;
    if (!items || argc == 0)
        return d2_raise(I, "RuntimeError", "paddle.distributed.spawn: sys.argv names no script");
    const char **argv = d2_calloc(argc + 1, sizeof *argv);
    if (!argv)
        return nomem(I);
    for (size_t i = 0; i < argc; i++)
        if (!(argv[i] = d2_to_cstr(I, items[i], "sys.argv item"))) {
            d2_free(argv);
            return NULL;
        }
    d2_err err = {0};
    int rc = d2_dist_spawn((int)n, argv, (int)argc, &err);
    d2_free(argv);
    if (rc < 0)
        return d2_raise_err(I, &err);
    return d2_int_new(I, rc);
}

/* allreduce_grads(params, bucket_bytes, group): DataParallel's gradient averaging. The
 * trainable parameters' gradients (zeros for a parameter without one) are packed into buckets
 * of at most bucket_bytes, from the last parameter to the first (the order backward produces
 * them), one all_reduce(AVG) per bucket; each parameter with a gradient on some rank gets the
 * average as its gradient. */
D2_FN(DI_allreduce_grads)
{
    const char *what = "paddle.DataParallel: gradient all_reduce";
    int g;
    int64_t cap;
    if (started(I) < 0 || d2_to_int64(I, a[1], "bucket_bytes", &cap) < 0 ||
        (g = group_arg(I, a[2], what)) < 0)
        return NULL;
    size_t n = 0;
    if (!is_seq(a[0]))
        return d2_raise(I, "TypeError", "%s: expected a list of parameters", what);
    d2_obj **ps = seq_items(a[0], &n);
    d2_obj *r = NULL;
    char *buf = NULL;
    size_t buf_cap = 0;
    d2_err err = {0};
    size_t end = n; /* params [start, end) form the bucket, walked from the back */
    while (end > 0) {
        size_t start = end;
        int64_t bytes = 0, count = 0;
        d2_dtype dt = D2_F32;
        bool any = false;
        while (start > 0) {
            d2_obj *p = ps[start - 1];
            if (!is_tensor(p) || is_sym(p) || TOBJ(p)->stop_gradient) {
                start--;
                continue;
            }
            d2_dtype pdt = TOBJ(p)->type.dtype;
            int64_t pn = d2_shape_numel(&TOBJ(p)->type.shape);
            int64_t pb = pn * (int64_t)d2_dtype_size(pdt);
            if (any && (pdt != dt || bytes + pb > cap))
                break;
            dt = pdt;
            any = true;
            bytes += pb;
            count += pn;
            start--;
        }
        if (!any)
            break;
        if ((size_t)bytes + 1 > buf_cap) {
            char *nb = d2_realloc(buf, (size_t)bytes + 1);
            if (!nb) {
                nomem(I);
                goto done;
            }
            buf = nb;
            buf_cap = (size_t)bytes + 1;
        }
        size_t off = 0;
        for (size_t k = start; k < end; k++) {
            d2_obj *p = ps[k];
            if (!is_tensor(p) || is_sym(p) || TOBJ(p)->stop_gradient)
                continue;
            size_t pb = (size_t)d2_shape_numel(&TOBJ(p)->type.shape) * d2_dtype_size(dt);
            d2_obj *gr = TOBJ(p)->grad;
            if (gr) {
                d2_tensor *h = host_copy(I, gr, what);
                if (!h)
                    goto done;
                if (pb)
                    memcpy(buf + off, d2_tensor_data(h), pb);
                d2_tensor_unref(h);
            } else if (pb) {
                memset(buf + off, 0, pb);
            }
            off += pb;
        }
        d2_shape sh = {1, {count}};
        if (d2_dist_all_reduce(g, what, buf, &sh, dt, D2_RED_AVG, &err) < 0) {
            d2_raise_err(I, &err);
            goto done;
        }
        off = 0;
        for (size_t k = start; k < end; k++) {
            d2_obj *p = ps[k];
            if (!is_tensor(p) || is_sym(p) || TOBJ(p)->stop_gradient)
                continue;
            const d2_shape *psh = &TOBJ(p)->type.shape;
            size_t pb = (size_t)d2_shape_numel(psh) * d2_dtype_size(dt);
            bool nonzero = TOBJ(p)->grad != NULL;
            for (size_t b = 0; !nonzero && b < pb; b++)
                nonzero = buf[off + b] != 0;
            if (nonzero) {
                d2_tensor *t = d2_tensor_from_data(dt, psh->ndim, psh->dims, buf + off, &err);
                d2_obj *go = t ? d2_tensor_wrap(I, t) : NULL;
                d2_tensor_unref(t);
                int rc = go ? d2_pd_set_tensor_grad(I, p, go) : -1;
                d2_decref(go);
                if (rc < 0) {
                    if (!I->exc)
                        d2_raise_err(I, &err);
                    goto done;
                }
            }
            off += pb;
        }
        end = start;
    }
    r = d2_none(I);
done:
    d2_free(buf);
    return r;
}

/* add_backward_final_hook(fn): fn() runs after every completed loss.backward() (autograd.c
 * calls the list paddle._backward_final_hooks). */
D2_FN(DI_add_backward_final_hook)
{
    pd_state *s = ST(I);
    if (!s)
        return NULL;
    d2_obj *l = d2_dict_get_str(I, s->paddle->dict, "_backward_final_hooks");
    if (!l || l->kind != D2_OBJ_LIST) {
        d2_obj *nl = d2_list_new(I, 0);
        int rc = nl ? d2_dict_set_str(I, s->paddle->dict, "_backward_final_hooks", nl) : -1;
        d2_decref(nl);
        if (rc < 0)
            return NULL;
        l = nl;
    }
    return d2_list_append(I, l, a[0]) < 0 ? NULL : d2_none(I);
}

int d2_pd_distributed_init(d2_interp *I)
{
    static const d2_def defs[] = {
        D2_DEF("init", "", DI_init, "paddle._dist.init"),
        D2_DEF("has_mpi", "", DI_has_mpi, "paddle._dist.has_mpi"),
        D2_DEF("active", "", DI_active, "paddle._dist.active"),
        D2_DEF("rank", "group=None", DI_rank, "paddle._dist.rank"),
        D2_DEF("size", "group=None", DI_size, "paddle._dist.size"),
        D2_DEF("world_rank", "group, rank", DI_world_rank, "paddle._dist.world_rank"),
        D2_DEF("set_timeout", "timeout", DI_set_timeout, "paddle._dist.set_timeout"),
        D2_DEF("timeout", "", DI_timeout, "paddle._dist.timeout"),
        D2_DEF("all_reduce", "tensor, op=0, group=None", DI_all_reduce,
               "paddle.distributed.all_reduce"),
        D2_DEF("reduce", "tensor, dst, op=0, group=None", DI_reduce, "paddle.distributed.reduce"),
        D2_DEF("broadcast", "tensor, src, group=None", DI_broadcast,
               "paddle.distributed.broadcast"),
        D2_DEF("all_gather", "tensor, group=None", DI_all_gather,
               "paddle.distributed.all_gather"),
        D2_DEF("scatter", "tensor, parts, src, group=None", DI_scatter,
               "paddle.distributed.scatter"),
        D2_DEF("barrier", "group=None", DI_barrier, "paddle.distributed.barrier"),
        D2_DEF("send", "tensor, dst, group=None", DI_send, "paddle.distributed.send"),
        D2_DEF("spawn", "nprocs, argv", DI_spawn, "paddle._dist.spawn"),
        D2_DEF("recv", "tensor, src, group=None", DI_recv, "paddle.distributed.recv"),
        D2_DEF("isend", "tensor, dst, group=None", DI_isend, "paddle.distributed.isend"),
        D2_DEF("irecv", "tensor, src, group=None", DI_irecv, "paddle.distributed.irecv"),
        D2_DEF("wait", "task", DI_wait, "paddle._dist.wait"),
        D2_DEF("test", "task", DI_test, "paddle._dist.test"),
        D2_DEF("new_group", "ranks", DI_new_group, "paddle.distributed.new_group"),
        D2_DEF("allreduce_grads", "params, bucket_bytes, group=None", DI_allreduce_grads,
               "paddle._dist.allreduce_grads"),
        D2_DEF("add_backward_final_hook", "fn", DI_add_backward_final_hook,
               "paddle._dist.add_backward_final_hook"),
    };
    d2_module *m = d2_module_new_builtin(I, "paddle._dist");
    if (!m)
        return -1;
    int rc = d2_module_add_defs(I, m, defs, D2_COUNTOF(defs));
    d2_decref((d2_obj *)m);
    if (rc < 0)
        return -1;
    if (d2_module_add_source(I, "paddle.distributed", d2_distributed_src) < 0)
        return -1;
    return d2_module_add_source(I, "paddle.distributed.fleet", d2_fleet_src);
}
