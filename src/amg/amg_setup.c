/*
 * The hierarchy of smoothed aggregation, level by level: strength graph
 * and aggregates, the tentative prolongator (the backend's for the
 * constant near-nullspace, the host's QR for a caller's), its Jacobi
 * smoothing, R = P' and A_c = R A P (amg_galerkin.c: the backend's
 * products where it has them), all in backend memory; until a level has
 * at most coarse_size rows (or stops shrinking), whose dense inverse is
 * the coarse solve.  Each coarse level is a double CSR backend matrix made
 * from the products' arrays (no host copy on cuda) and, in single
 * precision, a copy in the iteration's precision; the finest level is the
 * iteration matrix itself, so P_0's rows (and R_0's columns) follow its
 * row order.  Over several ranks (amg_ranks.c) the levels are built from
 * the ranks' host rows: aggregates within each rank, T by the host's QR,
 * the products of src/dist/dist_amg.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amg/amg.h"
#include "core/host_threads.h"
#include "core/huge_pages.h"

/* The backend matrix of csr (taken over) in double and, where `precision`
 * is single, its copy in that precision (*M_p; else *M_p = *D); over
 * ranks, cols (or NULL: its rows') are the columns [cols[0], cols[1]) this
 * rank owns. */
static kryl_status host_level_matrix(kryl_context ctx, kryl_csr *csr, kryl_precision precision,
                                     const int64_t *cols, kryl_matrix *D, kryl_matrix *M_p)
{
    KRYL_TRY(cols ? kryl_matrix_from_csr_columns(D, ctx, csr, cols[0], cols[1])
                  : kryl_matrix_from_csr(D, ctx, csr));
    if (precision == KRYL_DOUBLE) {
        *M_p = *D;
        return KRYL_SUCCESS;
    }
    return kryl_matrix_convert(M_p, *D, precision, KRYL_FORMAT_CSR, NULL, KRYL_ORDER_NONE);
}

/* The backend matrix of M (backend arrays, taken over here) in double and,
 * where `precision` is single, its copy in that precision (*M_p; else
 * *M_p = *D). */
static kryl_status level_matrix(kryl_context ctx, kryl_backend_csr *M, kryl_precision precision,
                                kryl_matrix *D, kryl_matrix *M_p)
{
    if (ctx->dist != NULL) {
        /* a context over ranks (here one) takes its matrices from host rows */
        kryl_csr C;
        kryl_status st = amg_backend_csr_download(ctx, M, &C);
        kryl_backend_csr_release(ctx, M);
        KRYL_TRY(st);
        return host_level_matrix(ctx, &C, precision, NULL, D, M_p);
    }
    /* the matrix takes M's arrays over */
    kryl_status st = kryl_matrix_from_built_csr_device(D, ctx, M);
    if (st != KRYL_SUCCESS || precision == KRYL_DOUBLE) {
        *M_p = *D;
        return st;
    }
    return kryl_matrix_convert(M_p, *D, precision, KRYL_FORMAT_CSR, NULL, KRYL_ORDER_NONE);
}

/* A transfer matrix in the level's precision (no double copy kept). */
static kryl_status transfer_matrix(kryl_context ctx, kryl_backend_csr *M, kryl_precision precision,
                                   kryl_matrix *out)
{
    kryl_matrix D = NULL;
    KRYL_TRY(level_matrix(ctx, M, precision, &D, out));
    if (*out != D) kryl_matrix_destroy(&D); /* *out shares the host copy */
    return KRYL_SUCCESS;
}

/* A transfer matrix over ranks from the host (no double copy kept). */
static kryl_status host_transfer_matrix(kryl_context ctx, kryl_csr *csr, kryl_precision precision,
                                        const int64_t *cols, kryl_matrix *out)
{
    kryl_matrix D = NULL;
    KRYL_TRY(host_level_matrix(ctx, csr, precision, cols, &D, out));
    if (*out != D) kryl_matrix_destroy(&D); /* *out shares the host copy */
    return KRYL_SUCCESS;
}

/* Level 0 in a sorted format's order: P's rows and R's columns follow it
 * (over ranks, where any rank's rows are sorted: R's columns are then the
 * ranks' rows in their vectors' order, which the halo of R exchanges). */
