/* Plain serial loops, instantiated for REAL = double (S = d) and float (S = s)
 * by ref_kernels.c.  This is the oracle: obviously correct, never optimised.
 * Sums accumulate in double. */
#define REF_NAME2(a, b) a##_##b
#define REF_NAME(a, b)  REF_NAME2(a, b)

void REF_NAME(ref_fill, S)(int64_t n, REAL *y, double value)
{
    for (int64_t i = 0; i < n; i++) y[i] = (REAL)value;
}

void REF_NAME(ref_axpby, S)(int64_t n, double alpha, const REAL *x, double beta, REAL *y)
{
    for (int64_t i = 0; i < n; i++) y[i] = (REAL)(alpha * (double)x[i] + beta * (double)y[i]);
}

void REF_NAME(ref_pointwise_mult, S)(int64_t n, REAL *y, const REAL *d, const REAL *x)
{
    for (int64_t i = 0; i < n; i++) y[i] = (REAL)((double)d[i] * (double)x[i]);
}

void REF_NAME(ref_chebyshev_step, S)(int64_t n, double alpha, const REAL *r, const REAL *dinv,
                                     double beta, REAL *d, REAL *x, bool x_zero)
{
    for (int64_t i = 0; i < n; i++) {
        double di = alpha * (double)dinv[i] * (double)r[i];
        if (beta != 0.0) di += beta * (double)d[i];
        const REAL dt = (REAL)di;
        if (d) d[i] = dt;
        x[i] = x_zero ? dt : (REAL)((double)x[i] + (double)dt);
    }
}

double REF_NAME(ref_dot, S)(int64_t n, const REAL *x, const REAL *y)
{
    double sum = 0.0;
    for (int64_t i = 0; i < n; i++) sum += (double)x[i] * (double)y[i];
    return sum;
}

void REF_NAME(ref_cg_update_xr, S)(int64_t n, double alpha, const REAL *p, const REAL *q, REAL *x,
                                   REAL *r, const REAL *dinv, REAL *z, double *rz, double *rr)
{
    double sum_rz = 0.0, sum_rr = 0.0;
    for (int64_t i = 0; i < n; i++) {
        x[i] = (REAL)((double)x[i] + alpha * (double)p[i]);
        r[i] = (REAL)((double)r[i] - alpha * (double)q[i]);
        double ri = (double)r[i];
        double zi = ri;
        if (dinv) {
            z[i] = (REAL)((double)dinv[i] * ri);
            zi = (double)z[i];
        }
        sum_rz += ri * zi;
        sum_rr += ri * ri;
    }
    *rz = sum_rz;
    *rr = sum_rr;
}

void REF_NAME(ref_cg_update_p, S)(int64_t n, double beta, const REAL *z, REAL *p)
{
    for (int64_t i = 0; i < n; i++) p[i] = (REAL)((double)z[i] + beta * (double)p[i]);
}

#undef REF_NAME
#undef REF_NAME2
