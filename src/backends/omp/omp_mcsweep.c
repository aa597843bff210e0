/* The omp backend's permuted copy and multicolor SSOR sweep: the rows of
 * host_mcsweep.h over the team, a color at a time (rows of one color are
 * not coupled in M, so each color's rows are independent). */
#include <stdlib.h>

#include "backends/host_mcsweep.h"
#include "backends/omp/omp_backend.h"
#include "core/error.h"

/* Threads for a loop over `rows` rows: the team when there are enough. */
static int team_for(kryl_context ctx, int64_t rows)
{
    return rows > KRYL_OMP_MIN_PARALLEL ? kryl_omp_state_of(ctx)->threads : 1;
}

kryl_status kryl_omp_csr_permute(kryl_context ctx, int64_t n, const int64_t *row_ptr,
                                 const int32_t *col_idx, const double *values, const int32_t *perm,
                                 int64_t *b_row_ptr, int32_t *b_col_idx, double *b_values)
{
    int32_t *inv = malloc(((size_t)n + 1) * sizeof *inv);
    if (inv == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "csr_permute: cannot allocate %lld rows",
                          (long long)n);
    kryl_host_csr_permute_offsets(n, row_ptr, perm, inv, b_row_ptr);
#pragma omp parallel for schedule(static) num_threads(team_for(ctx, n))
    for (int64_t p = 0; p < n; p++)
        kryl_host_csr_permute_row(p, row_ptr, col_idx, values, perm, inv, b_row_ptr, b_col_idx,
                                  b_values);
    free(inv);
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_mcsweep_setup(kryl_context ctx, int64_t n, const int64_t *row_ptr,
                                   const int32_t *col_idx, const double *values,
                                   const int64_t *color_ptr, int32_t ncolors, double omega,
                                   void **handle)
{
    kryl_mcsweep *H = NULL;
    KRYL_TRY(kryl_host_mcsweep_alloc(n, row_ptr, col_idx, values, color_ptr, ncolors, omega, &H));
    for (int32_t c = 0; c < ncolors; c++) {
        const int64_t begin = color_ptr[c], end = color_ptr[c + 1];
#pragma omp parallel for schedule(static) num_threads(team_for(ctx, end - begin))
        for (int64_t p = begin; p < end; p++)
            kryl_mcsweep_row(H, color_ptr[c], color_ptr[c + 1], p);
    }
    *handle = H;
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_mcsweep(kryl_context ctx, void *handle, kryl_vector r, kryl_vector z)
{
    const kryl_mcsweep *H = handle;
    KRYL_REQUIRE_ARG(H);
    KRYL_TRY(kryl_mcsweep_check(H->n, r, z));
    const double *rv = r->data;
    double *zv = z->data;
    /* forward: colors in order;  backward: in reverse */
    for (int32_t c = 0; c < H->ncolors; c++) {
        const int64_t begin = H->color_ptr[c], end = H->color_ptr[c + 1];
#pragma omp parallel for schedule(static) num_threads(team_for(ctx, end - begin))
        for (int64_t p = begin; p < end; p++) kryl_mcsweep_forward(H, p, rv, zv);
    }
    for (int32_t c = H->ncolors - 1; c >= 0; c--) {
        const int64_t begin = H->color_ptr[c], end = H->color_ptr[c + 1];
#pragma omp parallel for schedule(static) num_threads(team_for(ctx, end - begin))
        for (int64_t p = begin; p < end; p++) kryl_mcsweep_backward(H, p, zv);
    }
    return KRYL_SUCCESS;
}