static kryl_status follow_order(amg_hierarchy *h, const amg_level *L, kryl_csr *P, kryl_csr *R)
{
    const int32_t *perm = L->Ab->layout->perm;
    int64_t permuted = perm != NULL;
    amg_ranks_sum(h->ctx, &permuted, 1);
    if (permuted == 0) return KRYL_SUCCESS;
    kryl_csr Q;
    kryl_status st = perm ? amg_permute_rows(P, perm, &Q) : KRYL_SUCCESS;
    if (perm && st == KRYL_SUCCESS) {
        kryl_csr_free(P);
        *P = Q;
    }
    kryl_csr_free(R);
    st = kryl_context_agree(h->ctx, st);
    if (st == KRYL_SUCCESS)
        st = amg_ranks_transpose(h->ctx, P, L->coarse_owned[0], L->coarse_owned[1], R);
    if (st != KRYL_SUCCESS) kryl_csr_free(P);
    return st;
}

/* Level l's P, R (over ranks, from the host; taken over) and level l + 1's
 * matrices (Ac exactly symmetric where `symmetric`): P's columns are split
 * like the coarse rows, R's like the fine. */
static kryl_status ranks_level_matrices(amg_hierarchy *h, int l, kryl_csr *P, kryl_csr *R,
                                        kryl_csr *Ac, bool symmetric)
{
    amg_level *L = &h->levels[l], *C = &h->levels[l + 1];
    kryl_precision precision = L->Ab->precision;
    const kryl_csr *A = &amg_level_matrix(L)->host->csr;
    int64_t fine[2] = {A->row_begin, A->row_begin + A->nrows};
    kryl_status st = host_level_matrix(h->ctx, Ac, precision, NULL, &C->A, &C->Ab);
    C->symmetric = symmetric;
    if (st == KRYL_SUCCESS) st = follow_order(h, L, P, R);
    if (st == KRYL_SUCCESS) st = host_transfer_matrix(h->ctx, P, precision, L->coarse_owned, &L->P);
    if (st == KRYL_SUCCESS) st = host_transfer_matrix(h->ctx, R, precision, fine, &L->R);
    kryl_csr_free(P);
    kryl_csr_free(R);
    kryl_csr_free(Ac);
    return st;
}

/* The constant near-nullspace, or a copy of the caller's. */
static kryl_status initial_nullspace(const kryl_amg_options *o, int64_t n, double **B)
{
    int k = o->nullspace ? o->nullspace_vectors : 1;
    *B = kryl_huge_malloc(((size_t)n * k + 1) * sizeof **B);
    if (*B == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "amg: cannot allocate a %lld x %d nullspace",
                          (long long)n, k);
    for (size_t i = 0; i < (size_t)n * k; i++) (*B)[i] = o->nullspace ? o->nullspace[i] : 1.0;
    return KRYL_SUCCESS;
}

/* From level l's values and tentative prolongator L->T: lambda_max, P, R
 * and level l + 1's matrix, on the backend (over ranks, from the host;
 * replacing those a previous setup made). */
