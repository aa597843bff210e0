/* The device helpers the cuda backend's operations of the Krylov methods
 * beyond CG (pipelined CG, BiCGSTAB, GMRES, flexible CG, inner-solve
 * monitors; declared in cuda_internal.cuh) share: the monitor guard,
 * stopping, and "am I the last block" for kernels that must update a scalar
 * every block has read.  Semantics: backend.h; specification: the ref
 * backend (src/backends/ref/ref_krylov.c). */
#ifndef KRYL_BACKENDS_CUDA_KRYLOV_CUH
#define KRYL_BACKENDS_CUDA_KRYLOV_CUH

#include "backends/cuda/cuda_reduce.cuh"

/* Grid-stride loop over i in [0, n). */
#define KRYL_CUDA_GRID_LOOP(i, n)                                                                  \
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);                      \
         i += (int64_t)gridDim.x * blockDim.x)

/* Whether a guarded kernel must do nothing (monitor NULL: unguarded).  The
 * flag is read from device memory; within one launch it is written only by
 * a kryl_cuda_halt whose decision every block reaches on its own, so a
 * block that sees it set returns as that block would have. */
__device__ inline bool kryl_cuda_halted(const kryl_monitor *monitor)
{
    return monitor && *(volatile const int32_t *)&monitor->stop != KRYL_STOP_RUNNING;
}

/* Stop the iteration for `why` (one thread of the grid writes it). */
__device__ inline void kryl_cuda_halt(kryl_monitor *monitor, int32_t why)
{
    if (monitor && blockIdx.x == 0 && threadIdx.x == 0) monitor->stop = why;
}

/* True in thread 0 of the last block to get here (every thread of every
 * block calls it once, after its last read of the scalars the last block
 * will overwrite).  counter is 0 on entry and is left 0. */
__device__ inline bool kryl_cuda_last_block(unsigned int *counter)
{
    __syncthreads();
    return kryl_last_block(counter) && threadIdx.x == 0;
}

/* The typed data of v, or NULL. */
template <typename T> static inline T *kryl_cuda_data(kryl_vector v)
{
    return v ? static_cast<T *>(v->data) : nullptr;
}

/* A scalar argument must point somewhere. */
kryl_status kryl_cuda_check_scalar(const char *op, const char *name, kryl_scalar scalar);

#endif
