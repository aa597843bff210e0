/*
 * Least-squares polynomial preconditioner, M^-1 = s(A) for symmetric
 * positive definite A (Li & Saad, "GPU-accelerated preconditioned
 * iterative linear solvers", section 5.4; Saad, "Practical use of
 * polynomial preconditionings for the conjugate gradient method", SISC 6,
 * 1985).
 *
 * Setup, on the host once: the spectrum lies in [a, b] with a = 0 and
 * b = 1.05 theta_max, theta_max the largest Ritz value of a few Lanczos
 * steps on the backend (kryl_matrix_spectrum).  Ritz values lie inside
 * the spectrum, so the margin is the safeguard that puts b above
 * lambda_max; a = 0 needs no estimate of lambda_min, which a few steps
 * do not give.  s of degree d minimises ||1 - t s(t)||_w over [a, b] with
 * the Chebyshev weight w(t) = 1/sqrt((t - a)(b - t)).  The Stieltjes
 * procedure (Algorithm 3, S_0 = t, phi = 1) builds the orthonormal P_j =
 * t Q_j, j = 1..d+1, in the Chebyshev basis T_i((2t - a - b)/(b - a)) of
 * [a, b], where the inner products are exact sums (no quadrature): with
 * the normalised weight <T_0, T_0> = 1, <T_i, T_i> = 1/2, <T_i, T_j> = 0.
 * Then 1 - t s(t) is orthogonal to every P_j: gamma_j = <1, P_j> and
 * s = sum gamma_j Q_j.
 *
 * Apply (Algorithm 4 with x_0 = 0), d SpMVs and backend vector updates
 * only; the coefficients are host constants fixed at setup.  The
 * polynomial is in A itself, without Jacobi scaling, as in the paper.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "precond/lspoly.h"

/* Lanczos steps for the upper bound, and the safeguard margin on it. */
#define LSPOLY_LANCZOS_STEPS 30
#define LSPOLY_MARGIN        1.05

/* Chebyshev coefficient arrays hold degrees 0..LSPOLY_TERMS-1. */
#define LSPOLY_TERMS (KRYL_LSPOLY_MAX_DEGREE + 3)

/* <p, q> for p, q in the Chebyshev basis, normalised Chebyshev weight. */
static double cheb_dot(const double *p, const double *q)
{
    /* <p, q> = p_0 q_0 + sum_{i>=1} p_i q_i / 2 */
    double sum = 0.0;
    for (int i = 1; i < LSPOLY_TERMS; i++) sum += p[i] * q[i];
    return p[0] * q[0] + 0.5 * sum;
}

/* out = t p with t = half*theta + mid: theta T_0 = T_1, theta T_i = (T_{i-1} + T_{i+1})/2. */
static void cheb_times_t(const double *p, double half, double mid, double *out)
{
    memset(out, 0, LSPOLY_TERMS * sizeof *out);
    /* out = half * theta p */
    out[1] += half * p[0];
    for (int i = 1; i + 1 < LSPOLY_TERMS; i++) {
        out[i - 1] += 0.5 * half * p[i];
        out[i + 1] += 0.5 * half * p[i];
    }
    /* out += mid p */
    for (int i = 0; i < LSPOLY_TERMS; i++) out[i] += mid * p[i];
}

/* The Stieltjes procedure (Li & Saad, Algorithm 3) from S_0 = t on [lower, upper]. */
static void stieltjes(kryl_lspoly *poly)
{
    double half = 0.5 * (poly->upper - poly->lower), mid = 0.5 * (poly->upper + poly->lower);
    double prev[LSPOLY_TERMS] = {0}, cur[LSPOLY_TERMS] = {0}, next[LSPOLY_TERMS];
    /* S_0 = t = mid T_0 + half T_1;  beta_1 = ||S_0||;  P_1 = S_0/beta_1;  gamma_1 = <1, P_1> */
    cur[0] = mid;
    cur[1] = half;
    poly->beta[1] = sqrt(cheb_dot(cur, cur));
    for (int i = 0; i < 2; i++) cur[i] /= poly->beta[1];
    poly->gamma[1] = cur[0];
    for (int j = 1; j <= poly->degree; j++) {
        /* alpha_j = <t P_j, P_j>;  S_j = t P_j - alpha_j P_j - beta_j P_{j-1} */
        cheb_times_t(cur, half, mid, next);
        poly->alpha[j] = cheb_dot(next, cur);
        for (int i = 0; i < LSPOLY_TERMS; i++)
            next[i] -= poly->alpha[j] * cur[i] + poly->beta[j] * prev[i];
        /* beta_{j+1} = ||S_j||;  P_{j+1} = S_j/beta_{j+1};  gamma_{j+1} = <1, P_{j+1}> */
        poly->beta[j + 1] = sqrt(cheb_dot(next, next));
        for (int i = 0; i < LSPOLY_TERMS; i++) {
            prev[i] = cur[i];
            cur[i] = next[i] / poly->beta[j + 1];
        }
        poly->gamma[j + 1] = cur[0];
    }
}

