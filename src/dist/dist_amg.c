/*
 * The products of smoothed aggregation over ranks (Vanek, Mandel & Brezina
 * 1996, section 3, as src/amg/amg_galerkin.c forms them on one rank), from
 * a rank's rows of A and the tentative prolongator T of its own
 * aggregates (no aggregate crosses a rank boundary, so T is block
 * diagonal over the ranks):
 *   - the rank's rows are one matrix over [owned columns; ghosts] (the
 *     halo of A), and the rows of T, then of P, at the ghosts come from
 *     their owners (kryl_halo_ghost_rows), so P = (I - omega D^-1 A) T and
 *     A P are host products of local pieces (kryl_csr_multiply) over
 *     compact column numberings;
 *   - P' (A P) summed over the rank's own fine rows is its share of
 *     A_c = P' A P, and the transpose of its rows of P its share of R = P':
 *     the rows of a share the rank owns stay, the others go to the ranks
 *     owning them (kryl_dist_route_entries), which add them to theirs;
 *   - the coarsest matrix is gathered on every rank and inverted there.
 */
#include <stdlib.h>
#include <string.h>

#include "amg/amg.h"
#include "core/host_threads.h"
#include "core/huge_pages.h"
#include "dist/dist_internal.h"

/* X = [loc nl] over the columns [owned; ghosts] (nl's columns shifted by n). */
static kryl_status extended(const kryl_csr *loc, const kryl_csr *nl, int threads, kryl_csr *X)
{
    int64_t n = loc->nrows;
    KRYL_TRY(kryl_csr_alloc(X, n, loc->ncols + nl->ncols, kryl_csr_nnz(loc) + kryl_csr_nnz(nl)));
    for (int64_t i = 0; i < n; i++)
        X->row_ptr[i + 1] = X->row_ptr[i] + (loc->row_ptr[i + 1] - loc->row_ptr[i]) +
                            (nl->row_ptr[i + 1] - nl->row_ptr[i]);
    KRYL_HOST_PARALLEL_FOR(threads)
    for (int64_t i = 0; i < n; i++) {
        int64_t out = X->row_ptr[i];
        for (int64_t k = loc->row_ptr[i]; k < loc->row_ptr[i + 1]; k++, out++) {
            X->col_idx[out] = loc->col_idx[k];
            X->values[out] = loc->values[k];
        }
        for (int64_t k = nl->row_ptr[i]; k < nl->row_ptr[i + 1]; k++, out++) {
            X->col_idx[out] = (int32_t)(loc->ncols + nl->col_idx[k]);
            X->values[out] = nl->values[k];
        }
    }
    return KRYL_SUCCESS;
}

static int compare_int32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* C = the rows of `own` then those of `ghost` (global columns) over compact
 * columns: [lo, hi) as 0..hi-lo-1, then the other columns that occur, in
 * increasing order; map[c] = the global column of compact column c. */
