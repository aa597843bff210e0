/* The grouping by color of the host backends (backend.h, color_group):
 * one counting pass, serial, as the oracle does it; and their first-fit
 * coloring (color_first_fit): the oracle itself, serial by its nature
 * (each row waits for its earlier neighbours). */
#include "backends/host_step.h"
#include "order/order.h"

kryl_status kryl_host_color_group(kryl_context ctx, int64_t n, const int32_t *color,
                                  int32_t ncolors, int32_t *perm, int64_t *color_ptr)
{
    (void)ctx;
    kryl_color_group_serial(n, color, ncolors, perm, color_ptr);
    return KRYL_SUCCESS;
}

kryl_status kryl_host_color_first_fit(kryl_context ctx, int64_t n, const int64_t *row_ptr,
                                      const int32_t *col_idx, int32_t *color, int32_t *ncolors)
{
    (void)ctx;
    return kryl_color_first_fit_serial(n, row_ptr, col_idx, color, ncolors);
}
