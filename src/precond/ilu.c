/* Incomplete factorization preconditioners: IC(0), MIC(0), ILU(0), ILU(k)
 * and ILUT (src/factor), M = L U, applied as z = U^{-1} (L^{-1} r) by the
 * backend's level-scheduled triangular solves (Li & Saad, GPU-accelerated
 * preconditioned iterative linear solvers, J. Supercomputing 63 (2013),
 * section 4).  The factorization is of the iteration matrix in its own row
 * order (P A P^T when the storage format reorders rows); an optional filter
 * drops entries of that matrix before it is factored (block Jacobi).  An
 * optional ordering factors A in a private row order instead (the color
 * order of the multicolor preconditioners), gathering r into it and
 * scattering z back around the two solves, and may supply M = L U itself
 * (multicolor SSOR). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/setup_clock.h"
#include "factor/factor.h"
#include "order/order.h"
#include "precond/ilu_backend.h"
#include "precond/precond.h"

typedef struct ilu_data {
    void *L, *U;   /* backend triangles */
    kryl_vector w; /* w = L^{-1} r */
    /* backend: the iteration row at each factor row (the symmetric ordering,
     * or the row matching) and at each factor column (the symmetric
     * ordering, or ILUTP's column pivoting); NULL: the iteration's order */
    int32_t *rows, *cols;
    kryl_vector x; /* with rows or cols: r gathered, then z before its scatter */
    /* what a refactorization for new values repeats (kryl_precond_factor_update) */
    kryl_matrix A; /* the iteration matrix (not owned) */
    kryl_solver_options opts;
    kryl_precond_kind factor;
    kryl_precond_filter filter;     /* apply NULL: none */
    kryl_precond_ordering ordering; /* order and build NULL: none */
    kryl_levels levels_L, levels_U; /* the triangles' schedules (pattern only) */
    kryl_ilu_backend *backend;      /* factored by the backend (NULL: on the host) */
} ilu_data;

static kryl_status ilu_apply(kryl_precond *pc, kryl_vector r, kryl_vector z)
{
    ilu_data *d = pc->data;
    const kryl_backend_ops *ops = pc->ctx->ops;
    /* x = r in the factor's row order;  w = L^{-1} x;  x = U^{-1} w;  z = x in the iteration order
     */
    kryl_vector in = r, out = d->cols ? d->x : z;
    if (d->rows) {
        KRYL_TRY(ops->permute_copy(pc->ctx, d->x, r, d->rows, KRYL_GATHER, NULL));
        in = d->x;
    }
    KRYL_TRY(ops->trsv(pc->ctx, d->L, in, d->w));
    KRYL_TRY(ops->trsv(pc->ctx, d->U, d->w, out));
    if (d->cols == NULL) return KRYL_SUCCESS;
    return ops->permute_copy(pc->ctx, z, d->x, d->cols, KRYL_SCATTER, NULL);
}

static void ilu_destroy(kryl_precond *pc)
{
    ilu_data *d = pc->data;
    if (d == NULL) return;
    if (d->L) pc->ctx->ops->trsv_release(pc->ctx, d->L);
    if (d->U) pc->ctx->ops->trsv_release(pc->ctx, d->U);
    kryl_vector_destroy(&d->w);
    kryl_vector_destroy(&d->x);
    if (d->rows) pc->ctx->ops->release(pc->ctx, d->rows);
    if (d->cols && d->cols != d->rows) pc->ctx->ops->release(pc->ctx, d->cols);
    kryl_levels_free(&d->levels_L);
    kryl_levels_free(&d->levels_U);
    kryl_ilu_backend_free(pc->ctx, d->backend);
    free(d);
    pc->data = NULL;
}

/* B = P A P^T: row i of B is row perm[i] of A, column j becomes inv[j]
 * (perm NULL: B = A). */
