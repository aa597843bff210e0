/* The host backends' multicolor sweep handle and the serial part of the
 * permuted copy (host_mcsweep.h). */
#include "backends/host_mcsweep.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/objects.h"

kryl_status kryl_host_mcsweep_alloc(int64_t n, const int64_t *row_ptr, const int32_t *col_idx,
                                    const double *values, const int64_t *color_ptr, int32_t ncolors,
                                    double omega, kryl_mcsweep **out)
{
    *out = NULL;
    kryl_mcsweep *H = calloc(1, sizeof *H);
    if (H == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "mcsweep: out of memory");
    *H = (kryl_mcsweep){.n = n,
                        .ncolors = ncolors,
                        .row_ptr = row_ptr,
                        .col_idx = col_idx,
                        .values = values,
                        .omega = omega};
    H->color_ptr = malloc(((size_t)ncolors + 1) * sizeof *H->color_ptr);
    H->lower_end = malloc(((size_t)n + 1) * sizeof *H->lower_end);
    H->upper_begin = malloc(((size_t)n + 1) * sizeof *H->upper_begin);
    H->dinv = malloc(((size_t)n + 1) * sizeof *H->dinv);
    if (!H->color_ptr || !H->lower_end || !H->upper_begin || !H->dinv) {
        kryl_host_mcsweep_release(NULL, H);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "mcsweep: cannot allocate %lld rows",
                          (long long)n);
    }
    memcpy(H->color_ptr, color_ptr, ((size_t)ncolors + 1) * sizeof *H->color_ptr);
    *out = H;
    return KRYL_SUCCESS;
}

void kryl_host_mcsweep_release(kryl_context ctx, void *handle)
{
    (void)ctx;
    kryl_mcsweep *H = handle;
    if (H == NULL) return;
    free(H->color_ptr);
    free(H->lower_end);
    free(H->upper_begin);
    free(H->dinv);
    free(H);
}

kryl_status kryl_mcsweep_check(int64_t n, kryl_vector r, kryl_vector z)
{
    KRYL_REQUIRE_ARG(r);
    KRYL_REQUIRE_ARG(z);
    if (r->n != n || z->n != n)
        return KRYL_ERROR(KRYL_ERR_DIMENSION_MISMATCH,
                          "mcsweep: vectors of %lld and %lld entries for %lld rows",
                          (long long)r->n, (long long)z->n, (long long)n);
    if (r->precision != KRYL_DOUBLE || z->precision != KRYL_DOUBLE)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "mcsweep: r and z must be double vectors");
    if (r->data == z->data && n > 0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "mcsweep: r and z must be distinct");
    return KRYL_SUCCESS;
}

void kryl_host_csr_permute_offsets(int64_t n, const int64_t *row_ptr, const int32_t *perm,
                                   int32_t *inv, int64_t *b_row_ptr)
{
    /* inv = perm^{-1};  b_row_ptr = prefix sums of the lengths of rows perm[i] */
    b_row_ptr[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        inv[perm[i]] = (int32_t)i;
        b_row_ptr[i + 1] = b_row_ptr[i] + row_ptr[perm[i] + 1] - row_ptr[perm[i]];
    }
}
