/* Sparse triangular solves of the omp backend, on one of two schedules
 * chosen at setup by measured speed:
 *   - levels: level-scheduled (Li & Saad 2013, section 4.1, Algorithm 1):
 *     the rows of one level depend only on earlier levels, so a level is
 *     solved by all threads at once, with a barrier between levels;
 *   - serial: substitution row after row on one thread.
 * The level schedule visits the rows out of storage order and pays a
 * barrier a level, so on a few cores it is often slower than the serial
 * sweep (5-point 1000^2 IC(0): twice as slow on two threads); both are
 * timed on the triangle itself and the faster kept.  Both compute every
 * row by the same formula in the same order, so x is the same bit for bit. */
#include <omp.h>
#include <stdlib.h>

#include "backends/omp/omp_backend.h"
#include "backends/ref/ref_trsv.h"

/* Timed solves of each schedule (alternating; the fastest counts). */
#define KRYL_OMP_TRSV_TIMINGS 3

/* Rows of each level in parallel, levels in order (implicit barrier after each omp for). */
static void trsv_levels(const kryl_host_trsv *T, int threads, const void *b, void *x)
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

/* Seconds of one solve of T by each schedule, the fastest of a few on b = 1. */
static kryl_status time_schedules(const kryl_host_trsv *T, int threads, double *serial,
                                  double *levels)
{
    size_t real = kryl_precision_size(T->precision);
    size_t n = (size_t)(T->n > 0 ? T->n : 1);
    void *b = malloc(n * real), *x = malloc(n * real);
    if (b == NULL || x == NULL) {
        free(b);
        free(x);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                          "omp trsv: cannot allocate %zu bytes to time the solve schedules",
                          2 * n * real);
    }
    for (size_t i = 0; i < n; i++) {
        if (T->precision == KRYL_DOUBLE)
            ((double *)b)[i] = 1.0;
        else
            ((float *)b)[i] = 1.0f;
    }
    *serial = *levels = 1e300;
    for (int r = 0; r < KRYL_OMP_TRSV_TIMINGS; r++) {
        double t0 = omp_get_wtime();
        kryl_ref_trsv_serial(T, b, x);
        double t1 = omp_get_wtime();
        trsv_levels(T, threads, b, x);
        double t2 = omp_get_wtime();
        if (t1 - t0 < *serial) *serial = t1 - t0;
        if (t2 - t1 < *levels) *levels = t2 - t1;
    }
    free(b);
    free(x);
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_trsv_setup(kryl_context ctx, const kryl_csr *T, kryl_precision precision,
                                bool lower, bool unit_diagonal, const int32_t *level_rows,
                                const int64_t *level_ptr, int64_t nlevels, void **handle)
{
    KRYL_TRY(kryl_ref_trsv_setup(ctx, T, precision, lower, unit_diagonal, level_rows, level_ptr,
                                 nlevels, handle));
    kryl_host_trsv *H = *handle;
    /* the team other programs leave now: on one core the levels are not timed */
    kryl_omp_state *s = kryl_omp_state_of(ctx);
    kryl_omp_team_refresh(s);
    int threads = s->threads;
    double per_level = nlevels > 0 ? (double)H->n / (double)nlevels : 0.0;
    const char *side = lower ? "lower" : "upper";
    /* with few rows per level the barriers cost more than the rows: not timed */
    if (threads < 2 || per_level < 2.0 * threads) {
        H->parallel = false;
        kryl_log(ctx, KRYL_LOG_INFO,
                 "omp trsv: %s triangle, n = %lld, %lld levels (%.1f rows per level, %d "
                 "thread%s): serial substitution (%s)",
                 side, (long long)H->n, (long long)nlevels, per_level, threads,
                 threads == 1 ? "" : "s",
                 threads < 2 ? "one thread" : "too few rows per level to time the levels");
        return KRYL_SUCCESS;
    }
    double serial = 0.0, levels = 0.0;
    kryl_status st = time_schedules(H, threads, &serial, &levels);
    if (st != KRYL_SUCCESS) {
        kryl_ref_trsv_release(ctx, H);
        *handle = NULL;
        return st;
    }
    H->parallel = levels < serial;
    kryl_log(ctx, KRYL_LOG_INFO,
             "omp trsv: %s triangle, n = %lld, %lld levels (%.1f rows per level, %d threads): "
             "%s (timed: serial %.3g ms, levels %.3g ms)",
             side, (long long)H->n, (long long)nlevels, per_level, threads,
             H->parallel ? "level-scheduled parallel solve" : "serial substitution", 1e3 * serial,
             1e3 * levels);
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_trsv(kryl_context ctx, void *handle, kryl_vector b, kryl_vector x)
{
    const kryl_host_trsv *T = handle;
    kryl_omp_state *s = kryl_omp_state_of(ctx);
    kryl_omp_team_refresh(s);
    int threads = s->threads;
    /* x = T^{-1} b: level by level, or row after row when setup found that
     * faster or other programs leave this process a single core */
    if (T->parallel && threads > 1)
        trsv_levels(T, threads, b->data, x->data);
    else
        kryl_ref_trsv_serial(T, b->data, x->data);
    return KRYL_SUCCESS;
}

const char *kryl_omp_trsv_path(kryl_context ctx, const void *handle)
{
    (void)ctx;
    const kryl_host_trsv *T = handle;
    return T->parallel ? "levels" : "serial";
}
