/* memplan.h - the static memory plan: block 0's intermediate values placed by liveness into one
 * arena per run, planned once per set of input shapes. */
#ifndef DY2ST_MEMPLAN_H
#define DY2ST_MEMPLAN_H

#include "program.h"
#include "tensor.h"

/* Alignment of every slot of an arena (and of the arena itself), in bytes. */
#define D2_MEMPLAN_ALIGN 64

/* One value to place: it occupies the arena from op `start` to op `end` of its block, both
 * included (an op reads its inputs while it writes its outputs), and `size` bytes. */
typedef struct d2_mp_item {
    int start, end;
    size_t size;
} d2_mp_item;

/* Best-fit placement on intervals: items are taken largest first, each into the smallest gap
 * between the items already placed whose intervals meet its own, else above them all.
 * offset[i] receives item i's offset (a multiple of D2_MEMPLAN_ALIGN; sizes are rounded up
 * to it). Returns the arena's size; 0 with offsets untouched when out of memory (or n == 0). */
size_t d2_memplan_assign(const d2_mp_item *items, int n, size_t *offset);

typedef struct d2_memplan d2_memplan;
typedef struct d2_mp_arena d2_mp_arena;

/* The plan of p's block 0 on the CPU: which values go to the arena (outputs of ops whose
 * outputs the executor allocates, that are no Program output and that nothing aliasing them
 * yields), their live intervals, and the in-place sharing: inplace_port[i] (NULL: none) is
 * the input port whose buffer op i's output 0 may take, or -1; such an output shares its
 * input's slot. Values of cond / while_loop blocks are not planned (the buffer pool serves
 * them); a block-0 value read inside a nested block lives until the op that owns the block.
 * When every input shape and every planned value's shape is static, the plan for those shapes
 * is made now; otherwise the first run of each input-shape set plans from shape inference over
 * block 0 with its shapes (values whose shapes need data, e.g. after a while_loop with dynamic
 * dims, are sized by that run and the plan is then remade with them). At most a few plans are
 * cached; the least recently used goes. NULL with err set when out of memory. */
d2_memplan *d2_memplan_new(const d2_program *p, const int *inplace_port, d2_err *err);
/* Frees the plans and idle arenas (an arena whose tensors outlive it is freed with its last
 * tensor). No run may be in progress. NULL is ignored. */
void d2_memplan_free(d2_memplan *mp);

/* Starts a run with these block-0 inputs: an arena of the plan for their shapes (an idle one
 * of an earlier run, else a new one; the plan is made now when none exists). NULL when there
 * is nothing to plan (or no memory: the run then allocates as without a plan). */
d2_mp_arena *d2_memplan_begin(d2_memplan *mp, d2_tensor *const *inputs, int n_in);
/* A new tensor of type t for variable var in the arena, or NULL when the caller must allocate
 * it itself: var is not planned, its size is over its slot's (data-dependent shapes), a value
 * sharing its bytes is still referenced (a view kept it alive), or its size was unknown. */
d2_tensor *d2_memplan_tensor(d2_mp_arena *a, int var, const d2_type *t);
/* Ends the run (after it released its values): the arena goes back for the next run of the
 * same shapes; a partial plan is remade with the sizes the run saw (when ok). An arena some tensor still references
 * (which a correct alias analysis never leaves) is freed with that tensor's last reference,
 * never reused. NULL is ignored. */
void d2_memplan_end(d2_mp_arena *a, bool ok);

typedef struct d2_memplan_stats {
    int n_values;       /* block-0 values the plan may place */
    int n_plans;        /* plans cached now */
    int n_slots;        /* slots of the latest plan (values sharing one in place count once) */
    size_t arena_bytes; /* the latest plan's arena */
    size_t sum_bytes;   /* the latest plan's values' sizes added up (what no reuse would take) */
    long hits, misses;  /* runs that found a plan for their shapes / had to make one */
    long fallbacks;     /* values the runs allocated outside the arena */
    long orphaned;      /* arenas not reused because a tensor outlived the run */
    long arenas;        /* arenas allocated (a steady state allocates none) */
} d2_memplan_stats;

void d2_memplan_get_stats(d2_memplan *mp, d2_memplan_stats *st);
/* The slot offset of var in the latest plan, or -1 when it has none (for tests). */
long long d2_memplan_offset(d2_memplan *mp, int var, size_t *cap);
/* The live interval of var in block 0 ([start, end] op positions), false when it is not
 * planned (for tests). */
bool d2_memplan_interval(d2_memplan *mp, int var, int *start, int *end);

#endif
