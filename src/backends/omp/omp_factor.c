/* The omp backend's numeric IC(0) and ILU(0) on a kept pattern: the rows
 * of one level of the lower triangle's schedule depend only on rows of
 * earlier levels (the dependencies of row i's factorization are the
 * columns of its lower part, exactly those of the lower triangular solve),
 * so a level's rows are factored by all threads at once, each row by ref's
 * own arithmetic: the factor is ref's bit for bit. */
#include <omp.h>

#include "backends/omp/omp_backend.h"
#include "backends/ref/ref_factor.h"
#include "core/error.h"

kryl_status kryl_omp_factor_numeric(kryl_context ctx, void *handle, kryl_matrix A, double shift,
                                    struct kryl_factor_pivots *pivots)
{
    kryl_host_factor *F = handle;
    const kryl_factor_pattern *P = F->P;
    const kryl_levels *lv = &P->levels_L;
    const double *a = NULL;
    KRYL_TRY(kryl_ref_factor_values(P, A, &a));
    kryl_omp_state *s = kryl_omp_state_of(ctx);
    kryl_omp_team_refresh(s);
    const int threads = s->threads;
    /* the first failing row; rows after it may read its garbage, and are not reported */
    int64_t failed = P->n;
#pragma omp parallel num_threads(threads) reduction(min : failed)
    for (int64_t l = 0; l < lv->nlevels; l++) {
#pragma omp for schedule(dynamic, 256)
        for (int64_t k = lv->level_ptr[l]; k < lv->level_ptr[l + 1]; k++) {
            /* row i of C once the levels before l are done */
            const int64_t i = lv->order[k];
            if (kryl_ref_factor_row(P, a, shift, F->c, i) >= 0 && i < failed) failed = i;
        }
    }
    /* what went wrong at the first failing row, found again as ref met it */
    int what = -1;
    if (failed < P->n) {
        /* its own row again: the rows it reads are done and correct */
        what = kryl_ref_factor_row(P, a, shift, F->c, failed);
    }
    kryl_ref_factor_pivots(F, &A->host->csr, failed < P->n ? failed : -1, what, threads, pivots);
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_amax(kryl_context ctx, kryl_vector x, kryl_scalar out)
{
    kryl_omp_state *s = kryl_omp_state_of(ctx);
    const int threads = x->n < KRYL_OMP_MIN_PARALLEL ? 1 : s->threads;
    double m = 0.0;
    /* out = max |x_i| over the threads' ranges (max does not depend on the split) */
#pragma omp parallel num_threads(threads) reduction(max : m)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        const int64_t begin = x->n * t / nt, end = x->n * (t + 1) / nt;
        m = kryl_ref_amax_range(x, begin, end);
    }
    *out.ptr = m;
    return KRYL_SUCCESS;
}
