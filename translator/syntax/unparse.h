/* unparse.h - AST to Python source text, exactly as CPython 3.11's ast.unparse prints it. */
#ifndef DY2ST_UNPARSE_H
#define DY2ST_UNPARSE_H

#include "syntax/ast.h"
#include "base.h"

/* Appends the Python source of node to out. node may be a module, a
 * statement, an expression, a pattern or a helper node (arguments, keyword,
 * alias, withitem, comprehension, ExceptHandler, match_case); NULL appends
 * nothing. The text is byte for byte what CPython 3.11's ast.unparse returns
 * for the equivalent tree: statements one per line, four-space indentation,
 * an empty line before each def and class that is not the first thing
 * printed, parentheses only where precedence needs them (with CPython's
 * quirks), strings quoted as repr() does, docstrings and f-strings as
 * ast.unparse writes them, and no trailing newline. Trees that ast.unparse
 * rejects (a Raise with a cause but no exception, `yield from` without a
 * value) print their nearest valid form instead of failing. Out of memory
 * is reported through out->oom. */
void d2_unparse(d2_buf *out, const void *node);

/* Appends the statements of body at indentation level indent (four spaces
 * each), as ast.unparse prints a function body: statements are separated by
 * newlines (and defs preceded by an empty line), the first one starts right
 * where out ends, and no newline follows the last. */
void d2_unparse_body(d2_buf *out, const d2_ast_seq *body, int indent);

/* Whether code point c is printable in Python's sense (str.isprintable()):
 * not in categories Cc, Cf, Cs, Co, Cn, Zl, Zp, or Zs other than space.
 * repr() escapes every other character. */
bool d2_unparse_printable(uint32_t c);

#endif
