/* fuzz_pyparse.c - fuzz target for the hand-written parser: d2_ast_parse (fast path first) and the tree-sitter path agree on every input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "syntax/arena.h"
#include "syntax/ast.h"
#include "syntax/diag.h"
#include "syntax/pyparse.h"

static void dump(d2_buf *out, const d2_ast_module *m, const d2_diag *diag)
{
    if (m)
        d2_ast_print(out, m);
    d2_diag_render(diag, out);
}

/* Parses the input through d2_ast_parse, which tries the hand-written
 * parser first, and through the tree-sitter path alone: both must accept or
 * refuse alike, with the same tree (kinds, fields, positions) or the same
 * diagnostics. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    d2_arena *a = d2_arena_new(), *b = d2_arena_new();
    if (!a || !b) {
        d2_arena_delete(a);
        d2_arena_delete(b);
        return 0;
    }
    const char *src = (const char *)data;
    d2_diag da, db;
    d2_diag_init(&da, a);
    d2_diag_init(&db, b);
    d2_ast_module *fast = d2_ast_parse(a, "fuzz.py", src, size, &da);
    d2_ast_module *ts = d2_ast_parse_treesitter(b, "fuzz.py", src, size, &db);
    if (!da.oom && !db.oom && !d2_arena_oom(a) && !d2_arena_oom(b)) {
        d2_buf x, y;
        d2_buf_init(&x);
        d2_buf_init(&y);
        dump(&x, fast, &da);
        dump(&y, ts, &db);
        if ((fast == NULL) != (ts == NULL))
            abort(); /* one accepts what the other refuses */
        if (!x.oom && !y.oom && (x.len != y.len || memcmp(x.data, y.data, x.len) != 0))
            abort(); /* different trees or messages */
        d2_buf_free(&x);
        d2_buf_free(&y);
    }
    d2_arena_delete(a);
    d2_arena_delete(b);
    return 0;
}
