/* diag.c */
#include "diag.h"
