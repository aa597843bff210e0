/* SpMV of SELL-C-sigma and pJDS (sigma = n): entry j of row r of slice s at
 * [slice_ptr[s] + j*C + r % C] (Kreutzer et al. 2012, listing 2; Kreutzer
 * et al. 2014).  A warp takes 32 rows (a slice when C = 32) and stops each
 * at row_len[r], skipping the slice's padding; a wide slice is shared by
 * several warps, each over a range of its columns (cuda_fmt.cuh). */
#include "backends/cuda/cuda_fmt.cuh"

/* Where SELL keeps row r's entries. */
struct sell_layout {
    const int64_t *slice_ptr;
    const int32_t *row_len;
    int C;

    __device__ int length(int64_t r) const { return __ldg(row_len + r); }
    __device__ int64_t base(int64_t r) const { return __ldg(slice_ptr + r / C) + r % C; }
    __device__ int64_t at(int64_t b, int j) const { return b + (int64_t)j * C; }
};

kryl_status kryl_cuda_spmv_sell(const cuda_fmt *m, kryl_precision p, const cuda_fmt_args *a)
{
    const sell_layout layout = {m->ptr, m->row_len, m->C};
    return fmt_launch_slab(m, p, a, layout);
}
