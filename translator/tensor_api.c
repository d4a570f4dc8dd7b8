/* tensor_api.c - (placeholder) */
#include "interp.h"
