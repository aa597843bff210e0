/* Multicolor ordering of the multicolor SSOR/ILU(0) preconditioners with
 * the sparsification of Li & Saad, GPU-accelerated preconditioned iterative
 * linear solvers, J. Supercomputing 63 (2013), section 5.3: "first execute
 * the greedy algorithm to generate a coloring with p colors ... take all
 * nodes whose degree is larger than or equal to p-1, and remove their edges
 * with relatively small weight; repeat a small number of times until a
 * small enough p is obtained".  Here the weight of edge {i, j} is
 * (|a_ij| + |a_ji|) / sqrt(|a_ii a_jj|), "relatively small" is below theta
 * times the vertex's heaviest edge, theta = 0.1, 0.2, 0.4 in rounds 1..3,
 * and "small enough" is at most KRYL_MCOLOR_FEW_COLORS colors (or the
 * caller's other bound, mcolor.h).  A graph whose couplings are all alike
 * (a Laplacian stencil) loses no edge.  The coloring itself is
 * Jones-Plassmann's (first fit in the order of decreasing priority,
 * src/order/color_jp.c), on the context's backend. */
#include <math.h>
#include <stdlib.h>

#include "core/host_threads.h"
#include "core/setup_clock.h"
#include "precond/mcolor.h"

/* S = the weighted graph of A: S = W + W' with w_ij = |a_ij| / sqrt(|a_ii a_jj|)
 * for each stored a_ij != 0, i != j (rows sorted), on `threads` host
 * threads; for an A measured exactly symmetric, 2 W, the same without a
 * transpose (each a_ij != 0 has its a_ji stored there, while a stored 0
 * may lack its mirror, hence no edge of weight 0).  Either way S is
 * structurally symmetric, which its colorings rely on. */
static kryl_status weighted_graph(const kryl_csr *A, const double *diag, bool symmetric,
                                  int threads, kryl_csr *S)
{
    const double twice = symmetric ? 2.0 : 1.0;
    const int64_t n = A->nrows;
    kryl_csr W = {0}, Wt = {0};
    KRYL_TRY(kryl_csr_alloc(symmetric ? S : &W, n, A->ncols, kryl_csr_nnz(A)));
    if (symmetric) W = *S;
    /* W = A's off-diagonal pattern: the entries of each row counted, then written */
    KRYL_HOST_PARALLEL_FOR(threads)
    for (int64_t i = 0; i < n; i++) {
        int64_t off = 0;
        for (int64_t e = A->row_ptr[i]; e < A->row_ptr[i + 1]; e++)
            off += A->col_idx[e] != i && A->values[e] != 0.0;
        W.row_ptr[i + 1] = off;
    }
    kryl_prefix_sum(W.row_ptr + 1, n, threads);
    KRYL_HOST_PARALLEL_FOR(threads)
    for (int64_t i = 0; i < n; i++) {
        int64_t k = W.row_ptr[i];
        for (int64_t e = A->row_ptr[i]; e < A->row_ptr[i + 1]; e++) {
            const int32_t j = A->col_idx[e];
            if (j == i || A->values[e] == 0.0) continue;
            W.col_idx[k] = j;
            W.values[k++] = twice * (fabs(A->values[e]) / sqrt(fabs(diag[i] * diag[j])));
        }
    }
    if (symmetric) return KRYL_SUCCESS;
    kryl_status st = kryl_csr_transpose_on(&W, &Wt, threads);
    if (st == KRYL_SUCCESS) st = kryl_csr_add_on(&W, &Wt, S, threads);
    kryl_csr_free(&W);
    kryl_csr_free(&Wt);
    return st;
}

/* One round: drop the edges of S lighter than theta times the heaviest
 * edge of an endpoint of degree >= p - 1 (both directions, S stays
 * symmetric).  heavy[n] is workspace. */
static void sparsify(kryl_csr *S, int32_t p, double theta, double *heavy)
{
    int64_t n = S->nrows;
    for (int64_t i = 0; i < n; i++) {
        /* heavy_i = theta max_j w_ij for a vertex of degree >= p - 1, else 0 */
        double m = 0.0;
        for (int64_t e = S->row_ptr[i]; e < S->row_ptr[i + 1]; e++)
            m = S->values[e] > m ? S->values[e] : m;
        heavy[i] = S->row_ptr[i + 1] - S->row_ptr[i] >= p - 1 ? theta * m : 0.0;
    }
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        /* keep w_ij >= heavy_i and >= heavy_j, compacted in place */
        int64_t e = S->row_ptr[i], end = S->row_ptr[i + 1];
        S->row_ptr[i] = k;
        for (; e < end; e++) {
            if (S->values[e] < heavy[i] || S->values[e] < heavy[S->col_idx[e]]) continue;
            S->col_idx[k] = S->col_idx[e];
            S->values[k++] = S->values[e];
        }
    }
    S->row_ptr[n] = k;
}

