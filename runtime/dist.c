/* dist.c - collectives across processes (dist.h): Open MPI's nonblocking collectives polled
 * against a deadline, so that a rank that died or hangs makes the others fail in bounded time;
 * a shape check before each collective; a world of one process without MPI. */
#include "dist.h"


#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HAVE_MPI
#include <mpi.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#define MAX_GROUPS 64

static double g_timeout = -1; /* seconds; < 0: not read from the environment yet */

void d2_dist_set_timeout(double s) { g_timeout = s > 0 ? s : 300; }

double d2_dist_timeout(void)
{
    if (g_timeout < 0) {
        const char *e = getenv("DY2ST_DIST_TIMEOUT");
        char *end = NULL;
        double v = e && *e ? strtod(e, &end) : 0;
        g_timeout = e && end && *end == '\0' && v > 0 ? v : 300;
    }
    return g_timeout;
}

static int64_t numel_of(const d2_shape *sh)
{
    int64_t n = 1;
    for (int d = 0; d < sh->ndim; d++)
        n *= sh->dims[d];
    return n;
}

#ifdef HAVE_MPI

/* ---------------------------------------------------------------------------------------- */
/* Open MPI */

/* "float32[2, 3]" */
static void shape_text(d2_dtype dt, int ndim, const int64_t *dims, char *out, size_t n)
{
    size_t k = (size_t)snprintf(out, n, "%s[", d2_dtype_name(dt));
    for (int d = 0; d < ndim && k < n; d++)
        k += (size_t)snprintf(out + k, n - k, "%s%lld", d ? ", " : "", (long long)dims[d]);
    if (k < n)
        snprintf(out + k, n - k, "]");
}

static bool g_started;   /* MPI_Init ran here */
static bool g_finished;  /* MPI_Finalize or MPI_Abort ran */
static bool g_broken;    /* a collective failed: the job can only be aborted */
static MPI_Comm g_comms[MAX_GROUPS];
static int g_n_groups = 1;

bool d2_dist_has_mpi(void) { return true; }

bool d2_dist_active(void) { return g_started && !g_finished; }

/* Whether mpirun (or another PMIx launcher) started this process. */
static bool under_launcher(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK");
}

static int mpi_error(int rc, const char *what, d2_err *err)
{
    char msg[MPI_MAX_ERROR_STRING + 1];
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof msg, "MPI error %d", rc);
    else
        msg[len] = '\0';
    return d2_err_set(err, D2_ERR_RUNTIME, "%s: %s", what, msg);
}

static void finish_at_exit(void) { d2_dist_finish(false); }

int d2_dist_init(d2_err *err)
{
    if (g_started || g_finished || !under_launcher())
        return 0;
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited) {
        int provided = 0;
        int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
        if (rc != MPI_SUCCESS)
            return mpi_error(rc, "MPI_Init", err);
    }
    g_started = true;
    atexit(finish_at_exit); /* a caller that never calls d2_dist_finish (the C API) */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    g_comms[0] = MPI_COMM_WORLD;
    g_n_groups = 1;
    d2_dist_timeout();
    return 0;
}

static MPI_Comm comm_of(d2_group g)
{
    if (g < 0 || g >= g_n_groups)
        return MPI_COMM_NULL;
    return g_comms[g];
}

/* Without mpirun the groups are all the one process. */
static bool single_group(d2_group g) { return g >= 0 && g < g_n_groups; }

int d2_dist_rank(d2_group g)
{
    if (!d2_dist_active())
        return single_group(g) ? 0 : -1;
    MPI_Comm c = comm_of(g);
    int r = -1;
    if (c == MPI_COMM_NULL || MPI_Comm_rank(c, &r) != MPI_SUCCESS)
        return -1;
    return r;
}

int d2_dist_size(d2_group g)
{
    if (!d2_dist_active())
        return single_group(g) ? 1 : -1;
    MPI_Comm c = comm_of(g);
    int n = -1;
    if (c == MPI_COMM_NULL || MPI_Comm_size(c, &n) != MPI_SUCCESS)
        return -1;
    return n;
}

