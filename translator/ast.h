/* ast.h */
#ifndef DY2ST_AST_H
#define DY2ST_AST_H
#endif
