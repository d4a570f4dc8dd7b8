/* dot.c - Program Graphviz form. */
#include "base.h"
#include "program.h"
char *d2_program_dot(const d2_program *p) { (void)p; return NULL; }
