/*
 * Extreme eigenvalue estimates (Lanczos, J. Res. NBS 45, 1950), as Li &
 * Saad use them to bound the spectrum for polynomial preconditioning:
 *
 *   kryl_matrix_spectrum: k steps of (preconditioned) Lanczos on the
 *   backend.  With Jacobi, M = D is SPD and the recurrence runs in the
 *   M^-1 inner product, which is Lanczos on D^-1/2 A D^-1/2 (same
 *   eigenvalues as D^-1 A) without forming it.  The k x k tridiagonal T_k
 *   stays on the host; its extreme eigenvalues come from Sturm-sequence
 *   bisection.  No reorthogonalisation: lost orthogonality only duplicates
 *   converged Ritz values, it does not move the extreme ones.  Each step
 *   fetches alpha and beta (this is a one-off estimate, not a solve).
 *
 *   kryl_solver_spectrum: the same T_k from the coefficients a CG-type
 *   solve recorded on the backend (the CG-Lanczos relation, Saad,
 *   "Iterative Methods for Sparse Linear Systems", section 6.7.3):
 *   T_jj = 1/alpha_j + beta_j/alpha_{j-1},  T_{j,j+1} = sqrt(beta_{j+1})/alpha_j.
 *
 *   kryl_cg_extremes: the same relation from k steps of (Jacobi-)CG on
 *   A x = r_0 from the Lanczos start r_0, every scalar kept on the backend
 *   and fetched once at the end: on the device no step waits for the host
 *   (the multigrid setup's lambda_max on each level).  CG needs A positive
 *   definite: where it breaks down the caller takes Lanczos.
 */
#include <math.h>
#include <stdlib.h>

#include "solvers/auto_choice.h"
#include "solvers/lanczos.h"
#include "solvers/solver_impl.h"

/* Eigenvalues of T below x (Sturm sequence of the LDL' pivots);
 * a: k diagonal entries, b2: k-1 squared off-diagonal entries. */
static int count_below(const double *a, const double *b2, int k, double x)
{
    int count = 0;
    double d = 1.0;
    for (int i = 0; i < k; i++) {
        /* d_i = a_i - x - b_{i-1}^2 / d_{i-1} */
        d = a[i] - x - (i > 0 ? b2[i - 1] / d : 0.0);
        if (d == 0.0) d = -1e-300; /* x is an eigenvalue: count it as below */
        if (d < 0.0) count++;
    }
    return count;
}

/* The index-th smallest eigenvalue (0-based) of T in [lo, hi], by bisection. */
static double bisect(const double *a, const double *b2, int k, int index, double lo, double hi)
{
    for (int it = 0; it < 200 && hi - lo > 1e-15 * fmax(fabs(lo), fabs(hi)); it++) {
        double mid = 0.5 * (lo + hi);
        if (count_below(a, b2, k, mid) > index)
            hi = mid;
        else
            lo = mid;
    }
    return 0.5 * (lo + hi);
}

kryl_status kryl_tridiagonal_extremes(const double *a, const double *b, int k, double *lmin,
                                      double *lmax)
{
    double *b2 = malloc((size_t)(k > 1 ? k - 1 : 1) * sizeof *b2);
    if (b2 == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "lanczos: cannot allocate %d", k);
    /* Gershgorin interval: every eigenvalue lies in [lo, hi] */
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < k; i++) {
        double radius = (i > 0 ? fabs(b[i - 1]) : 0.0) + (i + 1 < k ? fabs(b[i]) : 0.0);
        lo = fmin(lo, a[i] - radius);
        hi = fmax(hi, a[i] + radius);
        if (i + 1 < k) b2[i] = b[i] * b[i];
    }
    double pad = 1e-12 * fmax(fabs(lo), fabs(hi)) + 1e-300;
    *lmin = bisect(a, b2, k, 0, lo - pad, hi + pad);
    *lmax = bisect(a, b2, k, k - 1, lo - pad, hi + pad);
    free(b2);
    return KRYL_SUCCESS;
}

/* The start vector's seed: every run, backend and rank count starts alike. */
#define LANCZOS_SEED 12345u

/* *v[0..count) = vectors of A's layout and precision. */
static kryl_status vectors_like(kryl_matrix A, kryl_vector *const *v, size_t count)
{
    for (size_t i = 0; i < count; i++)
        KRYL_TRY(kryl_vector_create_like(v[i], A->ctx, A->layout, A->precision));
    return KRYL_SUCCESS;
}

