/*
 * The hierarchy of smoothed aggregation, level by level: strength graph,
 * aggregates and tentative prolongator from the near-nullspace on the
 * host, its Jacobi smoothing, R = P' and A_c = R A P (amg_galerkin.c:
 * the backend's products where it has them); until a
 * level has at most coarse_size rows (or stops shrinking), whose dense
 * inverse is the coarse solve.  Each level's matrices then live on the
 * backend in the iteration's precision; the finest level is the iteration
 * matrix itself, so P_0's rows (and R_0's columns) follow its row order.
 */
#include <stdlib.h>
#include <string.h>

#include "amg/amg.h"
#include "core/host_threads.h"

/* A backend matrix of csr (taken over) in `precision`, CSR storage; over
 * ranks, cols (or NULL: its rows') are the columns [cols[0], cols[1]) this
 * rank owns. */
static kryl_status level_matrix(kryl_context ctx, kryl_csr *csr, kryl_precision precision,
                                const int64_t *cols, kryl_matrix *M)
{
    kryl_matrix D;
    KRYL_TRY(cols ? kryl_matrix_from_csr_columns(&D, ctx, csr, cols[0], cols[1])
                  : kryl_matrix_from_csr(&D, ctx, csr));
    if (precision == KRYL_DOUBLE) {
        *M = D;
        return KRYL_SUCCESS;
    }
    kryl_status st = kryl_matrix_convert(M, D, precision, KRYL_FORMAT_CSR, NULL, KRYL_ORDER_NONE);
    kryl_matrix_destroy(&D); /* M shares the host copy */
    return st;
}

/* P with its rows in the iteration matrix's order: row i is P's row perm[i]. */
static kryl_status permute_rows(const kryl_csr *P, const int32_t *perm, kryl_csr *Q)
{
    KRYL_TRY(kryl_csr_alloc(Q, P->nrows, P->ncols, kryl_csr_nnz(P)));
    Q->row_begin = P->row_begin;
    Q->nrows_global = P->nrows_global;
    for (int64_t i = 0; i < P->nrows; i++) {
        int64_t from = P->row_ptr[perm[i]], len = P->row_ptr[perm[i] + 1] - from;
        Q->row_ptr[i + 1] = Q->row_ptr[i] + len;
        memcpy(Q->col_idx + Q->row_ptr[i], P->col_idx + from, (size_t)len * sizeof *Q->col_idx);
        memcpy(Q->values + Q->row_ptr[i], P->values + from, (size_t)len * sizeof *Q->values);
    }
    return KRYL_SUCCESS;
}

/* Level 0 in a sorted format's order: P's rows and R's columns follow it
 * (over ranks, where any rank's rows are sorted: R's columns are then the
 * ranks' rows in their vectors' order, which the halo of R exchanges). */
static kryl_status follow_order(amg_hierarchy *h, const amg_level *L, kryl_csr *P, kryl_csr *R)
{
    const int32_t *perm = L->Ab->layout->perm;
    bool ranks = amg_over_ranks(h->ctx);
    int64_t permuted = perm != NULL;
    amg_ranks_sum(h->ctx, &permuted, 1);
    if (permuted == 0) return KRYL_SUCCESS;
    kryl_csr Q;
    kryl_status st = perm ? permute_rows(P, perm, &Q) : KRYL_SUCCESS;
    if (perm && st == KRYL_SUCCESS) {
        kryl_csr_free(P);
        *P = Q;
    }
    kryl_csr_free(R);
    st = kryl_context_agree(h->ctx, st);
    if (st == KRYL_SUCCESS)
        st = ranks ? amg_ranks_transpose(h->ctx, P, L->coarse_owned[0], L->coarse_owned[1], R)
                   : kryl_csr_transpose(P, R);
    if (st != KRYL_SUCCESS) kryl_csr_free(P);
    return st;
}

/* The backend's P and R = P' of level l (P, R natural; taken over). */
static kryl_status transfer_matrices(amg_hierarchy *h, int l, kryl_csr *P, kryl_csr *R)
{
    amg_level *L = &h->levels[l];
    kryl_precision precision = L->Ab->precision;
    KRYL_TRY(follow_order(h, L, P, R));
    /* over ranks: P's columns are split like the coarse rows, R's like the fine */
    bool ranks = amg_over_ranks(h->ctx);
    int64_t fine[2] = {L->A->row_begin, L->A->row_begin + L->A->nrows};
    kryl_status st = level_matrix(h->ctx, P, precision, ranks ? L->coarse_owned : NULL, &L->P);
    if (st != KRYL_SUCCESS) {
        kryl_csr_free(R);
        return st;
    }
    return level_matrix(h->ctx, R, precision, ranks ? fine : NULL, &L->R);
}

