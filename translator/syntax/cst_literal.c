/* cst_literal.c - CST -> AST for literals: numbers, strings and bytes (escapes, \N{...}), f-strings. */
#include "syntax/cst_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- numbers ---- */

static bool is_digit_in(int ch, int base)
{
    if (base == 16)
        return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
    return ch >= '0' && ch < '0' + base;
}

static int digit_value(int ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    return ch - 'A' + 10;
}

/* Decimal digits of the integer written with digits d[0, n) in base. The
 * digits are collected in base 1e9 limbs, least significant first. */
static const char *big_to_decimal(cx *c, const char *d, size_t n, int base)
{
    size_t cap = 2 * (n / 9) + 3; /* a hex digit is up to 1.21 decimal digits */
    uint32_t *limb = cst_need(c, d2_arena_alloc(c->a, cap * sizeof(uint32_t)));
    size_t nl = 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t carry = (uint64_t)digit_value((unsigned char)d[i]);
        for (size_t k = 0; k < nl; k++) {
            uint64_t v = (uint64_t)limb[k] * (uint64_t)base + carry;
            limb[k] = (uint32_t)(v % 1000000000u);
            carry = v / 1000000000u;
        }
        if (carry && nl < cap)
            limb[nl++] = (uint32_t)carry;
    }
    char *out = cst_need(c, d2_arena_alloc(c->a, nl * 9 + 1));
    size_t len = (size_t)snprintf(out, 10, "%u", limb[nl - 1]);
    for (size_t k = nl - 1; k-- > 0;)
        len += (size_t)snprintf(out + len, 10, "%09u", limb[k]);
    return out;
}

/* Checks underscores in a digit run: only single ones between digits (and
 * right after a base prefix, flagged by lead_ok). */
static bool underscores_ok(const char *s, size_t n, bool lead_ok)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '_')
            continue;
        if (i + 1 >= n || s[i + 1] == '_')
            return false;
        if (i == 0 && !lead_ok)
            return false;
    }
    return true;
}

/* integer | float (with j: imaginary) -> Constant. Validates digits and
 * underscores as CPython's tokenizer does; big ints keep decimal text. */
d2_ast_expr *cst_number(cx *c, TSNode n)
{
    size_t len;
    const char *s = cst_text(c, n, &len);
    return cst_number_text(c, s, len, cst_span_of(n));
}

