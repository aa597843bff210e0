/* New values on the same pattern: the host copy takes them, and each
 * matrix stored from it gathers them into its format's value slots through
 * a map from slot to host entry, so no layout, permutation or index array
 * is rebuilt. */
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"

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

kryl_status kryl_matrix_refresh_values(kryl_matrix B)
{
    if (!B->fmt.borrowed) {
        if (B->value_source == NULL) KRYL_TRY(build_value_source(B));
        double *slots;
        int64_t count;
        kryl_fmt_values(&B->fmt, &slots, &count);
        const double *v = B->host->csr.values;
        /* slot q = a_(source q - 1), padding 0 */
        for (int64_t q = 0; q < count; q++)
            slots[q] = B->value_source[q] > 0 ? v[B->value_source[q] - 1] : 0.0;
    }
    kryl_context ctx = B->ctx;
    ctx->ops->matrix_release(ctx, B);
    return ctx->ops->matrix_setup(ctx, B);
}

kryl_status kryl_matrix_update_values(kryl_matrix A, const double *values)
{
    KRYL_REQUIRE_ARG(A);
    KRYL_TRY(kryl_matrix_need_host(A, "kryl_matrix_update_values"));
    kryl_host_matrix *h = A->host;
    const int64_t nnz = kryl_csr_nnz(&h->csr);
    const int64_t entries = h->entry_of ? h->entries : nnz;
    if (entries > 0) KRYL_REQUIRE_ARG(values);
    if (A->dist)
        return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                          "update_values: the matrix is distributed over ranks; create it again "
                          "with the new values");
    for (int64_t k = 0; k < entries; k++)
        if (values[k] - values[k] != 0.0)
            return KRYL_ERROR(KRYL_ERR_INVALID_VALUE,
                              "update_values: value %lld is %g; values must be finite",
                              (long long)k, values[k]);
    if (h->entry_of) {
        /* repeated entries are summed, as at creation */
        memset(h->csr.values, 0, (size_t)nnz * sizeof *h->csr.values);
        for (int64_t k = 0; k < entries; k++) h->csr.values[h->entry_of[k]] += values[k];
    } else if (nnz > 0) {
        memcpy(h->csr.values, values, (size_t)nnz * sizeof *values);
    }
    h->asymmetry = -1.0; /* measured again when asked */
    h->values_seen++;
    return kryl_matrix_refresh_values(A);
}
