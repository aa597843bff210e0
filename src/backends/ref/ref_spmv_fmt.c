/* Instantiates the reference format kernels for double and float. */
#include "backends/ref/ref_spmv_fmt.h"

#define REAL double
#define S    d
#include "backends/ref/ref_spmv_fmt_template.h"
#undef REAL
#undef S

#define REAL float
#define S    s
#include "backends/ref/ref_spmv_fmt_template.h"
#undef REAL
#undef S