d2_ast_expr *cst_number_text(cx *c, const char *s, size_t len, d2_span sp)
{
    d2_ast_const k = {.kind = D2_CONST_INT};
    if (len == 0)
        cst_fail(c, sp, "invalid number literal");
    char last = s[len - 1];
    if (last == 'l' || last == 'L')
        cst_fail(c, sp, "invalid decimal literal");
    bool imag = last == 'j' || last == 'J';
    size_t body = imag ? len - 1 : len;
    /* digits without underscores */
    char *d = cst_need(c, d2_arena_alloc(c->a, body + 1));
    size_t nd = 0;
    int base = 10;
    size_t i = 0;
    bool is_float = false;
    if (body >= 2 && s[0] == '0' && strchr("xXoObB", s[1])) {
        base = (s[1] == 'x' || s[1] == 'X') ? 16 : (s[1] == 'o' || s[1] == 'O') ? 8 : 2;
        i = 2;
        if (imag || body == 2 || !underscores_ok(s + 2, body - 2, true))
            cst_fail(c, sp, "invalid %s literal", base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary");
        for (; i < body; i++) {
            if (s[i] == '_')
                continue;
            if (!is_digit_in((unsigned char)s[i], base))
                cst_fail(c, sp, "invalid digit '%c' in %s literal", s[i],
                         base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary");
            d[nd++] = s[i];
        }
    } else {
        for (; i < body; i++) {
            char ch = s[i];
            if (ch == '_') {
                bool ok = i > 0 && i + 1 < body && s[i - 1] >= '0' && s[i - 1] <= '9' &&
                          s[i + 1] >= '0' && s[i + 1] <= '9';
                if (!ok)
                    cst_fail(c, sp, "invalid decimal literal");
                continue;
            }
            if (ch == '.' || ch == 'e' || ch == 'E')
                is_float = true;
            else if (!(ch >= '0' && ch <= '9') && !((ch == '+' || ch == '-') && i > 0 &&
                                                     (s[i - 1] == 'e' || s[i - 1] == 'E')))
                cst_fail(c, sp, "invalid decimal literal");
            d[nd++] = ch;
        }
    }
    d[nd] = '\0';
    if (is_float || imag) {
        errno = 0;
        char *end;
        double v = strtod(d, &end);
        if (*end != '\0' || nd == 0)
            cst_fail(c, sp, "invalid decimal literal");
        k.kind = imag ? D2_CONST_COMPLEX : D2_CONST_FLOAT;
        k.f = v;
        return cst_need(c, d2_ast_constant(c->a, k, sp));
    }
    if (nd == 0)
        cst_fail(c, sp, "invalid decimal literal");
    if (base == 10 && d[0] == '0') {
        for (size_t j = 0; j < nd; j++)
            if (d[j] != '0')
                cst_fail(c, sp, "leading zeros in decimal integer literals are not permitted; "
                            "use an 0o prefix for octal integers");
    }
    uint64_t v = 0;
    bool big = false;
    for (size_t j = 0; j < nd; j++) {
        uint64_t dv = (uint64_t)digit_value((unsigned char)d[j]);
        if (v > (UINT64_C(0x7fffffffffffffff) - dv) / (uint64_t)base) {
            big = true;
            break;
        }
        v = v * (uint64_t)base + dv;
    }
    if (big) {
        k.kind = D2_CONST_BIGINT;
        k.str.data = big_to_decimal(c, d, nd, base);
        k.str.len = strlen(k.str.data);
    } else {
        k.i = (int64_t)v;
    }
    return cst_need(c, d2_ast_constant(c->a, k, sp));
}

/* ---- strings ---- */

/* A few Unicode character names for \N{...}; matching ignores case. Names
 * outside this table and the algorithmic families handled in
 * unicode_lookup are reported as unsupported. */
static const struct {
    const char *name;
    uint32_t cp;
} uni_names[] = {
    {"NULL", 0x0},
    {"CHARACTER TABULATION", 0x9},
    {"LINE FEED", 0xA},
    {"CARRIAGE RETURN", 0xD},
    {"ESCAPE", 0x1B},
    {"SPACE", 0x20},
    {"EXCLAMATION MARK", 0x21},
    {"QUOTATION MARK", 0x22},
    {"NUMBER SIGN", 0x23},
    {"DOLLAR SIGN", 0x24},
    {"PERCENT SIGN", 0x25},
    {"AMPERSAND", 0x26},
    {"APOSTROPHE", 0x27},
    {"LEFT PARENTHESIS", 0x28},
    {"RIGHT PARENTHESIS", 0x29},
    {"ASTERISK", 0x2A},
    {"PLUS SIGN", 0x2B},
    {"COMMA", 0x2C},
    {"HYPHEN-MINUS", 0x2D},
    {"FULL STOP", 0x2E},
    {"SOLIDUS", 0x2F},
    {"COLON", 0x3A},
    {"SEMICOLON", 0x3B},
    {"LESS-THAN SIGN", 0x3C},
    {"EQUALS SIGN", 0x3D},
    {"GREATER-THAN SIGN", 0x3E},
    {"QUESTION MARK", 0x3F},
    {"COMMERCIAL AT", 0x40},
    {"LEFT SQUARE BRACKET", 0x5B},
    {"REVERSE SOLIDUS", 0x5C},
    {"RIGHT SQUARE BRACKET", 0x5D},
    {"CIRCUMFLEX ACCENT", 0x5E},
    {"LOW LINE", 0x5F},
    {"GRAVE ACCENT", 0x60},
    {"LEFT CURLY BRACKET", 0x7B},
    {"VERTICAL LINE", 0x7C},
    {"RIGHT CURLY BRACKET", 0x7D},
    {"TILDE", 0x7E},
    {"NO-BREAK SPACE", 0xA0},
    {"INVERTED EXCLAMATION MARK", 0xA1},
    {"CENT SIGN", 0xA2},
    {"POUND SIGN", 0xA3},
    {"CURRENCY SIGN", 0xA4},
    {"YEN SIGN", 0xA5},
    {"BROKEN BAR", 0xA6},
    {"SECTION SIGN", 0xA7},
    {"DIAERESIS", 0xA8},
    {"COPYRIGHT SIGN", 0xA9},
    {"FEMININE ORDINAL INDICATOR", 0xAA},
    {"LEFT-POINTING DOUBLE ANGLE QUOTATION MARK", 0xAB},
    {"NOT SIGN", 0xAC},
    {"SOFT HYPHEN", 0xAD},
    {"REGISTERED SIGN", 0xAE},
    {"MACRON", 0xAF},
    {"DEGREE SIGN", 0xB0},
    {"PLUS-MINUS SIGN", 0xB1},
    {"SUPERSCRIPT TWO", 0xB2},
    {"SUPERSCRIPT THREE", 0xB3},
    {"ACUTE ACCENT", 0xB4},
    {"MICRO SIGN", 0xB5},
    {"PILCROW SIGN", 0xB6},
    {"MIDDLE DOT", 0xB7},
    {"CEDILLA", 0xB8},
    {"SUPERSCRIPT ONE", 0xB9},
    {"MASCULINE ORDINAL INDICATOR", 0xBA},
    {"RIGHT-POINTING DOUBLE ANGLE QUOTATION MARK", 0xBB},
    {"VULGAR FRACTION ONE QUARTER", 0xBC},
    {"VULGAR FRACTION ONE HALF", 0xBD},
    {"VULGAR FRACTION THREE QUARTERS", 0xBE},
    {"INVERTED QUESTION MARK", 0xBF},
    {"MULTIPLICATION SIGN", 0xD7},
    {"LATIN SMALL LETTER SHARP S", 0xDF},
    {"DIVISION SIGN", 0xF7},
    {"LATIN SMALL LETTER Y WITH DIAERESIS", 0xFF},
    {"EN QUAD", 0x2000},
    {"EM QUAD", 0x2001},
    {"EN SPACE", 0x2002},
    {"EM SPACE", 0x2003},
    {"THREE-PER-EM SPACE", 0x2004},
    {"FOUR-PER-EM SPACE", 0x2005},
    {"SIX-PER-EM SPACE", 0x2006},
    {"FIGURE SPACE", 0x2007},
    {"PUNCTUATION SPACE", 0x2008},
    {"THIN SPACE", 0x2009},
    {"HAIR SPACE", 0x200A},
    {"NARROW NO-BREAK SPACE", 0x202F},
    {"IDEOGRAPHIC SPACE", 0x3000},
    {"EMPTY SET", 0x2205},
    {"EN DASH", 0x2013},
    {"EM DASH", 0x2014},
    {"LEFT SINGLE QUOTATION MARK", 0x2018},
    {"RIGHT SINGLE QUOTATION MARK", 0x2019},
    {"LEFT DOUBLE QUOTATION MARK", 0x201C},
    {"RIGHT DOUBLE QUOTATION MARK", 0x201D},
    {"BULLET", 0x2022},
    {"HORIZONTAL ELLIPSIS", 0x2026},
    {"ZERO WIDTH SPACE", 0x200B},
    {"EURO SIGN", 0x20AC},
    {"LEFTWARDS ARROW", 0x2190},
    {"UPWARDS ARROW", 0x2191},
    {"RIGHTWARDS ARROW", 0x2192},
    {"DOWNWARDS ARROW", 0x2193},
    {"N-ARY SUMMATION", 0x2211},
    {"SQUARE ROOT", 0x221A},
    {"INFINITY", 0x221E},
    {"ALMOST EQUAL TO", 0x2248},
    {"NOT EQUAL TO", 0x2260},
    {"LESS-THAN OR EQUAL TO", 0x2264},
    {"GREATER-THAN OR EQUAL TO", 0x2265},
    {"BOX DRAWINGS LIGHT HORIZONTAL", 0x2500},
    {"FULL BLOCK", 0x2588},
    {"BLACK STAR", 0x2605},
    {"WHITE STAR", 0x2606},
    {"CHECK MARK", 0x2713},
    {"BALLOT X", 0x2717},
    {"ZERO WIDTH NO-BREAK SPACE", 0xFEFF},
    {"REPLACEMENT CHARACTER", 0xFFFD},
    {"DAGGER", 0x2020},
    {"DOUBLE DAGGER", 0x2021},
    {"CIRCLED TIMES", 0x2297},
    {"CIRCLED PLUS", 0x2295},
    {"TWO DOT LEADER", 0x2025},
    {"N-ARY CIRCLED TIMES OPERATOR", 0x2A02},
    {"PLANCK CONSTANT OVER TWO PI", 0x210F},
    {"RIGHTWARDS ARROW WITH HOOK", 0x21AA},
    {"MATHEMATICAL LEFT ANGLE BRACKET", 0x27E8},
    {"MATHEMATICAL RIGHT ANGLE BRACKET", 0x27E9},
    {"LATIN SMALL LIGATURE FF", 0xFB00},
    {"LATIN SMALL LIGATURE FI", 0xFB01},
    {"LATIN SMALL LIGATURE FL", 0xFB02},
    {"LATIN SMALL LIGATURE ST", 0xFB06},
    {"GREEK SMALL LETTER FINAL SIGMA", 0x3C2},
    {"GREEK PI SYMBOL", 0x3D6},
    {"COMBINING GRAVE ACCENT", 0x300},
    {"COMBINING ACUTE ACCENT", 0x301},
    {"COMBINING TILDE", 0x303},
    {"COMBINING DOT ABOVE", 0x307},
    {"COMBINING DIAERESIS", 0x308},
    {"LATIN SUBSCRIPT SMALL LETTER I", 0x1D62},
    {"SCRIPT CAPITAL R", 0x211B},
    {"LONG RIGHTWARDS SQUIGGLE ARROW", 0x27FF},
    {"LATIN SMALL LETTER Y WITH CIRCUMFLEX", 0x177},
    {"N-ARY PRODUCT", 0x220F},
    {"PARTIAL DIFFERENTIAL", 0x2202},
    {"NABLA", 0x2207},
    {"ELEMENT OF", 0x2208},
    {"INTEGRAL", 0x222B},
    {"RIGHTWARDS DOUBLE ARROW", 0x21D2},
    {"LEFT RIGHT ARROW", 0x2194},
    {"MINUS SIGN", 0x2212},
    {"DOT OPERATOR", 0x22C5},
    {"HEAVY CHECK MARK", 0x2714},
    {"WARNING SIGN", 0x26A0},
    {"BLACK SQUARE", 0x25A0},
    {"WHITE SQUARE", 0x25A1},
    {"BLACK CIRCLE", 0x25CF},
    {"WHITE CIRCLE", 0x25CB},
    {"TRADE MARK SIGN", 0x2122},
    {"PER MILLE SIGN", 0x2030},
    {"PRIME", 0x2032},
    {"DOUBLE PRIME", 0x2033},
    {"IDENTICAL TO", 0x2261},
    {"PROPORTIONAL TO", 0x221D},
    {"SNAKE", 0x1F40D},
    {"PARTY POPPER", 0x1F389},
    {"GRINNING FACE", 0x1F600},
    {"THUMBS UP SIGN", 0x1F44D},
    {"HEAVY BLACK HEART", 0x2764},
    {"ROCKET", 0x1F680},
    {"SPARKLES", 0x2728},
};

static const char *const greek[] = {
    "ALPHA", "BETA", "GAMMA", "DELTA", "EPSILON", "ZETA",  "ETA",     "THETA",
    "IOTA",  "KAPPA", "LAMDA", "MU",    "NU",      "XI",    "OMICRON", "PI",
    "RHO",   "",      "SIGMA", "TAU",   "UPSILON", "PHI",   "CHI",     "PSI",
    "OMEGA",
};

/* Names of U+00C0..U+00DE after "LATIN CAPITAL LETTER " (and of
 * U+00E0..U+00FE after "LATIN SMALL LETTER "); "" where the code point is
 * not a letter. */
static const char *const latin1[] = {
    "A WITH GRAVE", "A WITH ACUTE", "A WITH CIRCUMFLEX", "A WITH TILDE", "A WITH DIAERESIS",
    "A WITH RING ABOVE", "AE", "C WITH CEDILLA", "E WITH GRAVE", "E WITH ACUTE",
    "E WITH CIRCUMFLEX", "E WITH DIAERESIS", "I WITH GRAVE", "I WITH ACUTE",
    "I WITH CIRCUMFLEX", "I WITH DIAERESIS", "ETH", "N WITH TILDE", "O WITH GRAVE",
    "O WITH ACUTE", "O WITH CIRCUMFLEX", "O WITH TILDE", "O WITH DIAERESIS", "",
    "O WITH STROKE", "U WITH GRAVE", "U WITH ACUTE", "U WITH CIRCUMFLEX", "U WITH DIAERESIS",
    "Y WITH ACUTE", "THORN",
};

/* U+0410..U+042F after "CYRILLIC CAPITAL LETTER " (+0x20: small). */
static const char *const cyrillic[] = {
    "A",  "BE", "VE", "GHE", "DE",  "IE",    "ZHE",       "ZE",   "I",         "SHORT I", "KA",
    "EL", "EM", "EN", "O",   "PE",  "ER",    "ES",        "TE",   "U",         "EF",      "HA",
    "TSE", "CHE", "SHA", "SHCHA", "HARD SIGN", "YERU", "SOFT SIGN", "E", "YU", "YA",
};

static bool name_eq(const char *a, size_t n, const char *b)
{
    size_t i = 0;
    for (; i < n && b[i]; i++) {
        char x = a[i], y = b[i];
        if (x >= 'a' && x <= 'z')
            x = (char)(x - 32);
        if (x != y)
            return false;
    }
    return i == n && !b[i];
}

/* Prefix match ignoring case; returns the rest of a or NULL. */
static const char *name_prefix(const char *a, size_t n, const char *prefix, size_t *rest)
{
    size_t p = strlen(prefix);
    if (n < p || !name_eq(a, p, prefix))
        return NULL;
    *rest = n - p;
    return a + p;
}

static long unicode_lookup(const char *s, size_t n)
{
    for (size_t i = 0; i < D2_COUNTOF(uni_names); i++)
        if (name_eq(s, n, uni_names[i].name))
            return (long)uni_names[i].cp;
    size_t r;
    const char *rest;
    bool cap = true;
    rest = name_prefix(s, n, "LATIN CAPITAL LETTER ", &r);
    if (!rest) {
        rest = name_prefix(s, n, "LATIN SMALL LETTER ", &r);
        cap = false;
    }
    if (rest && r > 1)
        for (size_t i = 0; i < D2_COUNTOF(latin1); i++)
            if (latin1[i][0] && name_eq(rest, r, latin1[i]))
                return (long)((cap ? 0xC0 : 0xE0) + i);
    cap = true;
    rest = name_prefix(s, n, "CYRILLIC CAPITAL LETTER ", &r);
    if (!rest) {
        rest = name_prefix(s, n, "CYRILLIC SMALL LETTER ", &r);
        cap = false;
    }
    if (rest)
        for (size_t i = 0; i < D2_COUNTOF(cyrillic); i++)
            if (name_eq(rest, r, cyrillic[i]))
                return (long)((cap ? 0x410 : 0x430) + i);
    if ((rest = name_prefix(s, n, "LATIN CAPITAL LETTER ", &r)) && r == 1 &&
        ((rest[0] | 32) >= 'a' && (rest[0] | 32) <= 'z'))
        return (rest[0] | 32) - 32;
    if ((rest = name_prefix(s, n, "LATIN SMALL LETTER ", &r)) && r == 1 &&
        ((rest[0] | 32) >= 'a' && (rest[0] | 32) <= 'z'))
        return rest[0] | 32;
    static const char *const digits[] = {"ZERO", "ONE", "TWO",   "THREE", "FOUR",
                                         "FIVE", "SIX", "SEVEN", "EIGHT", "NINE"};
    if ((rest = name_prefix(s, n, "DIGIT ", &r)))
        for (int i = 0; i < 10; i++)
            if (name_eq(rest, r, digits[i]))
                return '0' + i;
    cap = false;
    if ((rest = name_prefix(s, n, "GREEK CAPITAL LETTER ", &r)))
        cap = true;
    else
        rest = name_prefix(s, n, "GREEK SMALL LETTER ", &r);
    if (rest)
        for (size_t i = 0; i < D2_COUNTOF(greek); i++)
            if (greek[i][0] && name_eq(rest, r, greek[i]))
                return (long)((cap ? 0x391 : 0x3B1) + i);
    if ((rest = name_prefix(s, n, "CJK UNIFIED IDEOGRAPH-", &r)) && (r == 4 || r == 5)) {
        long v = 0;
        for (size_t i = 0; i < r; i++) {
            if (!is_digit_in((unsigned char)rest[i], 16))
                return -1;
            v = v * 16 + digit_value((unsigned char)rest[i]);
        }
        if ((v >= 0x4E00 && v <= 0x9FFF) || (v >= 0x3400 && v <= 0x4DBF) ||
            (v >= 0x20000 && v <= 0x2A6DF))
            return v;
    }
    return -1;
}

/* Decodes the literal text s[0, n) of a string (at byte offset off of the
 * source, for error positions) into b: newlines normalised, escapes decoded
 * unless raw, {{ and }} collapsed in f-strings. */
void cst_decode(cx *c, sbuf *b, const char *s, size_t n, size_t off, bool raw, bool bytes,
                bool fstr)
{
    size_t i = 0;
    while (i < n) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '\r') {
            cst_sb_byte(c, b, '\n');
            i += (i + 1 < n && s[i + 1] == '\n') ? 2 : 1;
            continue;
        }
        if (fstr && (ch == '{' || ch == '}')) {
            if (i + 1 < n && (unsigned char)s[i + 1] == ch) {
                cst_sb_byte(c, b, ch);
                i += 2;
                continue;
            }
            cst_fail(c, cst_span_bytes(c, off + i, off + i + 1),
                     "f-string: single '%c' is not allowed", ch);
        }
        if (bytes && ch >= 0x80)
            cst_fail(c, cst_span_bytes(c, off + i, off + i + 1),
                     "bytes can only contain ASCII literal characters");
        if (ch != '\\' || raw || i + 1 >= n) {
            cst_sb_byte(c, b, ch);
            i++;
            continue;
        }
        size_t esc = i;
        unsigned char e = (unsigned char)s[i + 1];
        i += 2;
        switch (e) {
        case '\n': break;
        case '\r':
            if (i < n && s[i] == '\n')
                i++;
            break;
        case '\\': cst_sb_byte(c, b, '\\'); break;
        case '\'': cst_sb_byte(c, b, '\''); break;
        case '"': cst_sb_byte(c, b, '"'); break;
        case 'a': cst_sb_byte(c, b, 7); break;
        case 'b': cst_sb_byte(c, b, 8); break;
        case 'f': cst_sb_byte(c, b, 12); break;
        case 'n': cst_sb_byte(c, b, '\n'); break;
        case 'r': cst_sb_byte(c, b, '\r'); break;
        case 't': cst_sb_byte(c, b, '\t'); break;
        case 'v': cst_sb_byte(c, b, 11); break;
        case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
            uint32_t v = e - '0';
            for (int k = 0; k < 2 && i < n && s[i] >= '0' && s[i] <= '7'; k++)
                v = v * 8 + (uint32_t)(s[i++] - '0');
            if (bytes)
                cst_sb_byte(c, b, v & 0xFF);
            else
                cst_sb_utf8(c, b, v);
            break;
        }
        case 'x':
        case 'u':
        case 'U': {
            if (bytes && e != 'x') {
                cst_warn(c, cst_span_bytes(c, off + esc, off + i), "invalid escape sequence '\\%c'",
                         e);
                cst_sb_byte(c, b, '\\');
                cst_sb_byte(c, b, e);
                break;
            }
            int nd = e == 'x' ? 2 : e == 'u' ? 4 : 8;
            uint32_t v = 0;
            for (int k = 0; k < nd; k++) {
                if (i >= n || !is_digit_in((unsigned char)s[i], 16))
                    cst_fail(c, cst_span_bytes(c, off + esc, off + i), "truncated \\%c escape", e);
                v = v * 16 + (uint32_t)digit_value((unsigned char)s[i++]);
            }
            if (bytes)
                cst_sb_byte(c, b, v);
            else if (v > 0x10FFFF)
                cst_fail(c, cst_span_bytes(c, off + esc, off + i), "illegal Unicode character");
            else
                cst_sb_utf8(c, b, v);
            break;
        }
        case 'N':
            if (!bytes) {
                size_t close = i;
                while (close < n && s[close] != '}')
                    close++;
                if (i >= n || s[i] != '{' || close >= n || close == i + 1)
                    cst_fail(c, cst_span_bytes(c, off + esc, off + i),
                             "malformed \\N character escape");
                long cp = unicode_lookup(s + i + 1, close - i - 1);
                if (cp < 0)
                    cst_fail(c, cst_span_bytes(c, off + esc, off + close + 1),
                             "unknown or unsupported Unicode character name '%.*s'",
                             (int)(close - i - 1), s + i + 1);
                cst_sb_utf8(c, b, (uint32_t)cp);
                i = close + 1;
                break;
            }
            /* \N is no escape in bytes */
            __attribute__((fallthrough));
        default:
            if (e >= 0x80 && bytes)
                cst_fail(c, cst_span_bytes(c, off + i - 1, off + i),
                         "bytes can only contain ASCII literal characters");
            cst_warn(c, cst_span_bytes(c, off + esc, off + esc + 2),
                     "invalid escape sequence '\\%c'", e < 0x80 ? e : '?');
            cst_sb_byte(c, b, '\\');
            i--; /* the character after the backslash is literal text */
            break;
        }
    }
}

