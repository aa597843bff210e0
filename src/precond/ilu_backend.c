/* IC(0), MIC(0) and ILU(0) factored by the backend on a kept pattern
 * (ilu_backend.h).  The symbolic part (the pattern of P A P^T, each entry's
 * source in A, the transpose of IC's pattern, the level schedules) is
 * built once: by the backend from A's stored CSR where A is stored as
 * double CSR in the factor's order (the natural order, or the P A P^T of
 * A's layout; no host copy of its indices, each entry's source its
 * position in that storage) or in the natural order with the factor's
 * order on the backend (a multicolor order: P A P^T copied there by
 * csr_permute, analysed, and copied again for each numeric
 * factorization), else on the host's threads and handed over;
 * the numeric factorization, the pivot
 * checks, the triangles' values and the condition estimate
 * ||A||_inf ||U^{-1} L^{-1} e||_inf (||A||_inf from the numeric step, two
 * triangular solves and a max on the backend, one double read back) run
 * where the factors live. */
#include <stdlib.h>
#include <string.h>

#include "core/host_threads.h"
#include "core/setup_clock.h"
#include "factor/factor_internal.h"
#include "order/color_backend.h"
#include "precond/ilu_backend.h"

bool kryl_ilu_backend_applies(const kryl_precond *pc, kryl_matrix A, kryl_precond_kind factor,
                              const kryl_solver_options *opts, bool filtered, bool ordering_builds)
{
    const kryl_backend_ops *ops = pc->ctx->ops;
    const bool kind = factor == KRYL_PRECOND_IC0 || factor == KRYL_PRECOND_MIC0 ||
                      (factor == KRYL_PRECOND_ILU0 && !opts->match);
    return kind && !filtered && !ordering_builds && A->dist == NULL && A->host != NULL &&
           ops->factor_setup && ops->factor_numeric && ops->factor_trsv && ops->factor_release &&
           ops->amax;
}

void kryl_ilu_backend_free(kryl_context ctx, kryl_ilu_backend *b)
{
    if (b == NULL) return;
    if (b->handle) ctx->ops->factor_release(ctx, b->handle);
    if (b->inv_norm) ctx->ops->release(ctx, b->inv_norm);
    kryl_factor_pattern_free(&b->P);
    free(b);
}

/* Whether the backend computes the symbolic part from A's storage: the
 * factor's order is the storage's (A's layout: the natural order or an
 * ordering's P A P^T, as --order color builds on the device). */
static bool analysed_on_backend(kryl_context ctx, kryl_matrix A, const int32_t *perm)
{
    const kryl_backend_ops *ops = ctx->ops;
    /* the backend's analysis counts entries in 32 bits */
    return perm == A->layout->perm && ops->factor_analyse && ops->factor_schedule &&
           ops->matrix_csr_arrays && kryl_matrix_stored_csr(A) && kryl_matrix_nnz(A) <= INT32_MAX;
}

bool kryl_ilu_backend_orders(kryl_context ctx, kryl_matrix A)
{
    const kryl_backend_ops *ops = ctx->ops;
    /* the backend's analysis counts entries in 32 bits */
    return ops->csr_permute && ops->factor_analyse && ops->factor_schedule &&
           ops->matrix_csr_arrays && kryl_matrix_natural_csr(A) && kryl_matrix_nnz(A) <= INT32_MAX;
}

/* Whether the backend computes the symbolic part from P A P^T, copied
 * there from A's natural storage by perm_backend (the factor's order). */
static bool permuted_on_backend(kryl_context ctx, kryl_matrix A, const int32_t *perm,
                                const int32_t *perm_backend)
{
    return perm != NULL && perm_backend != NULL && kryl_ilu_backend_orders(ctx, A);
}

/* *B = P A P^T (row i of B is row perm[i] of A), as a double CSR matrix
 * stored on the backend from A's storage there, without a host copy. */
