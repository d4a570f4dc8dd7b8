/* re.c - the re module (in Python) over _re: PCRE2, whose syntax and leftmost-first
 * backtracking semantics are Python's. */
#include "lib/std/std.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <string.h>

/* Python's flag values */
enum { F_IGNORECASE = 2, F_MULTILINE = 8, F_DOTALL = 16, F_VERBOSE = 64, F_ASCII = 256 };

static void code_fin(void *p)
{
    pcre2_code_free(p);
}

static pcre2_code *code_of(d2_interp *I, d2_obj *o)
{
    if (o->kind != D2_OBJ_OPAQUE || D2_AS(d2_opaque, o)->fin != code_fin) {
        d2_raise(I, "TypeError", "expected a compiled pattern, not %s", d2_type_name(o));
        return NULL;
    }
    return D2_AS(d2_opaque, o)->payload;
}

/* _re.compile(pattern, flags): the compiled code; ValueError "message at position N". */
D2_FN(re_compile)
{
    if (a[0]->kind != D2_OBJ_STR)
        return d2_raise(I, "TypeError", "first argument must be string or compiled pattern");
    int64_t flags;
    if (d2_to_int64(I, a[1], "flags", &flags) < 0)
        return NULL;
    d2_str *p = D2_AS(d2_str, a[0]);
    /* Python's \Z is PCRE2's \z (the very end) */
    char *pat = d2_malloc(p->len + 1);
    if (!pat)
        return d2_raise(I, "MemoryError", "out of memory");
    memcpy(pat, p->s, p->len + 1);
    for (size_t i = 0; i + 1 < p->len; i++) {
        if (pat[i] != '\\')
            continue;
        if (pat[i + 1] == 'Z')
            pat[i + 1] = 'z';
        i++;
    }
    uint32_t opts = PCRE2_UTF | PCRE2_ALT_BSUX;
    if (!(flags & F_ASCII))
        opts |= PCRE2_UCP;
    if (flags & F_IGNORECASE)
        opts |= PCRE2_CASELESS;
    if (flags & F_MULTILINE)
        opts |= PCRE2_MULTILINE;
    if (flags & F_DOTALL)
        opts |= PCRE2_DOTALL;
    if (flags & F_VERBOSE)
        opts |= PCRE2_EXTENDED;
    int errcode;
    PCRE2_SIZE erroff;
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)pat, p->len, opts, &errcode, &erroff, NULL);
    d2_free(pat);
    if (!code) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(errcode, msg, sizeof msg);
        return d2_raise(I, "ValueError", "%s at position %zu", (const char *)msg, (size_t)erroff);
    }
    d2_obj *o = d2_obj_alloc(I, D2_OBJ_OPAQUE, NULL, sizeof(d2_opaque));
    if (!o) {
        pcre2_code_free(code);
        return NULL;
    }
    D2_AS(d2_opaque, o)->payload = code;
    D2_AS(d2_opaque, o)->fin = code_fin;
    return o;
}

D2_FN(re_groups)
{
    pcre2_code *code = code_of(I, a[0]);
    uint32_t n = 0;
    if (!code)
        return NULL;
    pcre2_pattern_info(code, PCRE2_INFO_CAPTURECOUNT, &n);
    return d2_int_new(I, n);
}

/* _re.groupindex(code): {name: number} */
D2_FN(re_groupindex)
{
    pcre2_code *code = code_of(I, a[0]);
    if (!code)
        return NULL;
    uint32_t count = 0, size = 0;
    PCRE2_SPTR table = NULL;
    pcre2_pattern_info(code, PCRE2_INFO_NAMECOUNT, &count);
    pcre2_pattern_info(code, PCRE2_INFO_NAMEENTRYSIZE, &size);
    pcre2_pattern_info(code, PCRE2_INFO_NAMETABLE, &table);
    d2_obj *d = d2_dict_new(I);
    for (uint32_t i = 0; d && i < count; i++) {
        PCRE2_SPTR e = table + (size_t)i * size;
        d2_obj *k = d2_str_from(I, (const char *)e + 2), *v = d2_int_new(I, e[0] << 8 | e[1]);
        int rc = k && v ? d2_dict_set(I, D2_AS(d2_dict, d), k, v) : -1;
        d2_decref(k);
        d2_decref(v);
        if (rc < 0) {
            d2_decref(d);
            d = NULL;
        }
    }
    return d;
}