static kryl_status permuted_copy(const kryl_csr *A, const int32_t *perm, kryl_csr *B)
{
    int64_t n = A->nrows;
    KRYL_TRY(kryl_csr_alloc(B, n, A->ncols, kryl_csr_nnz(A)));
    int32_t *inv = malloc((size_t)(n > 0 ? n : 1) * sizeof *inv);
    if (inv == NULL) {
        kryl_csr_free(B);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a permutation of %lld",
                          (long long)n);
    }
    for (int64_t i = 0; i < n; i++) inv[perm ? perm[i] : i] = (int32_t)i;
    B->row_ptr[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        /* b_{i, inv[j]} = a_{perm[i], j} */
        int64_t k = B->row_ptr[i], src = perm ? perm[i] : i;
        for (int64_t e = A->row_ptr[src]; e < A->row_ptr[src + 1]; e++, k++) {
            B->col_idx[k] = inv[A->col_idx[e]];
            B->values[k] = A->values[e];
        }
        B->row_ptr[i + 1] = k;
    }
    free(inv);
    return kryl_csr_sort_and_sum(B);
}

/* The factorization of `kind`. */
static kryl_status factorize(kryl_precond_kind kind, const kryl_csr *A,
                             const kryl_solver_options *opts, kryl_factor *F)
{
    switch (kind) {
    case KRYL_PRECOND_IC0: return kryl_factor_ic0(A, F);
    case KRYL_PRECOND_MIC0: return kryl_factor_mic0(A, F);
    case KRYL_PRECOND_ILU0: return kryl_factor_ilu0(A, F);
    case KRYL_PRECOND_ILUK: return kryl_factor_iluk(A, opts->fill, F);
    case KRYL_PRECOND_ILUTP: return kryl_factor_ilutp(A, opts->droptol, opts->maxfill, F);
    default: return kryl_factor_ilut(A, opts->droptol, opts->maxfill, F);
    }
}

kryl_status kryl_precond_pivot_not_positive(const kryl_precond *pc, kryl_precond_kind factor,
                                            kryl_method method, int64_t row, double u)
{
    const bool blocks = pc->kind == KRYL_PRECOND_BJACOBI;
    return KRYL_ERROR(KRYL_ERR_NOT_POSITIVE_DEFINITE,
                      "%s%s%s: the pivot u_ii at row %lld (0-based) is %g <= 0, so M = L U "
                      "is not positive definite and %s cannot use it; use %s mic0 (IC(0), "
                      "whose pivots are these, shifted until every one is positive), or "
                      "--method gmres",
                      kryl_precond_name(pc->kind), blocks ? " of " : "",
                      blocks ? kryl_precond_name(factor) : "", (long long)row, u,
                      kryl_method_name(method), blocks ? "--block-factor" : "--precond");
}

/* Under a CG method (symmetric A), ILU(0) and ILU(k) are L D L^T in exact
 * arithmetic, so M is symmetric positive definite exactly when every pivot
 * u_ii is positive; a non-positive one is refused here rather than left
 * for PCG to meet as r'M^-1 r <= 0 (bcsstk15, bcsstk21 and lund_a). */
static bool needs_positive_pivots(const ilu_data *d)
{
    return (d->factor == KRYL_PRECOND_ILU0 || d->factor == KRYL_PRECOND_ILUK) &&
           kryl_precond_for_cg(&d->opts) &&
           kryl_host_matrix_is_symmetric(d->A->host, d->opts.symmetry_tol);
}

static kryl_status check_pivots_positive(const kryl_precond *pc, const ilu_data *d,
                                         const kryl_factor *F)
{
    if (!needs_positive_pivots(d)) return KRYL_SUCCESS;
    for (int64_t i = 0; i < F->n; i++) {
        /* U's diagonal is each row's first entry */
        const double u = F->U.row_ptr[i] < F->U.row_ptr[i + 1] ? F->U.values[F->U.row_ptr[i]] : 0.0;
        if (!(u > 0.0)) return kryl_precond_pivot_not_positive(pc, d->factor, d->opts.method, i, u);
    }
    return KRYL_SUCCESS;
}

/* Level schedule of one triangle (kept in *lv; one already there is
 * reused: the pattern has not changed), then its backend copy and the
 * path its solves take ("" when the backend does not say). */
