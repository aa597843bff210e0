/* GMRES's operations on the cuda backend (Saad & Schultz, SIAM J. Sci.
 * Stat. Comput. 7, 1986).  Classical Gram-Schmidt as block operations
 * (Giraud et al. 2005's CGS2 is two passes of them): multi_dot forms all k
 * products V_j'w in ONE pass over w and the basis (per-block partials for
 * every column, then the last-block deterministic reduction), multi_axpy
 * applies w += alpha V h and reduces w'w in one pass.  The small least-
 * squares problem (Givens rotations, back substitution) stays on the device
 * in one-warp kernels, so no scalar travels to the host inside a cycle. */
#include <math.h>

#include "backends/cuda/cuda_givens.cuh"
#include "backends/cuda/cuda_krylov.cuh"

/* Columns multi_dot accumulates together in registers. */
constexpr int MULTI_DOT_GROUP = 8;
/* Resident blocks per multiprocessor multi_dot's grid is sized for. */
constexpr int MULTI_DOT_BLOCKS_PER_SM = 4;
/* Columns of one multi_dot launch: their partials fill the reduction workspace. */
constexpr int MULTI_DOT_COLUMNS =
    KRYL_CUDA_MAX_REDUCED * KRYL_CUDA_REDUCE_BLOCKS_PER_SM / MULTI_DOT_BLOCKS_PER_SM;
/* Rotations gmres_givens stages in shared memory at a time. */

/* h_j = V_j'w for j < k (V_j = V + j*len), every sum in a fixed order.  Each
 * block sums its rows for MULTI_DOT_GROUP columns at a time and stores one
 * partial per column; the last block adds the partials of each column in
 * block order, one warp per column. */
template <typename T>
__global__ __launch_bounds__(KRYL_CUDA_THREADS, MULTI_DOT_BLOCKS_PER_SM) void multi_dot_kernel(
    int64_t len, const T *__restrict__ V, int k, const T *__restrict__ w, double *h,
    const kryl_monitor *monitor, double *partials, unsigned int *counter)
{
    if (kryl_cuda_halted(monitor)) return;
    const unsigned int stride = gridDim.x;
    for (int j0 = 0; j0 < k; j0 += MULTI_DOT_GROUP) {
        const int cols = min(MULTI_DOT_GROUP, k - j0);
        const T *Vg = V + (int64_t)j0 * len;
        double acc[MULTI_DOT_GROUP] = {};
        /* acc_c += V_{j0+c}[i] w[i] over this thread's rows */
        KRYL_CUDA_GRID_LOOP(i, len)
        {
            const double wi = (double)w[i];
#pragma unroll
            for (int c = 0; c < MULTI_DOT_GROUP; c++)
                if (c < cols) acc[c] += (double)Vg[(int64_t)c * len + i] * wi;
        }
        kryl_block_sum<MULTI_DOT_GROUP>(acc);
        if (threadIdx.x == 0)
            for (int c = 0; c < cols; c++) partials[(j0 + c) * stride + blockIdx.x] = acc[c];
    }
    if (!kryl_last_block(counter)) return;
    /* h_j = sum over blocks b of partials[j][b]: lanes in block order, then a warp tree */
    const int lane = threadIdx.x & 31;
    for (int j = threadIdx.x >> 5; j < k; j += KRYL_CUDA_THREADS / 32) {
        double sum = 0.0;
        for (unsigned int b = lane; b < gridDim.x; b += 32)
            sum += __ldcg(&partials[j * stride + b]);
        for (int offset = 16; offset > 0; offset >>= 1)
            sum += __shfl_down_sync(0xffffffffu, sum, offset);
        if (lane == 0) h[j] = sum;
    }
}

/* w += alpha sum_{j<k} h_j V_j (terms with h_j = 0 skipped, so stale
 * columns never contribute);  ww = w'w (NORM) */