int d2_dist_world_rank(d2_group g, int r)
{
    if (!d2_dist_active())
        return single_group(g) && r == 0 ? 0 : -1;
    MPI_Comm c = comm_of(g);
    if (c == MPI_COMM_NULL)
        return -1;
    MPI_Group cg, wg;
    int w = -1;
    MPI_Comm_group(c, &cg);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    if (MPI_Group_translate_ranks(cg, 1, &r, wg, &w) != MPI_SUCCESS || w == MPI_UNDEFINED)
        w = -1;
    MPI_Group_free(&cg);
    MPI_Group_free(&wg);
    return w;
}

/* Waits for req until the timeout; on a timeout the layer is broken. */
static int wait_req(MPI_Request *req, d2_group g, const char *what, d2_err *err)
{
    double limit = d2_dist_timeout(), t0 = d2_monotonic_s();
    long spins = 0;
    for (;;) {
        int done = 0;
        int rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
            g_broken = true;
            return mpi_error(rc, what, err);
        }
        if (done)
            return 0;
        if (++spins < 256)
            continue;
        if (d2_monotonic_s() - t0 > limit) {
            g_broken = true;
            return d2_err_set(err, D2_ERR_LIMIT,
                              "%s: timed out after %g s waiting for the other ranks (this is "
                              "rank %d of %d): a rank died, hangs or skipped this collective "
                              "(DY2ST_DIST_TIMEOUT sets the timeout)",
                              what, limit, d2_dist_rank(g), d2_dist_size(g));
        }
        struct timespec ts = {0, spins < 4096 ? 20000 : 200000};
        nanosleep(&ts, NULL);
    }
}

/* The group's communicator, or NULL-comm with err set (broken layer, bad group, not a
 * member). */
/* A nonblocking collective was started with status rc: waits for it (wait_req), or reports
 * why it could not start; either failure leaves the group unusable. */
static int started(int rc, MPI_Request *req, d2_group g, const char *what, d2_err *err)
{
    if (rc != MPI_SUCCESS) {
        g_broken = true;
        return mpi_error(rc, what, err);
    }
    return wait_req(req, g, what, err);
}

static int usable(d2_group g, const char *what, MPI_Comm *c, d2_err *err)
{
    if (g_broken)
        return d2_err_set(err, D2_ERR_RUNTIME,
                          "%s: an earlier collective failed, so the ranks are out of step",
                          what);
    *c = comm_of(g);
    if (*c == MPI_COMM_NULL)
        return d2_err_set(err, D2_ERR_INVALID, "%s: this rank (%d) is not in the group", what,
                          d2_dist_rank(0));
    return 0;
}

/* Every rank's dtype and shape, compared: all equal, or an error naming the ranks. */
static int check_shapes(MPI_Comm c, d2_group g, const char *what, const d2_shape *sh,
                        d2_dtype dt, d2_err *err)
{
    enum { H = 2 + D2_MAX_DIMS };
    int n = d2_dist_size(g);
    int64_t mine[H] = {(int64_t)dt, sh->ndim};
    for (int d = 0; d < sh->ndim; d++)
        mine[2 + d] = sh->dims[d];
    int64_t *all = d2_calloc((size_t)n * H + 1, sizeof *all);
    if (!all)
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    MPI_Request req;
    int rc = MPI_Iallgather(mine, H, MPI_INT64_T, all, H, MPI_INT64_T, c, &req);
    if (rc != MPI_SUCCESS) {
        d2_free(all);
        g_broken = true;
        return mpi_error(rc, what, err);
    }
    if (wait_req(&req, g, what, err) < 0) {
        d2_free(all);
        return -1;
    }
    int first_bad = -1;
    for (int r = 1; r < n && first_bad < 0; r++)
        if (memcmp(all + (size_t)r * H, all, sizeof mine) != 0)
            first_bad = r;
    if (first_bad >= 0) {
        char a[256], b[256];
        shape_text((d2_dtype)all[0], (int)all[1], all + 2, a, sizeof a);
        const int64_t *o = all + (size_t)first_bad * H;
        shape_text((d2_dtype)o[0], (int)o[1], o + 2, b, sizeof b);
        d2_err_set(err, D2_ERR_SHAPE,
                   "%s: the tensors differ across ranks: rank 0 has %s, rank %d has %s (every "
                   "rank must pass the same dtype and shape)",
                   what, a, first_bad, b);
        d2_free(all);
        return -1;
    }
    d2_free(all);
    return 0;
}