typedef struct lanczos_state {
    kryl_context ctx;
    const kryl_backend_ops *ops;
    kryl_matrix A;
    kryl_precond *pc;
    kryl_vector r, z, v, u, v_old, w; /* z = r and u = v without a preconditioner */
    double *scalar;                   /* backend: one double */
} lanczos_state;

/* value = x'y, fetched to the host */
static kryl_status host_dot(lanczos_state *L, kryl_vector x, kryl_vector y, double *value)
{
    kryl_scalar out = {L->scalar};
    KRYL_TRY(L->ops->dot(L->ctx, x, y, out));
    KRYL_TRY(kryl_reduce_begin(L->ctx, out, 1));
    KRYL_TRY(kryl_reduce_end(L->ctx));
    return L->ops->download(L->ctx, value, L->scalar, sizeof *value);
}

/* beta = sqrt(r'z), z = M^-1 r;  r'z < 0 means M or A is not definite. */
static kryl_status next_beta(lanczos_state *L, double *beta)
{
    double rz;
    if (L->pc) KRYL_TRY(L->pc->apply(L->pc, L->r, L->z));
    KRYL_TRY(host_dot(L, L->r, L->z, &rz));
    if (!isfinite(rz))
        return KRYL_ERROR(KRYL_ERR_INVALID_VALUE, "lanczos: a NaN or Inf appeared (r'M^-1 r = %g)",
                          rz);
    if (rz < 0.0)
        return KRYL_ERROR(KRYL_ERR_NOT_POSITIVE_DEFINITE,
                          "lanczos: r'M^-1 r = %g < 0: the Jacobi preconditioner needs a positive "
                          "diagonal",
                          rz);
    *beta = sqrt(rz);
    return KRYL_SUCCESS;
}

/* k Lanczos steps from a fixed pseudo-random start; alpha[0..*done), beta[0..*done-1). */
static kryl_status lanczos_run(lanczos_state *L, int k, double *alpha, double *beta, int *done)
{
    const kryl_backend_ops *ops = L->ops;
    kryl_context ctx = L->ctx;
    /* r_0: pseudo-random entries of the global row index, made where r lives */
    KRYL_TRY(ops->fill_random(ctx, L->r, LANCZOS_SEED, L->A->layout->row_begin));
    double b = 0.0;
    KRYL_TRY(next_beta(L, &b));
    if (!(b > 0.0))
        return KRYL_ERROR(KRYL_ERR_INVALID_VALUE, "lanczos: the start vector has M-norm 0");
    *done = 0;
    for (int j = 0; j < k; j++) {
        /* v = r/beta;  u = z/beta = M^-1 v */
        KRYL_TRY(ops->axpby(ctx, 1.0 / b, L->r, 0.0, L->v));
        if (L->pc) KRYL_TRY(ops->axpby(ctx, 1.0 / b, L->z, 0.0, L->u));
        /* w = A u;  alpha = u'w */
        KRYL_TRY(ops->spmv(ctx, L->A, 1.0, L->u, 0.0, NULL, L->w, NULL));
        KRYL_TRY(host_dot(L, L->u, L->w, &alpha[j]));
        /* r = w - alpha v - beta v_old */
        KRYL_TRY(ops->axpby(ctx, 1.0, L->w, 0.0, L->r));
        KRYL_TRY(ops->axpby(ctx, -alpha[j], L->v, 1.0, L->r));
        if (j > 0) KRYL_TRY(ops->axpby(ctx, -b, L->v_old, 1.0, L->r));
        KRYL_TRY(next_beta(L, &b));
        *done = j + 1;
        /* an invariant subspace: T_j's eigenvalues are exact */
        if (j + 1 == k || b <= 1e-14 * fabs(alpha[j])) break;
        beta[j] = b;
        kryl_vector t = L->v_old;
        L->v_old = L->v;
        L->v = t;
        if (!L->pc) L->u = L->v;
    }
    return KRYL_SUCCESS;
}

static void lanczos_release(lanczos_state *L)
{
    kryl_vector_destroy(&L->r);
    kryl_vector_destroy(&L->v);
    kryl_vector_destroy(&L->v_old);
    kryl_vector_destroy(&L->w);
    if (L->pc) {
        kryl_vector_destroy(&L->z);
        kryl_vector_destroy(&L->u);
    }
    kryl_precond_destroy(&L->pc);
    if (L->scalar) L->ops->release(L->ctx, L->scalar);
}