static kryl_status permuted_copy(kryl_context ctx, kryl_matrix A, const int32_t *perm_backend,
                                 kryl_matrix *B)
{
    const kryl_backend_ops *ops = ctx->ops;
    const int64_t n = A->layout->n, nnz = kryl_matrix_nnz(A);
    int64_t *row_ptr = NULL;
    int32_t *col_idx = NULL;
    double *values = NULL;
    bool own_row_ptr = false;
    kryl_backend_csr C = {0};
    int phase = kryl_setup_enter(ctx, KRYL_SETUP_CONVERSION);
    kryl_status st = ops->matrix_csr_arrays(ctx, A, &row_ptr, &own_row_ptr, &col_idx, &values);
    /* C = P A P^T, its rows sorted */
    if (st == KRYL_SUCCESS)
        st = kryl_order_permuted_csr(ctx, n, nnz, row_ptr, col_idx, values, perm_backend, &C);
    /* B takes C's arrays over */
    if (st == KRYL_SUCCESS) st = kryl_matrix_from_built_csr_device(B, ctx, &C);
    if (own_row_ptr) ops->release(ctx, row_ptr);
    kryl_backend_csr_release(ctx, &C);
    kryl_setup_leave(ctx, phase);
    return st;
}

/* The symbolic part by the backend, where A's CSR is stored (the pattern
 * counted as factorization, the schedules as levels). */
static kryl_status analyse_on_backend(kryl_context ctx, kryl_ilu_backend *b, kryl_matrix A,
                                      kryl_factor_kind kind, const char *who)
{
    const kryl_backend_ops *ops = ctx->ops;
    int64_t *row_ptr = NULL;
    int32_t *col_idx = NULL;
    double *values = NULL;
    bool own_row_ptr = false;
    KRYL_TRY(ops->matrix_csr_arrays(ctx, A, &row_ptr, &own_row_ptr, &col_idx, &values));
    kryl_status st = ops->factor_analyse(ctx, A->host->csr.nrows, row_ptr, col_idx,
                                         kind == KRYL_FACTOR_IC0, who, &b->shape, &b->handle);
    if (own_row_ptr) ops->release(ctx, row_ptr);
    int phase = kryl_setup_enter(ctx, KRYL_SETUP_LEVELS);
    if (st == KRYL_SUCCESS) st = ops->factor_schedule(ctx, b->handle, &b->shape);
    kryl_setup_leave(ctx, phase);
    return st;
}

/* The kept symbolic part and the backend's factor; B (or NULL): A's
 * P A P^T stored on the backend, which the backend analyses. */
static kryl_status setup(kryl_precond *pc, kryl_ilu_backend *b, kryl_matrix A, kryl_matrix B,
                         const int32_t *perm, kryl_precond_kind factor)
{
    kryl_context ctx = pc->ctx;
    const kryl_factor_kind kind = factor == KRYL_PRECOND_ILU0 ? KRYL_FACTOR_ILU0 : KRYL_FACTOR_IC0;
    const char *who = kryl_precond_name(factor);
    KRYL_TRY(ctx->ops->alloc(ctx, (void **)&b->inv_norm, sizeof *b->inv_norm));
    if (B || analysed_on_backend(ctx, A, perm)) {
        /* what the checks look for (sizes, diagonals) does not depend on the order */
        KRYL_TRY(kryl_factor_check_input(&A->host->csr, who));
        return analyse_on_backend(ctx, b, B ? B : A, kind, who);
    }
    KRYL_TRY(
        kryl_factor_pattern_build(&A->host->csr, perm, kind, kryl_host_threads(ctx), who, &b->P));
    b->shape = kryl_factor_pattern_shape(&b->P);
    return ctx->ops->factor_setup(ctx, &b->P, &b->handle);
}

/* The numeric factorization of A's values (read from `stored`: A, or its
 * P A P^T the backend analysed); MIC(0) shifts until it exists.
 * *norm = ||A||_inf. */
