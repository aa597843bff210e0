/* The ref backend's implementations of the operations, kryl_ref_<op>
 * (semantics in backend.h, declared from its list): the specification the
 * other backends follow; the omp backend registers some of them too. */
#ifndef KRYL_BACKENDS_REF_REF_OPS_H
#define KRYL_BACKENDS_REF_REF_OPS_H

#include "backends/backend.h"

#define KRYL_REF_DECLARE_OP(ret, name, params) ret kryl_ref_##name params;
KRYL_BACKEND_OPS(KRYL_REF_DECLARE_OP)

#endif
