/* api.c - public C API. */
#include "base.h"