static kryl_status numeric(kryl_precond *pc, kryl_ilu_backend *b, kryl_matrix A, kryl_matrix stored,
                           kryl_precond_kind factor, const kryl_solver_options *cg, double *norm)
{
    kryl_context ctx = pc->ctx;
    const char *who = kryl_precond_name(factor);
    const kryl_factor_kind kind = b->shape.kind;
    b->shift = 0.0;
    /* the bound of diagonal dominance does not depend on the order */
    if (factor == KRYL_PRECOND_MIC0) KRYL_TRY(kryl_factor_mic0_bound(&A->host->csr, &b->bound));
    for (;;) {
        kryl_factor_pivots pv;
        KRYL_TRY(ctx->ops->factor_numeric(ctx, b->handle, stored, b->shift, &pv));
        *norm = pv.norm_inf;
        if (pv.row < 0 && cg && pv.nonpositive_row >= 0)
            return kryl_precond_pivot_not_positive(pc, factor, cg->method, pv.nonpositive_row,
                                                   pv.nonpositive_value);
        if (pv.row < 0) return KRYL_SUCCESS;
        if (factor != KRYL_PRECOND_MIC0 || pv.what == KRYL_PIVOT_DIAGONAL)
            return kryl_factor_pivot_error(kind, who, pv.what, pv.row, pv.value);
        KRYL_TRY(kryl_factor_mic0_next_shift(b->bound, &b->shift));
    }
}

kryl_status kryl_ilu_backend_factor(kryl_precond *pc, kryl_ilu_backend *b, kryl_matrix A,
                                    const int32_t *perm, const int32_t *perm_backend,
                                    kryl_precond_kind factor, const kryl_solver_options *cg,
                                    void **L, void **U, kryl_vector e, kryl_vector w)
{
    kryl_context ctx = pc->ctx;
    const kryl_backend_ops *ops = ctx->ops;
    /* B = P A P^T on the backend, where it analyses and factors that copy;
     * made again for each factorization, as A's values may be new */
    kryl_matrix B = NULL;
    if (b->handle == NULL ? permuted_on_backend(ctx, A, perm, perm_backend) : b->permuted)
        KRYL_TRY(permuted_copy(ctx, A, perm_backend, &B));
    b->permuted = B != NULL;
    kryl_status st = b->handle == NULL ? setup(pc, b, A, B, perm, factor) : KRYL_SUCCESS;
    double norm = 0.0;
    if (st == KRYL_SUCCESS) st = numeric(pc, b, A, B ? B : A, factor, cg, &norm);
    kryl_matrix_destroy(&B);
    KRYL_TRY(st);
    int phase = kryl_setup_enter(ctx, KRYL_SETUP_LEVELS);
    st = ops->factor_trsv(ctx, b->handle, true, A->precision, L);
    if (st == KRYL_SUCCESS) st = ops->factor_trsv(ctx, b->handle, false, A->precision, U);
    kryl_setup_leave(ctx, phase);
    /* e = 1;  w = L^{-1} e;  e = U^{-1} w;  inv_norm = max |e_i| */
    if (st == KRYL_SUCCESS) st = ops->fill(ctx, e, 1.0);
    if (st == KRYL_SUCCESS) st = ops->trsv(ctx, *L, e, w);
    if (st == KRYL_SUCCESS) st = ops->trsv(ctx, *U, w, e);
    if (st == KRYL_SUCCESS) st = ops->amax(ctx, e, (kryl_scalar){b->inv_norm});
    double inv = 0.0;
    if (st == KRYL_SUCCESS) st = ops->download(ctx, &inv, b->inv_norm, sizeof inv);
    pc->condest = norm * inv;
    /* IC(0) (no shift to bound, no pivot sign to check) reads new values
     * from A's storage: where the backend analysed that storage (b->P
     * empty), or where the storage holds the host CSR's values */
    pc->update_on_backend =
        factor == KRYL_PRECOND_IC0 && (b->P.ptr == NULL || kryl_matrix_stored_values(A) != NULL);
    return st;
}
