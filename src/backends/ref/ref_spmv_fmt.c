/* Instantiates the reference format kernels for double and float. */
#include "backends/ref/ref_spmv_fmt.h"

#define KRYL_REF_TEMPLATE "backends/ref/ref_spmv_fmt_template.h"
#include "backends/ref/ref_instantiate.h"
