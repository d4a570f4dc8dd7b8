/* fuzz_python.c - fuzz target for the Python front end: d2_ast_parse, the AST printer, diagnostics, unparse. */
#include <stdint.h>
#include <stdlib.h>

#include "syntax/arena.h"
#include "syntax/ast.h"
#include "syntax/diag.h"
#include "syntax/unparse.h"

/* Parses the input as a source file. A failure must leave a diagnostic (or
 * out of memory); a success is dumped and unparsed. Everything lives in one
 * arena, freed at the end. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    d2_arena *a = d2_arena_new();
    if (!a)
        return 0;
    d2_diag diag;
    d2_diag_init(&diag, a);
    d2_ast_module *m = d2_ast_parse(a, "fuzz.py", (const char *)data, size, &diag);
    if (!m && diag.nerrors == 0 && !diag.oom && !d2_arena_oom(a))
        abort(); /* rejected without saying why */

    d2_buf out;
    d2_buf_init(&out);
    d2_diag_render(&diag, &out);
    if (m) {
        d2_ast_print(&out, m);
        d2_unparse(&out, m);
    }
    d2_buf_free(&out);
    d2_arena_delete(a);
    return 0;
}
