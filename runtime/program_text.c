/* program_text.c - Program text form: printer and parser. */
#include "base.h"
#include "program.h"
/* placeholder until the text form lands */
char *d2_program_print(const d2_program *p, bool print_data) { (void)p; (void)print_data; return NULL; }
d2_program *d2_program_parse(const char *text, const char *srcname, d2_err *err)
{ (void)text; (void)srcname; d2_err_set(err, D2_ERR_UNSUPPORTED, "text form not implemented"); return NULL; }
