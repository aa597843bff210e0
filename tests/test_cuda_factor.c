/* The cuda backend's numeric IC(0)/ILU(0) on a kept pattern (one launch,
 * a warp per row waiting on per-row ready flags) and the triangles built
 * from it against the host factorizations (test_factor_support.h), from
 * the host's pattern and from the device's own analysis of A's stored CSR
 * (factor_analyse, factor_schedule: the pattern, its transpose and both
 * level schedules equal to the host's entry for entry).  Skipped (77)
 * without a usable device. */
#include "test_factor_support.h"
#ifdef KRYL_HAVE_CUDA
#include "backends/cuda/cuda_factor_hooks.h"
#endif

int main(void)
{
    if (!test_cuda_device("test_cuda_factor")) return TEST_SKIP_CODE;
#ifdef KRYL_HAVE_CUDA
    tf_download = kryl_cuda_factor_download;
#endif
    kryl_context gpu = test_context(KRYL_BACKEND_CUDA);
    tf_check_all(gpu);
    CHECK(tf_analysed > 0, "the device's own analysis was never checked");
    kryl_context_destroy(&gpu);
    return test_summary("test_cuda_factor");
}