kryl_status kryl_mcolor_zero_diagonal(const kryl_precond *pc, int64_t row)
{
    return KRYL_ERROR(KRYL_ERR_ZERO_DIAGONAL,
                      "%s: the diagonal entry of row %lld (0-based) is zero or missing; "
                      "%s divides by it; use %s, or the default (--method auto, no --precond), "
                      "or reorder the matrix to put nonzeros on the diagonal",
                      kryl_precond_name(pc->kind), (long long)row,
                      pc->kind == KRYL_PRECOND_MCSSOR ? "SSOR" : "ILU(0)",
                      kryl_match_available()
                          ? "--method gmres --precond ilu0 --match (rows permuted to put "
                            "nonzeros on the diagonal)"
                          : "--method gmres --precond ilutp (column pivoting)");
}

/* Color S on the backend (kryl_mcolor_backend: the same colors as the
 * host's); keep the result in mc when it has fewer colors than mc's. */
static kryl_status color_keep_fewest(kryl_context ctx, const kryl_csr *S, int round,
                                     kryl_mcolor *mc)
{
    kryl_coloring c;
    /* the weighted graph and its thinnings are structurally symmetric (weighted_graph) */
    KRYL_TRY(kryl_mcolor_backend(ctx, S, NULL, true, &c));
    if (mc->c.perm != NULL && c.ncolors >= mc->c.ncolors) {
        kryl_coloring_free(&c);
        return KRYL_SUCCESS;
    }
    kryl_coloring_free(&mc->c);
    mc->c = c;
    mc->rounds = round;
    mc->edges_kept = kryl_csr_nnz(S) / 2;
    return KRYL_SUCCESS;
}

/* on = A's arrays uploaded to the backend (values too when `values`). */
static kryl_status arrays_upload(kryl_context ctx, const kryl_csr *A, bool values,
                                 kryl_mcolor_arrays *on)
{
    const kryl_backend_ops *ops = ctx->ops;
    const int64_t n = A->nrows, nnz = kryl_csr_nnz(A);
    on->own_row_ptr = on->own_rest = true;
    int phase = kryl_setup_enter(ctx, KRYL_SETUP_UPLOAD);
    kryl_status st = ops->alloc(ctx, (void **)&on->row_ptr, ((size_t)n + 1) * sizeof *on->row_ptr);
    if (st == KRYL_SUCCESS)
        st = ops->alloc(ctx, (void **)&on->col_idx, (size_t)nnz * sizeof *on->col_idx);
    if (st == KRYL_SUCCESS && values)
        st = ops->alloc(ctx, (void **)&on->values, (size_t)nnz * sizeof *on->values);
    if (st == KRYL_SUCCESS)
        st = ops->upload(ctx, on->row_ptr, A->row_ptr, ((size_t)n + 1) * sizeof *on->row_ptr);
    if (st == KRYL_SUCCESS && nnz > 0)
        st = ops->upload(ctx, on->col_idx, A->col_idx, (size_t)nnz * sizeof *on->col_idx);
    if (st == KRYL_SUCCESS && values && nnz > 0)
        st = ops->upload(ctx, on->values, A->values, (size_t)nnz * sizeof *on->values);
    kryl_setup_leave(ctx, phase);
    return st;
}

/* on = the host copy's arrays where backend memory is host memory, else
 * uploaded. */
static kryl_status arrays_of_csr(kryl_context ctx, const kryl_csr *A, bool values,
                                 kryl_mcolor_arrays *on)
{
    *on = (kryl_mcolor_arrays){0};
    if (!ctx->ops->device_memory) {
        *on = (kryl_mcolor_arrays){A->row_ptr, A->col_idx, values ? A->values : NULL, false, false};
        return KRYL_SUCCESS;
    }
    kryl_status st = arrays_upload(ctx, A, values, on);
    if (st != KRYL_SUCCESS) kryl_mcolor_arrays_release(ctx, on);
    return st;
}

kryl_status kryl_mcolor_arrays_get(kryl_context ctx, kryl_matrix A, kryl_mcolor_arrays *on)
{
    const kryl_backend_ops *ops = ctx->ops;
    *on = (kryl_mcolor_arrays){0};
    if (ops->matrix_csr_arrays == NULL || !kryl_matrix_natural_csr(A))
        return arrays_of_csr(ctx, &A->host->csr, true, on);
    /* the storage's own arrays: nothing to copy */
    return ops->matrix_csr_arrays(ctx, A, &on->row_ptr, &on->own_row_ptr, &on->col_idx,
                                  &on->values);
}

