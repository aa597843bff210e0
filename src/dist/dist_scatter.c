/* Reading on one rank: rank 0 reads a Matrix Market file, partitions its
 * rows (contiguous by nonzeros, or a graph partition with the rows
 * renumbered part by part) and hands each rank its rows; vectors in the
 * file's order are scattered and gathered through that renumbering. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/huge_pages.h"
#include "dist/dist_internal.h"
#include "io/mtx.h"
#include "kryl_mpi.h"
#include "order/order.h"

/* Rank 0's status and message, made every rank's. */
static kryl_status share_root_status(struct kryl_dist_context *dc, kryl_status st)
{
    char message[512] = "";
    int code = (int)st;
    if (dc->rank == 0 && st != KRYL_SUCCESS)
        snprintf(message, sizeof message, "%s", kryl_last_error());
    MPI_Bcast(&code, 1, MPI_INT, 0, dc->comm);
    if (code == KRYL_SUCCESS) return st;
    MPI_Bcast(message, (int)sizeof message, MPI_CHAR, 0, dc->comm);
    if (dc->rank == 0) return st;
    return KRYL_ERROR((kryl_status)code, "rank 0: %s", message);
}

/* Rank 0: partition the rows of the whole matrix A (orig NULL: contiguous);
 * a graph partition renumbers A in place. */
static kryl_status root_partition(struct kryl_dist_context *dc, kryl_csr *A, int64_t *begin,
                                  int64_t **orig)
{
    kryl_partition_kind kind = dc->partition;
    if (kind == KRYL_PARTITION_AUTO)
        kind = kryl_order_have_metis() ? KRYL_PARTITION_METIS : KRYL_PARTITION_CONTIGUOUS;
    if (kind == KRYL_PARTITION_CONTIGUOUS || A->nrows != A->ncols) {
        kryl_partition_contiguous(A->row_ptr, A->nrows, dc->size, begin);
        return KRYL_SUCCESS;
    }
    kryl_status st = KRYL_SUCCESS;
    *orig = kryl_huge_malloc((size_t)(A->nrows > 0 ? A->nrows : 1) * sizeof **orig);
    if (*orig == NULL) st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a renumbering");
    if (st == KRYL_SUCCESS) st = kryl_partition_graph(A, dc->size, *orig, begin);
    kryl_csr B;
    if (st == KRYL_SUCCESS) st = kryl_csr_renumber(A, *orig, &B);
    if (st == KRYL_SUCCESS) {
        kryl_csr_free(A);
        *A = B;
    }
    return st;
}

/* Rank 0: read the whole matrix and partition it. */
static kryl_status root_read(struct kryl_dist_context *dc, const char *path, kryl_csr *A,
                             int64_t *begin, int64_t **orig)
{
    KRYL_TRY(kryl_mtx_read_csr(path, A, NULL, NULL));
    return root_partition(dc, A, begin, orig);
}

/* Rank 0: a copy of the whole matrix src, partitioned. */
static kryl_status root_copy(struct kryl_dist_context *dc, const kryl_csr *src, kryl_csr *A,
                             int64_t *begin, int64_t **orig)
{
    if (src->row_begin != 0 || src->nrows != src->nrows_global)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "kryl_matrix_distribute: rank 0's matrix owns rows [%lld, %lld) of "
                          "%lld; it must hold the whole matrix",
                          (long long)src->row_begin, (long long)(src->row_begin + src->nrows),
                          (long long)src->nrows_global);
    KRYL_TRY(kryl_csr_alloc(A, src->nrows, src->ncols, kryl_csr_nnz(src)));
    memcpy(A->row_ptr, src->row_ptr, ((size_t)src->nrows + 1) * sizeof *A->row_ptr);
    memcpy(A->col_idx, src->col_idx, (size_t)kryl_csr_nnz(src) * sizeof *A->col_idx);
    memcpy(A->values, src->values, (size_t)kryl_csr_nnz(src) * sizeof *A->values);
    return root_partition(dc, A, begin, orig);
}

enum { ENTRIES_TAG = 7302, CHUNK = 1 << 30 /* entries per message: MPI counts are ints */ };

