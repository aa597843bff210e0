/* The ref backend's permuted copy and multicolor SSOR sweep: the rows of
 * host_mcsweep.h in plain serial loops. */
#include <stdlib.h>

#include "backends/host_mcsweep.h"
#include "backends/ref/ref_ops.h"
#include "core/error.h"

kryl_status kryl_ref_csr_permute(kryl_context ctx, int64_t n, const int64_t *row_ptr,
                                 const int32_t *col_idx, const double *values, const int32_t *perm,
                                 int64_t *b_row_ptr, int32_t *b_col_idx, double *b_values)
{
    (void)ctx;
    int32_t *inv = malloc(((size_t)n + 1) * sizeof *inv);
    if (inv == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "csr_permute: cannot allocate %lld rows",
                          (long long)n);
    kryl_host_csr_permute_offsets(n, row_ptr, perm, inv, b_row_ptr);
    for (int64_t i = 0; i < n; i++)
        kryl_host_csr_permute_row(i, row_ptr, col_idx, values, perm, inv, b_row_ptr, b_col_idx,
                                  b_values);
    free(inv);
    return KRYL_SUCCESS;
}

kryl_status kryl_ref_mcsweep_setup(kryl_context ctx, int64_t n, const int64_t *row_ptr,
                                   const int32_t *col_idx, const double *values,
                                   const int64_t *color_ptr, int32_t ncolors, double omega,
                                   void **handle)
{
    (void)ctx;
    kryl_mcsweep *H = NULL;
    KRYL_TRY(kryl_host_mcsweep_alloc(n, row_ptr, col_idx, values, color_ptr, ncolors, omega, &H));
    for (int32_t c = 0; c < ncolors; c++)
        for (int64_t p = color_ptr[c]; p < color_ptr[c + 1]; p++)
            kryl_mcsweep_row(H, color_ptr[c], color_ptr[c + 1], p);
    *handle = H;
    return KRYL_SUCCESS;
}

kryl_status kryl_ref_mcsweep(kryl_context ctx, void *handle, kryl_vector r, kryl_vector z)
{
    (void)ctx;
    const kryl_mcsweep *H = handle;
    KRYL_REQUIRE_ARG(H);
    KRYL_TRY(kryl_mcsweep_check(H->n, r, z));
    const double *rv = r->data;
    double *zv = z->data;
    /* forward: colors in order;  backward: in reverse */
    for (int32_t c = 0; c < H->ncolors; c++)
        for (int64_t p = H->color_ptr[c]; p < H->color_ptr[c + 1]; p++)
            kryl_mcsweep_forward(H, p, rv, zv);
    for (int32_t c = H->ncolors - 1; c >= 0; c--)
        for (int64_t p = H->color_ptr[c]; p < H->color_ptr[c + 1]; p++)
            kryl_mcsweep_backward(H, p, zv);
    return KRYL_SUCCESS;
}
