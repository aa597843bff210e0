/* Level-scheduled sparse triangular solves (Li & Saad 2013, section 4.1,
 * Algorithm 1): the rows of one level depend only on earlier levels, so a
 * level is solved by all threads at once, with a barrier between levels.
 * With few rows per level the barriers cost more than they save and the
 * solve stays serial. */

#include "backends/omp/omp_trsv.h"
#include "backends/omp/omp_backend.h"
#include "backends/ref/ref_trsv.h"

kryl_status kryl_omp_trsv_setup(kryl_context ctx, const kryl_csr *T, kryl_precision precision,
                                bool lower, bool unit_diagonal, const int32_t *level_rows,
                                const int64_t *level_ptr, int64_t nlevels, void **handle)
{
    KRYL_TRY(kryl_ref_trsv_setup(ctx, T, precision, lower, unit_diagonal, level_rows, level_ptr,
                                 nlevels, handle));
    kryl_host_trsv *H = *handle;
    int threads = kryl_omp_state_of(ctx)->threads;
    double per_level = nlevels > 0 ? (double)H->n / (double)nlevels : 0.0;
    H->parallel = threads > 1 && per_level >= 2.0 * threads;
    kryl_log(ctx, KRYL_LOG_INFO,
             "omp trsv: %s triangle, n = %lld, %lld levels (%.1f rows per level, %d threads): "
             "%s",
             lower ? "lower" : "upper", (long long)H->n, (long long)nlevels, per_level, threads,
             H->parallel ? "level-scheduled parallel solve" : "serial substitution");
    return KRYL_SUCCESS;
}

/* Rows of each level in parallel, levels in order (implicit barrier after each omp for). */
static void trsv_levels(const kryl_host_trsv *T, int threads, void *b, void *x)
{
    bool dbl = T->precision == KRYL_DOUBLE;
#pragma omp parallel num_threads(threads)
    for (int64_t l = 0; l < T->nlevels; l++) {
#pragma omp for schedule(static)
        for (int64_t k = T->level_ptr[l]; k < T->level_ptr[l + 1]; k++) {
            /* x_i = (b_i - sum_{j != i} t_ij x_j) / t_ii for row i of level l */
            if (dbl)
                kryl_ref_trsv_row_d(T, b, x, T->rows[k]);
            else
                kryl_ref_trsv_row_s(T, b, x, T->rows[k]);
        }
    }
}

kryl_status kryl_omp_trsv(kryl_context ctx, void *handle, kryl_vector b, kryl_vector x)
{
    const kryl_host_trsv *T = handle;
    if (!T->parallel) return kryl_ref_trsv(ctx, handle, b, x);
    /* x = T^{-1} b level by level */
    trsv_levels(T, kryl_omp_state_of(ctx)->threads, b->data, x->data);
    return KRYL_SUCCESS;
}

const char *kryl_omp_trsv_path(kryl_context ctx, const void *handle)
{
    (void)ctx;
    const kryl_host_trsv *T = handle;
    return T->parallel ? "levels" : "serial";
}