void kryl_mcolor_arrays_release(kryl_context ctx, kryl_mcolor_arrays *on)
{
    if (on->own_row_ptr) ctx->ops->release(ctx, on->row_ptr);
    if (on->own_rest) {
        ctx->ops->release(ctx, on->col_idx);
        ctx->ops->release(ctx, on->values);
    }
    *on = (kryl_mcolor_arrays){0};
}

kryl_status kryl_mcolor_backend(kryl_context ctx, const kryl_csr *A,
                                const kryl_mcolor_arrays *given, bool symmetric, kryl_coloring *c)
{
    const kryl_backend_ops *ops = ctx->ops;
    if (ops->color_rows == NULL || ops->color_group == NULL) return kryl_order_color_jp(A, c);
    *c = (kryl_coloring){0};
    const int64_t n = A->nrows;
    const size_t rows = (size_t)n * sizeof(int32_t);
    kryl_mcolor_arrays mine = {0};
    kryl_status st = given ? KRYL_SUCCESS : arrays_of_csr(ctx, A, false, &mine);
    const kryl_mcolor_arrays *on = given ? given : &mine;
    const bool host = !ops->device_memory;
    int32_t *color = NULL, *perm = NULL;
    c->color = malloc(rows + sizeof(int32_t));
    c->perm = malloc(rows + sizeof(int32_t));
    if (st == KRYL_SUCCESS && (c->color == NULL || c->perm == NULL))
        st =
            KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "coloring: cannot allocate %lld rows", (long long)n);
    if (st == KRYL_SUCCESS && !host) st = ops->alloc(ctx, (void **)&color, rows);
    if (st == KRYL_SUCCESS && !host) st = ops->alloc(ctx, (void **)&perm, rows);
    int32_t *on_color = host ? c->color : color, *on_perm = host ? c->perm : perm;
    if (st == KRYL_SUCCESS)
        st = ops->color_rows(ctx, n, on->row_ptr, on->col_idx, symmetric, on_color, &c->ncolors);
    if (st == KRYL_SUCCESS) {
        c->color_ptr = malloc(((size_t)c->ncolors + 1) * sizeof *c->color_ptr);
        if (c->color_ptr == NULL)
            st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "coloring: cannot allocate %d colors",
                            (int)c->ncolors);
    }
    if (st == KRYL_SUCCESS)
        st = ops->color_group(ctx, n, on_color, c->ncolors, on_perm, c->color_ptr);
    /* the host copies of the colors and the order */
    if (st == KRYL_SUCCESS && !host && n > 0) st = ops->download(ctx, c->color, color, rows);
    if (st == KRYL_SUCCESS && !host && n > 0) st = ops->download(ctx, c->perm, perm, rows);
    if (!host) {
        ops->release(ctx, color);
        ops->release(ctx, perm);
    }
    kryl_mcolor_arrays_release(ctx, &mine);
    if (st != KRYL_SUCCESS) kryl_coloring_free(c);
    return st;
}

/* The graph's coloring on the backend, then, with more than `few` colors,
 * the sparsification rounds on the host. */
static kryl_status color(kryl_context ctx, kryl_matrix M, const kryl_mcolor_arrays *on, int32_t few,
                         kryl_mcolor *mc)
{
    KRYL_TRY(kryl_mcolor_backend(ctx, &M->host->csr, on, false, &mc->c));
    mc->ncolors_full = mc->c.ncolors;
    if (mc->c.ncolors <= few) return KRYL_SUCCESS;
    /* the rounds read the host's copy, which a level built on the device lacks until now */
    KRYL_TRY(kryl_matrix_need_host(M, "the multicolor sparsification"));
    const kryl_csr *A = &M->host->csr;
    const int64_t n = A->nrows;
    double *diag = malloc(((size_t)n + 1) * sizeof *diag);
    double *heavy = malloc(((size_t)n + 1) * sizeof *heavy);
    kryl_csr S = {0};
    kryl_status st = diag && heavy
                         ? KRYL_SUCCESS
                         : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                                      "multicolor: cannot allocate %lld rows", (long long)n);
    if (st == KRYL_SUCCESS) {
        kryl_csr_diagonal(A, diag);
        /* symmetric to the last bit where the measure is cached and 0 */
        st = weighted_graph(A, diag, M->host->asymmetry == 0.0, kryl_host_threads(ctx), &S);
    }
    mc->edges = mc->edges_kept = kryl_csr_nnz(&S) / 2;
    int32_t p = mc->c.ncolors;
    double theta = KRYL_MCOLOR_THETA;
    for (int r = 1; r <= KRYL_MCOLOR_ROUNDS && st == KRYL_SUCCESS; r++, theta *= 2.0) {
        if (mc->c.ncolors <= few) break;
        const int64_t before = kryl_csr_nnz(&S);
        sparsify(&S, p, theta, heavy);
        /* the same graph colors the same: nothing to do this round */
        if (kryl_csr_nnz(&S) == before) continue;
        st = color_keep_fewest(ctx, &S, r, mc);
        /* p of the graph just colored, which the next round thins */
        if (st == KRYL_SUCCESS && mc->rounds == r) p = mc->c.ncolors;
    }
    kryl_csr_free(&S);
    free(diag);
    free(heavy);
    return st;
}

