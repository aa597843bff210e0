/* Vector kernels in one precision: REAL and SUFFIX are defined by the
 * including file (see omp_real.h).  Included once per precision by
 * omp_vector.c, so it has no include guard. */

/* y_i = value */
static void OMP_FN(fill)(int nt, int64_t n, REAL *y, REAL value)
{
#pragma omp parallel for schedule(static) num_threads(nt) if (n >= KRYL_OMP_MIN_PARALLEL)
    for (int64_t i = 0; i < n; i++) y[i] = value;
}

/* y_i = the pseudo-random entry first + i of seed (gen/hash.h) */
static void OMP_FN(fill_random)(int nt, int64_t n, REAL *y, uint64_t seed, int64_t first)
{
#pragma omp parallel for schedule(static) num_threads(nt) if (n >= KRYL_OMP_MIN_PARALLEL)
    for (int64_t i = 0; i < n; i++) y[i] = (REAL)kryl_random_entry(seed, first + i);
}

/* y = alpha*x + beta*y (x may be y) */
static void OMP_FN(axpby)(int nt, int64_t n, REAL alpha, const REAL *x, REAL beta, REAL *y)
{
#pragma omp parallel for schedule(static) num_threads(nt) if (n >= KRYL_OMP_MIN_PARALLEL)
    for (int64_t i = 0; i < n; i++) y[i] = alpha * x[i] + beta * y[i];
}

/* y = alpha*x (beta = 0: the old y is not read, so NaN in it does not spread) */
static void OMP_FN(scale)(int nt, int64_t n, REAL alpha, const REAL *x, REAL *y)
{
#pragma omp parallel for schedule(static) num_threads(nt) if (n >= KRYL_OMP_MIN_PARALLEL)
    for (int64_t i = 0; i < n; i++) y[i] = alpha * x[i];
}

/* y = d .* x (y may be x or d) */
static void OMP_FN(pointwise_mult)(int nt, int64_t n, REAL *y, const REAL *d, const REAL *x)
{
#pragma omp parallel for schedule(static) num_threads(nt) if (n >= KRYL_OMP_MIN_PARALLEL)
    for (int64_t i = 0; i < n; i++) y[i] = d[i] * x[i];
}

/* d = alpha dinv .* r + beta d (beta = 0: d unread; d NULL: not kept);
 * x = d (x_zero) or x += d */
static void OMP_FN(chebyshev_step)(int nt, int64_t n, REAL alpha, const REAL *restrict r,
                                   const REAL *restrict dinv, REAL beta, REAL *restrict d,
                                   REAL *restrict x, bool x_zero)
{
#pragma omp parallel for schedule(static) num_threads(nt) if (n >= KRYL_OMP_MIN_PARALLEL)
    for (int64_t i = 0; i < n; i++) {
        REAL di = alpha * dinv[i] * r[i];
        if (beta != 0) di += beta * d[i];
        if (d) d[i] = di;
        x[i] = x_zero ? di : x[i] + di;
    }
}

/* x'y accumulated in double: one partial per part (kryl_omp_parts), summed
 * in part order afterwards (the same bits for any team size). */
static double OMP_FN(dot)(kryl_omp_state *s, int64_t n, const REAL *x, const REAL *y)
{
    const int parts = kryl_omp_parts(n);
#pragma omp parallel for schedule(static) num_threads(s->threads) if (n >= KRYL_OMP_MIN_PARALLEL)
    for (int part = 0; part < parts; part++) {
        int64_t lo, hi;
        kryl_omp_block(n, part, parts, &lo, &hi);
        double sum = 0.0;
        /* sum += x_i y_i over the part */
#pragma omp simd reduction(+ : sum)
        for (int64_t i = lo; i < hi; i++) sum += (double)x[i] * (double)y[i];
        kryl_omp_part_sums(s, part)[0] = sum;
    }
    return kryl_omp_sum_partials(s, parts, 0);
}
