/* Instantiates the template header named by KRYL_REF_TEMPLATE (a quoted
 * path) twice: REAL double with S d, and REAL float with S s.  Include once
 * per template; it undefines KRYL_REF_TEMPLATE. */
#ifndef KRYL_REF_TEMPLATE
#error "define KRYL_REF_TEMPLATE before including ref_instantiate.h"
#endif

#define REAL double
#define S    d
#include KRYL_REF_TEMPLATE
#undef REAL
#undef S

#define REAL float
#define S    s
#include KRYL_REF_TEMPLATE
#undef REAL
#undef S

#undef KRYL_REF_TEMPLATE
