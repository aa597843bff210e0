/* SpMV of ELLPACK and ELLPACK-R: entry j of row r at [j*stride + r]
 * (Kreutzer et al. 2012, listing 1).  ELLPACK reads every slot of a row,
 * padding included (col = r, value 0); ELLPACK-R stops at row_len[r]. */
#include "backends/cuda/cuda_fmt.cuh"

/* Where ELLPACK keeps row r's entries. */
struct ell_layout {
    int64_t stride;
    int width;
    const int32_t *row_len; /* NULL: ELLPACK, every row `width` long */

    __device__ int length(int64_t r) const { return row_len ? __ldg(row_len + r) : width; }
    __device__ int64_t base(int64_t r) const { return r; }
    __device__ int64_t at(int64_t b, int j) const { return b + (int64_t)j * stride; }
};

kryl_status kryl_cuda_spmv_ell(const cuda_fmt *m, kryl_precision p, const cuda_fmt_args *a)
{
    const ell_layout layout = {m->stride, (int)m->width,
                               m->kind == KRYL_FORMAT_ELLR ? m->row_len : nullptr};
    return fmt_launch_slab(m, p, a, layout);
}
