/* Instantiates the ref kernels for double and float. */
#include "backends/ref/ref_kernels.h"

#define REAL double
#define S    d
#include "backends/ref/ref_kernels_template.h"
#undef REAL
#undef S

#define REAL float
#define S    s
#include "backends/ref/ref_kernels_template.h"
#undef REAL
#undef S