/* byte offset of character index c in s (len bytes), clamped */
static size_t byte_at(const char *s, size_t len, int64_t c)
{
    size_t b = 0;
    for (int64_t k = 0; k < c && b < len; k++) {
        b++;
        while (b < len && ((unsigned char)s[b] & 0xC0) == 0x80)
            b++;
    }
    return b;
}

/* character index of byte offset b, counting from a known (byte, char) pair */
static int64_t char_at(const char *s, size_t from_b, int64_t from_c, size_t b)
{
    int64_t c = from_c;
    for (size_t k = from_b; k < b; k++)
        if (((unsigned char)s[k] & 0xC0) != 0x80)
            c++;
    return c;
}

/* _re.exec(code, string, pos, endpos, mode, notempty_atstart): mode 0 search,
 * 1 match (anchored), 2 fullmatch. None, or the tuple (start0, end0, start1,
 * end1, ...) in characters, -1 for a group that did not take part. */
D2_FN(re_exec)
{
    pcre2_code *code = code_of(I, a[0]);
    int64_t pos, endpos, mode;
    if (!code || a[1]->kind != D2_OBJ_STR)
        return code ? d2_raise(I, "TypeError", "expected string, not %s", d2_type_name(a[1]))
                    : NULL;
    if (d2_to_int64(I, a[2], "pos", &pos) < 0 || d2_to_int64(I, a[3], "endpos", &endpos) < 0 ||
        d2_to_int64(I, a[4], "mode", &mode) < 0)
        return NULL;
    int notempty = d2_truthy(I, a[5]);
    if (notempty < 0)
        return NULL;
    d2_str *s = D2_AS(d2_str, a[1]);
    size_t bpos = byte_at(s->s, s->len, pos < 0 ? 0 : pos);
    size_t bend = byte_at(s->s, s->len, endpos);
    if (bend < bpos)
        return d2_none(I);
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(code, NULL);
    if (!md)
        return d2_raise(I, "MemoryError", "out of memory");
    uint32_t opts = (mode >= 1 ? PCRE2_ANCHORED : 0) | (mode == 2 ? PCRE2_ENDANCHORED : 0) |
                    (notempty ? PCRE2_NOTEMPTY_ATSTART : 0);
    int rc = pcre2_match(code, (PCRE2_SPTR)s->s, bend, bpos, opts, md, NULL);
    if (rc == PCRE2_ERROR_NOMATCH) {
        pcre2_match_data_free(md);
        return d2_none(I);
    }
    if (rc < 0) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(rc, msg, sizeof msg);
        pcre2_match_data_free(md);
        return d2_raise(I, "RuntimeError", "regular expression match failed: %s",
                        (const char *)msg);
    }
    uint32_t n = pcre2_get_ovector_count(md);
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
    d2_obj *t = d2_tuple_new(I, 2 * (size_t)n);
    int64_t cpos = pos < 0 ? 0 : pos;
    for (uint32_t i = 0; t && i < 2 * n; i++) {
        d2_obj *v = d2_int_new(I, ov[i] == PCRE2_UNSET ? -1 : char_at(s->s, bpos, cpos, ov[i]));
        if (!v) {
            d2_decref(t);
            t = NULL;
            break;
        }
        D2_AS(d2_tuple, t)->items[i] = v;
        D2_AS(d2_tuple, t)->n = i + 1;
    }
    pcre2_match_data_free(md);
    return t;
}

static const d2_def RE_DEFS[] = {
    D2_DEF_POS("compile", "pattern, flags, /", re_compile, NULL),
    D2_DEF_POS("groups", "code, /", re_groups, NULL),
    D2_DEF_POS("groupindex", "code, /", re_groupindex, NULL),
    D2_DEF_POS("exec", "code, string, pos, endpos, mode, notempty, /", re_exec, NULL),
};