template <typename T, bool NORM>
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void multi_axpy_kernel(
    int64_t len, const T *__restrict__ V, int k, double alpha, const double *__restrict__ h,
    T *__restrict__ w, double *ww, const kryl_monitor *monitor, double *partials,
    unsigned int stride, unsigned int *counter)
{
    if (kryl_cuda_halted(monitor)) return;
    double sum[1] = {0.0};
    KRYL_CUDA_GRID_LOOP(i, len)
    {
        double acc = 0.0;
#pragma unroll 16
        for (int j = 0; j < k; j++) {
            const double hj = h[j], vj = (double)V[(int64_t)j * len + i];
            acc += hj != 0.0 ? hj * vj : 0.0;
        }
        const T wi = (T)((double)w[i] + alpha * acc);
        w[i] = wi;
        if (NORM) sum[0] += (double)wi * (double)wi;
    }
    if (NORM && kryl_grid_sum<1>(sum, partials, stride, counter)) *ww = sum[0];
}

/* g = (sqrt|rr|, 0, ..., 0);  count = 0 (one warp) */
__global__ void cycle_start_kernel(int m, double *g, int64_t *count, const double *rr,
                                   const kryl_monitor *monitor)
{
    if (kryl_cuda_halted(monitor)) return;
    for (int i = threadIdx.x; i <= m; i += 32) g[i] = i == 0 ? sqrt(fabs(*rr)) : 0.0;
    if (threadIdx.x == 0) *count = 0;
}

/* Arnoldi column k of the least-squares problem (one warp):
 * R[0..k][k] += h2;  R[k+1][k] = sqrt(ww);  then kryl_cuda_givens_column:
 * rotations 0..k-1 applied, rotation k zeroes R[k+1][k], g, rr and count
 * updated.  A zero pivot stops with BREAKDOWN, a non-finite entry with NAN;
 * both leave count, g and the rotations as they were. */
__global__ void givens_kernel(kryl_gmres_ls ls, int k, kryl_monitor *monitor)
{
    if (kryl_cuda_halted(monitor)) return;
    double *col = ls.R + (int64_t)k * (ls.m + 1);
    /* h = first pass + second pass of classical Gram-Schmidt;  h_{k+1,k} = ||w|| */
    for (int i = threadIdx.x; i <= k + 1; i += 32)
        col[i] = i <= k ? col[i] + ls.h2[i] : sqrt(*ls.ww);
    __syncwarp();
    const int why = kryl_cuda_givens_column(ls, col, k, ls.g[k]);
    if (why != KRYL_STOP_RUNNING) kryl_cuda_halt(monitor, why);
}

/* y = R^{-1} g by back substitution over the `count` columns built,
 * y[count..m-1] = 0, then y = T^{-1} y when T is given;  count = 0 (one
 * thread: the ref backend's order). */
__global__ void gmres_solve_kernel(kryl_gmres_ls ls)
{
    const int k = (int)*ls.count, ld = ls.m + 1;
    for (int i = ls.m - 1; i >= 0; i--) {
        if (i >= k) {
            ls.y[i] = 0.0;
            continue;
        }
        double sum = ls.g[i];
        for (int j = i + 1; j < k; j++) sum -= ls.R[(int64_t)j * ld + i] * ls.y[j];
        ls.y[i] = sum / ls.R[(int64_t)i * ld + i];
    }
    /* FGMRES by DCGS2 keeps z_j unorthogonalised: y = T^{-1} y */
    for (int i = k - 1; ls.T != nullptr && i >= 0; i--) {
        double sum = ls.y[i];
        for (int j = i + 1; j < k; j++) sum -= ls.T[(int64_t)j * ls.m + i] * ls.y[j];
        ls.y[i] = sum / ls.T[(int64_t)i * ls.m + i];
    }
    *ls.count = 0;
}

