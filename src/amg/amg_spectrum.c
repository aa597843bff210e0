/* lambda_max(D^-1 A) for the prolongator's damping and the smoothers:
 * a few Lanczos steps on the host (Lanczos 1950; D^-1/2 A D^-1/2 has the
 * eigenvalues of D^-1 A), whose largest Ritz value converges first, or
 * Gershgorin's bound where Lanczos does not apply. */
#include <math.h>
#include <stdlib.h>

#include "amg/amg.h"
#include "core/host_threads.h"
#include "gen/hash.h"
#include "solvers/lanczos.h"

/* max_i sum_j |a_ij| / |a_ii|, an upper bound on |lambda(D^-1 A)| */
static double gershgorin(const kryl_csr *A, const double *diag)
{
    double bound = 0.0;
    for (int64_t i = 0; i < A->nrows; i++) {
        double sum = 0.0;
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) sum += fabs(A->values[k]);
        if (diag[i] != 0.0 && sum / fabs(diag[i]) > bound) bound = sum / fabs(diag[i]);
    }
    return bound;
}

static double dot(const double *x, const double *y, int64_t n)
{
    double s = 0.0;
    for (int64_t i = 0; i < n; i++) s += x[i] * y[i];
    return s;
}

/* k steps of Lanczos on C = S A S, S = D^-1/2 (s[i] = 1/sqrt(a_ii)), from a
 * fixed pseudo-random start; the largest Ritz value. */
static kryl_status lanczos_max(const kryl_csr *A, const double *s, int k, int threads,
                               double *lambda)
{
    int64_t n = A->nrows;
    double *base = malloc((size_t)n * 3 * sizeof *base), *v = base;
    if (base == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "amg: cannot allocate %lld rows", (long long)n);
    double *v_old = v + n, *w = v_old + n;
    double alpha[KRYL_AMG_LANCZOS_STEPS], beta[KRYL_AMG_LANCZOS_STEPS];
    for (int64_t i = 0; i < n; i++) {
        v[i] = kryl_gen_uniform(kryl_gen_mix64((uint64_t)i + 1)) - 0.5;
        v_old[i] = 0.0;
    }
    double b = sqrt(dot(v, v, n));
    int done = 0;
    for (int j = 0; j < k && b > 0.0; j++) {
        for (int64_t i = 0; i < n; i++) v[i] /= b;
        KRYL_HOST_PARALLEL_FOR(threads)
        for (int64_t i = 0; i < n; i++) {
            /* w = S A S v - beta v_old */
            double sum = 0.0;
            for (int64_t e = A->row_ptr[i]; e < A->row_ptr[i + 1]; e++)
                sum += A->values[e] * s[A->col_idx[e]] * v[A->col_idx[e]];
            w[i] = s[i] * sum - (j > 0 ? b * v_old[i] : 0.0);
        }
        alpha[j] = dot(v, w, n);
        /* w -= alpha v;  beta = ||w||;  v_old = v;  v = w */
        for (int64_t i = 0; i < n; i++) w[i] -= alpha[j] * v[i];
        double next = sqrt(dot(w, w, n));
        done = j + 1;
        if (j + 1 < k) beta[j] = next;
        double *t = v_old;
        v_old = v;
        v = w;
        w = t;
        /* an invariant subspace: T_j's eigenvalues are exact */
        if (!(next > 1e-14 * fabs(alpha[j]))) break;
        b = next;
    }
    double lmin = 0.0;
    kryl_status st = kryl_tridiagonal_extremes(alpha, beta, done, &lmin, lambda);
    free(base);
    return st;
}

kryl_status amg_lambda_max(const kryl_csr *A, bool symmetric, int threads, double *lambda)
{
    int64_t n = A->nrows;
    double *diag = malloc(((size_t)n + 1) * sizeof *diag);
    if (diag == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "amg: cannot allocate %lld rows", (long long)n);
    kryl_csr_diagonal(A, diag);
    bool positive = true;
    for (int64_t i = 0; i < n; i++) positive = positive && diag[i] > 0.0;
    kryl_status st = KRYL_SUCCESS;
    if (symmetric && positive && n > 0) {
        for (int64_t i = 0; i < n; i++) diag[i] = 1.0 / sqrt(diag[i]);
        int steps = n < KRYL_AMG_LANCZOS_STEPS ? (int)n : KRYL_AMG_LANCZOS_STEPS;
        st = lanczos_max(A, diag, steps, threads, lambda);
    } else {
        *lambda = gershgorin(A, diag);
    }
    free(diag);
    if (st == KRYL_SUCCESS && !(*lambda > 0.0 && isfinite(*lambda)))
        return KRYL_ERROR(KRYL_ERR_INVALID_VALUE,
                          "amg: the estimate of lambda_max(D^-1 A) of a level is %g", *lambda);
    return st;
}
