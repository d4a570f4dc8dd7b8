/* arena.c */
#include "arena.h"
