/* The ref backend's typed kernels, for float and double (see ref_kernels_template.h). */
#ifndef KRYL_REF_KERNELS_H
#define KRYL_REF_KERNELS_H

#include "backends/backend.h"

/* The ref backend's storage of a matrix: CSR in the matrix's precision. */
typedef struct ref_csr {
    int64_t nrows, ncols;
    const int64_t *row_ptr; /* shared with the host copy */
    const int32_t *col_idx; /* shared with the host copy */
    void *values; /* float copy, or the host copy's doubles */
    int owns_values;
} ref_csr;

#define REF_DECLARE(REAL, S)                                                                  \
    void ref_spmv_##S(const ref_csr *A, double alpha, const REAL *x, double beta,              \
                      const REAL *z, REAL *y);                                                 \
    void ref_fill_##S(int64_t n, REAL *y, double value);                                       \
    void ref_axpby_##S(int64_t n, double alpha, const REAL *x, double beta, REAL *y);          \
    void ref_pointwise_mult_##S(int64_t n, REAL *y, const REAL *d, const REAL *x);            \
    double ref_dot_##S(int64_t n, const REAL *x, const REAL *y);                               \
    void ref_cg_update_xr_##S(int64_t n, double alpha, const REAL *p, const REAL *q, REAL *x, \
                              REAL *r, const REAL *dinv, REAL *z, double *rz, double *rr);     \
    void ref_cg_update_p_##S(int64_t n, double beta, const REAL *z, REAL *p);

REF_DECLARE(double, d)
REF_DECLARE(float, s)

#endif
