/* The tentative prolongator of the host backends (backend.h,
 * amg_tentative): backend memory is host memory, rows on the context's
 * threads. */
#include <math.h>

#include "backends/host_step.h"
#include "core/host_threads.h"

kryl_status kryl_host_amg_tentative(kryl_context ctx, int64_t n, const int32_t *aggregate,
                                    int64_t naggregates, const double *w, double *wc,
                                    kryl_backend_csr *T)
{
    const kryl_backend_ops *ops = ctx->ops;
    *T = (kryl_backend_csr){.nrows = n, .ncols = naggregates};
    KRYL_TRY(ops->alloc(ctx, (void **)&T->row_ptr, ((size_t)n + 1) * sizeof *T->row_ptr));
    /* one entry in each row of an aggregate;  wc_j = sum of w_i over aggregate j */
    for (int64_t j = 0; j < naggregates; j++) wc[j] = 0.0;
    for (int64_t i = 0; i < n; i++) {
        const bool member = aggregate[i] >= 0;
        T->row_ptr[i + 1] = T->row_ptr[i] + member;
        if (member) wc[aggregate[i]] += w ? w[i] : 1.0;
    }
    T->nnz = T->row_ptr[n];
    kryl_status st = ops->alloc(ctx, (void **)&T->col_idx, (size_t)T->nnz * sizeof *T->col_idx);
    if (st == KRYL_SUCCESS)
        st = ops->alloc(ctx, (void **)&T->values, (size_t)T->nnz * sizeof *T->values);
    if (st != KRYL_SUCCESS) {
        kryl_backend_csr_release(ctx, T);
        return st;
    }
    const int threads = kryl_host_threads(ctx);
    KRYL_HOST_PARALLEL_FOR(threads)
    for (int64_t i = 0; i < n; i++) {
        if (aggregate[i] < 0) continue;
        /* t_ij = sqrt(w_i / wc_j) */
        const int64_t k = T->row_ptr[i];
        T->col_idx[k] = aggregate[i];
        T->values[k] = sqrt((w ? w[i] : 1.0) / wc[aggregate[i]]);
    }
    return KRYL_SUCCESS;
}
