/* The host backends' numeric IC(0)/ILU(0) on a kept pattern (ref: the
 * serial factorization's bits; omp: by levels, the same bits) against the
 * host factorizations (test_factor_support.h), with OpenMP's team and 3
 * threads. */
#include "test_factor_support.h"

static void check(kryl_context ref, kryl_context ctx, kryl_backend_kind kind, const char *name)
{
    (void)ref;
    (void)name;
    /* the cuda backend is checked by test_cuda_factor */
    if (kind != KRYL_BACKEND_CUDA) tf_check_all(ctx);
}

int main(void)
{
    test_each_config(true, check);
    return test_summary("test_factor_backend");
}
