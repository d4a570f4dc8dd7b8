/* pyparse.h - the hand-written recursive-descent Python parser (the fast path of d2_ast_parse). */
#ifndef DY2ST_PYPARSE_H
#define DY2ST_PYPARSE_H

#include "syntax/ast.h"

/* Parses src[0, len) (valid UTF-8 without NULs and without a byte order
 * mark, as d2_ast_parse has checked) straight from the text into an AST in
 * arena a, identical node for node and span for span to what the
 * tree-sitter path builds. Returns NULL ("fall back") on anything it does
 * not accept: a syntax error, a construct it does not implement, a literal
 * that would warn, out of memory. It reports nothing; the caller then runs
 * the tree-sitter path, which gives the diagnostics. What a fallback
 * allocated stays in a until the arena is freed. */
d2_ast_module *d2_pyparse(d2_arena *a, const char *filename, const char *src, size_t len);

/* d2_ast_parse with the tree-sitter path only (no fast path); for the
 * differential test. */
d2_ast_module *d2_ast_parse_treesitter(d2_arena *a, const char *filename, const char *src,
                                       size_t len, d2_diag *diag);

#endif