static MPI_Datatype mpi_type(d2_dtype dt)
{
    switch (dt) {
    case D2_F32: return MPI_FLOAT;
    case D2_F64: return MPI_DOUBLE;
    case D2_I32: return MPI_INT32_T;
    case D2_I64: return MPI_INT64_T;
    default: return MPI_DATATYPE_NULL;
    }
}

static int mpi_op(d2_redop op, MPI_Op *out)
{
    switch (op) {
    case D2_RED_SUM:
    case D2_RED_AVG: *out = MPI_SUM; return 0;
    case D2_RED_MAX: *out = MPI_MAX; return 0;
    case D2_RED_MIN: *out = MPI_MIN; return 0;
    case D2_RED_PROD: *out = MPI_PROD; return 0;
    }
    return -1;
}

/* Divides buf by n (AVG). */
static void scale_avg(void *buf, int64_t count, d2_dtype dt, int n)
{
    if (dt == D2_F32)
        for (int64_t i = 0; i < count; i++)
            ((float *)buf)[i] /= (float)n;
    else if (dt == D2_F64)
        for (int64_t i = 0; i < count; i++)
            ((double *)buf)[i] /= n;
}

static int reduce_common(d2_group g, const char *what, void *buf, const d2_shape *sh,
                         d2_dtype dt, d2_redop op, int dst, d2_err *err)
{
    MPI_Comm c;
    MPI_Op mop;
    if (usable(g, what, &c, err) < 0)
        return -1;
    MPI_Datatype t = mpi_type(dt);
    if (t == MPI_DATATYPE_NULL || mpi_op(op, &mop) < 0 ||
        (op == D2_RED_AVG && dt != D2_F32 && dt != D2_F64))
        return d2_err_set(err, D2_ERR_DTYPE, "%s: cannot reduce %s tensors%s", what,
                          d2_dtype_name(dt), op == D2_RED_AVG ? " with AVG" : "");
    if (check_shapes(c, g, what, sh, dt, err) < 0)
        return -1;
    int64_t count = numel_of(sh);
    if (count > INT32_MAX)
        return d2_err_set(err, D2_ERR_UNSUPPORTED, "%s: tensor too large", what);
    MPI_Request req;
    int me = d2_dist_rank(g), rc;
    if (dst < 0)
        rc = MPI_Iallreduce(MPI_IN_PLACE, buf, (int)count, t, mop, c, &req);
    else
        rc = MPI_Ireduce(me == dst ? MPI_IN_PLACE : buf, me == dst ? buf : NULL, (int)count, t,
                         mop, dst, c, &req);
    if (rc != MPI_SUCCESS) {
        g_broken = true;
        return mpi_error(rc, what, err);
    }
    if (wait_req(&req, g, what, err) < 0)
        return -1;
    if (op == D2_RED_AVG && (dst < 0 || me == dst))
        scale_avg(buf, count, dt, d2_dist_size(g));
    return 0;
}

/* Before a collective of nb bytes per rank: the group is usable (its communicator in *c),
 * every rank passes the same dtype and shape, and nb fits MPI's int count. */
static int ready(d2_group g, const char *what, const d2_shape *sh, d2_dtype dt, int64_t nb,
                 MPI_Comm *c, d2_err *err)
{
    if (usable(g, what, c, err) < 0 || check_shapes(*c, g, what, sh, dt, err) < 0)
        return -1;
    if (nb > INT32_MAX)
        return d2_err_set(err, D2_ERR_UNSUPPORTED, "%s: tensor too large", what);
    return 0;
}

