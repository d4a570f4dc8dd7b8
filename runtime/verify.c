/* verify.c - Program verifier. */
#include "base.h"
#include "program.h"
int d2_program_verify(const d2_program *p, d2_err *err) { (void)p; (void)err; return 0; }
