/* The Jones-Plassmann coloring of the host backends (ref: the oracle run
 * through the operation table; omp: waves on symmetric patterns, parallel
 * rounds on others, with OpenMP's team and with 3 threads) against the
 * serial oracle on awkward patterns, grids and the real matrices: the same
 * colors, a valid coloring, the same grouping; and their first-fit
 * coloring (the serial oracle through the table).  The cuda backend's:
 * test_cuda_color. */
#include "color_support.h"
#include "test_support.h"

static void check(kryl_context ref, kryl_context ctx, kryl_backend_kind kind, const char *name)
{
    (void)ref;
    (void)kind;
    (void)name;
    test_color_rows_cases(ctx);
    test_first_fit_cases(ctx);
}

int main(void)
{
    test_each_config(true, check);
    return test_summary("test_color_rows");
}