static kryl_status setup_triangle(kryl_context ctx, const kryl_csr *T, kryl_precision precision,
                                  bool lower, bool unit, void **handle, kryl_levels *lv,
                                  const char **path)
{
    kryl_status st = KRYL_SUCCESS;
    if (lv->order == NULL) st = kryl_order_levels(T, NULL, lower ? KRYL_LOWER : KRYL_UPPER, lv);
    if (st == KRYL_SUCCESS)
        st = ctx->ops->trsv_setup(ctx, T, precision, lower, unit, lv->order, lv->level_ptr,
                                  lv->nlevels, handle);
    *path = st == KRYL_SUCCESS && ctx->ops->trsv_path ? ctx->ops->trsv_path(ctx, *handle) : "";
    return st;
}

kryl_status kryl_precond_upload_order(kryl_context ctx, const kryl_layout *layout,
                                      const int32_t *order, int32_t **out)
{
    int64_t n = layout->n;
    int phase = kryl_setup_enter(ctx, KRYL_SETUP_UPLOAD);
    int32_t *q = malloc((size_t)(n > 0 ? n : 1) * sizeof *q);
    int32_t *inv = malloc((size_t)(n > 0 ? n : 1) * sizeof *inv);
    kryl_status st = KRYL_SUCCESS;
    if (q == NULL || inv == NULL)
        st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a permutation of %lld",
                        (long long)n);
    for (int64_t i = 0; i < n && st == KRYL_SUCCESS; i++)
        inv[layout->perm ? layout->perm[i] : i] = (int32_t)i;
    /* q = P_layout^{-1} order */
    for (int64_t i = 0; i < n && st == KRYL_SUCCESS; i++) q[i] = inv[order[i]];
    size_t bytes = (size_t)n * sizeof *q;
    if (st == KRYL_SUCCESS) st = ctx->ops->alloc(ctx, (void **)out, bytes);
    if (st == KRYL_SUCCESS && n > 0) st = ctx->ops->upload(ctx, *out, q, bytes);
    free(q);
    free(inv);
    kryl_setup_leave(ctx, phase);
    return st;
}

/* Whether kind is one of the LU factorizations a row matching may precede. */
static bool is_lu(kryl_precond_kind kind)
{
    return kind == KRYL_PRECOND_ILU0 || kind == KRYL_PRECOND_ILUK || kind == KRYL_PRECOND_ILUT ||
           kind == KRYL_PRECOND_ILUTP;
}

/* *out = perm[0..n) in backend memory, as given (the iteration's numbering). */
static kryl_status upload_raw(kryl_context ctx, const int32_t *perm, int64_t n, int32_t **out)
{
    const size_t bytes = (size_t)n * sizeof *perm;
    KRYL_TRY(ctx->ops->alloc(ctx, (void **)out, bytes));
    return n > 0 ? ctx->ops->upload(ctx, *out, perm, bytes) : KRYL_SUCCESS;
}

/* A rebuild (new values) computes the row matching and the column pivoting
 * again: the permutations of the previous build go. */
static void release_own_perms(kryl_precond *pc, ilu_data *d)
{
    if (d->cols && d->cols != d->rows) pc->ctx->ops->release(pc->ctx, d->cols);
    d->cols = d->ordering.order ? d->rows : NULL;
    if (d->rows && !d->ordering.order) {
        pc->ctx->ops->release(pc->ctx, d->rows);
        d->rows = NULL;
    }
}

/* M = P B rows matched by a maximum transversal (nonzero diagonal), d->rows = P. */
static kryl_status match_rows(kryl_precond *pc, const kryl_csr *B, kryl_csr *M, ilu_data *d)
{
    const int64_t n = B->nrows;
    int32_t *perm = malloc((size_t)(n > 0 ? n : 1) * sizeof *perm);
    if (perm == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "match: cannot allocate %lld rows", (long long)n);
    int64_t matched = 0;
    kryl_status st = kryl_order_match(B, perm, &matched);
    if (st == KRYL_SUCCESS) st = kryl_csr_alloc(M, n, B->ncols, kryl_csr_nnz(B));
    if (st == KRYL_SUCCESS) {
        /* row j of M = row perm[j] of B */
        int64_t at = 0;
        for (int64_t j = 0; j < n; j++) {
            for (int64_t e = B->row_ptr[perm[j]]; e < B->row_ptr[perm[j] + 1]; e++, at++) {
                M->col_idx[at] = B->col_idx[e];
                M->values[at] = B->values[e];
            }
            M->row_ptr[j + 1] = at;
        }
        M->nrows_global = n;
        st = upload_raw(pc->ctx, perm, n, &d->rows);
        kryl_log(pc->ctx, KRYL_LOG_INFO,
                 "%s: rows matched by a maximum transversal, %lld of %lld diagonal entries "
                 "nonzero",
                 kryl_precond_name(pc->kind), (long long)matched, (long long)n);
    }
    free(perm);
    return st;
}