static const char re_src[] =
    "\"\"\"re: regular expressions with Python's syntax, on PCRE2 (module _re).\"\"\"\n"
    "import _re\n"
    "\n"
    "NOFLAG = 0\n"
    "I = IGNORECASE = 2\n"
    "L = LOCALE = 4\n"
    "M = MULTILINE = 8\n"
    "S = DOTALL = 16\n"
    "U = UNICODE = 32\n"
    "X = VERBOSE = 64\n"
    "A = ASCII = 256\n"
    "\n"
    "\n"
    "class error(Exception):\n"
    "    def __init__(self, msg, pattern=None, pos=None):\n"
    "        Exception.__init__(self, msg if pos is None else \"%s at position %d\" % (msg, pos))\n"
    "        self.msg = msg\n"
    "        self.pattern = pattern\n"
    "        self.pos = pos\n"
    "\n"
    "\n"
    "class Match:\n"
    "    def __init__(self, pattern, string, spans, pos, endpos):\n"
    "        self.re = pattern\n"
    "        self.string = string\n"
    "        self._spans = spans\n"
    "        self.pos = pos\n"
    "        self.endpos = endpos\n"
    "\n"
    "    def _index(self, g):\n"
    "        if isinstance(g, str):\n"
    "            if g not in self.re.groupindex:\n"
    "                raise IndexError(\"no such group\")\n"
    "            return self.re.groupindex[g]\n"
    "        if not isinstance(g, int) or g < 0 or g > self.re.groups:\n"
    "            raise IndexError(\"no such group\")\n"
    "        return g\n"
    "\n"
    "    def span(self, group=0):\n"
    "        i = self._index(group)\n"
    "        return self._spans[2 * i], self._spans[2 * i + 1]\n"
    "\n"
    "    def start(self, group=0):\n"
    "        return self.span(group)[0]\n"
    "\n"
    "    def end(self, group=0):\n"
    "        return self.span(group)[1]\n"
    "\n"
    "    def group(self, *groups):\n"
    "        if not groups:\n"
    "            return self._get(0, None)\n"
    "        if len(groups) == 1:\n"
    "            return self._get(groups[0], None)\n"
    "        return tuple(self._get(g, None) for g in groups)\n"
    "\n"
    "    def _get(self, g, default):\n"
    "        s, e = self.span(g)\n"
    "        return default if s < 0 else self.string[s:e]\n"
    "\n"
    "    def __getitem__(self, g):\n"
    "        return self._get(g, None)\n"
    "\n"
    "    def groups(self, default=None):\n"
    "        return tuple(self._get(i, default) for i in range(1, self.re.groups + 1))\n"
    "\n"
    "    def groupdict(self, default=None):\n"
    "        return {name: self._get(i, default) for name, i in self.re.groupindex.items()}\n"
    "\n"
    "    @property\n"
    "    def lastindex(self):\n"
    "        best = None\n"
    "        best_end = -1\n"
    "        for i in range(1, self.re.groups + 1):\n"
    "            s, e = self.span(i)\n"
    "            if s >= 0 and e >= best_end:\n"
    "                best, best_end = i, e\n"
    "        return best\n"
    "\n"
    "    @property\n"
    "    def lastgroup(self):\n"
    "        li = self.lastindex\n"
    "        for name, i in self.re.groupindex.items():\n"
    "            if i == li:\n"
    "                return name\n"
    "        return None\n"
    "\n"
    "    def expand(self, template):\n"
    "        return _expand(self.re, template)(self)\n"
    "\n"
    "    def __bool__(self):\n"
    "        return True\n"
    "\n"
    "    def __repr__(self):\n"
    "        return \"<re.Match object; span=%r, match=%r>\" % (self.span(), self.group())\n"
    "\n"
    "\n"
    "class Pattern:\n"
    "    def __init__(self, pattern, flags):\n"
    "        self.pattern = pattern\n"
    "        self.flags = flags | (0 if flags & ASCII else UNICODE)\n"
    "        try:\n"
    "            self._code = _re.compile(pattern, flags)\n"
    "        except ValueError as e:\n"
    "            raise error(str(e), pattern)\n"
    "        self.groups = _re.groups(self._code)\n"
    "        self.groupindex = _re.groupindex(self._code)\n"
    "\n"
    "    def __repr__(self):\n"
    "        text = \"re.compile(%r\" % (self.pattern,)\n"
    "        names = [n for n, v in ((\"IGNORECASE\", I), (\"MULTILINE\", M), (\"DOTALL\", S),\n"
    "                                (\"VERBOSE\", X), (\"ASCII\", A)) if self.flags & v]\n"
    "        if names:\n"
    "            text += \", re.\" + \"|re.\".join(names)\n"
    "        return text + \")\"\n"
    "\n"
    "    def __eq__(self, other):\n"
    "        return isinstance(other, Pattern) and self.pattern == other.pattern and \\\n"
    "            self.flags == other.flags\n"
    "\n"
    "    def __hash__(self):\n"
    "        return hash((self.pattern, self.flags))\n"
    "\n"
    "    def _run(self, string, pos, endpos, mode, notempty=False):\n"
    "        if not isinstance(string, str):\n"
    "            raise TypeError(\"expected string or bytes-like object, got '%s'\"\n"
    "                            % type(string).__name__)\n"
    "        n = len(string)\n"
    "        endpos = n if endpos is None or endpos > n else max(endpos, 0)\n"
    "        pos = min(max(pos, 0), n)\n"
    "        spans = _re.exec(self._code, string, pos, endpos, mode, notempty)\n"
    "        if spans is None:\n"
    "            return None\n"
    "        return Match(self, string, spans, pos, endpos)\n"
    "\n"
    "    def search(self, string, pos=0, endpos=None):\n"
    "        return self._run(string, pos, endpos, 0)\n"
    "\n"
    "    def match(self, string, pos=0, endpos=None):\n"
    "        return self._run(string, pos, endpos, 1)\n"
    "\n"
    "    def fullmatch(self, string, pos=0, endpos=None):\n"
    "        return self._run(string, pos, endpos, 2)\n"
    "\n"
    "    def _matches(self, string, pos=0, endpos=None, count=0):\n"
    "        out = []\n"
    "        must_advance = False\n"
    "        n = len(string) if endpos is None else min(endpos, len(string))\n"
    "        while pos <= n:\n"
    "            m = self._run(string, pos, endpos, 0, must_advance)\n"
    "            if m is None:\n"
    "                break\n"
    "            out.append(m)\n"
    "            s, e = m.span()\n"
    "            must_advance = s == e\n"
    "            pos = e\n"
    "            if count and len(out) >= count:\n"
    "                break\n"
    "        return out\n"
    "\n"
    "    def finditer(self, string, pos=0, endpos=None):\n"
    "        return iter(self._matches(string, pos, endpos))\n"
    "\n"
    "    def findall(self, string, pos=0, endpos=None):\n"
    "        out = []\n"
    "        for m in self._matches(string, pos, endpos):\n"
    "            if self.groups == 0:\n"
    "                out.append(m.group())\n"
    "            elif self.groups == 1:\n"
    "                out.append(m._get(1, \"\"))\n"
    "            else:\n"
    "                out.append(m.groups(\"\"))\n"
    "        return out\n"
    "\n"
    "    def split(self, string, maxsplit=0):\n"
    "        out = []\n"
    "        last = 0\n"
    "        for m in self._matches(string, 0, None, maxsplit):\n"
    "            out.append(string[last:m.start()])\n"
    "            out.extend(m.groups())\n"
    "            last = m.end()\n"
    "        out.append(string[last:])\n"
    "        return out\n"
    "\n"
    "    def subn(self, repl, string, count=0):\n"
    "        if callable(repl):\n"
    "            fn = repl\n"
    "        else:\n"
    "            fn = _expand(self, repl)\n"
    "        parts = []\n"
    "        last = 0\n"
    "        matches = self._matches(string, 0, None, count)\n"
    "        for m in matches:\n"
    "            parts.append(string[last:m.start()])\n"
    "            parts.append(fn(m))\n"
    "            last = m.end()\n"
    "        parts.append(string[last:])\n"
    "        return \"\".join(parts), len(matches)\n"
    "\n"
    "    def sub(self, repl, string, count=0):\n"
    "        return self.subn(repl, string, count)[0]\n"
    "\n"
    "\n"
    "_SIMPLE_ESCAPES = {\"n\": \"\\n\", \"t\": \"\\t\", \"r\": \"\\r\", \"f\": \"\\f\", \"v\": \"\\v\", \"a\": \"\\a\",\n"
    "                   \"b\": \"\\b\", \"\\\\\": \"\\\\\"}\n"
    "\n"
    "\n"
    "def _expand(pattern, template):\n"
    "    # the pieces of a replacement template: literal text and group references\n"
    "    pieces = []\n"
    "    lit = []\n"
    "    i = 0\n"
    "    n = len(template)\n"
    "    while i < n:\n"
    "        c = template[i]\n"
    "        if c != \"\\\\\":\n"
    "            lit.append(c)\n"
    "            i += 1\n"
    "            continue\n"
    "        if i + 1 >= n:\n"
    "            raise error(\"bad escape (end of pattern)\", template, i)\n"
    "        c = template[i + 1]\n"
    "        if c == \"g\":\n"
    "            close = template.find(\">\", i + 2)\n"
    "            if i + 2 >= n or template[i + 2] != \"<\" or close < 0:\n"
    "                raise error(\"missing <\", template, i + 2)\n"
    "            name = template[i + 3:close]\n"
    "            if name.isdigit():\n"
    "                index = int(name)\n"
    "                if index > pattern.groups:\n"
    "                    raise error(\"invalid group reference %d\" % index, template, i + 3)\n"
    "            elif name in pattern.groupindex:\n"
    "                index = pattern.groupindex[name]\n"
    "            else:\n"
    "                raise IndexError(\"unknown group name '%s'\" % name)\n"
    "            pieces.append(\"\".join(lit))\n"
    "            lit = []\n"
    "            pieces.append(index)\n"
    "            i = close + 1\n"
    "        elif c.isdigit():\n"
    "            j = i + 1\n"
    "            while j < n and j < i + 3 and template[j].isdigit():\n"
    "                j += 1\n"
    "            if c == \"0\":\n"
    "                lit.append(chr(int(template[i + 1:j], 8)))\n"
    "            else:\n"
    "                index = int(template[i + 1:j])\n"
    "                if index > pattern.groups:\n"
    "                    raise error(\"invalid group reference %d\" % index, template, i + 1)\n"
    "                pieces.append(\"\".join(lit))\n"
    "                lit = []\n"
    "                pieces.append(index)\n"
    "            i = j\n"
    "        elif c in _SIMPLE_ESCAPES:\n"
    "            lit.append(_SIMPLE_ESCAPES[c])\n"
    "            i += 2\n"
    "        elif c.isalpha() and ord(c) < 128:\n"
    "            raise error(\"bad escape \\\\%s\" % c, template, i)\n"
    "        else:\n"
    "            lit.append(\"\\\\\" + c)\n"
    "            i += 2\n"
    "    pieces.append(\"\".join(lit))\n"
    "\n"
    "    def fn(m):\n"
    "        out = []\n"
    "        for p in pieces:\n"
    "            if isinstance(p, int):\n"
    "                out.append(m._get(p, \"\"))\n"
    "            else:\n"
    "                out.append(p)\n"
    "        return \"\".join(out)\n"
    "\n"
    "    return fn\n"
    "\n"
    "\n"
    "_cache = {}\n"
    "\n"
    "\n"
    "def compile(pattern, flags=0):\n"
    "    if isinstance(pattern, Pattern):\n"
    "        if flags:\n"
    "            raise ValueError(\"cannot process flags argument with a compiled pattern\")\n"
    "        return pattern\n"
    "    key = (pattern, flags)\n"
    "    p = _cache.get(key)\n"
    "    if p is None:\n"
    "        if len(_cache) >= 512:\n"
    "            _cache.clear()\n"
    "        p = Pattern(pattern, flags)\n"
    "        _cache[key] = p\n"
    "    return p\n"
    "\n"
    "\n"
    "def search(pattern, string, flags=0):\n"
    "    return compile(pattern, flags).search(string)\n"
    "\n"
    "\n"
    "def match(pattern, string, flags=0):\n"
    "    return compile(pattern, flags).match(string)\n"
    "\n"
    "\n"
    "def fullmatch(pattern, string, flags=0):\n"
    "    return compile(pattern, flags).fullmatch(string)\n"
    "\n"
    "\n"
    "def findall(pattern, string, flags=0):\n"
    "    return compile(pattern, flags).findall(string)\n"
    "\n"
    "\n"
    "def finditer(pattern, string, flags=0):\n"
    "    return compile(pattern, flags).finditer(string)\n"
    "\n"
    "\n"
    "def split(pattern, string, maxsplit=0, flags=0):\n"
    "    return compile(pattern, flags).split(string, maxsplit)\n"
    "\n"
    "\n"
    "def sub(pattern, repl, string, count=0, flags=0):\n"
    "    return compile(pattern, flags).sub(repl, string, count)\n"
    "\n"
    "\n"
    "def subn(pattern, repl, string, count=0, flags=0):\n"
    "    return compile(pattern, flags).subn(repl, string, count)\n"
    "\n"
    "\n"
    "_SPECIAL = set(\"()[]{}?*+-|^$\\\\.&~# \\t\\n\\r\\v\\f\")\n"
    "\n"
    "\n"
    "def escape(pattern):\n"
    "    return \"\".join(\"\\\\\" + c if c in _SPECIAL else c for c in pattern)\n"
    "\n"
    "\n"
    "def purge():\n"
    "    _cache.clear()\n";

int d2_std_re_init(d2_interp *I)
{
    return d2_std_helper_and_source(I, "_re", RE_DEFS, D2_COUNTOF(RE_DEFS), "re", re_src);
}
