/* fuzz_program.c - fuzz target for the Program text form: parse, verify, print round trip, DOT. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"

/* The input is taken as text (up to its first NUL byte). It either fails
 * with a parse error, or gives a Program that verifies or not (without
 * crashing), whose printed form parses again and prints identically. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    d2_program *p = parse_text_checked(data, size);
    if (!p)
        return 0;
    d2_err verr = {0};
    if (d2_program_verify(p, &verr) != 0 && verr.msg[0] == '\0')
        abort();

    char *s = d2_program_print(p, true);
    if (!s)
        abort();
    d2_err e2 = {0};
    d2_program *q = d2_program_parse(s, "reparse", &e2);
    if (!q)
        abort(); /* the printer wrote something the parser rejects */
    char *s2 = d2_program_print(q, true);
    if (!s2 || strcmp(s, s2) != 0)
        abort(); /* print, parse, print is not stable */
    char *dot = d2_program_dot(p);
    if (!dot)
        abort();
    d2_free(dot);
    d2_free(s2);
    d2_free(s);
    d2_program_free(q);
    d2_program_free(p);
    return 0;
}