int d2_dist_all_reduce(d2_group g, const char *what, void *buf, const d2_shape *sh, d2_dtype dt,
                       d2_redop op, d2_err *err)
{
    if (!d2_dist_active())
        return single_group(g) ? 0 : d2_err_set(err, D2_ERR_INVALID, "%s: no such group", what);
    return reduce_common(g, what, buf, sh, dt, op, -1, err);
}

int d2_dist_reduce(d2_group g, const char *what, void *buf, const d2_shape *sh, d2_dtype dt,
                   d2_redop op, int dst, d2_err *err)
{
    if (dst < 0 || dst >= d2_dist_size(g))
        return d2_err_set(err, D2_ERR_INVALID, "%s: dst %d is not a rank of the group (size %d)",
                          what, dst, d2_dist_size(g));
    if (!d2_dist_active())
        return 0;
    return reduce_common(g, what, buf, sh, dt, op, dst, err);
}

int d2_dist_broadcast(d2_group g, const char *what, void *buf, const d2_shape *sh, d2_dtype dt,
                      int src, d2_err *err)
{
    if (src < 0 || src >= d2_dist_size(g))
        return d2_err_set(err, D2_ERR_INVALID, "%s: src %d is not a rank of the group (size %d)",
                          what, src, d2_dist_size(g));
    if (!d2_dist_active())
        return 0;
    MPI_Comm c;
    if (usable(g, what, &c, err) < 0 || check_shapes(c, g, what, sh, dt, err) < 0)
        return -1;
    int64_t nb = numel_of(sh) * (int64_t)d2_dtype_size(dt);
    if (nb > INT32_MAX)
        return d2_err_set(err, D2_ERR_UNSUPPORTED, "%s: tensor too large", what);
    MPI_Request req;
    int rc = MPI_Ibcast(buf, (int)nb, MPI_BYTE, src, c, &req);
    return started(rc, &req, g, what, err);
}

int d2_dist_all_gather(d2_group g, const char *what, const void *buf, void *out,
                       const d2_shape *sh, d2_dtype dt, d2_err *err)
{
    int64_t nb = numel_of(sh) * (int64_t)d2_dtype_size(dt);
    if (!d2_dist_active()) {
        if (nb)
            memcpy(out, buf, (size_t)nb);
        return 0;
    }
    MPI_Comm c;
    if (ready(g, what, sh, dt, nb, &c, err) < 0)
        return -1;
    MPI_Request req;
    int rc = MPI_Iallgather(buf, (int)nb, MPI_BYTE, out, (int)nb, MPI_BYTE, c, &req);
    return started(rc, &req, g, what, err);
}

int d2_dist_scatter(d2_group g, const char *what, const void *parts, void *buf,
                    const d2_shape *sh, d2_dtype dt, int src, d2_err *err)
{
    if (src < 0 || src >= d2_dist_size(g))
        return d2_err_set(err, D2_ERR_INVALID, "%s: src %d is not a rank of the group (size %d)",
                          what, src, d2_dist_size(g));
    int64_t nb = numel_of(sh) * (int64_t)d2_dtype_size(dt);
    if (!d2_dist_active()) {
        if (nb)
            memcpy(buf, parts, (size_t)nb);
        return 0;
    }
    MPI_Comm c;
    if (ready(g, what, sh, dt, nb, &c, err) < 0)
        return -1;
    MPI_Request req;
    int rc = MPI_Iscatter(parts, (int)nb, MPI_BYTE, buf, (int)nb, MPI_BYTE, src, c, &req);
    return started(rc, &req, g, what, err);
}

int d2_dist_barrier(d2_group g, const char *what, d2_err *err)
{
    if (!d2_dist_active())
        return 0;
    MPI_Comm c;
    if (usable(g, what, &c, err) < 0)
        return -1;
    MPI_Request req;
    int rc = MPI_Ibarrier(c, &req);
    return started(rc, &req, g, what, err);
}

enum { TAG_HEADER = 7301, TAG_DATA = 7302, HEADER = 2 + D2_MAX_DIMS };