static kryl_status compact_columns(const kryl_csr *own, const kryl_csr *ghost, int64_t lo,
                                   int64_t hi, int threads, kryl_csr *C, int32_t **map)
{
    int64_t a = kryl_csr_nnz(own), b = kryl_csr_nnz(ghost), others = 0;
    int32_t *list = kryl_huge_malloc((size_t)(hi - lo + a + b + 1) * sizeof *list);
    kryl_status st = list ? kryl_csr_alloc(C, own->nrows + ghost->nrows, 0, a + b)
                          : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "amg: cannot allocate %lld columns",
                                       (long long)(a + b));
    if (st != KRYL_SUCCESS) {
        free(list);
        return st;
    }
    int32_t *outside = list + (hi - lo);
    for (int64_t k = 0; k < a + b; k++) {
        int32_t j = k < a ? own->col_idx[k] : ghost->col_idx[k - a];
        if (j < lo || j >= hi) outside[others++] = j;
    }
    qsort(outside, (size_t)others, sizeof *outside, compare_int32);
    int64_t unique = 0;
    for (int64_t k = 0; k < others; k++)
        if (unique == 0 || outside[k] != outside[unique - 1]) outside[unique++] = outside[k];
    for (int64_t c = 0; c < hi - lo; c++) list[c] = (int32_t)(lo + c);
    C->ncols = hi - lo + unique;
    for (int64_t i = 0; i < C->nrows; i++) {
        const kryl_csr *M = i < own->nrows ? own : ghost;
        int64_t r = i < own->nrows ? i : i - own->nrows;
        C->row_ptr[i + 1] = C->row_ptr[i] + (M->row_ptr[r + 1] - M->row_ptr[r]);
    }
    KRYL_HOST_PARALLEL_FOR(threads)
    for (int64_t i = 0; i < C->nrows; i++) {
        const kryl_csr *M = i < own->nrows ? own : ghost;
        int64_t r = i < own->nrows ? i : i - own->nrows;
        int64_t len = M->row_ptr[r + 1] - M->row_ptr[r];
        for (int64_t k = 0; k < len; k++) {
            int32_t j = M->col_idx[M->row_ptr[r] + k];
            int64_t c = j - lo;
            if (j < lo || j >= hi) {
                const int32_t *at = bsearch(&j, outside, (size_t)unique, sizeof j, compare_int32);
                c = hi - lo + (at - outside);
            }
            C->col_idx[C->row_ptr[i] + k] = (int32_t)c;
            C->values[C->row_ptr[i] + k] = M->values[M->row_ptr[r] + k];
        }
    }
    *map = list;
    return KRYL_SUCCESS;
}

/* C's compact columns back to global ones through map (rows sorted again). */
static void expand_columns(kryl_csr *C, const int32_t *map, int64_t ncols, int threads)
{
    KRYL_HOST_PARALLEL_FOR(threads)
    for (int64_t i = 0; i < C->nrows; i++) {
        for (int64_t k = C->row_ptr[i]; k < C->row_ptr[i + 1]; k++)
            C->col_idx[k] = map[C->col_idx[k]];
        kryl_csr_sort_row(C->col_idx + C->row_ptr[i], C->values + C->row_ptr[i],
                          C->row_ptr[i + 1] - C->row_ptr[i]);
    }
    C->ncols = ncols;
}

/* M's rows with global columns: T's (the rank's coarse rows from coarse_begin). */
static kryl_status global_tentative(const kryl_csr *T, int64_t coarse_begin, int64_t coarse_rows,
                                    kryl_csr *M)
{
    KRYL_TRY(kryl_csr_alloc(M, T->nrows, coarse_rows, kryl_csr_nnz(T)));
    memcpy(M->row_ptr, T->row_ptr, ((size_t)T->nrows + 1) * sizeof *M->row_ptr);
    for (int64_t k = 0; k < kryl_csr_nnz(T); k++) {
        M->col_idx[k] = (int32_t)(coarse_begin + T->col_idx[k]);
        M->values[k] = T->values[k];
    }
    return KRYL_SUCCESS;
}

/* The rows [begin, end) of a matrix of nrows x ncols from entries every
 * rank holds some of (each sent to the rank owning its row, repeats summed). */
static kryl_status route_rows(kryl_context ctx, kryl_coo *coo, int64_t begin, int64_t end,
                              kryl_csr *M)
{
    kryl_coo routed;
    memset(M, 0, sizeof *M);
    kryl_status st = kryl_dist_route_entries(ctx, coo, begin, end, &routed);
    if (st == KRYL_SUCCESS)
        st = kryl_csr_from_coo_on(M, &routed, coo->nrows, begin, end, kryl_host_threads(ctx));
    kryl_coo_free(&routed);
    return kryl_dist_agree(ctx, st);
}

/* The entries of M's rows (global from M->row_begin, or through the row
 * map rmap; M->row_ptr need not start at 0) as coordinates, columns through
 * cmap where given. */
