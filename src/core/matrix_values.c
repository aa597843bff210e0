/* New values on the same pattern: the host copy takes them, and each
 * matrix stored from it takes them into its format's value slots through
 * a map from slot to host entry, so no layout, permutation or index array
 * is rebuilt.  A backend with matrix_values keeps the map in its own
 * memory and moves only the nnz new values there (from the host once, or
 * from another matrix's storage already holding them); otherwise the host
 * gathers the slots and the storage is set up again. */
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "core/host_threads.h"
#include "formats/fmt_dia_find.h"

/* B->value_source: the format built once more from the host CSR with
 * entry k's value replaced by k + 1 (exact in a double below 2^53), in
 * the same composed permutation (the format's own sort leaves rows it
 * already sorted where they are), so each slot holds its source's number. */
static kryl_status build_value_source(kryl_matrix B)
{
    const kryl_csr *host = &B->host->csr;
    const int64_t nnz = kryl_csr_nnz(host);
    kryl_csr numbered = *host;
    numbered.values = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *numbered.values);
    if (numbered.values == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot number %lld entries", (long long)nnz);
    for (int64_t k = 0; k < nnz; k++) numbered.values[k] = (double)(k + 1);
    kryl_fmt F;
    kryl_status st = kryl_fmt_build(&numbered, B->fmt.kind, B->fmt.perm, &B->params, &F);
    free(numbered.values);
    if (st != KRYL_SUCCESS) return st;
    const int64_t n = B->fmt.nrows;
    if (F.stored != B->fmt.stored ||
        (F.perm && memcmp(F.perm, B->fmt.perm, (size_t)n * sizeof *F.perm) != 0)) {
        kryl_fmt_free(&F);
        return KRYL_ERROR(KRYL_ERR_INTERNAL,
                          "the %s layout rebuilt for new values differs from the stored one",
                          kryl_format_name(B->fmt.kind));
    }
    double *slots;
    int64_t count;
    kryl_fmt_values(&F, &slots, &count);
    B->value_source = malloc((size_t)(count > 0 ? count : 1) * sizeof *B->value_source);
    if (B->value_source == NULL) st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot map values");
    for (int64_t q = 0; q < count && st == KRYL_SUCCESS; q++)
        B->value_source[q] = (int64_t)slots[q];
    kryl_fmt_free(&F);
    return st;
}

/* B->value_source of a DIA in the natural order, without building it
 * again: slot d*stride + i holds a(i, i + offset[d]), each entry's
 * diagonal found by halving the ascending offsets; rows on the host's
 * threads. */
