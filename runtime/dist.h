/* dist.h - collective communication between processes for multi-process data parallel: Open
 * MPI underneath when the build has it (HAVE_MPI) and the process was started by mpirun;
 * otherwise one process, where every collective is the identity on its data. */
#ifndef DY2ST_DIST_H
#define DY2ST_DIST_H

#include "base.h"
#include "tensor.h"

#include <stdbool.h>
#include <stdint.h>

/* Reductions of all_reduce / reduce (paddle.distributed.ReduceOp's values). */
typedef enum {
    D2_RED_SUM = 0,
    D2_RED_MAX = 1,
    D2_RED_MIN = 2,
    D2_RED_PROD = 3,
    D2_RED_AVG = 4,
} d2_redop;

/* A group of ranks (a communicator); group 0 is the world. */
typedef int d2_group;

/* Starts the communication layer once: MPI_Init when the build has MPI and the process runs
 * under mpirun (Open MPI's environment is set), else a world of one process. Later calls do
 * nothing. 0, or -1 with err set. */
int d2_dist_init(d2_err *err);
/* Whether the build has MPI. */
bool d2_dist_has_mpi(void);
/* Whether collectives cross processes (MPI started, world size > 1 possible). */
bool d2_dist_active(void);

/* This process's rank in group g and g's size; the world before d2_dist_init. -1 for a group
 * this process is not in (rank) or that does not exist. */
int d2_dist_rank(d2_group g);
int d2_dist_size(d2_group g);
/* The world rank of rank r of group g, or -1. */
int d2_dist_world_rank(d2_group g, int r);

/* A new group of the given world ranks (ascending, distinct), made by every process of the
 * world (a collective over the world); processes outside it get a group they are not in. The
 * group's id, or -1 with err set. */
d2_group d2_dist_new_group(const int *ranks, int n, d2_err *err);

/* Seconds a collective may wait for the other ranks before it fails (default: the
 * DY2ST_DIST_TIMEOUT environment variable, else 300). */
void d2_dist_set_timeout(double s);
double d2_dist_timeout(void);

/* The collectives. `what` names the collective in errors ("paddle.distributed.all_reduce").
 * Every rank of g must call them in the same order with tensors of one dtype and shape (the
 * shapes are checked first: a mismatch is an error on every rank naming the ranks and their
 * shapes). Buffers are contiguous host memory of count elements of dtype dt. On a timeout the
 * group is broken: later collectives fail at once and d2_dist_finish aborts the job. */
int d2_dist_all_reduce(d2_group g, const char *what, void *buf, const d2_shape *sh, d2_dtype dt,
                       d2_redop op, d2_err *err);
/* reduce: the result lands in dst's buf only (the others' are left alone). */
int d2_dist_reduce(d2_group g, const char *what, void *buf, const d2_shape *sh, d2_dtype dt,
                   d2_redop op, int dst, d2_err *err);
int d2_dist_broadcast(d2_group g, const char *what, void *buf, const d2_shape *sh, d2_dtype dt,
                      int src, d2_err *err);
/* all_gather: out receives size(g) blocks, rank order, each the size of buf. */
int d2_dist_all_gather(d2_group g, const char *what, const void *buf, void *out,
                       const d2_shape *sh, d2_dtype dt, d2_err *err);
/* scatter: src's parts (size(g) blocks of buf's size, rank order) go one to each rank's buf. */
int d2_dist_scatter(d2_group g, const char *what, const void *parts, void *buf,
                    const d2_shape *sh, d2_dtype dt, int src, d2_err *err);
int d2_dist_barrier(d2_group g, const char *what, d2_err *err);
/* Point to point: send buf to rank dst of g; receive into buf from rank src. The receiver
 * checks the sender's dtype and shape against its own (an error naming both ranks). */
int d2_dist_send(d2_group g, const char *what, const void *buf, const d2_shape *sh, d2_dtype dt,
                 int dst, d2_err *err);
int d2_dist_recv(d2_group g, const char *what, void *buf, const d2_shape *sh, d2_dtype dt,
                 int src, d2_err *err);

/* Nonblocking point to point (isend / irecv): the transfer is posted and runs while the caller
 * goes on; buf must stay valid and untouched until d2_dist_wait returns. The receiver's dtype
 * and shape check happens in d2_dist_wait. A new request, or NULL with err set. */
typedef struct d2_dist_req d2_dist_req;
d2_dist_req *d2_dist_isend(d2_group g, const char *what, const void *buf, const d2_shape *sh,
                           d2_dtype dt, int dst, d2_err *err);
d2_dist_req *d2_dist_irecv(d2_group g, const char *what, void *buf, const d2_shape *sh,
                           d2_dtype dt, int src, d2_err *err);
/* Waits (at most the timeout) until r is complete and frees r. 0, or -1 with err set (a failed
 * transfer breaks the layer, as a failed collective does). */
int d2_dist_wait(d2_dist_req *r, d2_err *err);
/* Whether r has completed (it does not wait; r stays the caller's to d2_dist_wait). */
bool d2_dist_test(d2_dist_req *r);

/* paddle.distributed.spawn's launcher: runs `mpirun -np nprocs dy2st exec ARGV...` (this
 * executable; --oversubscribe, and --allow-run-as-root as root) with DY2ST_SPAWNED=1 in the
 * processes' environment, and waits for it. Its exit status, or -1 with err set (no MPI in
 * the build, mpirun missing). */
int d2_dist_spawn(int nprocs, const char *const *argv, int argc, d2_err *err);

/* Ends the communication layer at process exit: MPI_Finalize, or MPI_Abort (which stops every
 * rank of the job) when failed is true or a collective failed, so no rank is left waiting. */
void d2_dist_finish(bool failed);

#endif