static kryl_status entries(const kryl_csr *M, const int32_t *rmap, const int32_t *cmap,
                           int64_t nrows, int64_t ncols, int threads, kryl_coo *coo)
{
    memset(coo, 0, sizeof *coo);
    coo->nrows = nrows;
    coo->ncols = ncols;
    const int64_t base = M->row_ptr[0], nnz = M->row_ptr[M->nrows] - base;
    KRYL_TRY(kryl_coo_reserve(coo, nnz > 0 ? nnz : 1));
    KRYL_HOST_PARALLEL_FOR(threads)
    for (int64_t i = 0; i < M->nrows; i++)
        for (int64_t k = M->row_ptr[i]; k < M->row_ptr[i + 1]; k++) {
            coo->rows[k - base] = rmap ? rmap[i] : M->row_begin + i;
            coo->cols[k - base] = cmap ? cmap[M->col_idx[k]] : M->col_idx[k];
            coo->values[k - base] = M->values[k];
        }
    coo->count = nnz;
    return KRYL_SUCCESS;
}

/* The transpose T of a rank's rows of a matrix with ncols columns, those
 * rows starting at global row `first`: its columns made global. */
static void global_columns(kryl_csr *T, int64_t first, int64_t ncols, int threads)
{
    KRYL_HOST_PARALLEL_STATIC(threads)
    for (int64_t k = 0; k < kryl_csr_nnz(T); k++) T->col_idx[k] += (int32_t)first;
    T->ncols = ncols;
}

/* M's entries outside the columns [lo, hi), transposed as coordinates
 * (*far: the column as the row, M's global row as the column), in M's
 * row order.  L: M's entries inside them (kryl_csr_split_columns), whose
 * offsets give those outside before each row (M's less L's), or NULL:
 * counted here. */