/* The prefix letters of one string token. */
typedef struct strinfo {
    bool raw, bytes, fstr, u;
    bool lower_u; /* CPython sets Constant.kind only for a lower-case u */
    size_t body_start, body_end; /* source bytes between the quotes */
    char quote;
    bool triple;
} strinfo;

/* The prefix, quote and body range of one string token (string_start,
 * contents, string_end). */
static strinfo string_info(cx *c, kids *ks, TSNode n)
{
    strinfo si = {0};
    kid *start = NULL, *end = NULL;
    for (uint32_t i = 0; i < ks->n; i++) {
        if (ks->k[i].t == T_STRING_START && !start)
            start = &ks->k[i];
        else if (ks->k[i].t == T_STRING_END)
            end = &ks->k[i];
    }
    if (!start || !end)
        cst_fail(c, cst_span_of(n), "invalid string literal");
    size_t len;
    const char *s = cst_text(c, start->n, &len);
    size_t i = 0;
    for (; i < len && s[i] != '\'' && s[i] != '"'; i++) {
        switch (s[i] | 32) {
        case 'r': si.raw = true; break;
        case 'b': si.bytes = true; break;
        case 'f': si.fstr = true; break;
        case 'u': si.u = true; si.lower_u |= s[i] == 'u'; break;
        default: cst_fail(c, cst_span_of(start->n), "invalid string prefix");
        }
    }
    if (i < len)
        si.quote = s[i];
    si.triple = len - i == 3;
    si.body_start = ts_node_end_byte(start->n);
    /* the end token may also hold trailing backslashes of a raw string */
    size_t elen;
    const char *et = cst_text(c, end->n, &elen);
    size_t qlen = si.triple ? 3 : 1;
    if (elen < qlen || et[elen - 1] != si.quote)
        cst_fail(c, cst_span_of(n), "unterminated string literal");
    si.body_end = ts_node_end_byte(end->n) - qlen;
    if (si.body_end < si.body_start)
        si.body_end = si.body_start;
    return si;
}

