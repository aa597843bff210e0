/* Instantiates the ref kernels for double and float. */
#include "backends/ref/ref_kernels.h"

#define KRYL_REF_TEMPLATE "backends/ref/ref_kernels_template.h"
#include "backends/ref/ref_instantiate.h"
