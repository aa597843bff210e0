/* The grouping by color of the host backends (backend.h, color_group):
 * one counting pass, serial, as the oracle does it. */
#include "backends/host_step.h"
#include "order/order.h"

kryl_status kryl_host_color_group(kryl_context ctx, int64_t n, const int32_t *color,
                                  int32_t ncolors, int32_t *perm, int64_t *color_ptr)
{
    (void)ctx;
    kryl_color_group_serial(n, color, ncolors, perm, color_ptr);
    return KRYL_SUCCESS;
}
