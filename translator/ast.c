/* ast.c */
#include "ast.h"