static kryl_status far_entries(const kryl_csr *M, const kryl_csr *L, int64_t lo, int64_t hi,
                               int threads, kryl_coo *far)
{
    const int64_t n = M->nrows;
    memset(far, 0, sizeof *far);
    far->nrows = M->ncols;
    far->ncols = M->nrows_global;
    int64_t *at = kryl_huge_calloc((size_t)n + 1, sizeof *at);
    if (at == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate %lld row offsets", (long long)n);
    /* at = prefix sums of each row's entries outside the block: M's offsets less L's, or
     * counted row by row and summed */
    if (L != NULL) {
        KRYL_HOST_PARALLEL_FOR(threads)
        for (int64_t i = 0; i < n; i++) at[i + 1] = M->row_ptr[i + 1] - L->row_ptr[i + 1];
    } else {
        KRYL_HOST_PARALLEL_FOR(threads)
        for (int64_t i = 0; i < n; i++)
            for (int64_t k = M->row_ptr[i]; k < M->row_ptr[i + 1]; k++)
                at[i + 1] += M->col_idx[k] < lo || M->col_idx[k] >= hi;
        kryl_prefix_sum(at + 1, n, threads);
    }
    kryl_status st = kryl_coo_reserve(far, at[n] > 0 ? at[n] : 1);
    if (st == KRYL_SUCCESS) {
        KRYL_HOST_PARALLEL_FOR(threads)
        for (int64_t i = 0; i < n; i++) {
            int64_t e = at[i];
            for (int64_t k = M->row_ptr[i]; k < M->row_ptr[i + 1]; k++)
                if (M->col_idx[k] < lo || M->col_idx[k] >= hi) {
                    far->rows[e] = M->col_idx[k];
                    far->cols[e] = M->row_begin + i;
                    far->values[e++] = M->values[k];
                }
        }
        far->count = at[n];
    }
    free(at);
    return st;
}

/* M's entries in the columns [lo, hi) as L (M's rows, the columns less
 * lo), the others as far_entries gives them. */
static kryl_status split_columns(const kryl_csr *M, int64_t lo, int64_t hi, int threads,
                                 kryl_csr *L, kryl_coo *far)
{
    memset(far, 0, sizeof *far);
    KRYL_TRY(kryl_csr_split_columns(M, lo, hi, threads, L, NULL));
    kryl_status st = far_entries(M, L, lo, hi, threads, far);
    if (st != KRYL_SUCCESS) kryl_csr_free(L);
    return st;
}

kryl_status kryl_dist_csr_transpose(kryl_context ctx, const kryl_csr *M, int64_t col_begin,
                                    int64_t col_end, kryl_csr *T)
{
    int threads = kryl_host_threads(ctx);
    kryl_csr L = {0}, Lt = {0}, routed = {0};
    kryl_coo far;
    memset(T, 0, sizeof *T);
    /* the columns this rank owns transposed here, the others routed to their owners */
    kryl_status st = split_columns(M, col_begin, col_end, threads, &L, &far);
    if (st == KRYL_SUCCESS) st = kryl_csr_transpose_on(&L, &Lt, threads);
    if (st == KRYL_SUCCESS) {
        global_columns(&Lt, M->row_begin, M->nrows_global, threads);
        Lt.row_begin = col_begin;
        Lt.nrows_global = M->ncols;
    }
    st = kryl_dist_agree(ctx, st);
    if (st == KRYL_SUCCESS) st = route_rows(ctx, &far, col_begin, col_end, &routed);
    if (st == KRYL_SUCCESS) st = kryl_dist_agree(ctx, kryl_csr_add_on(&Lt, &routed, T, threads));
    kryl_csr *all[] = {&L, &Lt, &routed};
    for (size_t m = 0; m < sizeof all / sizeof all[0]; m++) kryl_csr_free(all[m]);
    kryl_coo_free(&far);
    return st;
}

/* The rows [cb, ce) of a matrix of nrows_global x ncols summed from every
 * rank's share: this rank's is S, its rows through rmap to global ones
 * and its columns through cmap (NULL: global already), the rank's own
 * rows first (ce - cb of them).  Those stay, their columns mapped in
 * place; the others' are routed to their owners; the two are added. */
static kryl_status sum_shares(kryl_context ctx, kryl_csr *S, const int32_t *rmap,
                              const int32_t *cmap, int64_t cb, int64_t ce, int64_t nrows_global,
                              int64_t ncols, kryl_csr *M)
{
    int threads = kryl_host_threads(ctx);
    const int64_t own = ce - cb;
    kryl_csr mine = *S, theirs = *S, routed = {0};
    kryl_coo far = {0};
    /* the rows after the own ones: other ranks' (read before the own rows' columns change) */
    theirs.row_ptr += own;
    theirs.nrows -= own;
    kryl_status st = entries(&theirs, rmap + own, cmap, nrows_global, ncols, threads, &far);
    mine.nrows = own;
    mine.row_begin = cb;
    mine.nrows_global = nrows_global;
    mine.ncols = ncols;
    if (cmap != NULL) expand_columns(&mine, cmap, ncols, threads);
    st = kryl_dist_agree(ctx, st);
    if (st == KRYL_SUCCESS) st = route_rows(ctx, &far, cb, ce, &routed);
    if (st == KRYL_SUCCESS) st = kryl_dist_agree(ctx, kryl_csr_add_on(&mine, &routed, M, threads));
    kryl_csr_free(&routed);
    kryl_coo_free(&far);
    return st;
}

/* Ac = (Ac + Ac') / 2 where Ac's pattern is symmetric over the ranks (a + b
 * == b + a: symmetric to the last bit; *done), else Ac as it is.  Without a
 * transpose: an entry's mirror is in the rank's own rows, or, where another
 * rank owns its column, sent by that rank (its entries in this rank's
 * columns, transposed). */
static kryl_status symmetrize(kryl_context ctx, kryl_csr *Ac, bool *done)
{
    int threads = kryl_host_threads(ctx);
    const int64_t lo = Ac->row_begin, hi = lo + Ac->nrows, nnz = kryl_csr_nnz(Ac);
    kryl_csr far = {0};
    kryl_coo out;
    *done = false;
    kryl_status st = kryl_dist_agree(ctx, far_entries(Ac, NULL, lo, hi, threads, &out));
    if (st == KRYL_SUCCESS) st = route_rows(ctx, &out, lo, hi, &far);
    kryl_coo_free(&out);
    double *mirror =
        st == KRYL_SUCCESS ? kryl_huge_malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *mirror) : NULL;
    if (st == KRYL_SUCCESS && mirror == NULL)
        st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "amg: cannot allocate %lld mirrored entries",
                        (long long)nnz);
    st = kryl_dist_agree(ctx, st);
    if (st == KRYL_SUCCESS) {
        int64_t absent = kryl_csr_mirror_values(Ac, &far, mirror, threads);
        MPI_Allreduce(MPI_IN_PLACE, &absent, 1, MPI_INT64_T, MPI_SUM, ctx->dist->comm);
        if (absent == 0) kryl_csr_average(Ac, mirror, threads);
        *done = absent == 0;
    }
    free(mirror);
    kryl_csr_free(&far);
    return st;
}

