/* cst.c */
#include "ast.h"