/* Parts of a (possibly concatenated) string being assembled: the pending
 * literal text and the JoinedStr items so far. */
typedef struct strparts {
    sbuf lit;
    bool have_lit;
    d2_ast_seq values;
    const char *kind;
} strparts;

/* Ends the pending literal text as a Constant item (empty text is dropped,
 * as CPython drops it). */
static void flush_lit(cx *c, strparts *p, d2_span sp)
{
    if (p->have_lit && p->lit.n) {
        d2_ast_const k = {.kind = D2_CONST_STR, .str = {cst_sb_take(c, &p->lit), p->lit.n}};
        d2_ast_expr *e = cst_need(c, d2_ast_constant(c->a, k, sp));
        e->constant.kind = p->kind;
        cst_push(c, &p->values, e);
    }
    memset(&p->lit, 0, sizeof p->lit);
    p->have_lit = false;
}

static d2_ast_expr *fstring_field(cx *c, TSNode n, const strinfo *si);

/* The literal and replacement-field parts of format_specifier node n. */
static d2_ast_expr *format_spec(cx *c, TSNode n, const strinfo *si)
{
    kids ks = cst_get_kids(c, n);
    strparts p = {0};
    d2_span sp = cst_span_of(n);
    size_t pos = ts_node_start_byte(n);
    uint32_t i = 0;
    if (ks.n && ks.k[0].t == T_K_COLON) {
        pos = ts_node_end_byte(ks.k[0].n);
        i = 1;
    }
    for (; i <= ks.n; i++) {
        size_t next = i < ks.n ? ts_node_start_byte(ks.k[i].n) : ts_node_end_byte(n);
        if (next > pos) {
            cst_decode(c, &p.lit, c->src + pos, next - pos, pos, si->raw, false, true);
            p.have_lit = true;
        }
        if (i == ks.n)
            break;
        if (ks.k[i].t == T_FORMAT_EXPRESSION) {
            flush_lit(c, &p, sp);
            cst_push(c, &p.values, fstring_field(c, ks.k[i].n, si));
        }
        pos = ts_node_end_byte(ks.k[i].n);
    }
    flush_lit(c, &p, sp);
    d2_ast_expr *e = cst_new_expr(c, D2_AST_JOINED_STR, sp);
    e->joined_str.values = p.values;
    return e;
}