/* The pieces of one rank's products, freed together. */
typedef struct products {
    kryl_dist_rows *rows;
    kryl_halo *halo;
    kryl_csr loc, nl, X, T, ghost, Tc, S, Pc, AP, Pt, C;
    int32_t *map;
} products;

static void products_free(products *p)
{
    kryl_dist_rows_release(p->rows);
    kryl_halo_release(p->halo);
    kryl_csr *all[] = {&p->loc, &p->nl, &p->X,  &p->T,  &p->ghost, &p->Tc,
                       &p->S,   &p->Pc, &p->AP, &p->Pt, &p->C};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) kryl_csr_free(all[i]);
    free(p->map);
}

/* P of the rank's rows (global coarse columns). */
static kryl_status prolongator(kryl_context ctx, products *p, const kryl_csr *A, int64_t cb,
                               int64_t ce, double omega, kryl_csr *P)
{
    struct kryl_dist_context *dc = ctx->dist;
    int threads = kryl_host_threads(ctx);
    if (omega == 0.0) {
        /* P = T */
        *P = p->T;
        memset(&p->T, 0, sizeof p->T);
        return KRYL_SUCCESS;
    }
    /* T's rows at A's ghosts, then P = S [T; T_ghosts] over compact columns */
    kryl_status st = kryl_halo_ghost_rows(dc, p->halo, &p->T, &p->ghost);
    if (st == KRYL_SUCCESS)
        st = compact_columns(&p->T, &p->ghost, cb, ce, threads, &p->Tc, &p->map);
    /* S = I - omega D^-1 A over [owned; ghosts]: a_ii is at column i */
    if (st == KRYL_SUCCESS) st = amg_jacobi_operator(&p->X, A->row_begin, omega, threads, &p->S);
    if (st == KRYL_SUCCESS) st = kryl_csr_multiply(&p->S, &p->Tc, P, threads);
    st = kryl_dist_agree(ctx, st);
    if (st == KRYL_SUCCESS) expand_columns(P, p->map, p->T.ncols, threads);
    kryl_csr_free(&p->ghost);
    free(p->map);
    p->map = NULL;
    return st;
}