/* The constant near-nullspace, or a copy of the caller's. */
static kryl_status initial_nullspace(const kryl_amg_options *o, int64_t n, double **B)
{
    int k = o->nullspace ? o->nullspace_vectors : 1;
    *B = malloc(((size_t)n * k + 1) * sizeof **B);
    if (*B == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "amg: cannot allocate a %lld x %d nullspace",
                          (long long)n, k);
    for (size_t i = 0; i < (size_t)n * k; i++) (*B)[i] = o->nullspace ? o->nullspace[i] : 1.0;
    return KRYL_SUCCESS;
}

/* From level l's values and tentative prolongator L->T: lambda_max, P, R
 * and level l + 1's matrix, on the host and the backend (replacing those a
 * previous setup made). */
static kryl_status level_numeric(amg_hierarchy *h, int l)
{
    amg_level *L = &h->levels[l], *C = &h->levels[l + 1];
    double t0 = kryl_wtime();
    kryl_csr P = {0}, R = {0}, Ac = {0};
    kryl_status st = amg_lambda_max(L, &L->lambda_max);
    h->info.prolong_s += kryl_wtime() - t0;
    /* the damping of Vanek, Mandel & Brezina: omega = 4 / (3 lambda_max(D^-1 A)) */
    double omega = h->opts.aggregation == KRYL_AMG_SMOOTHED ? 4.0 / (3.0 * L->lambda_max) : 0.0;
    if (st == KRYL_SUCCESS)
        st = amg_over_ranks(h->ctx) ? amg_ranks_products(h, L, omega, &P, &R, &Ac)
                                    : amg_products(h, L, omega, &P, &R, &Ac);
    double t2 = kryl_wtime();
    kryl_matrix_destroy(&C->Ab);
    kryl_matrix_destroy(&L->P);
    kryl_matrix_destroy(&L->R);
    if (st == KRYL_SUCCESS)
        st = level_matrix(h->ctx, &Ac, L->Ab->precision, NULL, &C->Ab);
    else
        kryl_csr_free(&Ac);
    if (st == KRYL_SUCCESS) {
        C->A = &C->Ab->host->csr;
        C->symmetric = L->symmetric && kryl_host_matrix_is_symmetric(C->Ab->host, 0.0);
        st = transfer_matrices(h, l, &P, &R);
    } else {
        kryl_csr_free(&P);
        kryl_csr_free(&R);
    }
    h->info.backend_s += kryl_wtime() - t2;
    return st;
}

/* L's aggregates (L->aggregate, L->naggregates): the parallel coarsening
 * by the backend from the level's storage where it aggregates (kept there
 * as L->aggregate_on; L->aggregate its host copy), else on the host from
 * the strength graph; over ranks, those of each rank's diagonal block, and
 * a row coupled only to other ranks' rows an aggregate of its own. */
static kryl_status aggregate(amg_hierarchy *h, amg_level *L)
{
    const kryl_backend_ops *ops = h->ctx->ops;
    int threads = kryl_host_threads(h->ctx);
    bool ranks = amg_over_ranks(h->ctx);
    size_t bytes = (size_t)L->A->nrows * sizeof *L->aggregate;
    double t0 = kryl_wtime();
    L->aggregate = malloc(bytes + sizeof *L->aggregate);
    if (L->aggregate == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "amg: out of memory");
    if (!ranks && h->opts.coarsening == KRYL_AMG_PARALLEL && ops->amg_aggregate != NULL &&
        kryl_matrix_natural_csr(L->Ab)) {
        /* strength and aggregates in one operation: its time counts as the aggregation's */
        KRYL_TRY(ops->alloc(h->ctx, (void **)&L->aggregate_on, bytes));
        KRYL_TRY(ops->amg_aggregate(h->ctx, L->Ab, h->opts.theta, L->symmetric, L->aggregate_on,
                                    &L->naggregates));
        if (bytes > 0) KRYL_TRY(ops->download(h->ctx, L->aggregate, L->aggregate_on, bytes));
        h->info.aggregate_s += kryl_wtime() - t0;
        return KRYL_SUCCESS;
    }
    kryl_csr block = {0};
    kryl_status st = ranks ? amg_diagonal_block(L->A, &block) : KRYL_SUCCESS;
    const kryl_csr *A = ranks ? &block : L->A;
    amg_graph G = {0};
    if (st == KRYL_SUCCESS) st = amg_strength(A, h->opts.theta, L->symmetric, threads, &G);
    kryl_csr_free(&block);
    KRYL_TRY(st);
    double t1 = kryl_wtime();
    st = h->opts.coarsening == KRYL_AMG_GREEDY
             ? amg_aggregate_greedy(&G, L->aggregate, &L->naggregates)
         : h->opts.coarsening == KRYL_AMG_MIS2
             ? amg_aggregate_mis2(&G, threads, L->aggregate, &L->naggregates)
             : amg_aggregate_parallel(&G, threads, L->aggregate, &L->naggregates);
    amg_graph_free(&G);
    if (st == KRYL_SUCCESS && ranks) amg_boundary_singletons(L->A, L->aggregate, &L->naggregates);
    h->info.strength_s += t1 - t0;
    h->info.aggregate_s += kryl_wtime() - t1;
    return st;
}