/* What a build reports of its factors. */
typedef struct build_summary {
    int64_t n, nnz_L, nnz_U, fill_in;
    double shift;
    const char *path_L, *path_U;
} build_summary;

/* Factor the host CSR (in the layout's order or the ordering's, filtered)
 * on the host and keep L and U on the backend. */
static kryl_status build_on_host(kryl_precond *pc, ilu_data *d, build_summary *sum)
{
    kryl_matrix A = d->A;
    const kryl_csr *csr = &A->host->csr;
    const kryl_precond_filter *filter = d->filter.apply ? &d->filter : NULL;
    const int32_t *perm = d->ordering.order ? d->ordering.order : A->layout->perm;
    kryl_csr copy = {0};
    if (perm || filter) KRYL_TRY(permuted_copy(csr, perm, &copy));
    kryl_status st = filter ? filter->apply(pc, &copy, filter->user) : KRYL_SUCCESS;
    const kryl_csr *B = copy.row_ptr ? &copy : csr;
    kryl_csr matched = {0};
    release_own_perms(pc, d);
    if (st == KRYL_SUCCESS && d->opts.match && is_lu(pc->kind)) {
        st = match_rows(pc, B, &matched, d);
        B = &matched;
    }
    kryl_factor F = {0};
    if (st == KRYL_SUCCESS && d->ordering.build)
        st = d->ordering.build(pc, B, &F, d->ordering.user);
    else if (st == KRYL_SUCCESS)
        st = factorize(d->factor, B, &d->opts, &F);
    if (st == KRYL_ERR_ZERO_DIAGONAL && d->opts.match && is_lu(d->factor)) {
        /* what the factorization suggests first is already on */
        char why[512];
        snprintf(why, sizeof why, "%s", kryl_last_error());
        st = KRYL_ERROR(st,
                        "%s; the rows are already matched (--match): use --precond ilu0, "
                        "which drops nothing of A, or --precond ilutp",
                        why);
    }
    if (st == KRYL_SUCCESS && !d->ordering.build) st = check_pivots_positive(pc, d, &F);
    if (st == KRYL_SUCCESS && F.col_perm) st = upload_raw(pc->ctx, F.col_perm, F.n, &d->cols);
    if (st == KRYL_SUCCESS) st = kryl_factor_condest(&F, B, &pc->condest);
    kryl_csr_free(&matched);
    kryl_csr_free(&copy);
    int phase = kryl_setup_enter(pc->ctx, KRYL_SETUP_LEVELS);
    if (st == KRYL_SUCCESS)
        st = setup_triangle(pc->ctx, &F.L, A->precision, true, F.unit_lower, &d->L, &d->levels_L,
                            &sum->path_L);
    if (st == KRYL_SUCCESS)
        st = setup_triangle(pc->ctx, &F.U, A->precision, false, false, &d->U, &d->levels_U,
                            &sum->path_U);
    kryl_setup_leave(pc->ctx, phase);
    *sum = (build_summary){F.n, F.nnz_L, F.nnz_U, F.fill_in, F.shift, sum->path_L, sum->path_U};
    kryl_factor_free(&F);
    return st;
}

/* Factor on the backend (kryl_ilu_backend): the pattern kept from the
 * first build, L and U refreshed in place by a rebuild. */