kryl_status kryl_lanczos_extremes(kryl_matrix A, kryl_precond_kind precond, int k,
                                  double *lambda_min, double *lambda_max)
{
    lanczos_state L = {.ctx = A->ctx, .ops = A->ctx->ops, .A = A};
    double *alpha = malloc((size_t)k * sizeof *alpha), *beta = malloc((size_t)k * sizeof *beta);
    int done = 0;
    kryl_status st = alpha && beta ? KRYL_SUCCESS
                                   : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                                                "lanczos: cannot allocate %d coefficients", k);
    kryl_vector *own[] = {&L.r, &L.v, &L.v_old, &L.w}, *preconditioned[] = {&L.z, &L.u};
    if (st == KRYL_SUCCESS) st = vectors_like(A, own, 4);
    if (st == KRYL_SUCCESS) st = kryl_precond_create(&L.pc, precond, NULL, A, NULL);
    if (st == KRYL_SUCCESS && L.pc) st = vectors_like(A, preconditioned, 2);
    if (st == KRYL_SUCCESS && !L.pc) {
        L.z = L.r;
        L.u = L.v;
    }
    if (st == KRYL_SUCCESS) st = L.ops->alloc(L.ctx, (void **)&L.scalar, sizeof(double));
    if (st == KRYL_SUCCESS) st = lanczos_run(&L, k, alpha, beta, &done);
    if (st == KRYL_SUCCESS)
        st = kryl_tridiagonal_extremes(alpha, beta, done, lambda_min, lambda_max);
    lanczos_release(&L);
    free(alpha);
    free(beta);
    return st;
}

kryl_status kryl_matrix_spectrum(kryl_matrix A, kryl_precond_kind precond, int steps,
                                 double *lambda_min, double *lambda_max)
{
    KRYL_REQUIRE_ARG(A);
    KRYL_REQUIRE_ARG(lambda_min);
    KRYL_REQUIRE_ARG(lambda_max);
    KRYL_TRY(kryl_matrix_need_host(A, "kryl_matrix_spectrum"));
    KRYL_TRY(kryl_matrix_need_storage(A, "kryl_matrix_spectrum"));
    const kryl_csr *csr = &A->host->csr;
    if (csr->nrows_global != csr->ncols)
        return KRYL_ERROR(KRYL_ERR_NOT_SQUARE, "kryl_matrix_spectrum: the matrix is %lld x %lld",
                          (long long)csr->nrows_global, (long long)csr->ncols);
    if (!kryl_host_matrix_is_symmetric(A->host, KRYL_SYMMETRY_TOL))
        return KRYL_ERROR(KRYL_ERR_NOT_SYMMETRIC,
                          "kryl_matrix_spectrum: Lanczos needs a symmetric matrix");
    if (precond != KRYL_PRECOND_NONE && precond != KRYL_PRECOND_JACOBI)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "kryl_matrix_spectrum: the spectrum of A or of the Jacobi-"
                          "preconditioned operator (precond none or jacobi), not of %s",
                          kryl_precond_name(precond));
    if (steps < 0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "kryl_matrix_spectrum: steps = %d < 0", steps);
    int64_t n = A->layout->n;
    int k = steps == 0 ? 50 : steps;
    if (k > n) k = (int)n;
    if (k < 1)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "kryl_matrix_spectrum: the matrix is empty");
    return kryl_lanczos_extremes(A, precond, k, lambda_min, lambda_max);
}

/* T_k's extremes from CG's coefficients coef[2j] = alpha_j, coef[2j + 1] =
 * beta_j of steps j < k: those before the first restart (beta = 0 after
 * the first) form one Lanczos sequence.  `who` names the caller in
 * errors. */
static kryl_status cg_tridiagonal_extremes(const double *coef, int64_t k, const char *who,
                                           double *lambda_min, double *lambda_max)
{
    double *a = malloc((size_t)k * sizeof *a), *b = malloc((size_t)k * sizeof *b);
    kryl_status st =
        a && b ? KRYL_SUCCESS
               : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "%s: %lld coefficients", who, (long long)k);
    int64_t K = 1;
    while (st == KRYL_SUCCESS && K < k && coef[2 * K + 1] != 0.0) K++;
    for (int64_t j = 0; st == KRYL_SUCCESS && j < K; j++) {
        double alpha = coef[2 * j], prev = j > 0 ? coef[2 * j - 2] : 1.0;
        if (!(alpha > 0.0) || !(coef[2 * j + 1] >= 0.0))
            st = KRYL_ERROR(KRYL_ERR_NOT_POSITIVE_DEFINITE,
                            "%s: CG coefficient %lld is alpha = %g, beta = %g", who, (long long)j,
                            alpha, coef[2 * j + 1]);
        /* T_jj = 1/alpha_j + beta_j/alpha_{j-1};  T_{j,j+1} = sqrt(beta_{j+1})/alpha_j */
        a[j] = 1.0 / alpha + (j > 0 ? coef[2 * j + 1] / prev : 0.0);
        if (j + 1 < K) b[j] = sqrt(coef[2 * j + 3]) / alpha;
    }
    if (st == KRYL_SUCCESS) st = kryl_tridiagonal_extremes(a, b, (int)K, lambda_min, lambda_max);
    free(a);
    free(b);
    return st;
}