/* Level l + 1 from level l: *done when level l is the coarsest. */
static kryl_status coarsen(amg_hierarchy *h, int l, const double *B, double **Bc, bool *done)
{
    amg_level *L = &h->levels[l];
    int k = h->opts.nullspace ? h->opts.nullspace_vectors : 1;
    kryl_status st = aggregate(h, L);
    double t0 = kryl_wtime();
    int64_t nc = 0;
    *done = true;
    if (st == KRYL_SUCCESS)
        st = amg_tentative(L->aggregate, L->naggregates, B, L->A->nrows, k, &L->T, Bc, &nc);
    KRYL_TRY(kryl_context_agree(h->ctx, st));
    h->info.prolong_s += kryl_wtime() - t0;
    /* the coarse rows over all ranks, this rank's numbered after those before it */
    int64_t rows[2] = {nc, L->A->nrows};
    amg_ranks_sum(h->ctx, rows, 2);
    L->coarse_rows = rows[0];
    L->coarse_begin = amg_ranks_before(h->ctx, nc);
    KRYL_TRY(amg_ranks_coarse_owner(h, L, nc, k, Bc));
    if ((double)rows[0] > KRYL_AMG_MIN_REDUCTION * (double)rows[1] || rows[0] == 0) {
        /* coarsening has stalled: this level is the coarsest */
        kryl_csr_free(&L->T);
        free(*Bc);
        *Bc = NULL;
        return KRYL_SUCCESS;
    }
    *done = false;
    return level_numeric(h, l);
}

/* The coarsest level's dense inverse, where it is small enough. */
static kryl_status coarse_solver(amg_hierarchy *h)
{
    amg_level *L = &h->levels[h->nlevels - 1];
    int64_t rows = L->A->nrows_global;
    if (rows > KRYL_AMG_DENSE_MAX || rows == 0) return KRYL_SUCCESS;
    kryl_csr Ainv;
    kryl_matrix_destroy(&L->Ainv);
    KRYL_TRY(amg_ranks_coarse_inverse(h->ctx, L->A, &Ainv));
    return level_matrix(h->ctx, &Ainv, L->Ab->precision, NULL, &L->Ainv);
}

/* The smoothers and the coarsest level's inverse, from the levels' values. */
static kryl_status smoothers_and_coarse_solver(amg_hierarchy *h)
{
    kryl_status st = KRYL_SUCCESS;
    for (int s = 0; st == KRYL_SUCCESS && s < h->nlevels; s++) {
        amg_level *L = &h->levels[s];
        kryl_vector_destroy(&L->dinv);
        if (L->mcgs.destroy) L->mcgs.destroy(&L->mcgs);
        memset(&L->mcgs, 0, sizeof L->mcgs);
        /* the coarsest level smooths only when it is too large to invert */
        if (s == h->nlevels - 1 && L->A->nrows_global <= KRYL_AMG_DENSE_MAX) break;
        if (s == h->nlevels - 1) st = amg_lambda_max(L, &L->lambda_max);
        if (st == KRYL_SUCCESS) st = kryl_context_agree(h->ctx, amg_smoother_setup(h, s));
    }
    if (st == KRYL_SUCCESS) st = coarse_solver(h);
    return st;
}

/* Every level's vectors: level 0's b and x are the apply's r and z. */
static kryl_status level_vectors(amg_hierarchy *h)
{
    for (int l = 0; l < h->nlevels; l++) {
        amg_level *L = &h->levels[l];
        kryl_layout *layout = L->Ab->layout;
        kryl_precision p = L->Ab->precision;
        kryl_vector *need[] = {&L->r, &L->t, &L->d, &L->b, &L->x, &L->bw, &L->e};
        int count = l == 0 ? 3 : h->opts.cycle == KRYL_AMG_W_CYCLE ? 7 : 5;
        for (int v = 0; v < count; v++)
            KRYL_TRY(kryl_vector_create_like(need[v], h->ctx, layout, p));
    }
    return KRYL_SUCCESS;
}