static void header_of(const d2_shape *sh, d2_dtype dt, int64_t *h)
{
    memset(h, 0, sizeof(int64_t) * HEADER);
    h[0] = (int64_t)dt;
    h[1] = sh->ndim;
    for (int d = 0; d < sh->ndim; d++)
        h[2 + d] = sh->dims[d];
}

static int peer_ok(d2_group g, const char *what, const char *name, int peer, d2_err *err)
{
    if (peer < 0 || peer >= d2_dist_size(g))
        return d2_err_set(err, D2_ERR_INVALID, "%s: %s %d is not a rank of the group (size %d)",
                          what, name, peer, d2_dist_size(g));
    if (peer == d2_dist_rank(g))
        return d2_err_set(err, D2_ERR_INVALID, "%s: rank %d cannot %s itself", what, peer,
                          name[0] == 'd' ? "send to" : "receive from");
    return 0;
}

struct d2_dist_req {
    MPI_Request hreq, dreq; /* the header (dtype and shape) and the data */
    int64_t mine[HEADER], theirs[HEADER];
    bool recv;
    d2_group g;
    const char *what;
    int peer;
};

/* Posts the header and data transfers of a send or a receive. */
static d2_dist_req *post(d2_group g, const char *what, void *buf, const d2_shape *sh,
                         d2_dtype dt, int peer, bool recv, d2_err *err)
{
    MPI_Comm c;
    if (peer_ok(g, what, recv ? "src" : "dst", peer, err) < 0 || usable(g, what, &c, err) < 0)
        return NULL;
    int64_t nb = numel_of(sh) * (int64_t)d2_dtype_size(dt);
    if (nb > INT32_MAX) {
        d2_err_set(err, D2_ERR_UNSUPPORTED, "%s: tensor too large", what);
        return NULL;
    }
    d2_dist_req *r = d2_calloc(1, sizeof *r);
    if (!r) {
        d2_err_set(err, D2_ERR_NOMEM, "%s: out of memory", what);
        return NULL;
    }
    r->recv = recv;
    r->g = g;
    r->what = what;
    r->peer = peer;
    r->hreq = r->dreq = MPI_REQUEST_NULL;
    header_of(sh, dt, r->mine);
    int rc = recv ? MPI_Irecv(r->theirs, HEADER, MPI_INT64_T, peer, TAG_HEADER, c, &r->hreq)
                  : MPI_Isend(r->mine, HEADER, MPI_INT64_T, peer, TAG_HEADER, c, &r->hreq);
    if (rc == MPI_SUCCESS)
        rc = recv ? MPI_Irecv(buf, (int)nb, MPI_BYTE, peer, TAG_DATA, c, &r->dreq)
                  : MPI_Isend(buf, (int)nb, MPI_BYTE, peer, TAG_DATA, c, &r->dreq);
    if (rc != MPI_SUCCESS) {
        g_broken = true; /* r stays allocated: MPI may still write into it */
        mpi_error(rc, what, err);
        return NULL;
    }
    return r;
}

d2_dist_req *d2_dist_isend(d2_group g, const char *what, const void *buf, const d2_shape *sh,
                           d2_dtype dt, int dst, d2_err *err)
{
    return post(g, what, (void *)buf, sh, dt, dst, false, err);
}

d2_dist_req *d2_dist_irecv(d2_group g, const char *what, void *buf, const d2_shape *sh,
                           d2_dtype dt, int src, d2_err *err)
{
    return post(g, what, buf, sh, dt, src, true, err);
}

int d2_dist_wait(d2_dist_req *r, d2_err *err)
{
    /* on a failure r is not freed: the transfers it holds may still be under way, and the
     * broken layer ends the job at exit */
    if (wait_req(&r->hreq, r->g, r->what, err) < 0)
        return -1;
    if (r->recv && memcmp(r->mine, r->theirs, sizeof r->mine) != 0) {
        char a[256], b[256];
        shape_text((d2_dtype)r->theirs[0], (int)r->theirs[1], r->theirs + 2, a, sizeof a);
        shape_text((d2_dtype)r->mine[0], (int)r->mine[1], r->mine + 2, b, sizeof b);
        g_broken = true; /* the data message is not what this rank can take */
        return d2_err_set(err, D2_ERR_SHAPE,
                          "%s: rank %d sent %s but rank %d receives into %s (the tensors must "
                          "have the same dtype and shape)",
                          r->what, r->peer, a, d2_dist_rank(r->g), b);
    }
    if (wait_req(&r->dreq, r->g, r->what, err) < 0)
        return -1;
    d2_free(r);
    return 0;
}