static kryl_status dia_value_source(kryl_matrix B)
{
    const kryl_csr *h = &B->host->csr;
    const kryl_fmt_dia *f = &B->fmt.u.dia;
    const int64_t count = B->fmt.stored, n = h->nrows;
    int64_t *source = calloc((size_t)(count > 0 ? count : 1), sizeof *source);
    if (source == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot map %lld dia slots", (long long)count);
    KRYL_HOST_PARALLEL_FOR(B->host->threads)
    for (int64_t i = 0; i < n; i++) {
        for (int64_t k = h->row_ptr[i]; k < h->row_ptr[i + 1]; k++) {
            const int64_t off = h->col_idx[k] - (h->row_begin + i);
            source[fmt_dia_find(f->offset, f->ndiag, off) * f->stride + i] = k + 1;
        }
    }
    B->value_source = source;
    return KRYL_SUCCESS;
}

kryl_status kryl_matrix_value_source(kryl_matrix B)
{
    if (B->fmt.borrowed || B->value_source != NULL) return KRYL_SUCCESS;
    KRYL_TRY(kryl_matrix_need_host(B, "the value map of a storage format"));
    if (B->fmt.kind == KRYL_FORMAT_DIA && B->fmt.perm == NULL) return dia_value_source(B);
    return build_value_source(B);
}

kryl_status kryl_matrix_diagonal_slots(kryl_matrix B, int64_t *slot)
{
    KRYL_TRY(kryl_matrix_need_host(B, "the diagonal of a storage format"));
    const kryl_csr *h = &B->host->csr;
    const int64_t n = B->fmt.nrows;
    /* entry[r] = the host entry of a_rr (-1: none) */
    int64_t *entry = malloc((size_t)(n > 0 ? n : 1) * sizeof *entry);
    if (entry == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate %lld diagonal entries",
                          (long long)n);
    for (int64_t r = 0; r < n; r++) entry[r] = kryl_csr_find(h, r, h->row_begin + r);
    kryl_status st = KRYL_SUCCESS;
    if (B->fmt.borrowed) {
        memcpy(slot, entry, (size_t)n * sizeof *slot);
    } else {
        st = kryl_matrix_value_source(B);
        const int64_t count = B->fmt.stored;
        /* slot_of[r] = the slot whose source is a_rr: entry e on column c is
         * a diagonal entry exactly when it is entry[c - row_begin] */
        int64_t *slot_of =
            st == KRYL_SUCCESS ? malloc((size_t)(n > 0 ? n : 1) * sizeof *slot_of) : NULL;
        if (st == KRYL_SUCCESS && slot_of == NULL)
            st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate %lld diagonal slots",
                            (long long)n);
        for (int64_t r = 0; st == KRYL_SUCCESS && r < n; r++) slot_of[r] = -1;
        for (int64_t q = 0; st == KRYL_SUCCESS && q < count; q++) {
            const int64_t e = B->value_source[q] - 1;
            if (e < 0) continue;
            const int64_t r = h->col_idx[e] - h->row_begin;
            if (r >= 0 && r < n && entry[r] == e) slot_of[r] = q;
        }
        /* in the layout's order: row i holds original row perm[i] */
        for (int64_t i = 0; st == KRYL_SUCCESS && i < n; i++)
            slot[i] = slot_of[B->fmt.perm ? B->fmt.perm[i] : i];
        free(slot_of);
    }
    free(entry);
    return st;
}

/* The host path: B->fmt's slots gathered from the host CSR, the storage set up again. */
static kryl_status refresh_on_host(kryl_matrix B)
{
    KRYL_TRY(kryl_matrix_need_host(B, "new values gathered on the host"));
    if (!B->fmt.borrowed) {
        KRYL_TRY(kryl_matrix_value_source(B));
        double *slots;
        int64_t count;
        kryl_fmt_values(&B->fmt, &slots, &count);
        const double *v = B->host->csr.values;
        /* slot q = a_(source q - 1), padding 0 */
        for (int64_t q = 0; q < count; q++)
            slots[q] = B->value_source[q] > 0 ? v[B->value_source[q] - 1] : 0.0;
    }
    kryl_context ctx = B->ctx;
    if (B->storage_deferred) return KRYL_SUCCESS; /* built from these values when needed */
    ctx->ops->matrix_release(ctx, B);
    return ctx->ops->matrix_setup(ctx, B);
}

kryl_status kryl_matrix_refresh_values(kryl_matrix B, kryl_matrix from)
{
    kryl_context ctx = B->ctx;
    const kryl_backend_ops *ops = ctx->ops;
    if (ops->matrix_values == NULL || B->storage == NULL || B->dist != NULL)
        return refresh_on_host(B);
    KRYL_TRY(kryl_matrix_value_source(B));
    /* the new values from a storage that holds them, else from the host copy */
    const double *on_backend = NULL;
    if (from && from != B && from->ctx == ctx && from->host == B->host)
        on_backend = kryl_matrix_stored_values(from);
    if (on_backend) return ops->matrix_values(ctx, B, on_backend, true);
    KRYL_TRY(kryl_matrix_need_host(B, "new values uploaded from the host"));
    return ops->matrix_values(ctx, B, B->host->csr.values, false);
}

