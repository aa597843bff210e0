/* Instantiates the template header named by KRYL_OMP_TEMPLATE (a quoted
 * path) twice: REAL double with SUFFIX _double, and REAL float with SUFFIX
 * _single.  Include once per template; it undefines KRYL_OMP_TEMPLATE. */
#ifndef KRYL_OMP_TEMPLATE
#error "define KRYL_OMP_TEMPLATE before including omp_instantiate.h"
#endif

#define REAL   double
#define SUFFIX _double
#include KRYL_OMP_TEMPLATE
#undef REAL
#undef SUFFIX

#define REAL   float
#define SUFFIX _single
#include KRYL_OMP_TEMPLATE
#undef REAL
#undef SUFFIX

#undef KRYL_OMP_TEMPLATE