/* count entries of `bytes` each from root to rank dest (any count: in chunks) ... */
static void send_entries(const void *buf, int64_t count, MPI_Datatype type, size_t bytes, int dest,
                         MPI_Comm comm)
{
    for (int64_t k = 0; k < count; k += CHUNK) {
        int c = (int)(count - k < CHUNK ? count - k : CHUNK);
        MPI_Send((const char *)buf + (size_t)k * bytes, c, type, dest, ENTRIES_TAG, comm);
    }
}

/* ... and their receipt on dest */
static void recv_entries(void *buf, int64_t count, MPI_Datatype type, size_t bytes, MPI_Comm comm)
{
    for (int64_t k = 0; k < count; k += CHUNK) {
        int c = (int)(count - k < CHUNK ? count - k : CHUNK);
        MPI_Recv((char *)buf + (size_t)k * bytes, c, type, 0, ENTRIES_TAG, comm, MPI_STATUS_IGNORE);
    }
}

/* Each rank's rows of root's A (rank 0 keeps its own).  Entries travel by
 * 64-bit offsets in chunks, so a matrix past 2^31 entries is handed out
 * whole (a scatter's int displacements would overflow). */
static kryl_status scatter_rows(struct kryl_dist_context *dc, const kryl_csr *A,
                                const int64_t *begin, int64_t dims[2], kryl_csr *mine)
{
    int size = dc->size, rank = dc->rank;
    int *counts = calloc(2 * (size_t)size, sizeof *counts);
    int64_t *entries = calloc((size_t)size, sizeof *entries);
    if (counts == NULL || entries == NULL) {
        free(counts);
        free(entries);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate scatter counts");
    }
    int *rc = counts, *rd = counts + size;
    int64_t n = begin[rank + 1] - begin[rank], nnz = 0;
    for (int p = 0; rank == 0 && p < size; p++) {
        rc[p] = (int)(begin[p + 1] - begin[p]);
        rd[p] = (int)begin[p];
        entries[p] = A->row_ptr[begin[p + 1]] - A->row_ptr[begin[p]];
    }
    MPI_Scatter(entries, 1, MPI_INT64_T, &nnz, 1, MPI_INT64_T, 0, dc->comm);
    kryl_status st = kryl_csr_alloc(mine, n, dims[1], nnz);
    st = kryl_dist_agree_comm(dc->comm, st);
    int64_t *lengths = NULL;
    if (st == KRYL_SUCCESS) {
        lengths = kryl_huge_malloc((size_t)(n > 0 ? n : 1) * sizeof *lengths);
        int64_t *all = NULL;
        if (rank == 0) {
            all = kryl_huge_malloc((size_t)(A->nrows > 0 ? A->nrows : 1) * sizeof *all);
            /* all[i] = entries of row i */
            for (int64_t i = 0; all && i < A->nrows; i++)
                all[i] = A->row_ptr[i + 1] - A->row_ptr[i];
        }
        st = lengths && (rank != 0 || all)
                 ? KRYL_SUCCESS
                 : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                              "distributing a matrix: cannot allocate the lengths of %lld rows",
                              (long long)(rank == 0 ? A->nrows : n));
        st = kryl_dist_agree_comm(dc->comm, st);
        if (st == KRYL_SUCCESS) {
            MPI_Scatterv(all, rc, rd, MPI_INT64_T, lengths, (int)n, MPI_INT64_T, 0, dc->comm);
            if (rank == 0) {
                /* rank 0's rows are the first (begin[0] = 0) */
                memcpy(mine->col_idx, A->col_idx, (size_t)entries[0] * sizeof *mine->col_idx);
                memcpy(mine->values, A->values, (size_t)entries[0] * sizeof *mine->values);
            } else {
                recv_entries(mine->col_idx, nnz, MPI_INT32_T, sizeof *mine->col_idx, dc->comm);
                recv_entries(mine->values, nnz, MPI_DOUBLE, sizeof *mine->values, dc->comm);
            }
            for (int p = 1; rank == 0 && p < size; p++) {
                const int64_t first = A->row_ptr[begin[p]];
                send_entries(A->col_idx + first, entries[p], MPI_INT32_T, sizeof *A->col_idx, p,
                             dc->comm);
                send_entries(A->values + first, entries[p], MPI_DOUBLE, sizeof *A->values, p,
                             dc->comm);
            }
            /* row_ptr = prefix sums of the row lengths */
            for (int64_t i = 0; i < n; i++) mine->row_ptr[i + 1] = mine->row_ptr[i] + lengths[i];
            mine->nrows_global = dims[0];
            mine->row_begin = begin[rank];
        }
        free(all);
    }
    free(lengths);
    free(counts);
    free(entries);
    if (st != KRYL_SUCCESS && mine->row_ptr) kryl_csr_free(mine);
    return st;
}