/* A replacement field {expr[=][!conv][:spec]} (interpolation or
 * format_expression) as a FormattedValue. */
static d2_ast_expr *fstring_field_inner(cx *c, TSNode n, const strinfo *si);

static d2_ast_expr *fstring_field(cx *c, TSNode n, const strinfo *si)
{
    cst_enter(c, n);
    d2_ast_expr *e = fstring_field_inner(c, n, si);
    cst_leave(c);
    return e;
}

static d2_ast_expr *fstring_field_inner(cx *c, TSNode n, const strinfo *si)
{
    kids ks = cst_get_kids(c, n);
    kid *ex = cst_kfield(c, &ks, F_EXPRESSION);
    kid *conv = cst_kfield(c, &ks, F_TYPE_CONVERSION);
    kid *spec = cst_kfield(c, &ks, F_FORMAT_SPECIFIER);
    d2_span sp = cst_span_of(n);
    if (!ex)
        cst_fail(c, sp, "f-string: empty expression not allowed");
    size_t len;
    const char *t = cst_text(c, n, &len);
    for (size_t i = 0; i < len; i++) {
        if (t[i] == '\\' && (!spec || ts_node_start_byte(n) + i < ts_node_start_byte(spec->n)))
            cst_fail(c, cst_span_bytes(c, ts_node_start_byte(n) + i, ts_node_start_byte(n) + i + 1),
                     "f-string expression part cannot include a backslash");
    }
    d2_ast_expr *e = cst_new_expr(c, D2_AST_FORMATTED_VALUE, sp);
    if (ex->t == T_NAMED_EXPRESSION && !conv && !spec) {
        /* "{x:=10}" is x with format spec "=10" (a walrus needs parentheses) */
        kids nk = cst_get_kids(c, ex->n);
        kid *name = cst_kfield(c, &nk, F_NAME);
        size_t colon = name ? ts_node_end_byte(name->n) : 0;
        while (colon < c->len && c->src[colon] != ':')
            colon++;
        size_t end = ts_node_end_byte(n) - 1;
        if (!name || colon >= end)
            cst_fail(c, sp, "invalid syntax");
        e->formatted_value.value = cst_expr(c, name->n);
        e->formatted_value.conversion = -1;
        strparts p = {0};
        cst_decode(c, &p.lit, c->src + colon + 1, end - colon - 1, colon + 1, si->raw, false, true);
        p.have_lit = true;
        flush_lit(c, &p, sp);
        d2_ast_expr *fs = cst_new_expr(c, D2_AST_JOINED_STR, sp);
        fs->joined_str.values = p.values;
        e->formatted_value.format_spec = fs;
        return e;
    }
    e->formatted_value.value = cst_expr(c, ex->n);
    if (ex->t == T_EXPRESSION_LIST) {
        /* CPython 3.11 parses "{a, b}" as "(a, b)": the tuple spans from the
         * '{' to the character ending the expression */
        size_t end = ts_node_end_byte(ex->n);
        while (end < c->len && strchr(" \t\r\n\f", c->src[end]))
            end++;
        e->formatted_value.value->span = cst_span_bytes(c, ts_node_start_byte(n), end + 1);
    }
    e->formatted_value.conversion = -1;
    if (conv) {
        const char *ct = cst_text(c, conv->n, &len);
        if (len != 2 || !strchr("sra", ct[1]))
            cst_fail(c, cst_span_of(conv->n),
                     "f-string: invalid conversion character: expected 's', 'r', or 'a'");
        e->formatted_value.conversion = ct[1];
    }
    if (spec)
        e->formatted_value.format_spec = format_spec(c, spec->n, si);
    return e;
}

