/* astcache.h - parsed modules cached on disk by content hash, as CPython's __pycache__. */
#ifndef DY2ST_ASTCACHE_H
#define DY2ST_ASTCACHE_H

#include "syntax/ast.h"

/* A cache file holds one module's AST for one exact source text: a header
 * (magic, format version, a fingerprint of the AST's node layout, dy2st's
 * version, the source's length and 64-bit hash, the payload's length and
 * hash) and the tree in a compact binary form. A file is used only when
 * every header field matches and the payload decodes completely and passes
 * the structural checks (node kinds where the parent's field allows them,
 * spans inside the source, nesting no deeper than the parser allows);
 * anything else, a corrupt, truncated, stale or foreign file included, is
 * ignored, the source parsed again and the file rewritten. Files are
 * written to a temporary name and renamed into place, so a reader never
 * sees a half-written one. Caching is best effort: a directory that cannot
 * be created or written only costs the parse. */

/* How d2_ast_parse_cached got its tree. */
typedef enum {
    D2_AST_CACHE_OFF,      /* not cached: no directory, or the source did not parse cleanly */
    D2_AST_CACHE_HIT,      /* decoded from a valid cache file */
    D2_AST_CACHE_WRITTEN,  /* parsed; no cache file existed; one was written */
    D2_AST_CACHE_REJECTED, /* parsed; the cache file was invalid and was rewritten */
    D2_AST_CACHE_UNWRITABLE, /* parsed; the cache file could not be written */
} d2_ast_cache_result;

/* The cache file for the source file `filename`: in cache_dir when given
 * (every source's files in one directory, named after the source's base
 * name and a hash of its path), else in `__dy2st_cache__` beside the source.
 * The library's own modules written in Python ("<dy2st>/NAME.py") go to
 * cache_dir, else to $XDG_CACHE_HOME/dy2st or $HOME/.cache/dy2st. A new
 * d2_malloc'd string; NULL when out of memory or when filename is neither
 * such a module nor a regular file (generated code named "<...>", a string
 * run as a file). */
char *d2_ast_cache_path(const char *filename, const char *cache_dir);

/* d2_ast_parse through the cache: with cache_path NULL it is d2_ast_parse.
 * Otherwise a valid file at cache_path gives the tree without parsing;
 * else the source is parsed and, when it parsed without errors or warnings
 * (warnings are reported on every load, as by the parser), the file is
 * (re)written. *how (may be NULL) says which happened. The result is the
 * same tree d2_ast_parse returns, in arena a. */
d2_ast_module *d2_ast_parse_cached(d2_arena *a, const char *filename, const char *src,
                                   size_t len, d2_diag *diag, const char *cache_path,
                                   d2_ast_cache_result *how);

/* The cache file's bytes for module m parsed from src (len bytes, as given
 * to d2_ast_parse); out->oom on out of memory. */
void d2_ast_cache_encode(const d2_ast_module *m, const char *src, size_t len, d2_buf *out);

/* The module a cache file's bytes hold, when they are valid for src (as
 * described above), in arena a; NULL otherwise. Never trusts data: any bytes
 * give a valid tree or NULL. */
d2_ast_module *d2_ast_cache_decode(d2_arena *a, const char *filename, const char *src,
                                   size_t len, const void *data, size_t n);

/* Rewrites the payload length and hash in the header of cache file bytes
 * (n of them) to match the payload that follows, so that tests and fuzzing
 * reach the checks of the tree behind the hash. 0, or -1 when the bytes are
 * too short to hold a header. */
int d2_ast_cache_reseal(void *data, size_t n);

#endif
