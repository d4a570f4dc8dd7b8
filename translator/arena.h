/* arena.h */
#ifndef DY2ST_ARENA_H
#define DY2ST_ARENA_H
#endif
