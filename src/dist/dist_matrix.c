/* Distributed matrices: the owned rows split into a local part (owned
 * columns, stored in any format through the ordinary conversion) and a
 * non-local part (ghost columns, CSR), both ordinary matrices of the
 * backend; the halo plan and the exchange buffers.  A conversion (working
 * precision, format, ordering) converts the local part and makes the
 * non-local part's rows and the send list follow its row permutation. */
#include <stdlib.h>
#include <string.h>

#include "dist/dist_internal.h"

#ifdef KRYL_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

/* Host memory of the staged exchange: pinned where CUDA gives it (a copy is
 * one DMA at the bus's speed, where pageable memory goes through the
 * driver's bounce buffer in pieces), else malloc's; *pinned says which. */
static void *staging_alloc(size_t bytes, bool *pinned)
{
    *pinned = false;
#ifdef KRYL_HAVE_CUDA
    void *p = NULL;
    if (cudaMallocHost(&p, bytes) == cudaSuccess) {
        *pinned = true;
        return p;
    }
    cudaGetLastError(); /* malloc's memory instead: clear the error */
#endif
    return malloc(bytes);
}

static void staging_free(void *p, bool pinned)
{
#ifdef KRYL_HAVE_CUDA
    if (pinned) {
        cudaFreeHost(p);
        return;
    }
#endif
    (void)pinned;
    free(p);
}

