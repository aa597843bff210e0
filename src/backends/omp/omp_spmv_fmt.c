/* The omp backend's SpMV in the storage formats other than CSR (ELL, ELLR,
 * JDS, SELL-C-sigma, pJDS, BCSR 2x2 and 4x4, DIA), from one template:
 * double vectors with double values or with their exact floats, and float
 * vectors with float values. */
#include <omp.h>

#include "backends/omp/omp_backend.h"
#include "backends/omp/omp_real.h"

/* double vectors, double values */
#define REAL   double
#define VALUE  double
#define SUFFIX _double
#include "backends/omp/omp_spmv_fmt_template.h"

/* double vectors, float values (exact) */
#define REAL   double
#define VALUE  float
#define SUFFIX _double_floatval
#include "backends/omp/omp_spmv_fmt_template.h"

/* float vectors and values */
#define REAL   float
#define VALUE  float
#define SUFFIX _single
#include "backends/omp/omp_spmv_fmt_template.h"

void kryl_omp_fmt_spmv(int nt, const kryl_omp_matrix *M, kryl_precision precision, double alpha,
                       const void *x, double beta, const void *z, void *y)
{
    if (precision == KRYL_SINGLE)
        fmt_spmv_single(nt, M, M->values_single, alpha, x, beta, z, y);
    else if (M->values_single != NULL)
        fmt_spmv_double_floatval(nt, M, M->values_single, alpha, x, beta, z, y);
    else
        fmt_spmv_double(nt, M, M->values_double, alpha, x, beta, z, y);
}