kryl_status kryl_mcolor_create(kryl_precond *pc, kryl_matrix M, const kryl_mcolor_arrays *on,
                               int32_t few, kryl_mcolor *mc)
{
    *mc = (kryl_mcolor){0};
    const kryl_csr *A = &M->host->csr;
    if (A->nrows != A->ncols || A->nrows != A->nrows_global)
        return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                          "%s: needs the whole square matrix on this process (%lld of %lld rows, "
                          "%lld columns)",
                          kryl_precond_name(pc->kind), (long long)A->nrows,
                          (long long)A->nrows_global, (long long)A->ncols);
    const int64_t n = A->nrows;
    /* zero or missing diagonal entries are refused, naming the first (on
     * the device where A is stored there) */
    kryl_diagonal_check found;
    KRYL_TRY(kryl_matrix_check_diagonal(M, kryl_precond_name(pc->kind), NULL, false, &found));
    if (found.first_zero < n) return kryl_mcolor_zero_diagonal(pc, A->row_begin + found.first_zero);
    /* without A's arrays in backend memory the coloring reads the host's copy */
    if (on == NULL) KRYL_TRY(kryl_matrix_need_host(M, kryl_precond_name(pc->kind)));
    int phase = kryl_setup_enter(pc->ctx, KRYL_SETUP_COLORING);
    kryl_status st = color(pc->ctx, M, on, few, mc);
    kryl_setup_leave(pc->ctx, phase);
    if (st != KRYL_SUCCESS) {
        kryl_mcolor_free(mc);
        return st;
    }
    /* dropped = stored a_ij, i != j, inside one color (none in a coloring of the whole graph) */
    for (int64_t i = 0; i < n && mc->rounds > 0; i++)
        for (int64_t e = A->row_ptr[i]; e < A->row_ptr[i + 1]; e++)
            if (A->col_idx[e] != i && mc->c.color[A->col_idx[e]] == mc->c.color[i]) mc->dropped++;
    if (mc->edges == 0)
        kryl_log(pc->ctx, KRYL_LOG_INFO, "%s: %d colors (Jones-Plassmann), no sparsification",
                 kryl_precond_name(pc->kind), (int)mc->c.ncolors);
    else
        kryl_log(pc->ctx, KRYL_LOG_INFO,
                 "%s: %d colors; sparsification: %d colors before, %d after %d round(s) keeping "
                 "%lld of %lld edges; %lld entries coupling rows of one color left out of M",
                 kryl_precond_name(pc->kind), (int)mc->c.ncolors, (int)mc->ncolors_full,
                 (int)mc->c.ncolors, mc->rounds, (long long)mc->edges_kept, (long long)mc->edges,
                 (long long)mc->dropped);
    return KRYL_SUCCESS;
}

void kryl_mcolor_free(kryl_mcolor *mc)
{
    if (mc == NULL) return;
    kryl_coloring_free(&mc->c);
}

kryl_status kryl_mcolor_filter(kryl_precond *pc, kryl_csr *B, const void *user)
{
    (void)pc;
    const kryl_mcolor *mc = user;
    const int32_t *color = mc->c.color, *perm = mc->c.perm;
    int64_t n = B->nrows, k = 0;
    for (int64_t i = 0; i < n; i++) {
        /* keep b_ii and b_ij of rows of different colors, compacted in place */
        int64_t e = B->row_ptr[i], end = B->row_ptr[i + 1];
        B->row_ptr[i] = k;
        for (; e < end; e++) {
            int32_t j = B->col_idx[e];
            if (j != i && color[perm[j]] == color[perm[i]]) continue;
            B->col_idx[k] = j;
            B->values[k++] = B->values[e];
        }
    }
    B->row_ptr[n] = k;
    return KRYL_SUCCESS;
}