/* Per CG step j of kryl_cg_extremes, in backend memory: rz_j and rr_j
 * (consecutive: cg_update_xr's outputs), then p_j'A p_j. */
enum { CG_RZ = 0, CG_RR = 1, CG_PQ = 2, CG_TERMS = 3 };

typedef struct cg_estimate {
    kryl_context ctx;
    const kryl_backend_ops *ops;
    kryl_matrix A;
    kryl_precond *pc;
    kryl_vector x, r, z, p, q; /* z = r without a preconditioner */
    double *terms;             /* CG_TERMS (k + 1) doubles */
    kryl_monitor *monitor;     /* backend: the ops' stop flags */
} cg_estimate;

static void cg_estimate_release(cg_estimate *E)
{
    kryl_vector *v[] = {&E->x, &E->r, &E->p, &E->q};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) kryl_vector_destroy(v[i]);
    if (E->pc) kryl_vector_destroy(&E->z);
    kryl_precond_destroy(&E->pc);
    if (E->terms) E->ops->release(E->ctx, E->terms);
    if (E->monitor) E->ops->release(E->ctx, E->monitor);
}

/* k CG steps from x = 0, r = the Lanczos start, their terms recorded. */
static kryl_status cg_estimate_run(cg_estimate *E, int k)
{
    const kryl_backend_ops *ops = E->ops;
    kryl_context ctx = E->ctx;
    kryl_vector dinv = E->pc ? E->pc->dinv : NULL;
    kryl_monitor m = {0};
    KRYL_TRY(ops->upload(ctx, E->monitor, &m, sizeof m));
    KRYL_TRY(ops->fill(ctx, E->x, 0.0));
    KRYL_TRY(ops->fill_random(ctx, E->r, LANCZOS_SEED, E->A->layout->row_begin));
    /* z = dinv .* r;  rz_0 = r'z;  p = z */
    if (dinv) KRYL_TRY(ops->pointwise_mult(ctx, E->z, dinv, E->r));
    kryl_scalar rz0 = kryl_scalar_at(E->terms, CG_RZ);
    KRYL_TRY(ops->dot(ctx, E->r, E->z, rz0));
    KRYL_TRY(kryl_reduce_begin(ctx, rz0, 1));
    KRYL_TRY(kryl_reduce_end(ctx));
    KRYL_TRY(ops->axpby(ctx, 1.0, E->z, 0.0, E->p));
    for (int j = 0; j < k; j++) {
        kryl_scalar rz = kryl_scalar_at(E->terms, CG_TERMS * j + CG_RZ);
        kryl_scalar pq = kryl_scalar_at(E->terms, CG_TERMS * j + CG_PQ);
        kryl_scalar rz_next = kryl_scalar_at(E->terms, CG_TERMS * (j + 1) + CG_RZ);
        kryl_scalar rr_next = kryl_scalar_at(E->terms, CG_TERMS * (j + 1) + CG_RR);
        /* q = A p;  pq = p'q */
        if (ops->spmv_dot) {
            KRYL_TRY(ops->spmv_dot(ctx, E->A, E->p, E->q, pq, E->monitor));
        } else {
            KRYL_TRY(ops->spmv(ctx, E->A, 1.0, E->p, 0.0, NULL, E->q, E->monitor));
            KRYL_TRY(ops->dot(ctx, E->p, E->q, pq));
        }
        KRYL_TRY(kryl_reduce_begin(ctx, pq, 1));
        KRYL_TRY(kryl_reduce_end(ctx));
        /* alpha = rz/pq;  x += alpha p;  r -= alpha q;  z = dinv .* r;  rz' = r'z;  rr = r'r */
        KRYL_TRY(ops->cg_update_xr(ctx, rz, pq, E->p, E->q, E->x, E->r, dinv, dinv ? E->z : NULL,
                                   rz_next, rr_next, E->monitor));
        KRYL_TRY(kryl_reduce_begin(ctx, rz_next, 2));
        KRYL_TRY(kryl_reduce_end(ctx));
        /* beta = rz'/rz;  p = z + beta p */
        KRYL_TRY(ops->cg_update_p(ctx, rz_next, rz, E->z, E->p, (kryl_scalar){NULL}, E->monitor));
    }
    return KRYL_SUCCESS;
}