/* V (k columns of w->n entries) and w are alike; k >= 0. */
static kryl_status check_basis(const char *op, kryl_vector V, int k, kryl_vector w)
{
    KRYL_TRY(kryl_cuda_check_vectors(op, w, V));
    if (k < 0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda %s: k = %d columns, expected >= 0", op,
                          k);
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_multi_dot(kryl_context ctx, kryl_vector V, int k, kryl_vector w,
                                kryl_scalar h, kryl_monitor *monitor)
{
    KRYL_TRY(check_basis("multi_dot", V, k, w));
    KRYL_TRY(kryl_cuda_check_scalar("multi_dot", "h", h));
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    const unsigned int grid =
        kryl_cuda_blocks(w->n, (unsigned int)(s->sm_count * MULTI_DOT_BLOCKS_PER_SM));
    /* MULTI_DOT_COLUMNS columns a launch: each launch's partials fit the workspace */
    for (int j0 = 0; j0 < k; j0 += MULTI_DOT_COLUMNS) {
        const int cols = min(MULTI_DOT_COLUMNS, k - j0);
        kryl_cuda_with_type(w->precision, [&](auto t) {
            using T = decltype(t);
            multi_dot_kernel<T><<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(
                w->n, kryl_cuda_data<const T>(V) + (int64_t)j0 * w->n, cols,
                kryl_cuda_data<const T>(w), h.ptr + j0, monitor, s->partials, s->counter);
        });
        KRYL_CUDA_CHECK_LAUNCH("multi_dot_kernel");
    }
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_multi_axpy(kryl_context ctx, kryl_vector V, int k, double alpha,
                                 kryl_scalar h, kryl_vector w, kryl_scalar ww,
                                 kryl_monitor *monitor)
{
    KRYL_TRY(check_basis("multi_axpy", V, k, w));
    if (k > 0) KRYL_TRY(kryl_cuda_check_scalar("multi_axpy", "h", h));
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    kryl_cuda_with_type(w->precision, [&](auto t) {
        using T = decltype(t);
        auto kernel = ww.ptr ? multi_axpy_kernel<T, true> : multi_axpy_kernel<T, false>;
        kernel<<<kryl_cuda_reduce_grid(s, w->n), KRYL_CUDA_THREADS, 0, s->stream>>>(
            w->n, kryl_cuda_data<const T>(V), k, alpha, h.ptr, kryl_cuda_data<T>(w), ww.ptr,
            monitor, s->partials, s->reduce_blocks, s->counter);
    });
    KRYL_CUDA_CHECK_LAUNCH("multi_axpy_kernel");
    return KRYL_SUCCESS;
}

/* The least-squares block is complete and column k exists. */
static kryl_status check_ls(const char *op, const kryl_gmres_ls *ls)
{
    if (ls == nullptr || ls->m < 1 || !ls->R || !ls->cs || !ls->sn || !ls->g || !ls->y || !ls->h2 ||
        !ls->ww || !ls->rr || !ls->count)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "cuda %s: the least-squares problem is NULL, incomplete or has m < 1",
                          op);
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_gmres_cycle_start(kryl_context ctx, const kryl_gmres_ls *ls, kryl_scalar rr,
                                        kryl_monitor *monitor)
{
    KRYL_TRY(check_ls("gmres_cycle_start", ls));
    KRYL_TRY(kryl_cuda_check_scalar("gmres_cycle_start", "rr", rr));
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    cycle_start_kernel<<<1, 32, 0, s->stream>>>(ls->m, ls->g, ls->count, rr.ptr, monitor);
    KRYL_CUDA_CHECK_LAUNCH("cycle_start_kernel");
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_gmres_givens(kryl_context ctx, const kryl_gmres_ls *ls, int k,
                                   kryl_monitor *monitor)
{
    KRYL_TRY(check_ls("gmres_givens", ls));
    if (k < 0 || k >= ls->m)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "cuda gmres_givens: column %d, expected 0 <= k < m = %d", k, ls->m);
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    givens_kernel<<<1, 32, 0, s->stream>>>(*ls, k, monitor);
    KRYL_CUDA_CHECK_LAUNCH("givens_kernel");
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_gmres_solve(kryl_context ctx, const kryl_gmres_ls *ls)
{
    KRYL_TRY(check_ls("gmres_solve", ls));
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    gmres_solve_kernel<<<1, 1, 0, s->stream>>>(*ls);
    KRYL_CUDA_CHECK_LAUNCH("gmres_solve_kernel");
    return KRYL_SUCCESS;
}
