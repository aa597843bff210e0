/* GMRES by classical Gram-Schmidt with delayed reorthogonalisation (DCGS2:
 * Bielich, Langou, Thomas, Swirydowicz, Yamazaki, Boman, Parallel Comput.
 * 2022) on the cuda backend; specification in ref_dcgs2.c.  Per Arnoldi
 * step k (k+1 basis vectors of n entries):
 *   dcgs2_dot_kernel     reads V_0..V_k and w once ((k+2) n), one
 *                        grid-wide deterministic reduction of 2k+3 sums;
 *   dcgs2_column_kernel  one warp: H, the Givens rotations, the factors;
 *   dcgs2_update_kernel  reads V_0..V_k and w, writes V_k and w ((k+4) n),
 *                        no reduction.
 * CGS2 (cuda_gmres.cu) reads and writes (4k+12) n in six kernels with three
 * grid-wide reductions for the same step. */
#include <float.h>
#include <math.h>

#include "backends/cuda/cuda_givens.cuh"
#include "backends/cuda/cuda_krylov.cuh"

/* Basis columns the dot kernel accumulates together in registers (two
 * sums each: with V_k and with w); V_k and w are read once per group. */
constexpr int DCGS2_GROUP = 16;
/* Resident blocks per multiprocessor the dot kernel's grid is sized for. */
constexpr int DCGS2_BLOCKS_PER_SM = 2;
/* Sums of one dot launch: their partials fill the reduction workspace. */
constexpr int DCGS2_SUMS =
    KRYL_CUDA_MAX_REDUCED * KRYL_CUDA_REDUCE_BLOCKS_PER_SM / DCGS2_BLOCKS_PER_SM;
/* Basis columns of one dot launch (two sums each, and w'w). */
constexpr int DCGS2_COLUMNS = (DCGS2_SUMS - 1) / 2;
/* Rotations the column kernel stages in shared memory at a time. */
/* Below this share of ||w||^2 the Pythagorean ||w - Q c||^2 holds no digits. */
constexpr double DCGS2_NOISE = 64.0 * DBL_EPSILON;

/* du[c] = V_c'u and (W) dw[c] = V_c'w for c < cols, (W and dww) *dww = w'w.
 * Each block sums its rows for DCGS2_GROUP columns at a time and stores one
 * partial per sum (sum 2c: with u, 2c+1: with w, 2 cols: w'w); the last
 * block adds each sum's partials in block order, one warp per sum. */
template <typename T, bool W>
__global__ __launch_bounds__(KRYL_CUDA_THREADS, DCGS2_BLOCKS_PER_SM) void dcgs2_dot_kernel(
    int64_t len, const T *__restrict__ V, int cols, const T *__restrict__ u,
    const T *__restrict__ w, double *du, double *dw, double *dww, const kryl_monitor *monitor,
    double *partials, unsigned int *counter)
{
    if (kryl_cuda_halted(monitor)) return;
    const unsigned int stride = gridDim.x;
    const int lane = threadIdx.x & 31;
    for (int j0 = 0; j0 < cols; j0 += DCGS2_GROUP) {
        const int g = min(DCGS2_GROUP, cols - j0);
        const bool with_ww = W && dww && j0 == 0;
        const T *Vg = V + (int64_t)j0 * len;
        double acc[2 * DCGS2_GROUP + 1] = {};
        /* acc_2c += V_c u;  acc_2c+1 += V_c w;  acc_2G += w w, over this thread's rows */
        KRYL_CUDA_GRID_LOOP(i, len)
        {
            const double ui = (double)u[i], wi = W ? (double)w[i] : 0.0;
#pragma unroll
            for (int c = 0; c < DCGS2_GROUP; c++)
                if (c < g) {
                    const double v = (double)Vg[(int64_t)c * len + i];
                    acc[2 * c] += v * ui;
                    if (W) acc[2 * c + 1] += v * wi;
                }
            if (with_ww) acc[2 * DCGS2_GROUP] += wi * wi;
        }
        kryl_block_sum<2 * DCGS2_GROUP + 1>(acc);
        if (threadIdx.x == 0) {
            for (int c = 0; c < g; c++) {
                partials[(2 * (j0 + c)) * stride + blockIdx.x] = acc[2 * c];
                if (W) partials[(2 * (j0 + c) + 1) * stride + blockIdx.x] = acc[2 * c + 1];
            }
            if (with_ww) partials[(2 * cols) * stride + blockIdx.x] = acc[2 * DCGS2_GROUP];
        }
    }
    if (!kryl_last_block(counter)) return;
    /* sum q = sum over blocks b of partials[q][b]: lanes in block order, then a warp tree */
    const int sums = 2 * cols + 1;
    for (int q = threadIdx.x >> 5; q < sums; q += KRYL_CUDA_THREADS / 32) {
        const bool is_ww = q == 2 * cols, is_w = !is_ww && (q & 1);
        if ((is_ww && !(W && dww)) || (is_w && !W)) continue;
        double sum = 0.0;
        for (unsigned int b = lane; b < gridDim.x; b += 32)
            sum += __ldcg(&partials[q * stride + b]);
        for (int offset = 16; offset > 0; offset >>= 1)
            sum += __shfl_down_sync(0xffffffffu, sum, offset);
        if (lane == 0) *(is_ww ? dww : is_w ? &dw[q >> 1] : &du[q >> 1]) = sum;
    }
}

