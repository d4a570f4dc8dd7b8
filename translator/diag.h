/* diag.h */
#ifndef DY2ST_DIAG_H
#define DY2ST_DIAG_H
#endif
