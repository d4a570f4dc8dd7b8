/* dot.c - Program Graphviz form. */
#include "base.h"