static kryl_status level_numeric(amg_hierarchy *h, int l)
{
    amg_level *L = &h->levels[l], *C = &h->levels[l + 1];
    bool ranks = amg_over_ranks(h->ctx);
    double t0 = kryl_wtime();
    kryl_backend_csr P = {0}, R = {0}, Ac = {0};
    kryl_csr hP = {0}, hR = {0}, hAc = {0};
    bool Ac_symmetric = false;
    kryl_status st = amg_lambda_max(L, &L->lambda_max);
    h->info.prolong_s += kryl_wtime() - t0;
    /* the damping of Vanek, Mandel & Brezina: omega = 4 / (3 lambda_max(D^-1 A)) */
    double omega = h->opts.aggregation == KRYL_AMG_SMOOTHED ? 4.0 / (3.0 * L->lambda_max) : 0.0;
    if (st == KRYL_SUCCESS)
        st = ranks ? amg_ranks_products(h, L, &amg_level_matrix(L)->host->csr, omega, &hP, &hR,
                                        &hAc, &Ac_symmetric)
                   : amg_products(h, L, omega, &P, &R, &Ac);
    double t2 = kryl_wtime();
    if (C->Ab != C->A) kryl_matrix_destroy(&C->Ab);
    kryl_matrix_destroy(&C->A);
    C->Ab = NULL;
    kryl_matrix_destroy(&L->P);
    kryl_matrix_destroy(&L->R);
    kryl_precision precision = L->Ab->precision;
    if (ranks) {
        if (st == KRYL_SUCCESS) st = ranks_level_matrices(h, l, &hP, &hR, &hAc, Ac_symmetric);
        kryl_csr *left[] = {&hP, &hR, &hAc};
        for (size_t m = 0; m < sizeof left / sizeof left[0]; m++) kryl_csr_free(left[m]);
        h->info.backend_s += kryl_wtime() - t2;
        return st;
    }
    if (st == KRYL_SUCCESS) st = level_matrix(h->ctx, &Ac, precision, &C->A, &C->Ab);
    /* R A P with R = P' of a symmetric A is symmetric (and made so to the bit) */
    C->symmetric = L->symmetric;
    if (st == KRYL_SUCCESS) st = transfer_matrix(h->ctx, &P, precision, &L->P);
    if (st == KRYL_SUCCESS) st = transfer_matrix(h->ctx, &R, precision, &L->R);
    kryl_backend_csr *left[] = {&P, &R, &Ac};
    for (size_t m = 0; m < sizeof left / sizeof left[0]; m++)
        kryl_backend_csr_release(h->ctx, left[m]);
    h->info.backend_s += kryl_wtime() - t2;
    return st;
}

/* Rows of level l over all ranks, and this rank's. */
static int64_t level_rows(const amg_level *L)
{
    return amg_level_matrix(L)->host->csr.nrows_global;
}

static int64_t local_rows(const amg_level *L) { return amg_level_matrix(L)->host->csr.nrows; }

/* The strength threshold of level l: theta on the finest, at least
 * coarse_theta on the Galerkin levels. */
static double level_theta(const kryl_amg_options *o, int l)
{
    return l == 0 ? o->theta : fmax(o->theta, o->coarse_theta);
}

/* amg_boundary_singletons on aggregates in backend memory: downloaded,
 * completed from the level's host copy, uploaded where rows were added. */
static kryl_status boundary_singletons_stored(amg_hierarchy *h, amg_level *L)
{
    KRYL_TRY(kryl_matrix_need_host(amg_level_matrix(L), "the multigrid aggregation"));
    const kryl_csr *A = &amg_level_matrix(L)->host->csr;
    const kryl_backend_ops *ops = h->ctx->ops;
    size_t bytes = (size_t)A->nrows * sizeof *L->aggregate;
    int32_t *aggregate = kryl_huge_malloc(bytes > 0 ? bytes : 1);
    if (aggregate == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "amg: cannot allocate %lld aggregates",
                          (long long)A->nrows);
    int64_t before = L->naggregates;
    kryl_status st = ops->download(h->ctx, aggregate, L->aggregate, bytes);
    if (st == KRYL_SUCCESS) amg_boundary_singletons(A, aggregate, &L->naggregates);
    if (st == KRYL_SUCCESS && L->naggregates != before)
        st = ops->upload(h->ctx, L->aggregate, aggregate, bytes);
    free(aggregate);
    return st;
}

/* Level l's aggregates in backend memory: the parallel coarsening by the
 * backend from the level's storage where it aggregates (over ranks from
 * the rank's diagonal block, the local part of its matrix), else strength
 * graph and aggregation on the level's host copy, the result uploaded;
 * over ranks, those of each rank's diagonal block, and a row coupled only
 * to other ranks' rows an aggregate of its own. */