/* Hand every rank its rows of rank 0's partitioned whole matrix (freed);
 * st: rank 0's status so far. */
static kryl_status distribute(kryl_matrix *A, kryl_context ctx, kryl_csr *whole, int64_t *begin,
                              int64_t *orig, kryl_status st)
{
    struct kryl_dist_context *dc = ctx->dist;
    kryl_csr mine = {0};
    int64_t dims[2] = {0, 0};
    st = share_root_status(dc, st);
    if (st == KRYL_SUCCESS) {
        dims[0] = whole->nrows_global;
        dims[1] = whole->ncols;
        MPI_Bcast(dims, 2, MPI_INT64_T, 0, dc->comm);
        MPI_Bcast(begin, dc->size + 1, MPI_INT64_T, 0, dc->comm);
        st = scatter_rows(dc, whole, begin, dims, &mine);
    }
    kryl_csr_free(whole);
    if (st == KRYL_SUCCESS) st = kryl_matrix_from_csr(A, ctx, &mine);
    if (st == KRYL_SUCCESS && orig != NULL) {
        (*A)->dist->rows->orig = orig; /* rank 0: where each row came from */
        orig = NULL;
    }
    free(orig);
    return st;
}

kryl_status kryl_dist_read_mtx(kryl_matrix *A, kryl_context ctx, const char *path)
{
    struct kryl_dist_context *dc = ctx->dist;
    kryl_csr whole = {0};
    int64_t *orig = NULL;
    int64_t *begin = calloc((size_t)dc->size + 1, sizeof *begin);
    kryl_status st =
        begin ? KRYL_SUCCESS
              : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "%s: cannot allocate the row ranges of %d ranks",
                           path, dc->size);
    if (st == KRYL_SUCCESS && dc->rank == 0) st = root_read(dc, path, &whole, begin, &orig);
    st = begin ? distribute(A, ctx, &whole, begin, orig, st) : kryl_dist_agree(ctx, st);
    free(begin);
    return st;
}

kryl_status kryl_matrix_distribute(kryl_matrix *A, kryl_context ctx, kryl_matrix whole)
{
    KRYL_REQUIRE_ARG(A);
    *A = NULL;
    KRYL_REQUIRE_ARG(ctx);
    int rank = 0;
    kryl_context_rank(ctx, &rank, NULL);
    kryl_status st =
        rank == 0 && whole == NULL
            ? KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "kryl_matrix_distribute: rank 0 gave no matrix")
            : KRYL_SUCCESS;
    if (!kryl_dist_active(ctx)) {
        /* one rank: a copy on ctx */
        kryl_csr copy = {0};
        int64_t begin[2];
        struct kryl_dist_context one = {.size = 1, .partition = KRYL_PARTITION_CONTIGUOUS};
        int64_t *orig = NULL;
        if (st == KRYL_SUCCESS) st = root_copy(&one, &whole->host->csr, &copy, begin, &orig);
        return st == KRYL_SUCCESS ? kryl_matrix_from_csr(A, ctx, &copy) : st;
    }
    struct kryl_dist_context *dc = ctx->dist;
    kryl_csr mine = {0};
    int64_t *orig = NULL;
    int64_t *begin = calloc((size_t)dc->size + 1, sizeof *begin);
    if (st == KRYL_SUCCESS && begin == NULL)
        st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                        "kryl_matrix_distribute: cannot allocate the row ranges of %d ranks",
                        dc->size);
    if (st == KRYL_SUCCESS && rank == 0) st = root_copy(dc, &whole->host->csr, &mine, begin, &orig);
    st = begin ? distribute(A, ctx, &mine, begin, orig, st) : kryl_dist_agree(ctx, st);
    free(begin);
    return st;
}