/* Whether replacement field n has the self-documenting '='. */
static bool field_has_debug(kids *ks)
{
    return cst_has_tok(ks, T_K_EQUAL);
}

/* Appends the parts of one string token to p. */
static void string_parts(cx *c, TSNode n, const strinfo *si, strparts *p, d2_span whole)
{
    if (!si->fstr) {
        cst_decode(c, &p->lit, c->src + si->body_start, si->body_end - si->body_start,
               si->body_start, si->raw, si->bytes, false);
        p->have_lit = true;
        return;
    }
    kids ks = cst_get_kids(c, n);
    size_t pos = si->body_start;
    for (uint32_t i = 0; i < ks.n; i++) {
        if (ks.k[i].t != T_INTERPOLATION)
            continue;
        TSNode f = ks.k[i].n;
        size_t fs = ts_node_start_byte(f);
        if (fs > pos)
            cst_decode(c, &p->lit, c->src + pos, fs - pos, pos, si->raw, false, true);
        p->have_lit = true;
        /* In 3.11 a replacement field cannot reuse the string's own quote. */
        size_t flen;
        const char *ft = cst_text(c, f, &flen);
        if (!si->triple && memchr(ft, si->quote, flen))
            cst_fail(c, cst_span_of(f), "f-string: expecting '}'");
        kids fk = cst_get_kids(c, f);
        d2_ast_expr *fv = fstring_field(c, f, si);
        if (field_has_debug(&fk)) {
            /* "{expr=}" also yields the expression's text up to '!', ':' or '}' */
            kid *conv = cst_kfield(c, &fk, F_TYPE_CONVERSION);
            kid *spec = cst_kfield(c, &fk, F_FORMAT_SPECIFIER);
            size_t from = fs + 1;
            size_t to = conv ? ts_node_start_byte(conv->n)
                        : spec ? ts_node_start_byte(spec->n)
                               : ts_node_end_byte(f) - 1;
            if (to > from)
                cst_sb_add(c, &p->lit, c->src + from, to - from);
            if (!conv && !spec)
                fv->formatted_value.conversion = 'r';
        }
        flush_lit(c, p, whole);
        cst_push(c, &p->values, fv);
        pos = ts_node_end_byte(f);
    }
    if (si->body_end > pos)
        cst_decode(c, &p->lit, c->src + pos, si->body_end - pos, pos, si->raw, false, true);
    p->have_lit = true;
}

