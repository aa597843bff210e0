/* Reference SpMV in every storage format of src/formats: plain serial
 * loops over the format's own arrays, the oracle of the other backends'
 * format kernels. */
#ifndef KRYL_REF_SPMV_FMT_H
#define KRYL_REF_SPMV_FMT_H

#include "formats/format.h"

/* y = alpha*A*x + beta*z in the format's (permuted) basis; z may be NULL
 * (y = alpha*A*x) or equal to y.  val is the format's value array: f's own
 * doubles, or a float copy of kryl_fmt_values.  Sums in double. */
#define REF_FMT_DECLARE(REAL, S)                                                                   \
    void ref_fmt_spmv_##S(const kryl_fmt *f, const REAL *val, double alpha, const REAL *x,         \
                          double beta, const REAL *z, REAL *y);

REF_FMT_DECLARE(double, d)
REF_FMT_DECLARE(float, s)

#undef REF_FMT_DECLARE

#endif
