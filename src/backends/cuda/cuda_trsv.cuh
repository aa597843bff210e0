/* The cuda backend's triangular solves (cuda_trsv.cu): the ops' trsv_setup,
 * trsv and trsv_release. */
#ifndef KRYL_BACKENDS_CUDA_TRSV_CUH
#define KRYL_BACKENDS_CUDA_TRSV_CUH

#include "backends/cuda/cuda_internal.cuh"

kryl_status kryl_cuda_trsv_setup(kryl_context ctx, const kryl_csr *T, kryl_precision precision,
                                 bool lower, bool unit_diagonal, const int32_t *level_rows,
                                 const int64_t *level_ptr, int64_t nlevels, void **handle);
kryl_status kryl_cuda_trsv(kryl_context ctx, void *handle, kryl_vector b, kryl_vector x);
void kryl_cuda_trsv_release(kryl_context ctx, void *handle);

#endif
