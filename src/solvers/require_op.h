/* A method refuses, at kryl_solver_create, a backend that lacks an
 * operation it needs, naming both. */
#ifndef KRYL_SOLVERS_REQUIRE_OP_H
#define KRYL_SOLVERS_REQUIRE_OP_H

#include "solvers/solver_impl.h"

#define KRYL_REQUIRE_OP(s, method, op)                                                             \
    do {                                                                                           \
        if ((s)->ops->op == NULL)                                                                  \
            return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,                                                \
                              "the %s backend does not implement the %s operation, which %s "      \
                              "needs; use another backend or method",                              \
                              (s)->ops->name, #op, (method));                                      \
    } while (0)

#endif