/* Rank r's row count and first row, as Scatterv/Gatherv counts. */
static kryl_status row_counts(const kryl_dist_rows *rows, int size, int **counts, int **displs)
{
    *counts = malloc(2 * (size_t)size * sizeof **counts);
    if (*counts == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate the row counts of %d ranks",
                          size);
    *displs = *counts + size;
    for (int p = 0; p < size; p++) {
        (*counts)[p] = (int)(rows->begin[p + 1] - rows->begin[p]);
        (*displs)[p] = (int)rows->begin[p];
    }
    return KRYL_SUCCESS;
}

/* The buffers of moving a vector between rank 0 (all n_global values, in the
 * caller's order) and the ranks (their rows). */
typedef struct global_transfer {
    int64_t n, n_global;
    int *counts, *displs; /* rows per rank and their offsets (Scatterv/Gatherv) */
    double *mine;         /* this rank's n values */
    double *ordered;      /* rank 0, with a global renumbering: the distributed order */
} global_transfer;

static void transfer_free(global_transfer *t)
{
    free(t->ordered);
    free(t->mine);
    free(t->counts);
}

/* Allocate t for v (values must not be NULL on rank 0; `op` names the call). */
static kryl_status transfer_begin(global_transfer *t, kryl_vector v, kryl_matrix A,
                                  const double *values, const char *op)
{
    struct kryl_dist_context *dc = A->ctx->dist;
    const kryl_dist_rows *rows = A->dist->rows;
    *t = (global_transfer){.n = v->n, .n_global = rows->begin[dc->size]};
    t->mine = kryl_huge_malloc((size_t)(t->n > 0 ? t->n : 1) * sizeof *t->mine);
    if (t->mine == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    KRYL_TRY(row_counts(rows, dc->size, &t->counts, &t->displs));
    if (dc->rank == 0 && values == NULL)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "%s: values is NULL on rank 0", op);
    if (dc->rank == 0 && rows->orig != NULL) {
        t->ordered =
            kryl_huge_malloc((size_t)(t->n_global > 0 ? t->n_global : 1) * sizeof *t->ordered);
        if (t->ordered == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    }
    return KRYL_SUCCESS;
}

kryl_status kryl_dist_vector_set_global(kryl_vector v, kryl_matrix A, const double *values)
{
    struct kryl_dist_context *dc = A->ctx->dist;
    const int64_t *orig = A->dist->rows->orig;
    global_transfer t;
    kryl_status st = transfer_begin(&t, v, A, values, "kryl_vector_set_global");
    /* ordered[k] = values[orig[k]]: the caller's order -> the distributed one */
    for (int64_t k = 0; st == KRYL_SUCCESS && t.ordered && k < t.n_global; k++)
        t.ordered[k] = values[orig[k]];
    st = kryl_dist_agree(A->ctx, st);
    if (st == KRYL_SUCCESS)
        MPI_Scatterv(t.ordered ? t.ordered : values, t.counts, t.displs, MPI_DOUBLE, t.mine,
                     (int)t.n, MPI_DOUBLE, 0, dc->comm);
    if (st == KRYL_SUCCESS) st = kryl_vector_set(v, t.mine, t.n);
    transfer_free(&t);
    return st;
}

kryl_status kryl_dist_vector_get_global(kryl_vector v, kryl_matrix A, double *values)
{
    struct kryl_dist_context *dc = A->ctx->dist;
    const int64_t *orig = A->dist->rows->orig;
    global_transfer t;
    kryl_status st = transfer_begin(&t, v, A, values, "kryl_vector_get_global");
    if (st == KRYL_SUCCESS) st = kryl_vector_get(v, t.mine, t.n);
    st = kryl_dist_agree(A->ctx, st);
    if (st == KRYL_SUCCESS)
        MPI_Gatherv(t.mine, (int)t.n, MPI_DOUBLE, t.ordered ? t.ordered : values, t.counts,
                    t.displs, MPI_DOUBLE, 0, dc->comm);
    /* values[orig[k]] = ordered[k]: back to the caller's order */
    for (int64_t k = 0; st == KRYL_SUCCESS && t.ordered && k < t.n_global; k++)
        values[orig[k]] = t.ordered[k];
    transfer_free(&t);
    return st;
}