/* V_k = (V_k - sum_{j<k} s_j V_j) f0;  w = (w - sum_{j<k} t_j V_j - f1 V_k) f2
 * (s = d[0..k-1], t = d[k+1..2k]; sums in j order, as ref) */
template <typename T>
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void dcgs2_update_kernel(
    int64_t len, const T *__restrict__ V, int k, T *__restrict__ u, T *__restrict__ w,
    const double *__restrict__ d, const double *__restrict__ f, const kryl_monitor *monitor)
{
    if (kryl_cuda_halted(monitor)) return;
    const double f0 = f[0], f1 = f[1], f2 = f[2];
    const double *t = d + k + 1;
    KRYL_CUDA_GRID_LOOP(i, len)
    {
        double vs = 0.0, vt = 0.0;
#pragma unroll 8
        for (int j = 0; j < k; j++) {
            const double vj = (double)V[(int64_t)j * len + i];
            vs += d[j] * vj;
            vt += t[j] * vj;
        }
        const T q = (T)(((double)u[i] - vs) * f0);
        u[i] = q;
        w[i] = (T)(((double)w[i] - vt - f1 * (double)q) * f2);
    }
}

/* Sum over the warp, the same in every lane. */
__device__ inline double warp_sum(double v)
{
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

/* One warp: R's column j = H's column j, reduced by the rotations
 * (kryl_cuda_givens_column, applied to gj = g[j]). */
__device__ int rotate_column(const kryl_gmres_ls &ls, int j, double gj)
{
    const int64_t ld = ls.m + 1;
    const double *h = ls.H + j * ld;
    double *col = ls.R + j * ld;
    for (int i = threadIdx.x; i <= j + 1; i += 32) col[i] = h[i];
    __syncwarp();
    return kryl_cuda_givens_column(ls, col, j, gj);
}

/* Whether d[0..count-1] are all finite (every lane). */
__device__ inline bool warp_all_finite(const double *d, int count)
{
    bool finite = true;
    for (int i = threadIdx.x; i < count; i += 32) finite = finite && isfinite(d[i]);
    return __all_sync(0xffffffffu, finite);
}

/* The least-squares side of DCGS2 step k (one warp; backend.h's
 * gmres_dcgs2_column): complete column k-1 with the delayed second pass,
 * build column k provisionally, the factors of the update. */
__global__ void dcgs2_column_kernel(kryl_gmres_ls ls, int k, kryl_monitor *monitor)
{
    if (kryl_cuda_halted(monitor)) return;
    const int lane = threadIdx.x, m = ls.m;
    const int64_t ld = m + 1;
    const double *d = ls.d, *s = d;
    if (k == m && *ls.count != m) return;
    double rho = 1.0;
    if (k > 0) {
        if (!warp_all_finite(d, k + 1)) {
            if (lane == 0) kryl_cuda_halt(monitor, KRYL_STOP_NAN);
            return;
        }
        /* rho^2 = u'u - s's: u's length outside span Q */
        double ss = 0.0;
        for (int j = lane; j < k; j += 32) ss += s[j] * s[j];
        const double rho2 = d[k] - warp_sum(ss);
        rho = rho2 > 0.0 ? sqrt(rho2) : 0.0;
        /* complete column k-1:  H[0..k-1] += eta s;  H[k] = eta rho */
        double *h = ls.H + (k - 1) * ld;
        const double eta = *ls.eta, gk = *ls.gk;
        for (int j = lane; j < k; j += 32) h[j] += eta * s[j];
        if (lane == 0) h[k] = eta * rho;
        __syncwarp();
        const int why = rotate_column(ls, k - 1, gk);
        if (why != KRYL_STOP_RUNNING) {
            /* column k-1 cannot be completed: x is formed without it */
            if (lane == 0) {
                *ls.count = k - 1;
                ls.g[k - 1] = gk;
                kryl_cuda_halt(monitor, why);
            }
            return;
        }
        if (k == m) return;
        if (rho == 0.0) {
            /* u lies in span Q: the space is invariant, g[k] = 0 ends the solve */
            if (lane < 3) ls.f[lane] = 0.0;
            return;
        }
    }
    /* provisional column k */
    const double *t = d + k + 1;
    if (!warp_all_finite(t, k + 2)) {
        if (lane == 0) kryl_cuda_halt(monitor, KRYL_STOP_NAN);
        return;
    }
    double st = 0.0;
    for (int j = lane; j < k; j += 32) st += s[j] * t[j];
    /* c_k = q_k'w = (u'w - s'Q'w)/rho */
    const double ck = (t[k] - warp_sum(st)) / rho, ww = t[k + 1];
    double *h = ls.H + k * ld, cc = 0.0;
    /* h = (c - H s)/rho over rows 0..k (H Hessenberg: column j reaches row j+1) */
    for (int i = lane; i <= k; i += 32) {
        const double ci = i < k ? t[i] : ck;
        double hs = 0.0;
        for (int j = i > 0 ? i - 1 : 0; j < k; j++) hs += ls.H[j * ld + i] * s[j];
        h[i] = (ci - hs) / rho;
        cc += ci * ci;
    }
    /* ||w - Q_{k+1} c||^2 by Pythagoras */
    const double sigma2 = ww - warp_sum(cc);
    const double sigma = sqrt(fmax(sigma2, DBL_EPSILON * ww)), gk = ls.g[k];
    if (lane == 0) h[k + 1] = sigma2 > DCGS2_NOISE * ww ? sqrt(sigma2) / rho : 0.0;
    __syncwarp();
    const int why = rotate_column(ls, k, gk);
    if (why != KRYL_STOP_RUNNING) {
        if (lane == 0) kryl_cuda_halt(monitor, why);
        return;
    }
    if (ls.T) {
        /* z_k = (z - Z s)/rho: column k of T */
        double *tc = ls.T + (int64_t)k * m;
        for (int j = lane; j < k; j += 32) tc[j] = s[j];
    }
    if (lane != 0) return;
    if (ls.T) ls.T[(int64_t)k * m + k] = rho;
    *ls.gk = gk;
    *ls.eta = sigma / rho;
    /* q_k = (u - Q s)/rho;  u_{k+1} = (w - Q t - c_k q_k)/sigma */
    ls.f[0] = 1.0 / rho;
    ls.f[1] = ck;
    ls.f[2] = sigma > 0.0 ? 1.0 / sigma : 0.0;
}

/* V holds k+1 vectors like w (w may be NULL); d points somewhere. */
static kryl_status check_basis(const char *op, kryl_vector V, int k, kryl_vector w, kryl_scalar d)
{
    KRYL_REQUIRE_ARG(V);
    if (w) KRYL_TRY(kryl_cuda_check_vectors(op, w, V));
    if (k < 0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda %s: k = %d, expected >= 0", op, k);
    return kryl_cuda_check_scalar(op, "d", d);
}

kryl_status kryl_cuda_gmres_dcgs2_dot(kryl_context ctx, kryl_vector V, int k, kryl_vector w,
                                      kryl_scalar d, kryl_monitor *monitor)
{
    KRYL_TRY(check_basis("gmres_dcgs2_dot", V, k, w, d));
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    const unsigned int grid =
        kryl_cuda_blocks(V->n, (unsigned int)(s->sm_count * DCGS2_BLOCKS_PER_SM));
    /* DCGS2_COLUMNS columns a launch (one launch up to m = 62): each launch's partials fit */
    for (int j0 = 0; j0 <= k; j0 += DCGS2_COLUMNS) {
        const int cols = min(DCGS2_COLUMNS, k + 1 - j0);
        double *dww = j0 == 0 && w ? d.ptr + 2 * k + 2 : nullptr;
        kryl_cuda_with_type(V->precision, [&](auto t) {
            using T = decltype(t);
            const T *Vj = kryl_cuda_data<const T>(V) + (int64_t)j0 * V->n;
            const T *u = kryl_cuda_data<const T>(V) + (int64_t)k * V->n;
            auto kernel = w ? dcgs2_dot_kernel<T, true> : dcgs2_dot_kernel<T, false>;
            kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(
                V->n, Vj, cols, u, kryl_cuda_data<const T>(w), d.ptr + j0, d.ptr + k + 1 + j0, dww,
                monitor, s->partials, s->counter);
        });
        KRYL_CUDA_CHECK_LAUNCH("dcgs2_dot_kernel");
    }
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_gmres_dcgs2_update(kryl_context ctx, kryl_vector V, int k, kryl_vector w,
                                         kryl_scalar d, kryl_scalar f, kryl_monitor *monitor)
{
    KRYL_REQUIRE_ARG(w);
    KRYL_TRY(check_basis("gmres_dcgs2_update", V, k, w, d));
    KRYL_TRY(kryl_cuda_check_scalar("gmres_dcgs2_update", "f", f));
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    if (V->n == 0) return KRYL_SUCCESS;
    kryl_cuda_with_type(V->precision, [&](auto t) {
        using T = decltype(t);
        T *u = kryl_cuda_data<T>(V) + (int64_t)k * V->n;
        dcgs2_update_kernel<T><<<kryl_cuda_stream_grid(s, V->n), KRYL_CUDA_THREADS, 0, s->stream>>>(
            V->n, kryl_cuda_data<const T>(V), k, u, kryl_cuda_data<T>(w), d.ptr, f.ptr, monitor);
    });
    KRYL_CUDA_CHECK_LAUNCH("dcgs2_update_kernel");
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_gmres_dcgs2_column(kryl_context ctx, const kryl_gmres_ls *ls, int k,
                                         kryl_monitor *monitor)
{
    if (ls == nullptr || ls->m < 1 || !ls->R || !ls->cs || !ls->sn || !ls->g || !ls->rr ||
        !ls->count || !ls->H || !ls->d || !ls->f || !ls->eta || !ls->gk)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "cuda gmres_dcgs2_column: the least-squares problem is NULL, lacks "
                          "the DCGS2 arrays or has m < 1");
    if (k < 0 || k > ls->m)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "cuda gmres_dcgs2_column: column %d, expected 0 <= k <= m = %d", k,
                          ls->m);
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    dcgs2_column_kernel<<<1, 32, 0, s->stream>>>(*ls, k, monitor);
    KRYL_CUDA_CHECK_LAUNCH("dcgs2_column_kernel");
    return KRYL_SUCCESS;
}