/* values (entries in the caller's order) into the host copy; finite only. */
static kryl_status take_values(kryl_matrix A, const double *values)
{
    kryl_host_matrix *h = A->host;
    const int64_t nnz = kryl_csr_nnz(&h->csr);
    const int64_t entries = h->entry_of ? h->entries : nnz;
    if (entries > 0) KRYL_REQUIRE_ARG(values);
    /* the first value that is not finite, on the host's threads */
    int64_t first = entries;
    KRYL_HOST_PARALLEL_REDUCE(h->threads, min, first)
    for (int64_t k = 0; k < entries; k++)
        if (values[k] - values[k] != 0.0 && k < first) first = k;
    if (first < entries)
        return KRYL_ERROR(KRYL_ERR_INVALID_VALUE,
                          "update_values: value %lld is %g; values must be finite",
                          (long long)first, values[first]);
    if (h->entry_of) {
        /* repeated entries are summed, as at creation */
        memset(h->csr.values, 0, (size_t)nnz * sizeof *h->csr.values);
        for (int64_t k = 0; k < entries; k++) h->csr.values[h->entry_of[k]] += values[k];
    } else {
        double *to = h->csr.values;
        KRYL_HOST_PARALLEL_FOR(h->threads)
        for (int64_t k = 0; k < nnz; k++) to[k] = values[k];
    }
    h->values_on = NULL; /* every value replaced */
    h->asymmetry = -1.0; /* measured again when asked */
    h->values_seen++;
    return KRYL_SUCCESS;
}

/* A may take new values: a host copy, on one rank. */
static kryl_status check_updatable(kryl_matrix A, const char *what)
{
    KRYL_REQUIRE_ARG(A);
    KRYL_TRY(kryl_matrix_need_host(A, what));
    if (A->dist)
        return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                          "%s: the matrix is distributed over ranks; create it again with the "
                          "new values",
                          what);
    return KRYL_SUCCESS;
}

kryl_status kryl_matrix_update_values(kryl_matrix A, const double *values)
{
    KRYL_TRY(check_updatable(A, "kryl_matrix_update_values"));
    KRYL_TRY(take_values(A, values));
    return kryl_matrix_refresh_values(A, NULL);
}

kryl_status kryl_matrix_update_values_device(kryl_matrix A, const double *values)
{
    KRYL_TRY(check_updatable(A, "kryl_matrix_update_values_device"));
    kryl_context ctx = A->ctx;
    const kryl_backend_ops *ops = ctx->ops;
    kryl_host_matrix *h = A->host;
    const int64_t nnz = kryl_csr_nnz(&h->csr);
    if (h->entry_of)
        return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                          "kryl_matrix_update_values_device: the matrix was created from "
                          "unsorted or repeated entries, whose sums the host forms; pass the "
                          "values to kryl_matrix_update_values");
    if (nnz > 0) KRYL_REQUIRE_ARG(values);
    /* A's storage is its host CSR: it takes them there (refusing values that
     * are not finite before it changes anything), and the host copy is
     * downloaded from it when a host-side step asks (kryl_matrix_need_host) */
    if (ops->matrix_values && kryl_matrix_stored_values(A)) {
        KRYL_TRY(ops->matrix_values(ctx, A, values, true));
        h->values_on = A;
        h->asymmetry = -1.0;
        h->values_seen++;
        return KRYL_SUCCESS;
    }
    /* else through the host copy */
    double *copy = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *copy);
    if (copy == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot stage %lld new values", (long long)nnz);
    kryl_status st =
        nnz > 0 ? ops->download(ctx, copy, values, (size_t)nnz * sizeof *copy) : KRYL_SUCCESS;
    if (st == KRYL_SUCCESS) st = take_values(A, copy);
    free(copy);
    KRYL_TRY(st);
    return kryl_matrix_refresh_values(A, NULL);
}