static kryl_status build_on_backend(kryl_precond *pc, ilu_data *d, build_summary *sum)
{
    const kryl_backend_ops *ops = pc->ctx->ops;
    const int32_t *perm = d->ordering.order ? d->ordering.order : d->A->layout->perm;
    /* d->rows: the ordering's backend copy (A's layout natural: the order itself) */
    const int32_t *perm_backend = d->ordering.order && d->A->layout->perm == NULL ? d->rows : NULL;
    KRYL_TRY(kryl_ilu_backend_factor(pc, d->backend, d->A, perm, perm_backend, d->factor,
                                     needs_positive_pivots(d) ? &d->opts : NULL, &d->L, &d->U, d->x,
                                     d->w));
    const kryl_factor_shape *shape = &d->backend->shape;
    d->levels_L.nlevels = shape->nlevels_L;
    d->levels_U.nlevels = shape->nlevels_U;
    sum->n = shape->n;
    sum->nnz_L = shape->nnz_L;
    sum->nnz_U = shape->nnz_U;
    sum->fill_in = 0;
    sum->shift = d->backend->shift;
    sum->path_L = ops->trsv_path ? ops->trsv_path(pc->ctx, d->L) : "";
    sum->path_U = ops->trsv_path ? ops->trsv_path(pc->ctx, d->U) : "";
    return KRYL_SUCCESS;
}

/* Factor and keep L and U on the backend, then say what was built. */
static kryl_status ilu_build(kryl_precond *pc, ilu_data *d)
{
    int phase = kryl_setup_enter(pc->ctx, KRYL_SETUP_FACTORIZATION);
    pc->info[0] = '\0'; /* a rebuild (new values) describes itself afresh */
    build_summary sum = {0, 0, 0, 0, 0.0, "", ""};
    kryl_status st = d->backend ? build_on_backend(pc, d, &sum) : build_on_host(pc, d, &sum);
    kryl_setup_leave(pc->ctx, phase);
    const char *path_L = sum.path_L[0] ? sum.path_L : "?",
               *path_U = sum.path_U[0] ? sum.path_U : "?";
    int32_t levels_L = d->levels_L.nlevels, levels_U = d->levels_U.nlevels;
    /* after what a filter said of the matrix it factors (bjacobi: its blocks) */
    size_t said = strnlen(pc->info, sizeof pc->info - 1);
    if (st == KRYL_SUCCESS)
        snprintf(pc->info + said, sizeof pc->info - said,
                 "%s%s: L %d levels (%s), U %d levels (%s), condest %.1e", said > 0 ? "; " : "",
                 kryl_precond_name(pc->kind), (int)levels_L, path_L, (int)levels_U, path_U,
                 pc->condest);
    if (st == KRYL_SUCCESS && !(pc->condest <= KRYL_ILU_CONDEST_MAX))
        kryl_log(pc->ctx, KRYL_LOG_WARNING,
                 "%s: unstable factors: condest ||A||_inf ||(LU)^-1 e||_inf = %.2e > %.0e; "
                 "expect the iteration to diverge",
                 kryl_precond_name(pc->kind), pc->condest, KRYL_ILU_CONDEST_MAX);
    if (st == KRYL_SUCCESS && sum.shift > 0.0 && pc->kind != KRYL_PRECOND_MIC0)
        kryl_log(pc->ctx, KRYL_LOG_WARNING,
                 "%s: IC(0) met a non-positive pivot; factored A + %g diag(A) instead "
                 "(shifted IC(0), as mic0)",
                 kryl_precond_name(pc->kind), sum.shift);
    if (st == KRYL_SUCCESS)
        kryl_log(pc->ctx, KRYL_LOG_INFO,
                 "%s: n = %lld, nnz(L) = %lld, nnz(U) = %lld, fill-in %lld, shift %g; "
                 "%d levels in L (%s solve), %d in U (%s solve); factored %s",
                 kryl_precond_name(pc->kind), (long long)sum.n, (long long)sum.nnz_L,
                 (long long)sum.nnz_U, (long long)sum.fill_in, sum.shift, (int)levels_L, path_L,
                 (int)levels_U, path_U, d->backend ? "by the backend" : "on the host");
    return st;
}