static kryl_status level_aggregates(amg_hierarchy *h, int l)
{
    amg_level *L = &h->levels[l];
    kryl_context ctx = h->ctx;
    kryl_matrix M = amg_level_matrix(L);
    bool ranks = amg_over_ranks(ctx);
    double t0 = kryl_wtime();
    const double theta = level_theta(&h->opts, l);
    kryl_matrix stored = kryl_matrix_local_part(M);
    if (h->opts.coarsening == KRYL_AMG_PARALLEL && stored->ctx->ops->amg_aggregate != NULL &&
        kryl_matrix_natural_csr(stored)) {
        /* strength and aggregates in one operation, where the level is stored: its
         * time counts as the aggregation's */
        size_t bytes = (size_t)M->host->csr.nrows * sizeof *L->aggregate;
        KRYL_TRY(ctx->ops->alloc(ctx, (void **)&L->aggregate, bytes));
        KRYL_TRY(stored->ctx->ops->amg_aggregate(stored->ctx, stored, theta, L->symmetric, l == 0,
                                                 L->aggregate, &L->naggregates));
        if (ranks) KRYL_TRY(boundary_singletons_stored(h, L));
        h->info.aggregate_s += kryl_wtime() - t0;
        return KRYL_SUCCESS;
    }
    KRYL_TRY(kryl_matrix_need_host(M, "the multigrid aggregation"));
    /* over ranks the couplings among the rank's own rows: its local part's host copy */
    KRYL_TRY(kryl_matrix_need_host(stored, "the multigrid aggregation"));
    const kryl_csr *A = &M->host->csr;
    int threads = kryl_host_threads(ctx);
    amg_graph G = {0};
    KRYL_TRY(amg_strength(&stored->host->csr, theta, L->symmetric, threads, &G));
    double t1 = kryl_wtime();
    size_t bytes = ((size_t)A->nrows + 1) * sizeof *L->aggregate;
    int32_t *aggregate = kryl_huge_malloc(bytes);
    kryl_status st = aggregate == NULL ? KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "amg: out of memory")
                     : h->opts.coarsening == KRYL_AMG_GREEDY
                         ? amg_aggregate_greedy(&G, aggregate, &L->naggregates)
                     : h->opts.coarsening == KRYL_AMG_MIS2
                         ? amg_aggregate_mis2(&G, threads, aggregate, &L->naggregates)
                         : amg_aggregate_parallel(&G, l == 0, threads, aggregate, &L->naggregates);
    amg_graph_free(&G);
    if (st == KRYL_SUCCESS && ranks) amg_boundary_singletons(A, aggregate, &L->naggregates);
    if (st == KRYL_SUCCESS) st = ctx->ops->alloc(ctx, (void **)&L->aggregate, bytes);
    if (st == KRYL_SUCCESS) st = ctx->ops->upload(ctx, L->aggregate, aggregate, bytes);
    free(aggregate);
    h->info.strength_s += t1 - t0;
    h->info.aggregate_s += kryl_wtime() - t1;
    return st;
}

/* T and the coarse near-nullspace of the vectors B (host, n x k): the
 * host's QR over the aggregates (downloaded), T uploaded (over ranks kept
 * on the host). */
static kryl_status tentative_on_host(amg_hierarchy *h, amg_level *L, int64_t n, const double *B,
                                     int k, double **Bc, int64_t *nc)
{
    kryl_context ctx = h->ctx;
    size_t bytes = ((size_t)n + 1) * sizeof *L->aggregate;
    int32_t *aggregate = kryl_huge_malloc(bytes);
    if (aggregate == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "amg: out of memory");
    kryl_csr T = {0};
    kryl_status st =
        ctx->ops->download(ctx, aggregate, L->aggregate, (size_t)n * sizeof *aggregate);
    if (st == KRYL_SUCCESS) st = amg_tentative(aggregate, L->naggregates, B, n, k, &T, Bc, nc);
    free(aggregate);
    if (st == KRYL_SUCCESS && amg_over_ranks(ctx))
        L->T_host = T;
    else if (st == KRYL_SUCCESS)
        st = amg_backend_csr_upload(ctx, &T, &L->T);
    return st;
}

/* The near-nullspace a level's tentative prolongator starts from: the
 * caller's vectors on the host (B, k of them), or the constant's squares
 * in backend memory (w, NULL on the finest level: all 1). */
typedef struct amg_nullspace {
    double *B;
    int k;
    double *w;
} amg_nullspace;

static void nullspace_free(kryl_context ctx, amg_nullspace *N)
{
    free(N->B);
    ctx->ops->release(ctx, N->w);
    N->B = N->w = NULL;
}

/* Level l + 1 from level l (*N becomes its near-nullspace): *done when
 * level l is the coarsest. */