/* z = s(A) r by Algorithm 4 on u_j = beta_1 v_j (u_1 = r, so r is read, never copied):
 * u_{j+1} = (A u_j - alpha_j u_j - beta_j u_{j-1})/beta_{j+1};  z = sum gamma_j u_j/beta_1. */
static kryl_status lspoly_apply(kryl_precond *pc, kryl_vector r, kryl_vector z)
{
    const kryl_lspoly *poly = pc->data;
    const kryl_backend_ops *ops = pc->ctx->ops;
    kryl_context ctx = pc->ctx;
    const double *al = poly->alpha, *be = poly->beta;
    /* z = (gamma_1/beta_1) r */
    KRYL_TRY(ops->axpby(ctx, poly->gamma[1] / be[1], r, 0.0, z));
    kryl_vector prev = NULL, cur = r;
    for (int j = 1; j <= poly->degree; j++) {
        /* u_{j+1} overwrites u_{j-1} once that is a work vector (j >= 3) */
        kryl_vector next = j <= 2 ? poly->work[j - 1] : prev;
        /* next = A u_j / beta_{j+1} - (beta_j/beta_{j+1}) u_{j-1} */
        KRYL_TRY(
            ops->spmv(ctx, poly->A, 1.0 / be[j + 1], cur, -be[j] / be[j + 1], prev, next, NULL));
        /* next -= (alpha_j/beta_{j+1}) u_j */
        KRYL_TRY(ops->axpby(ctx, -al[j] / be[j + 1], cur, 1.0, next));
        /* z += (gamma_{j+1}/beta_1) u_{j+1} */
        KRYL_TRY(ops->axpby(ctx, poly->gamma[j + 1] / be[1], next, 1.0, z));
        prev = cur;
        cur = next;
    }
    return KRYL_SUCCESS;
}

static void lspoly_destroy(kryl_precond *pc)
{
    kryl_lspoly *poly = pc->data;
    if (poly == NULL) return;
    kryl_vector_destroy(&poly->work[0]);
    kryl_vector_destroy(&poly->work[1]);
    free(poly);
    pc->data = NULL;
}

/* [a, b] = [0, 1.05 theta_max] from Lanczos; theta_min <= 0 proves A indefinite. */
static kryl_status spectrum_bounds(kryl_matrix A, kryl_lspoly *poly)
{
    double theta_min = 0.0, theta_max = 0.0;
    KRYL_TRY(
        kryl_matrix_spectrum(A, KRYL_PRECOND_NONE, LSPOLY_LANCZOS_STEPS, &theta_min, &theta_max));
    if (!(theta_min > 0.0) || !isfinite(theta_max))
        return KRYL_ERROR(KRYL_ERR_NOT_POSITIVE_DEFINITE,
                          "lspoly: Lanczos finds the eigenvalue estimates [%g, %g]; the "
                          "least-squares polynomial preconditioner needs a positive definite "
                          "matrix",
                          theta_min, theta_max);
    poly->lower = 0.0;
    poly->upper = LSPOLY_MARGIN * theta_max;
    return KRYL_SUCCESS;
}

kryl_status kryl_precond_lspoly_create(kryl_precond *pc, kryl_matrix A, int degree,
                                       double symmetry_tol)
{
    if (degree == 0) degree = KRYL_LSPOLY_DEFAULT_DEGREE;
    if (degree < 1 || degree > KRYL_LSPOLY_MAX_DEGREE)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "lspoly: degree %d; expected 1..%d (0 = %d)",
                          degree, KRYL_LSPOLY_MAX_DEGREE, KRYL_LSPOLY_DEFAULT_DEGREE);
    const kryl_csr *csr = &A->host->csr;
    if (csr->nrows_global != csr->ncols)
        return KRYL_ERROR(KRYL_ERR_NOT_SQUARE, "lspoly: the matrix is %lld x %lld, not square",
                          (long long)csr->nrows_global, (long long)csr->ncols);
    if (!kryl_host_matrix_is_symmetric(A->host, symmetry_tol))
        return KRYL_ERROR(KRYL_ERR_NOT_SYMMETRIC,
                          "the matrix is not symmetric: the least-squares polynomial "
                          "preconditioner needs a symmetric positive definite matrix; use "
                          "jacobi or ilu0 with gmres");
    kryl_lspoly *poly = calloc(1, sizeof *poly);
    if (poly == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "lspoly: cannot allocate the coefficients");
    pc->data = poly;
    pc->destroy = lspoly_destroy;
    pc->apply = lspoly_apply;
    poly->A = A;
    poly->degree = degree;
    KRYL_TRY(spectrum_bounds(A, poly));
    stieltjes(poly);
    KRYL_TRY(kryl_vector_create_like(&poly->work[0], pc->ctx, A->layout, A->precision));
    return kryl_vector_create_like(&poly->work[1], pc->ctx, A->layout, A->precision);
}
