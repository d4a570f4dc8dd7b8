/* program_text.c - Program text form: printer and parser. */
#include "base.h"