static kryl_status coarsen(amg_hierarchy *h, int l, amg_nullspace *N, bool *done)
{
    amg_level *L = &h->levels[l];
    kryl_context ctx = h->ctx;
    int64_t n = local_rows(L);
    *done = true;
    kryl_status st = level_aggregates(h, l);
    double t0 = kryl_wtime();
    int64_t nc = 0;
    amg_nullspace coarse = {.k = N->k};
    if (st == KRYL_SUCCESS && N->B == NULL) {
        /* the constant: t_ij = sqrt(w_i / wc_j) on the backend */
        nc = L->naggregates;
        st = ctx->ops->alloc(ctx, (void **)&coarse.w, (size_t)nc * sizeof *coarse.w);
        if (st == KRYL_SUCCESS)
            st = ctx->ops->amg_tentative(ctx, n, L->aggregate, nc, N->w, coarse.w, &L->T);
    } else if (st == KRYL_SUCCESS) {
        st = tentative_on_host(h, L, n, N->B, N->k, &coarse.B, &nc);
    }
    h->info.prolong_s += kryl_wtime() - t0;
    nullspace_free(ctx, N);
    *N = coarse;
    KRYL_TRY(kryl_context_agree(ctx, st));
    /* the coarse rows over all ranks, this rank's numbered after those before it */
    int64_t rows[2] = {nc, n};
    amg_ranks_sum(ctx, rows, 2);
    L->coarse_rows = rows[0];
    L->coarse_begin = amg_ranks_before(ctx, nc);
    KRYL_TRY(amg_ranks_coarse_owner(h, L, nc, N->k, &N->B));
    if ((double)rows[0] > KRYL_AMG_MIN_REDUCTION * (double)rows[1] || rows[0] == 0) {
        /* coarsening has stalled: this level is the coarsest */
        if (rows[1] > KRYL_AMG_DENSE_MAX)
            kryl_log(ctx, KRYL_LOG_WARNING,
                     "amg: the coarsening stalled at level %d (%lld rows, %lld aggregates; "
                     "strength threshold %g): too few strong couplings; that level is smoothed, "
                     "not solved, so the iterations will grow with the problem",
                     l, (long long)rows[1], (long long)rows[0], level_theta(&h->opts, l));
        kryl_backend_csr_release(ctx, &L->T);
        kryl_csr_free(&L->T_host);
        return KRYL_SUCCESS;
    }
    *done = false;
    return level_numeric(h, l);
}

/* The coarsest level's dense inverse, where it is small enough. */
static kryl_status coarse_solver(amg_hierarchy *h)
{
    amg_level *L = &h->levels[h->nlevels - 1];
    int64_t n = level_rows(L);
    if (n > KRYL_AMG_DENSE_MAX || n == 0) return KRYL_SUCCESS;
    kryl_matrix M = amg_level_matrix(L);
    /* the one level the host copies on cuda: at most KRYL_AMG_DENSE_MAX rows */
    KRYL_TRY(kryl_matrix_need_host(M, "the multigrid coarsest level's inverse"));
    kryl_csr Ainv;
    kryl_matrix_destroy(&L->Ainv);
    KRYL_TRY(amg_ranks_coarse_inverse(h->ctx, &M->host->csr, &Ainv));
    return host_transfer_matrix(h->ctx, &Ainv, L->Ab->precision, NULL, &L->Ainv);
}

