/*
 * The hierarchy over several ranks (a distributed level matrix): each
 * rank aggregates its own rows on the strength graph of its diagonal block
 * (the couplings among its rows), so no aggregate crosses a rank
 * boundary; the coarse rows are numbered rank after rank (an exclusive
 * scan of the ranks' counts), so rank r owns the coarse rows of its own
 * aggregates and every level is split over the ranks like the one above
 * it.  The products are src/dist/dist_amg.c's.  On one rank (or in a
 * build without MPI) every call here is the identity.
 */
#include <stdlib.h>

#include "amg/amg.h"
#include "core/host_threads.h"
#ifdef KRYL_HAVE_MPI
#include "dist/dist.h"
#endif

bool amg_over_ranks(kryl_context ctx)
{
#ifdef KRYL_HAVE_MPI
    return kryl_dist_active(ctx);
#else
    (void)ctx;
    return false;
#endif
}

void amg_ranks_sum(kryl_context ctx, int64_t *values, int count)
{
#ifdef KRYL_HAVE_MPI
    if (kryl_dist_active(ctx)) kryl_dist_host_sum(ctx, values, count);
#endif
    (void)ctx, (void)values, (void)count;
}

void amg_ranks_max(kryl_context ctx, double *values, int count)
{
#ifdef KRYL_HAVE_MPI
    if (kryl_dist_active(ctx)) kryl_dist_host_max(ctx, values, count);
#endif
    (void)ctx, (void)values, (void)count;
}

int64_t amg_ranks_before(kryl_context ctx, int64_t count)
{
#ifdef KRYL_HAVE_MPI
    if (kryl_dist_active(ctx)) return kryl_dist_host_exscan(ctx, count);
#endif
    (void)ctx, (void)count;
    return 0;
}

kryl_status amg_agglomerate_rows(kryl_context ctx, int64_t *rows)
{
    const char *text = getenv("KRYL_AMG_AGGLOMERATE");
    kryl_status st = KRYL_SUCCESS;
    *rows = KRYL_AMG_AGGLOMERATE_ROWS;
    if (text != NULL && text[0] != '\0') {
        char *end = NULL;
        long long v = strtoll(text, &end, 10);
        if (*end != '\0' || v < 0 || v > INT32_MAX)
            st = KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                            "KRYL_AMG_AGGLOMERATE='%s': expected the rows per rank below which "
                            "a coarse level goes to rank 0 (0: never), a non-negative integer",
                            text);
        else
            *rows = v;
    }
    /* every rank takes the same: the largest */
    double agreed = st == KRYL_SUCCESS ? (double)*rows : 0.0;
    amg_ranks_max(ctx, &agreed, 1);
    *rows = (int64_t)agreed;
    return kryl_context_agree(ctx, st);
}

kryl_status amg_ranks_coarse_owner(const amg_hierarchy *h, amg_level *L, int64_t nc, int k,
                                   double **Bc)
{
    int rank = 0, size = 1;
    kryl_context_rank(h->ctx, &rank, &size);
    L->coarse_owned[0] = L->coarse_begin;
    L->coarse_owned[1] = L->coarse_begin + nc;
    if (size == 1 || L->coarse_rows >= h->agglomerate_rows * size) return KRYL_SUCCESS;
    /* agglomerated: the whole level on rank 0, with its near-nullspace rows */
    L->coarse_owned[0] = rank == 0 ? 0 : L->coarse_rows;
    L->coarse_owned[1] = L->coarse_rows;
#ifdef KRYL_HAVE_MPI
    return kryl_dist_gather_columns(h->ctx, Bc, nc, k, L->coarse_rows);
#else
    (void)k, (void)Bc;
    return KRYL_SUCCESS;
#endif
}

void amg_boundary_singletons(const kryl_csr *A, int32_t *aggregate, int64_t *count)
{
    int64_t lo = A->row_begin, hi = lo + A->nrows;
    for (int64_t i = 0; i < A->nrows; i++) {
        if (aggregate[i] >= 0) continue;
        bool outside = false;
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1] && !outside; k++)
            outside = (A->col_idx[k] < lo || A->col_idx[k] >= hi) && A->values[k] != 0.0;
        if (outside) aggregate[i] = (int32_t)(*count)++;
    }
}

kryl_status amg_ranks_products(amg_hierarchy *h, const amg_level *L, const kryl_csr *A,
                               double omega, kryl_csr *P, kryl_csr *R, kryl_csr *Ac,
                               bool *Ac_symmetric)
{
#ifdef KRYL_HAVE_MPI
    double t0 = kryl_wtime();
    kryl_status st =
        kryl_dist_amg_products(h->ctx, A, &L->T_host, L->coarse_begin, L->coarse_rows,
                               L->coarse_owned, omega, L->symmetric, P, R, Ac, Ac_symmetric);
    h->info.galerkin_s += kryl_wtime() - t0;
    return st;
#else
    (void)h, (void)L, (void)A, (void)omega, (void)P, (void)R, (void)Ac, (void)Ac_symmetric;
    return KRYL_ERROR(KRYL_ERR_INTERNAL, "amg: a hierarchy over ranks in a build without MPI");
#endif
}

kryl_status amg_ranks_transpose(kryl_context ctx, const kryl_csr *P, int64_t coarse_begin,
                                int64_t coarse_end, kryl_csr *R)
{
#ifdef KRYL_HAVE_MPI
    if (kryl_dist_active(ctx)) return kryl_dist_csr_transpose(ctx, P, coarse_begin, coarse_end, R);
#endif
    (void)coarse_begin, (void)coarse_end;
    return kryl_csr_transpose_on(P, R, kryl_host_threads(ctx));
}

kryl_status amg_ranks_coarse_inverse(kryl_context ctx, const kryl_csr *A, kryl_csr *Ainv)
{
#ifdef KRYL_HAVE_MPI
    if (kryl_dist_active(ctx)) return kryl_dist_amg_coarse_inverse(ctx, A, Ainv);
#endif
    (void)ctx;
    return amg_dense_inverse(A, Ainv);
}