/* A string or concatenated_string: Constant (str or bytes) or JoinedStr. */
d2_ast_expr *cst_string_expr(cx *c, TSNode n)
{
    d2_span sp = cst_span_of(n);
    kids parts;
    if (cst_T(c, n) == T_CONCATENATED_STRING) {
        kids all = cst_get_kids(c, n);
        parts = cst_named(c, &all);
    } else {
        parts.k = cst_need(c, d2_arena_alloc(c->a, sizeof(kid)));
        parts.k[0].n = n;
        parts.k[0].t = T_STRING;
        parts.n = 1;
    }
    strinfo *si = cst_need(c, d2_arena_alloc(c->a, (parts.n ? parts.n : 1) * sizeof(strinfo)));
    kids *pk = cst_need(c, d2_arena_alloc(c->a, (parts.n ? parts.n : 1) * sizeof(kids)));
    bool any_f = false, any_bytes = false, any_str = false;
    for (uint32_t i = 0; i < parts.n; i++) {
        if (parts.k[i].t != T_STRING)
            cst_fail(c, cst_span_of(parts.k[i].n), "invalid syntax");
        pk[i] = cst_get_kids(c, parts.k[i].n);
        si[i] = string_info(c, &pk[i], parts.k[i].n);
        any_f |= si[i].fstr;
        if (si[i].bytes)
            any_bytes = true;
        else
            any_str = true;
        if (si[i].bytes && (si[i].fstr || si[i].u))
            cst_fail(c, cst_span_of(parts.k[i].n), "invalid string prefix");
        if (si[i].raw && si[i].u)
            cst_fail(c, cst_span_of(parts.k[i].n), "invalid string prefix");
    }
    if (any_bytes && any_str)
        cst_fail(c, sp, "cannot mix bytes and nonbytes literals");
    strparts p = {0};
    p.kind = parts.n && si[0].lower_u ? "u" : NULL;
    for (uint32_t i = 0; i < parts.n; i++)
        string_parts(c, parts.k[i].n, &si[i], &p, sp);
    if (!any_f) {
        d2_ast_const k = {.kind = any_bytes ? D2_CONST_BYTES : D2_CONST_STR,
                          .str = {cst_sb_take(c, &p.lit), p.lit.n}};
        d2_ast_expr *e = cst_need(c, d2_ast_constant(c->a, k, sp));
        e->constant.kind = p.kind;
        return e;
    }
    flush_lit(c, &p, sp);
    d2_ast_expr *e = cst_new_expr(c, D2_AST_JOINED_STR, sp);
    e->joined_str.values = p.values;
    return e;
}
