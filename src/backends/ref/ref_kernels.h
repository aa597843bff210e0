/* The ref backend's typed kernels, for float and double (see ref_kernels_template.h). */
#ifndef KRYL_REF_KERNELS_H
#define KRYL_REF_KERNELS_H

#include "backends/backend.h"

#define REF_DECLARE(REAL, S)                                                                       \
    void ref_fill_##S(int64_t n, REAL *y, double value);                                           \
    void ref_axpby_##S(int64_t n, double alpha, const REAL *x, double beta, REAL *y);              \
    void ref_pointwise_mult_##S(int64_t n, REAL *y, const REAL *d, const REAL *x);                 \
    void ref_chebyshev_step_##S(int64_t n, double alpha, const REAL *r, const REAL *dinv,          \
                                double beta, REAL *d, REAL *x, bool x_zero);                       \
    double ref_dot_##S(int64_t n, const REAL *x, const REAL *y);                                   \
    void ref_cg_update_xr_##S(int64_t n, double alpha, const REAL *p, const REAL *q, REAL *x,      \
                              REAL *r, const REAL *dinv, REAL *z, double *rz, double *rr);         \
    void ref_cg_update_p_##S(int64_t n, double beta, const REAL *z, REAL *p);

REF_DECLARE(double, d)
REF_DECLARE(float, s)

#endif