kryl_status kryl_precond_factor_create_ordered(kryl_precond *pc, kryl_matrix A,
                                               const kryl_solver_options *opts,
                                               kryl_precond_kind factor,
                                               const kryl_precond_filter *filter,
                                               const kryl_precond_ordering *ordering)
{
    const kryl_backend_ops *ops = pc->ctx->ops;
    const char *name = kryl_precond_name(pc->kind);
    const kryl_csr *csr = &A->host->csr;
    if (ops->trsv_setup == NULL || ops->trsv == NULL || ops->trsv_release == NULL)
        return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                          "the %s backend does not implement the triangular solves (trsv) "
                          "that the %s preconditioner needs; use the ref or omp backend, or "
                          "--precond jacobi",
                          ops->name, name);
    if (csr->row_begin != 0 || csr->nrows != csr->nrows_global || csr->nrows != csr->ncols)
        return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                          "%s: needs the whole square matrix on this process (rows %lld..%lld "
                          "of %lld, %lld columns)",
                          name, (long long)csr->row_begin, (long long)(csr->row_begin + csr->nrows),
                          (long long)csr->nrows_global, (long long)csr->ncols);
    bool ic = factor == KRYL_PRECOND_IC0 || factor == KRYL_PRECOND_MIC0;
    if (ic && !kryl_host_matrix_is_symmetric(A->host, opts->symmetry_tol))
        return KRYL_ERROR(KRYL_ERR_NOT_SYMMETRIC,
                          "%s: the matrix is not symmetric; incomplete Cholesky needs a "
                          "symmetric positive definite matrix (use --precond ilu0 for a "
                          "nonsymmetric one)",
                          name);
    ilu_data *d = calloc(1, sizeof *d);
    if (d == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "%s: out of memory", name);
    pc->data = d;
    pc->apply = ilu_apply;
    pc->destroy = ilu_destroy;
    KRYL_TRY(kryl_vector_create_like(&d->w, pc->ctx, A->layout, A->precision));
    KRYL_TRY(kryl_vector_create_like(&d->x, pc->ctx, A->layout, A->precision));
    if (ordering && ordering->order) {
        KRYL_TRY(kryl_precond_upload_order(pc->ctx, A->layout, ordering->order, &d->rows));
        d->cols = d->rows;
    }
    d->A = A;
    d->opts = *opts;
    d->factor = factor;
    if (filter) d->filter = *filter;
    if (ordering) d->ordering = *ordering;
    if (kryl_ilu_backend_applies(pc, A, factor, opts, filter != NULL,
                                 ordering && ordering->build)) {
        d->backend = calloc(1, sizeof *d->backend);
        if (d->backend == NULL)
            return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "%s: out of memory", name);
    }
    return ilu_build(pc, d);
}

kryl_status kryl_precond_factor_update(kryl_precond *pc)
{
    ilu_data *d = pc->data;
    const kryl_backend_ops *ops = pc->ctx->ops;
    /* the backend refactors on its kept pattern and refreshes L and U in place */
    if (d->backend) return ilu_build(pc, d);
    ops->trsv_release(pc->ctx, d->L);
    ops->trsv_release(pc->ctx, d->U);
    d->L = d->U = NULL;
    /* ILUT's and ILUTP's patterns follow the values: their levels are computed again */
    if (d->factor == KRYL_PRECOND_ILUT || d->factor == KRYL_PRECOND_ILUTP) {
        kryl_levels_free(&d->levels_L);
        kryl_levels_free(&d->levels_U);
    }
    return ilu_build(pc, d);
}

kryl_status kryl_precond_factor_create(kryl_precond *pc, kryl_matrix A,
                                       const kryl_solver_options *opts, kryl_precond_kind factor,
                                       const kryl_precond_filter *filter)
{
    return kryl_precond_factor_create_ordered(pc, A, opts, factor, filter, NULL);
}

kryl_status kryl_precond_ilu_create(kryl_precond *pc, kryl_matrix A,
                                    const kryl_solver_options *opts)
{
    pc->update = kryl_precond_factor_update;
    return kryl_precond_factor_create(pc, A, opts, pc->kind, NULL);
}
