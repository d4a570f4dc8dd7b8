/* model_io.h - saved models. */
#ifndef DY2ST_MODEL_IO_H
#define DY2ST_MODEL_IO_H
#endif
