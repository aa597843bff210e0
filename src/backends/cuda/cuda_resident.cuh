/* What the kernels that run many solver steps in one cooperative launch
 * share (cuda_pipecg_resident.cu, cuda_cg_resident.cu): the grid stays
 * resident, each group of LANES threads owns one row with its entries in
 * registers for the whole launch, and kryl_resident_sum separates the
 * steps.  Used only where the resident grid has a group for every row. */
#ifndef KRYL_BACKENDS_CUDA_RESIDENT_CUH
#define KRYL_BACKENDS_CUDA_RESIDENT_CUH

#include "backends/cuda/cuda_csr.cuh"

/* Entries of its row each lane keeps in registers: a whole row of up to 8
 * where a thread takes a row (the short rows of 5- and 7-point stencils),
 * the SpMV's first round where a group does. */
template <int LANES> constexpr int RESIDENT_DEPTH = LANES == 1 ? 2 * VECTOR_DEPTH : VECTOR_DEPTH;

/* Blocks per multiprocessor the kernels are compiled to fit (registers):
 * three give an H100 a thread for every row of a 300 x 300 grid. */
constexpr int RESIDENT_BLOCKS_PER_SM = 3;

/* Blocks of `kernel` that can be resident at once, at most `cap`; 0 where
 * the device cannot launch cooperatively. */
template <typename K>
static unsigned int kryl_resident_blocks(const kryl_cuda_state *s, K kernel, int64_t cap)
{
    int device = 0, cooperative = 0, per_sm = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, KRYL_CUDA_THREADS, 0) !=
            cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    if (!cooperative) return 0;
    int64_t blocks = (int64_t)per_sm * s->sm_count;
    if (blocks > s->reduce_blocks) blocks = s->reduce_blocks;
    if (blocks > cap) blocks = cap;
    return (unsigned int)blocks;
}

/* The grid of a resident kernel over nrows rows of LANES threads, or 0
 * where not every row gets a group at once. */
template <int LANES, typename K>
static unsigned int kryl_resident_grid(const kryl_cuda_state *s, K kernel, int64_t nrows)
{
    const int64_t wanted = (nrows * LANES + KRYL_CUDA_THREADS - 1) / KRYL_CUDA_THREADS;
    const unsigned int grid = kryl_resident_blocks(s, kernel, wanted);
    return grid > 0 && wanted <= (int64_t)grid ? grid : 0;
}

/* Launch `kernel` cooperatively on s's stream with `grid` blocks. */
template <typename K, typename... Args>
static cudaError_t kryl_resident_launch(const kryl_cuda_state *s, K kernel, unsigned int grid,
                                        Args... args)
{
    cudaLaunchAttribute cooperative;
    cooperative.id = cudaLaunchAttributeCooperative;
    cooperative.val.cooperative = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(grid);
    config.blockDim = dim3(KRYL_CUDA_THREADS);
    config.stream = s->stream;
    config.attrs = &cooperative;
    config.numAttrs = 1;
    return cudaLaunchKernelEx(&config, kernel, args...);
}

#endif