kryl_status kryl_cg_extremes(kryl_matrix A, kryl_precond_kind precond, int k, bool *done,
                             double *lambda_min, double *lambda_max)
{
    *done = false;
    cg_estimate E = {.ctx = A->ctx, .ops = A->ctx->ops, .A = A};
    const size_t count = (size_t)CG_TERMS * ((size_t)k + 1);
    double *terms = malloc(count * sizeof *terms), *coef = malloc(2 * (size_t)k * sizeof *coef);
    kryl_status st = terms && coef ? KRYL_SUCCESS
                                   : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                                                "lanczos: cannot allocate %d coefficients", k);
    kryl_vector *own[] = {&E.x, &E.r, &E.p, &E.q}, *preconditioned[] = {&E.z};
    if (st == KRYL_SUCCESS) st = vectors_like(A, own, 4);
    if (st == KRYL_SUCCESS) st = kryl_precond_create(&E.pc, precond, NULL, A, NULL);
    if (st == KRYL_SUCCESS && E.pc) st = vectors_like(A, preconditioned, 1);
    if (st == KRYL_SUCCESS && !E.pc) E.z = E.r;
    if (st == KRYL_SUCCESS) st = E.ops->alloc(E.ctx, (void **)&E.terms, count * sizeof *terms);
    if (st == KRYL_SUCCESS) st = E.ops->alloc(E.ctx, (void **)&E.monitor, sizeof *E.monitor);
    /* a step that breaks down stops the monitor and leaves its outputs, and all later
     * ones, as they were: NaN */
    for (size_t i = 0; st == KRYL_SUCCESS && i < count; i++) terms[i] = NAN;
    if (st == KRYL_SUCCESS) st = E.ops->upload(E.ctx, E.terms, terms, count * sizeof *terms);
    if (st == KRYL_SUCCESS) st = cg_estimate_run(&E, k);
    if (st == KRYL_SUCCESS) st = E.ops->download(E.ctx, terms, E.terms, count * sizeof *terms);
    /* alpha_j = rz_j / pq_j, beta_j = rz_j / rz_{j-1}, over the steps that ran */
    int64_t K = 0;
    bool whole = false;
    while (st == KRYL_SUCCESS && K < k) {
        double rz = terms[CG_TERMS * K + CG_RZ], pq = terms[CG_TERMS * K + CG_PQ];
        double rz_next = terms[CG_TERMS * (K + 1) + CG_RZ];
        if (!(rz > 0.0 && pq > 0.0 && isfinite(rz) && isfinite(pq) && rz_next >= 0.0 &&
              isfinite(rz_next)))
            break;
        coef[2 * K] = rz / pq;
        coef[2 * K + 1] = K > 0 ? rz / terms[CG_TERMS * (K - 1) + CG_RZ] : 0.0;
        K++;
        /* r = 0: an invariant subspace, T_K's eigenvalues are exact */
        whole = K == k || rz_next == 0.0;
        if (rz_next == 0.0) break;
    }
    if (st == KRYL_SUCCESS && whole)
        st = cg_tridiagonal_extremes(coef, K, "lanczos", lambda_min, lambda_max);
    *done = st == KRYL_SUCCESS && whole;
    cg_estimate_release(&E);
    free(terms);
    free(coef);
    return st;
}

kryl_status kryl_solver_spectrum(kryl_solver solver, double *lambda_min, double *lambda_max)
{
    KRYL_REQUIRE_ARG(solver);
    KRYL_REQUIRE_ARG(lambda_min);
    KRYL_REQUIRE_ARG(lambda_max);
    solver = kryl_auto_chosen(solver);
    if (solver->cg_coefficients == NULL)
        return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                          "kryl_solver_spectrum: %s does not record CG coefficients (pipecg "
                          "with record_history does; kryl_matrix_spectrum works for any "
                          "symmetric matrix)",
                          solver->method->name);
    int64_t k = solver->history_length - 1;
    if (k < 1)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "kryl_solver_spectrum: the last solve ran no iteration");
    double *coef = malloc((size_t)(2 * k) * sizeof *coef);
    kryl_status st = coef ? KRYL_SUCCESS
                          : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                                       "kryl_solver_spectrum: %lld coefficients", (long long)k);
    if (st == KRYL_SUCCESS)
        st = solver->ops->download(solver->ctx, coef, solver->cg_coefficients,
                                   (size_t)(2 * k) * sizeof *coef);
    if (st == KRYL_SUCCESS)
        st = cg_tridiagonal_extremes(coef, k, "kryl_solver_spectrum", lambda_min, lambda_max);
    free(coef);
    return st;
}
