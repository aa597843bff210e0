/* The cuda backend's numeric IC(0)/ILU(0) on a kept pattern (one launch,
 * a warp per row waiting on per-row ready flags) and the triangles built
 * from it against the host factorizations (test_factor_support.h).
 * Skipped (77) without a usable device. */
#include "test_factor_support.h"

int main(void)
{
    if (!test_cuda_device("test_cuda_factor")) return TEST_SKIP_CODE;
    kryl_context gpu = test_context(KRYL_BACKEND_CUDA);
    tf_check_all(gpu);
    kryl_context_destroy(&gpu);
    return test_summary("test_cuda_factor");
}