bool d2_dist_test(d2_dist_req *r)
{
    int hd = 0, dd = 0;
    if (MPI_Test(&r->hreq, &hd, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
        MPI_Test(&r->dreq, &dd, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return true; /* failed: d2_dist_wait reports it */
    return hd && dd;
}

int d2_dist_send(d2_group g, const char *what, const void *buf, const d2_shape *sh, d2_dtype dt,
                 int dst, d2_err *err)
{
    d2_dist_req *r = d2_dist_isend(g, what, buf, sh, dt, dst, err);
    return r ? d2_dist_wait(r, err) : -1;
}

int d2_dist_recv(d2_group g, const char *what, void *buf, const d2_shape *sh, d2_dtype dt,
                 int src, d2_err *err)
{
    d2_dist_req *r = d2_dist_irecv(g, what, buf, sh, dt, src, err);
    return r ? d2_dist_wait(r, err) : -1;
}

d2_group d2_dist_new_group(const int *ranks, int n, d2_err *err)
{
    const char *what = "paddle.distributed.new_group";
    int world = d2_dist_size(0);
    for (int i = 0; i < n; i++)
        if (ranks[i] < 0 || ranks[i] >= world || (i && ranks[i] <= ranks[i - 1]))
            return d2_err_set(err, D2_ERR_INVALID,
                              "%s: ranks must be distinct ranks of the world (0..%d) in "
                              "ascending order",
                              what, world - 1);
    if (g_n_groups >= MAX_GROUPS)
        return d2_err_set(err, D2_ERR_LIMIT, "%s: at most %d groups", what, MAX_GROUPS);
    if (!d2_dist_active()) { /* one process: a group of rank 0 */
        g_comms[g_n_groups] = MPI_COMM_NULL;
        return g_n_groups++;
    }
    MPI_Comm c;
    if (usable(0, what, &c, err) < 0)
        return -1;
    /* every rank agrees on the member list first (a collective with a timeout), then
     * MPI_Comm_create_group runs on the members only */
    d2_shape sh = {1, {n}};
    if (check_shapes(c, 0, what, &sh, D2_I32, err) < 0)
        return -1;
    int me = d2_dist_rank(0);
    bool member = false;
    for (int i = 0; i < n; i++)
        member = member || ranks[i] == me;
    MPI_Comm nc = MPI_COMM_NULL;
    if (member) {
        MPI_Group wg, ng;
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Group_incl(wg, n, ranks, &ng);
        int rc = MPI_Comm_create_group(MPI_COMM_WORLD, ng, g_n_groups, &nc);
        MPI_Group_free(&ng);
        MPI_Group_free(&wg);
        if (rc != MPI_SUCCESS)
            return mpi_error(rc, what, err);
        MPI_Comm_set_errhandler(nc, MPI_ERRORS_RETURN);
    }
    g_comms[g_n_groups] = nc;
    return g_n_groups++;
}

int d2_dist_spawn(int nprocs, const char *const *argv, int argc, d2_err *err)
{
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return d2_err_set(err, D2_ERR_IO, "paddle.distributed.spawn: cannot find the dy2st "
                                          "executable: %s", strerror(errno));
    exe[len] = '\0';
    char np[32];
    snprintf(np, sizeof np, "%d", nprocs);
    const char *mpirun = getenv("DY2ST_MPIRUN");
    if (!mpirun || !*mpirun)
        mpirun = "mpirun";
    const char **av = d2_calloc((size_t)argc + 16, sizeof *av);
    if (!av)
        return d2_err_set(err, D2_ERR_NOMEM, "out of memory");
    int k = 0;
    av[k++] = mpirun;
    av[k++] = "-np";
    av[k++] = np;
    av[k++] = "--oversubscribe";
    if (geteuid() == 0)
        av[k++] = "--allow-run-as-root";
    av[k++] = "-x";
    av[k++] = "DY2ST_SPAWNED=1";
    av[k++] = exe;
    av[k++] = "exec";
    av[k++] = "--";
    for (int i = 0; i < argc; i++)
        av[k++] = argv[i];
    av[k] = NULL;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        execvp(mpirun, (char *const *)av);
        fprintf(stderr, "paddle.distributed.spawn: cannot run '%s': %s\n", mpirun,
                strerror(errno));
        _exit(127);
    }
    d2_free(av);
    if (pid < 0)
        return d2_err_set(err, D2_ERR_RUNTIME, "paddle.distributed.spawn: fork: %s",
                          strerror(errno));
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return d2_err_set(err, D2_ERR_RUNTIME, "paddle.distributed.spawn: waitpid: %s",
                              strerror(errno));
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
        return d2_err_set(err, D2_ERR_RUNTIME,
                          "paddle.distributed.spawn: cannot run '%s' (install Open MPI: "
                          "Debian's openmpi-bin)",
                          mpirun);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

void d2_dist_finish(bool failed)
{
    if (!g_started || g_finished)
        return;
    g_finished = true;
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if ((failed || g_broken) && size > 1) {
        fflush(stdout);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 1);
        return;
    }
    for (int g = 1; g < g_n_groups; g++)
        if (g_comms[g] != MPI_COMM_NULL)
            MPI_Comm_free(&g_comms[g]);
    MPI_Finalize();
}

#else

/* ---------------------------------------------------------------------------------------- */
/* No MPI in this build: one process */

static int g_n_groups = 1;

bool d2_dist_has_mpi(void) { return false; }
bool d2_dist_active(void) { return false; }
int d2_dist_init(d2_err *err)
{
    D2_UNUSED(err);
    return 0;
}

static bool is_group(d2_group g) { return g >= 0 && g < g_n_groups; }

int d2_dist_rank(d2_group g) { return is_group(g) ? 0 : -1; }
int d2_dist_size(d2_group g) { return is_group(g) ? 1 : -1; }
int d2_dist_world_rank(d2_group g, int r) { return is_group(g) && r == 0 ? 0 : -1; }

d2_group d2_dist_new_group(const int *ranks, int n, d2_err *err)
{
    if (n != 1 || ranks[0] != 0)
        return d2_err_set(err, D2_ERR_INVALID,
                          "paddle.distributed.new_group: the world has one rank (0): this "
                          "build of dy2st has no MPI");
    if (g_n_groups >= MAX_GROUPS)
        return d2_err_set(err, D2_ERR_LIMIT, "paddle.distributed.new_group: at most %d groups",
                          MAX_GROUPS);
    return g_n_groups++;
}

static int check_group(d2_group g, const char *what, d2_err *err)
{
    return is_group(g) ? 0 : d2_err_set(err, D2_ERR_INVALID, "%s: no such group", what);
}

static int check_root(d2_group g, const char *what, const char *name, int r, d2_err *err)
{
    if (check_group(g, what, err) < 0)
        return -1;
    return r == 0 ? 0
                  : d2_err_set(err, D2_ERR_INVALID,
                               "%s: %s %d is not a rank of the group (size 1)", what, name, r);
}

int d2_dist_all_reduce(d2_group g, const char *what, void *buf, const d2_shape *sh, d2_dtype dt,
                       d2_redop op, d2_err *err)
{
    D2_UNUSED(buf);
    D2_UNUSED(sh);
    if (op == D2_RED_AVG && dt != D2_F32 && dt != D2_F64)
        return d2_err_set(err, D2_ERR_DTYPE, "%s: cannot reduce %s tensors with AVG", what,
                          d2_dtype_name(dt));
    return check_group(g, what, err);
}

int d2_dist_reduce(d2_group g, const char *what, void *buf, const d2_shape *sh, d2_dtype dt,
                   d2_redop op, int dst, d2_err *err)
{
    if (d2_dist_all_reduce(g, what, buf, sh, dt, op, err) < 0)
        return -1;
    return check_root(g, what, "dst", dst, err);
}

int d2_dist_broadcast(d2_group g, const char *what, void *buf, const d2_shape *sh, d2_dtype dt,
                      int src, d2_err *err)
{
    D2_UNUSED(buf);
    D2_UNUSED(sh);
    D2_UNUSED(dt);
    return check_root(g, what, "src", src, err);
}

int d2_dist_all_gather(d2_group g, const char *what, const void *buf, void *out,
                       const d2_shape *sh, d2_dtype dt, d2_err *err)
{
    if (check_group(g, what, err) < 0)
        return -1;
    size_t nb = (size_t)numel_of(sh) * d2_dtype_size(dt);
    if (nb)
        memcpy(out, buf, nb);
    return 0;
}

int d2_dist_scatter(d2_group g, const char *what, const void *parts, void *buf,
                    const d2_shape *sh, d2_dtype dt, int src, d2_err *err)
{
    if (check_root(g, what, "src", src, err) < 0)
        return -1;
    size_t nb = (size_t)numel_of(sh) * d2_dtype_size(dt);
    if (nb)
        memcpy(buf, parts, nb);
    return 0;
}

int d2_dist_barrier(d2_group g, const char *what, d2_err *err)
{
    return check_group(g, what, err);
}

int d2_dist_send(d2_group g, const char *what, const void *buf, const d2_shape *sh, d2_dtype dt,
                 int dst, d2_err *err)
{
    D2_UNUSED(buf);
    D2_UNUSED(sh);
    D2_UNUSED(dt);
    if (check_group(g, what, err) < 0)
        return -1;
    if (dst == 0)
        return d2_err_set(err, D2_ERR_INVALID, "%s: rank 0 cannot send to itself", what);
    return d2_err_set(err, D2_ERR_INVALID, "%s: dst %d is not a rank of the group (size 1)",
                      what, dst);
}

int d2_dist_recv(d2_group g, const char *what, void *buf, const d2_shape *sh, d2_dtype dt,
                 int src, d2_err *err)
{
    D2_UNUSED(buf);
    D2_UNUSED(sh);
    D2_UNUSED(dt);
    if (check_group(g, what, err) < 0)
        return -1;
    if (src == 0)
        return d2_err_set(err, D2_ERR_INVALID, "%s: rank 0 cannot receive from itself", what);
    return d2_err_set(err, D2_ERR_INVALID, "%s: src %d is not a rank of the group (size 1)",
                      what, src);
}

/* One process has no peer: isend and irecv fail as send and recv do. */
d2_dist_req *d2_dist_isend(d2_group g, const char *what, const void *buf, const d2_shape *sh,
                           d2_dtype dt, int dst, d2_err *err)
{
    d2_dist_send(g, what, buf, sh, dt, dst, err);
    return NULL;
}

d2_dist_req *d2_dist_irecv(d2_group g, const char *what, void *buf, const d2_shape *sh,
                           d2_dtype dt, int src, d2_err *err)
{
    d2_dist_recv(g, what, buf, sh, dt, src, err);
    return NULL;
}

int d2_dist_wait(d2_dist_req *r, d2_err *err)
{
    D2_UNUSED(r);
    return d2_err_set(err, D2_ERR_INVALID, "paddle.distributed: no transfer to wait for");
}

bool d2_dist_test(d2_dist_req *r)
{
    D2_UNUSED(r);
    return true;
}

int d2_dist_spawn(int nprocs, const char *const *argv, int argc, d2_err *err)
{
    D2_UNUSED(nprocs);
    D2_UNUSED(argv);
    D2_UNUSED(argc);
    return d2_err_set(err, D2_ERR_UNSUPPORTED,
                      "paddle.distributed.spawn: this dy2st was built without Open MPI");
}

void d2_dist_finish(bool failed) { D2_UNUSED(failed); }

#endif