kryl_status kryl_dist_amg_products(kryl_context ctx, const kryl_csr *A, const kryl_csr *T,
                                   int64_t coarse_begin, int64_t coarse_rows,
                                   const int64_t owned[2], double omega, bool symmetric,
                                   kryl_csr *P, kryl_csr *R, kryl_csr *Ac, bool *Ac_symmetric)
{
    struct kryl_dist_context *dc = ctx->dist;
    int threads = kryl_host_threads(ctx);
    int64_t cb = owned[0], ce = owned[1], n = A->nrows;
    products p;
    memset(&p, 0, sizeof p);
    memset(P, 0, sizeof *P);
    memset(R, 0, sizeof *R);
    memset(Ac, 0, sizeof *Ac);
    kryl_status st = kryl_dist_rows_gather(dc, A->row_begin, n, A->nrows_global, &p.rows);
    if (st == KRYL_SUCCESS) st = kryl_halo_build(dc, A, p.rows->begin, &p.halo, &p.loc, &p.nl);
    if (st == KRYL_SUCCESS) st = extended(&p.loc, &p.nl, threads, &p.X);
    if (st == KRYL_SUCCESS) st = global_tentative(T, coarse_begin, coarse_rows, &p.T);
    st = kryl_dist_agree(ctx, st);
    if (st == KRYL_SUCCESS) st = prolongator(ctx, &p, A, cb, ce, omega, P);
    if (st == KRYL_SUCCESS) {
        P->row_begin = A->row_begin;
        P->nrows_global = A->nrows_global;
        /* A P over [P; P's rows at the ghosts] in compact columns; C = P' (A P) of the rank's rows
         */
        st = kryl_halo_ghost_rows(dc, p.halo, P, &p.ghost);
    }
    if (st == KRYL_SUCCESS) st = compact_columns(P, &p.ghost, cb, ce, threads, &p.Pc, &p.map);
    if (st == KRYL_SUCCESS) st = kryl_csr_multiply(&p.X, &p.Pc, &p.AP, threads);
    if (st == KRYL_SUCCESS) {
        kryl_csr own = p.Pc;
        own.nrows = n; /* the rank's rows of [P; P_ghosts] */
        st = kryl_csr_transpose_on(&own, &p.Pt, threads);
    }
    if (st == KRYL_SUCCESS) st = kryl_csr_multiply(&p.Pt, &p.AP, &p.C, threads);
    /* the rank's share of Ac: each entry to the rank owning its row */
    st = kryl_dist_agree(ctx, st);
    if (st == KRYL_SUCCESS)
        st = sum_shares(ctx, &p.C, p.map, p.map, cb, ce, coarse_rows, coarse_rows, Ac);
    if (st == KRYL_SUCCESS) {
        /* R = P': the ranks' transposes of their rows of P summed */
        global_columns(&p.Pt, A->row_begin, A->nrows_global, threads);
        st = sum_shares(ctx, &p.Pt, p.map, NULL, cb, ce, coarse_rows, A->nrows_global, R);
    }
    *Ac_symmetric = false;
    if (st == KRYL_SUCCESS && symmetric) st = symmetrize(ctx, Ac, Ac_symmetric);
    products_free(&p);
    if (st != KRYL_SUCCESS) {
        kryl_csr_free(P);
        kryl_csr_free(R);
        kryl_csr_free(Ac);
    }
    return st;
}