static void fill_info(amg_hierarchy *h)
{
    kryl_amg_info *info = &h->info;
    info->levels = h->nlevels;
    double rows = 0.0, nnz = 0.0;
    int64_t entries[KRYL_AMG_MAX_LEVELS];
    for (int l = 0; l < h->nlevels; l++) entries[l] = kryl_csr_nnz(h->levels[l].A);
    amg_ranks_sum(h->ctx, entries, h->nlevels); /* over ranks: every rank's rows */
    for (int l = 0; l < h->nlevels; l++) {
        info->rows[l] = h->levels[l].A->nrows_global;
        info->nnz[l] = entries[l];
        rows += (double)info->rows[l];
        nnz += (double)entries[l];
    }
    double rows0 = (double)info->rows[0], nnz0 = (double)info->nnz[0];
    info->grid_complexity = rows0 > 0 ? rows / rows0 : 1.0;
    info->operator_complexity = nnz0 > 0 ? nnz / nnz0 : 1.0;
}

kryl_status amg_setup(amg_hierarchy *h, kryl_matrix Aw, const kryl_amg_options *opts,
                      double symmetry_tol)
{
    memset(h, 0, sizeof *h);
    h->ctx = Aw->ctx;
    h->opts = *opts;
    h->symmetry_tol = symmetry_tol;
    amg_level *L0 = &h->levels[0];
    L0->Ab = Aw;
    L0->A = &Aw->host->csr;
    L0->symmetric = kryl_host_matrix_is_symmetric(Aw->host, symmetry_tol);
    KRYL_TRY(amg_agglomerate_rows(h->ctx, &h->agglomerate_rows));
    double *B = NULL;
    KRYL_TRY(initial_nullspace(opts, L0->A->nrows, &B));
    kryl_status st = KRYL_SUCCESS;
    int l = 0;
    for (; st == KRYL_SUCCESS; l++) {
        h->nlevels = l + 1;
        if (h->levels[l].A->nrows_global <= opts->coarse_size || l + 1 >= opts->max_levels) break;
        double *Bc = NULL;
        bool done = false;
        st = coarsen(h, l, B, &Bc, &done);
        free(B);
        B = Bc;
        if (done) break;
    }
    free(B);
    double t0 = kryl_wtime();
    if (st == KRYL_SUCCESS) st = smoothers_and_coarse_solver(h);
    double t1 = kryl_wtime();
    h->info.smoother_s += t1 - t0;
    if (st == KRYL_SUCCESS) st = level_vectors(h);
    h->info.backend_s += kryl_wtime() - t1;
    fill_info(h);
    return st;
}

void amg_release(amg_hierarchy *h)
{
    /* every level: a failed setup may have built one past nlevels */
    for (int l = 0; l < KRYL_AMG_MAX_LEVELS; l++) {
        amg_level *L = &h->levels[l];
        kryl_vector *vectors[] = {&L->r, &L->t, &L->d, &L->b, &L->x, &L->bw, &L->e, &L->dinv};
        for (size_t v = 0; v < sizeof vectors / sizeof vectors[0]; v++)
            kryl_vector_destroy(vectors[v]);
        if (L->mcgs.destroy) L->mcgs.destroy(&L->mcgs);
        kryl_matrix_destroy(&L->P);
        kryl_matrix_destroy(&L->R);
        kryl_matrix_destroy(&L->Ainv);
        if (l > 0) kryl_matrix_destroy(&L->Ab);
        free(L->aggregate);
        L->aggregate = NULL;
        if (L->aggregate_on != NULL) h->ctx->ops->release(h->ctx, L->aggregate_on);
        L->aggregate_on = NULL;
        kryl_csr_free(&L->T);
    }
    h->nlevels = 0;
}

kryl_status amg_update(amg_hierarchy *h)
{
    amg_level *L0 = &h->levels[0];
    L0->symmetric = kryl_host_matrix_is_symmetric(L0->Ab->host, h->symmetry_tol);
    h->info.prolong_s = h->info.galerkin_s = h->info.smoother_s = h->info.backend_s = 0.0;
    h->info.strength_s = h->info.aggregate_s = 0.0;
    for (int l = 0; l + 1 < h->nlevels; l++) KRYL_TRY(level_numeric(h, l));
    double t0 = kryl_wtime();
    KRYL_TRY(smoothers_and_coarse_solver(h));
    h->info.smoother_s += kryl_wtime() - t0;
    fill_info(h);
    return KRYL_SUCCESS;
}