/* A layout of n rows (perm copied to host and backend memory when given). */
static kryl_status new_layout(kryl_context ctx, int64_t n, int64_t n_global, int64_t row_begin,
                              const int32_t *perm, kryl_layout **layout)
{
    kryl_layout *l = calloc(1, sizeof *l);
    if (l == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a layout");
    l->refs = 1;
    l->n = n;
    l->n_global = n_global;
    l->row_begin = row_begin;
    *layout = l;
    if (perm == NULL) return KRYL_SUCCESS;
    size_t bytes = (size_t)n * sizeof(int32_t);
    l->perm = malloc(bytes > 0 ? bytes : 1);
    kryl_status st = l->perm ? ctx->ops->alloc(ctx, (void **)&l->perm_backend, bytes)
                             : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a permutation");
    if (st == KRYL_SUCCESS) {
        memcpy(l->perm, perm, bytes);
        st = ctx->ops->upload(ctx, l->perm_backend, l->perm, bytes);
    }
    if (st != KRYL_SUCCESS) {
        kryl_layout_release(ctx, l);
        *layout = NULL;
    }
    return st;
}

/* A vector of n entries on the inner context. */
static kryl_status inner_vector(struct kryl_dist_context *dc, int64_t n, kryl_precision precision,
                                kryl_vector *v)
{
    kryl_layout *l = NULL;
    KRYL_TRY(new_layout(&dc->inner, n, n, 0, NULL, &l));
    kryl_status st = kryl_vector_create_like(v, &dc->inner, l, precision);
    kryl_layout_release(&dc->inner, l); /* the vector holds its own reference */
    return st;
}

kryl_status kryl_dist_exchange_buffers(struct kryl_dist_context *dc, struct kryl_dist_matrix *d,
                                       kryl_precision precision, const int32_t *inv)
{
    const kryl_halo *h = d->halo;
    kryl_context in = &dc->inner;
    size_t es = kryl_precision_size(precision);
    KRYL_TRY(inner_vector(dc, h->nsend, precision, &d->sendbuf));
    KRYL_TRY(inner_vector(dc, h->nghost, precision, &d->ghost));
    d->requests = malloc(2 * (size_t)(h->nneigh > 0 ? h->nneigh : 1) * sizeof *d->requests);
    int32_t *pos = malloc((size_t)(h->nsend > 0 ? h->nsend : 1) * sizeof *pos);
    if (d->requests == NULL || pos == NULL) {
        free(pos);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate the exchange of %lld entries",
                          (long long)h->nsend);
    }
    /* pos[k] = where send row k sits in x */
    for (int64_t k = 0; k < h->nsend; k++) pos[k] = inv ? inv[h->send_rows[k]] : h->send_rows[k];
    size_t bytes = (size_t)h->nsend * sizeof *pos;
    kryl_status st = dc->inner_ops->alloc(in, (void **)&d->send_perm, bytes);
    if (st == KRYL_SUCCESS && bytes > 0) st = dc->inner_ops->upload(in, d->send_perm, pos, bytes);
    free(pos);
#ifdef KRYL_HAVE_NCCL
    if (st == KRYL_SUCCESS && dc->transport == KRYL_TRANSPORT_NCCL)
        st = kryl_nccl_connect(dc, d, precision);
#endif
    if (st != KRYL_SUCCESS || dc->transport != KRYL_TRANSPORT_STAGED) return st;
    d->send_host = staging_alloc((size_t)(h->nsend > 0 ? h->nsend : 1) * es, &d->send_pinned);
    d->recv_host = staging_alloc((size_t)(h->nghost > 0 ? h->nghost : 1) * es, &d->recv_pinned);
    if (d->send_host == NULL || d->recv_host == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate the host staging of a halo");
    return KRYL_SUCCESS;
}

void kryl_dist_parts_free(struct kryl_dist_context *dc, struct kryl_dist_matrix *d)
{
    if (d == NULL) return;
    kryl_matrix_destroy(&d->loc);
    kryl_matrix_destroy(&d->nl);
    kryl_dist_boundary_release(dc, d);
    kryl_vector_destroy(&d->sendbuf);
#ifdef KRYL_HAVE_NCCL
    kryl_peer_halo_free(d->peer_halo);
#endif
    kryl_vector_destroy(&d->ghost);
    if (d->send_perm) dc->inner_ops->release(&dc->inner, d->send_perm);
    if (d->send_host) staging_free(d->send_host, d->send_pinned);
    if (d->recv_host) staging_free(d->recv_host, d->recv_pinned);
    free(d->requests);
    kryl_halo_release(d->halo);
    kryl_dist_rows_release(d->rows);
    free(d);
}

void kryl_dist_matrix_release(kryl_context ctx, kryl_matrix A)
{
    kryl_dist_parts_free(ctx->dist, A->dist);
    A->dist = NULL;
}

kryl_status kryl_dist_matrix_setup(kryl_context ctx, kryl_matrix A)
{
    struct kryl_dist_context *dc = ctx->dist;
    const kryl_csr *csr = &A->host->csr;
    struct kryl_dist_matrix *d = calloc(1, sizeof *d);
    kryl_status st = d ? KRYL_SUCCESS
                       : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a distributed matrix");
    st = kryl_dist_agree(ctx, st);
    if (st == KRYL_SUCCESS)
        st = kryl_dist_rows_gather(dc, csr->row_begin, csr->nrows, csr->nrows_global, &d->rows);
    if (st == KRYL_SUCCESS && csr->nrows_global != csr->ncols && !A->host->cols_split)
        st = KRYL_ERROR(KRYL_ERR_NOT_SQUARE,
                        "a matrix distributed over ranks must be square (its columns are "
                        "distributed like its rows); this one is %lld x %lld",
                        (long long)csr->nrows_global, (long long)csr->ncols);
    st = kryl_dist_agree(ctx, st);
    /* the columns' owners: the rows' unless the caller split them otherwise */
    kryl_dist_rows *cols = NULL;
    if (st == KRYL_SUCCESS && A->host->cols_split)
        st = kryl_dist_rows_gather(dc, A->host->col_begin, A->host->col_end - A->host->col_begin,
                                   csr->ncols, &cols);
    kryl_csr loc, nl;
    if (st == KRYL_SUCCESS)
        st = kryl_halo_build(dc, csr, (cols ? cols : d->rows)->begin, &d->halo, &loc, &nl);
    kryl_dist_rows_release(cols);
    if (st == KRYL_SUCCESS) {
        /* the parts take over loc's and nl's arrays */
        kryl_status st_nl = KRYL_SUCCESS;
        st = kryl_matrix_from_csr(&d->loc, &dc->inner, &loc);
        if (st == KRYL_SUCCESS)
            st_nl = kryl_matrix_from_csr(&d->nl, &dc->inner, &nl);
        else
            kryl_csr_free(&nl);
        if (st == KRYL_SUCCESS) st = st_nl;
    }
    if (st == KRYL_SUCCESS) st = kryl_dist_exchange_buffers(dc, d, A->precision, NULL);
    if (st == KRYL_SUCCESS) st = kryl_dist_boundary_setup(dc, d, A->precision);
    st = d ? kryl_dist_agree(ctx, st) : st;
    if (st != KRYL_SUCCESS) {
        kryl_dist_parts_free(dc, d);
        return st;
    }
    int64_t nnz = kryl_csr_nnz(csr);
    MPI_Allreduce(&nnz, &d->nnz_global, 1, MPI_INT64_T, MPI_SUM, dc->comm);
    A->host->dist = dc;
    A->dist = d;
    return KRYL_SUCCESS;
}

/* The non-local part nl (its rows in the order src_perm, NULL = natural)
 * with its rows in the order perm (NULL = natural) and in `precision`. */
static kryl_status convert_nonlocal(struct kryl_dist_context *dc, kryl_matrix nl,
                                    const int32_t *src_perm, const int32_t *perm,
                                    kryl_precision precision, kryl_matrix *out)
{
    kryl_matrix base = nl, permuted = NULL;
    if (perm != NULL || src_perm != NULL) {
        const kryl_csr *a = &nl->host->csr;
        int32_t *src_inv = malloc((size_t)(a->nrows > 0 ? a->nrows : 1) * sizeof *src_inv);
        if (src_inv == NULL)
            return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a permutation");
        /* src_inv[r] = the row of nl holding natural row r */
        for (int64_t i = 0; i < a->nrows; i++) src_inv[src_perm ? src_perm[i] : i] = (int32_t)i;
        kryl_csr b;
        kryl_status st = kryl_csr_alloc(&b, a->nrows, a->ncols, kryl_csr_nnz(a));
        if (st != KRYL_SUCCESS) free(src_inv);
        KRYL_TRY(st);
        for (int64_t i = 0; i < a->nrows; i++) {
            /* row i of P N: natural row perm[i], stored in row src_inv[perm[i]] of nl */
            int64_t r = src_inv[perm ? perm[i] : i];
            int64_t src = a->row_ptr[r], len = a->row_ptr[r + 1] - src;
            b.row_ptr[i + 1] = b.row_ptr[i] + len;
            memcpy(b.col_idx + b.row_ptr[i], a->col_idx + src, (size_t)len * sizeof *b.col_idx);
            memcpy(b.values + b.row_ptr[i], a->values + src, (size_t)len * sizeof *b.values);
        }
        free(src_inv);
        KRYL_TRY(kryl_matrix_from_csr(&permuted, &dc->inner, &b));
        base = permuted;
    }
    kryl_status st =
        kryl_matrix_convert(out, base, precision, KRYL_FORMAT_CSR, NULL, KRYL_ORDER_NONE);
    kryl_matrix_destroy(&permuted);
    return st;
}

/* The distributed matrix object around converted parts. */
static kryl_status wrap_converted(kryl_matrix *B, kryl_matrix A, kryl_precision precision,
                                  struct kryl_dist_matrix *d)
{
    kryl_context ctx = A->ctx;
    struct kryl_matrix_s *m = calloc(1, sizeof *m);
    if (m == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a matrix");
    kryl_status st = new_layout(ctx, A->layout->n, A->layout->n_global, A->layout->row_begin,
                                d->loc->layout->perm, &m->layout);
    if (st != KRYL_SUCCESS) {
        free(m);
        return st;
    }
    m->ctx = ctx;
    m->host = A->host;
    m->host->refs++;
    m->precision = precision;
    kryl_fmt_borrow_csr(&A->host->csr, &m->fmt);
    m->dist = d;
    ctx->live_objects++;
    *B = m;
    return KRYL_SUCCESS;
}

kryl_status kryl_dist_matrix_convert(kryl_matrix *B, kryl_matrix A, kryl_precision precision,
                                     kryl_format format, const kryl_fmt_params *params,
                                     kryl_order_kind order)
{
    struct kryl_dist_context *dc = A->ctx->dist;
    const struct kryl_dist_matrix *src = A->dist;
    struct kryl_dist_matrix *d = calloc(1, sizeof *d);
    int32_t *inv = NULL;
    kryl_status st = d ? kryl_matrix_convert(&d->loc, src->loc, precision, format, params, order)
                       : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a distributed matrix");
    const int32_t *perm = st == KRYL_SUCCESS ? d->loc->layout->perm : NULL;
    if (st == KRYL_SUCCESS) {
        d->halo = src->halo;
        d->halo->refs++;
        d->rows = src->rows;
        d->rows->refs++;
        d->nnz_global = src->nnz_global;
        st = convert_nonlocal(dc, src->nl, src->loc->layout->perm, perm, precision, &d->nl);
    }
    int64_t n = A->layout->n;
    if (st == KRYL_SUCCESS && perm != NULL) {
        inv = malloc((size_t)(n > 0 ? n : 1) * sizeof *inv);
        if (inv == NULL) st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a permutation");
        /* inv[perm[i]] = i: where original row perm[i] went */
        for (int64_t i = 0; inv && i < n; i++) inv[perm[i]] = (int32_t)i;
    }
    if (st == KRYL_SUCCESS) st = kryl_dist_exchange_buffers(dc, d, precision, inv);
    if (st == KRYL_SUCCESS) st = kryl_dist_boundary_setup(dc, d, precision);
    if (st == KRYL_SUCCESS) st = wrap_converted(B, A, precision, d);
    free(inv);
    st = kryl_dist_agree(A->ctx, st);
    if (st != KRYL_SUCCESS) {
        if (*B != NULL)
            kryl_matrix_destroy(B); /* frees d through matrix_release */
        else
            kryl_dist_parts_free(dc, d);
    }
    return st;
}

int64_t kryl_dist_matrix_nnz(kryl_matrix A) { return A->dist->nnz_global; }

kryl_matrix kryl_dist_matrix_local(kryl_matrix A) { return A->dist ? A->dist->loc : NULL; }

void kryl_dist_matrix_info(kryl_matrix A, kryl_dist_info *info)
{
    const struct kryl_dist_context *dc = A->ctx->dist;
    info->rank = dc->rank;
    info->size = dc->size;
    info->spmvs = dc->stats.spmvs;
    info->compute_s = dc->stats.compute_s;
    info->comm_s = dc->stats.comm_s;
    info->wait_s = dc->stats.wait_s;
    if (A->dist == NULL) return;
    info->ghosts = A->dist->halo->nghost;
    info->neighbours = A->dist->halo->nneigh;
    info->bytes_sent = A->dist->halo->nsend * (int64_t)sizeof(double);
}