kryl_status kryl_dist_amg_coarse_inverse(kryl_context ctx, const kryl_csr *A, kryl_csr *Ainv)
{
    struct kryl_dist_context *dc = ctx->dist;
    int size = dc->size;
    int64_t N = A->nrows_global, nnz = kryl_csr_nnz(A);
    memset(Ainv, 0, sizeof *Ainv);
    int *counts = malloc(4 * (size_t)size * sizeof *counts);
    int64_t *len = malloc(((size_t)N + 1) * sizeof *len);
    int64_t mine[2] = {A->nrows, nnz}, *all = malloc(2 * (size_t)size * sizeof *all);
    kryl_csr W = {0}, Winv = {0};
    kryl_status st = counts && len && all ? KRYL_SUCCESS
                                          : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                                                       "amg: cannot gather the coarsest matrix");
    st = kryl_dist_agree(ctx, st);
    if (st != KRYL_SUCCESS) goto done;
    MPI_Allgather(mine, 2, MPI_INT64_T, all, 2, MPI_INT64_T, dc->comm);
    int *rc = counts, *rd = counts + size, *ec = counts + 2 * size, *ed = counts + 3 * size;
    int64_t total = 0;
    for (int p = 0; p < size; p++) {
        rc[p] = (int)all[2 * p];
        rd[p] = p == 0 ? 0 : rd[p - 1] + rc[p - 1];
        ec[p] = (int)all[2 * p + 1];
        ed[p] = (int)total;
        total += all[2 * p + 1];
    }
    /* rank p's row lengths at rd[p] = its first row */
    for (int64_t i = 0; i < A->nrows; i++)
        len[A->row_begin + i] = A->row_ptr[i + 1] - A->row_ptr[i];
    st = kryl_dist_agree(ctx, kryl_csr_alloc(&W, N, N, total));
    if (st != KRYL_SUCCESS) goto done;
    /* every rank's rows, lengths first */
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, len, rc, rd, MPI_INT64_T, dc->comm);
    MPI_Allgatherv(A->col_idx, (int)nnz, MPI_INT32_T, W.col_idx, ec, ed, MPI_INT32_T, dc->comm);
    MPI_Allgatherv(A->values, (int)nnz, MPI_DOUBLE, W.values, ec, ed, MPI_DOUBLE, dc->comm);
    for (int64_t i = 0; i < N; i++) W.row_ptr[i + 1] = W.row_ptr[i] + len[i];
    /* the same inverse on every rank; this rank keeps its rows */
    st = kryl_dist_agree(ctx, amg_dense_inverse(&W, &Winv));
    if (st == KRYL_SUCCESS)
        st = kryl_dist_agree(ctx, kryl_csr_alloc(Ainv, A->nrows, N, A->nrows * N));
    if (st != KRYL_SUCCESS) goto done;
    Ainv->row_begin = A->row_begin;
    Ainv->nrows_global = N;
    for (int64_t i = 0; i < A->nrows; i++) Ainv->row_ptr[i + 1] = (i + 1) * N;
    memcpy(Ainv->col_idx, Winv.col_idx + A->row_begin * N,
           (size_t)(A->nrows * N) * sizeof(int32_t));
    memcpy(Ainv->values, Winv.values + A->row_begin * N, (size_t)(A->nrows * N) * sizeof(double));
done:
    free(counts);
    free(len);
    free(all);
    kryl_csr_free(&W);
    kryl_csr_free(&Winv);
    return st;
}

kryl_status kryl_dist_gather_columns(kryl_context ctx, double **B, int64_t n, int k, int64_t total)
{
    struct kryl_dist_context *dc = ctx->dist;
    int *counts = malloc(2 * (size_t)dc->size * sizeof *counts);
    double *all = malloc(((size_t)(dc->rank == 0 ? total : 0) * k + 1) * sizeof *all);
    kryl_status st = counts && all
                         ? KRYL_SUCCESS
                         : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot gather %lld x %d values",
                                      (long long)total, k);
    st = kryl_dist_agree(ctx, st);
    if (st == KRYL_SUCCESS) {
        int mine = (int)n, *displs = counts + dc->size;
        MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, dc->comm);
        for (int p = 0; dc->rank == 0 && p < dc->size; p++)
            displs[p] = p == 0 ? 0 : displs[p - 1] + counts[p - 1];
        /* column c of rank 0's = column c of every rank's, in rank order */
        for (int c = 0; c < k; c++)
            MPI_Gatherv(*B + (size_t)c * n, mine, MPI_DOUBLE, all + (size_t)c * total, counts,
                        displs, MPI_DOUBLE, 0, dc->comm);
        free(*B);
        *B = all;
        all = NULL;
    }
    free(counts);
    free(all);
    return st;
}
