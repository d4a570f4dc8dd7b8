/* model_io.c - saved model format. */
#include "base.h"