/* The smoothers and the coarsest level's inverse, from the levels' values. */
static kryl_status smoothers_and_coarse_solver(amg_hierarchy *h)
{
    kryl_status st = KRYL_SUCCESS;
    for (int s = 0; st == KRYL_SUCCESS && s < h->nlevels; s++) {
        amg_level *L = &h->levels[s];
        kryl_vector_destroy(&L->dinv);
        if (L->sweep.destroy) L->sweep.destroy(&L->sweep);
        memset(&L->sweep, 0, sizeof L->sweep);
        /* the coarsest level smooths only when it is too large to invert */
        if (s == h->nlevels - 1 && level_rows(L) <= KRYL_AMG_DENSE_MAX) break;
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
    for (int l = 0; l < h->nlevels; l++) {
        kryl_matrix_size(amg_level_matrix(&h->levels[l]), &info->rows[l], NULL, &info->nnz[l]);
        rows += (double)info->rows[l];
        nnz += (double)info->nnz[l];
    }
    double rows0 = (double)info->rows[0], nnz0 = (double)info->nnz[0];
    info->grid_complexity = rows0 > 0 ? rows / rows0 : 1.0;
    info->operator_complexity = nnz0 > 0 ? nnz / nnz0 : 1.0;
}

/* Whether the finest level counts as symmetric, measured where it is stored. */
static kryl_status finest_symmetric(amg_hierarchy *h)
{
    double asymmetry = INFINITY;
    amg_level *L0 = &h->levels[0];
    KRYL_TRY(kryl_matrix_measure_asymmetry(L0->Ab, "the multigrid setup", &asymmetry));
    L0->symmetric = asymmetry <= h->symmetry_tol;
    return KRYL_SUCCESS;
}

kryl_status amg_setup(amg_hierarchy *h, kryl_matrix Aw, kryl_matrix source,
                      const kryl_amg_options *opts, double symmetry_tol, bool cg_method)
{
    memset(h, 0, sizeof *h);
    h->ctx = Aw->ctx;
    h->opts = *opts;
    h->cg_method = cg_method;
    /* auto: the parallel coarsening where levels are stored on a device, one
     * rank; over ranks greedy's hierarchy solves sooner, its extra iteration
     * notwithstanding (7-point 256^3 on 4 GPUs; docs/BENCHMARKS.md) */
    if (h->opts.coarsening == KRYL_AMG_AUTO_COARSENING)
        h->opts.coarsening = h->ctx->ops->device_memory && !amg_over_ranks(h->ctx)
                                 ? KRYL_AMG_PARALLEL
                                 : KRYL_AMG_GREEDY;
    h->symmetry_tol = symmetry_tol;
    amg_level *L0 = &h->levels[0];
    L0->Ab = Aw;
    /* a single-precision Aw's level is built from its double source where
     * that is stored in Aw's order: aggregated on a device, not from the
     * host copy */
    const bool natural = Aw->layout->perm == NULL;
    L0->A = kryl_matrix_natural_csr(Aw)                                    ? Aw
            : natural && source != NULL && kryl_matrix_natural_csr(source) ? source
                                                                           : NULL;
    KRYL_TRY(finest_symmetric(h));
    KRYL_TRY(amg_agglomerate_rows(h->ctx, &h->agglomerate_rows));
    amg_nullspace N = {.k = 1};
    kryl_status st = KRYL_SUCCESS;
    /* a caller's near-nullspace, and any over ranks (gathered where a level
     * is agglomerated) or without the backend's tentative prolongator, goes
     * through the host's QR */
    if (opts->nullspace != NULL || h->ctx->ops->amg_tentative == NULL || amg_over_ranks(h->ctx))
        st = initial_nullspace(opts, local_rows(L0), &N.B);
    if (opts->nullspace != NULL) N.k = opts->nullspace_vectors;
    for (int l = 0; st == KRYL_SUCCESS; l++) {
        h->nlevels = l + 1;
        if (level_rows(&h->levels[l]) <= opts->coarse_size || l + 1 >= opts->max_levels) break;
        bool done = false;
        st = coarsen(h, l, &N, &done);
        if (done) break;
    }
    nullspace_free(h->ctx, &N);
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
        if (L->sweep.destroy) L->sweep.destroy(&L->sweep);
        kryl_matrix_destroy(&L->P);
        kryl_matrix_destroy(&L->R);
        kryl_matrix_destroy(&L->Ainv);
        if (l > 0 && L->Ab != L->A) kryl_matrix_destroy(&L->Ab);
        if (l > 0) kryl_matrix_destroy(&L->A);
        L->Ab = L->A = NULL;
        h->ctx->ops->release(h->ctx, L->aggregate);
        L->aggregate = NULL;
        kryl_backend_csr_release(h->ctx, &L->T);
        kryl_csr_free(&L->T_host);
    }
    h->nlevels = 0;
}

kryl_status amg_update(amg_hierarchy *h)
{
    KRYL_TRY(finest_symmetric(h));
    h->info.prolong_s = h->info.galerkin_s = h->info.smoother_s = h->info.backend_s = 0.0;
    h->info.strength_s = h->info.aggregate_s = 0.0;
    for (int l = 0; l + 1 < h->nlevels; l++) KRYL_TRY(level_numeric(h, l));
    double t0 = kryl_wtime();
    KRYL_TRY(smoothers_and_coarse_solver(h));
    h->info.smoother_s += kryl_wtime() - t0;
    fill_info(h);
    return KRYL_SUCCESS;
}
