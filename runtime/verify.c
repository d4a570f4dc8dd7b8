/* verify.c - Program verifier. */
#include "base.h"
