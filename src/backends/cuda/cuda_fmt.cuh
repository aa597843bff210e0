/* The cuda backend's storage of the formats other than CSR (ELL, ELLR, JDS,
 * pJDS, SELL, BCSR2/4, DIA; layouts in formats/format.h), the loads every
 * format kernel shares, and the launchers of the per-format files
 * cuda_spmv_<format>.cu.  Setup is in cuda_matrix.cu.
 *
 * Every kernel computes y = alpha*A*x + beta*z in the format's (permuted)
 * basis, sums in double, returns at once when *stop is set, and reads x
 * either through the read-only data cache (__ldg) or with plain loads
 * (cuda_fmt.x_readonly, switched by kryl_cuda_fmt_readonly_x). */
#ifndef KRYL_BACKENDS_CUDA_FMT_CUH
#define KRYL_BACKENDS_CUDA_FMT_CUH

#include <string.h>

#include <type_traits>

#include "backends/cuda/cuda_hooks.h"
#include "backends/cuda/cuda_internal.cuh"

/* Column-major formats (ELL, ELLR, JDS, pJDS, SELL) are multiplied by warps
 * over work units of 32 consecutive rows x a range of their entries.  A
 * group of rows whose longest row exceeds twice the grain is cut into units
 * of `grain` entries, each on its own warp, whose partial sums a second
 * kernel adds in order (deterministic).  The grain is SLAB_CHUNK, or down to
 * SLAB_MIN_CHUNK when the matrix has too few groups to give each
 * multiprocessor SLAB_UNITS_PER_SM units (small matrices are latency-bound:
 * shorter chains of loads).  SLAB_DEPTH entries per lane are loaded before
 * any is used. */
constexpr int SLAB_CHUNK = 128;
constexpr int SLAB_MIN_CHUNK = 16;
constexpr int SLAB_UNITS_PER_SM = 64;
constexpr int SLAB_DEPTH = 8;

/* A work unit: rows [32*group, 32*group + 32), entries [first, end) of each;
 * slot < 0: the unit writes y, else its 32 partial sums to partial[32*slot]. */
struct __align__(16) slab_unit { int32_t group, first, end, slot; };

/* A group cut into units: its sums are partial[32*slot + lane] for slot in
 * [first_slot, first_slot + count). */
struct __align__(16) slab_heavy { int32_t group, first_slot, count, pad; };

/* A format's device storage (A->storage for every format but CSR). */
struct cuda_fmt {
    kryl_format kind;
    int64_t nrows, ncols, nnz, stored;
    void *val;                  /* stored values (padding included), float or double */
    int32_t *col;               /* ELL/JDS/SELL: column of each slot; BCSR: block columns */
    int32_t *row_len;           /* ELLR, JDS, SELL, pJDS: entries per (permuted) row */
    int64_t *ptr;               /* JDS: diag_ptr; SELL/pJDS: slice_ptr; BCSR: brow_ptr */
    int32_t *offset;            /* DIA: diagonal offsets */
    const int64_t *offset_host; /* DIA: A->fmt's offsets (host) */
    int64_t width;              /* ELL: longest row */
    int64_t stride;             /* ELL/DIA: slots per stored column / diagonal */
    int64_t ndiag;              /* JDS, DIA */
    int32_t C;                  /* SELL/pJDS slice height */
    int32_t b;                  /* BCSR block size */
    int64_t nbrows;             /* BCSR block rows */
    /* column-major formats: the work units, the split groups and their sums */
    slab_unit *units;
    int64_t unit_count;
    slab_heavy *heavy;
    int64_t heavy_count;
    double *partial;
    /* JDS per-diagonal kernel: each diagonal's rows and start (host; the
     * starts are A->fmt's own), and a sum per row (device) */
    int64_t *diag_rows;
    const int64_t *diag_start;
    double *acc;
    int variant;        /* see kryl_cuda_fmt_select */
    bool x_readonly;    /* x through the read-only data cache */
    bool evict_first;   /* the matrix is loaded evict-first (see fmt_loads) */
    cuda_value_map map; /* new values (cuda_matrix_values.cu) */
};

/* The operands of one product, in the matrix's precision. */
struct cuda_fmt_args {
    cudaStream_t stream;
    double alpha, beta;
    const void *x, *z; /* z NULL: y = alpha*A*x */
    void *y;
    const int32_t *stop;
};

/* Launchers, by file; each checks its launches. */
kryl_status kryl_cuda_spmv_ell(const cuda_fmt *m, kryl_precision p, const cuda_fmt_args *a);
kryl_status kryl_cuda_spmv_jds(const cuda_fmt *m, kryl_precision p, const cuda_fmt_args *a);
kryl_status kryl_cuda_spmv_sell(const cuda_fmt *m, kryl_precision p, const cuda_fmt_args *a);
kryl_status kryl_cuda_spmv_bcsr(const cuda_fmt *m, kryl_precision p, const cuda_fmt_args *a);
kryl_status kryl_cuda_spmv_dia(const cuda_fmt *m, kryl_precision p, const cuda_fmt_args *a);

/* Storage records (cuda_matrix.cu): a new one for A->fmt, no arrays yet
 * (NULL without memory); A->storage = m when st (the status of filling
 * it) is success, with a log line (`from`: where it was converted), else
 * m freed and st returned; m and its device arrays freed (NULL: nothing). */
cuda_fmt *kryl_cuda_fmt_new(kryl_cuda_state *s, kryl_matrix A);
kryl_status kryl_cuda_fmt_adopt(kryl_context ctx, kryl_cuda_state *s, kryl_matrix A, cuda_fmt *m,
                                kryl_status st, const char *from);
void kryl_cuda_fmt_free(kryl_cuda_state *s, cuda_fmt *m);

/* m's work units from the longest row of each group of 32 rows (host). */
kryl_status kryl_cuda_fmt_units(kryl_cuda_state *s, const int32_t *width, int64_t groups,
                                cuda_fmt *m);

/* The DIA kernel's rows per thread (variant) for ndiag diagonals. */
int kryl_cuda_dia_variant(int64_t ndiag, kryl_precision precision);

/* The product of A in a format other than CSR (dispatch in cuda_matrix.cu). */
kryl_status kryl_cuda_fmt_spmv(kryl_matrix A, const cuda_fmt_args *a);

/* The vector of K values of type T that one load moves (K * sizeof(T) <= 16). */
template <typename T, int K> struct fmt_vec;
template <> struct fmt_vec<double, 1> {
    using type = double;
};
template <> struct fmt_vec<double, 2> {
    using type = double2;
};
template <> struct fmt_vec<float, 1> {
    using type = float;
};
template <> struct fmt_vec<float, 2> {
    using type = float2;
};
template <> struct fmt_vec<float, 4> {
    using type = float4;
};

/* Load paths: streaming (evict-first in L1 and L2), the read-only data
 * cache, or a plain load. */
enum fmt_load_mode { FMT_STREAM, FMT_READONLY, FMT_PLAIN };

/* How a kernel loads: x through the read-only cache (RO) or with plain
 * loads; the matrix evict-first (EF: larger than half the L2, it is read
 * once per product and leaves L2 to x) or through the read-only cache (a
 * smaller matrix stays in L2 from one product to the next). */
template <bool RO, bool EF> struct fmt_loads {
    static constexpr int X = RO ? FMT_READONLY : FMT_PLAIN;  /* x */
    static constexpr int A = EF ? FMT_STREAM : FMT_READONLY; /* the matrix */
};

/* out = p[0..N) in loads of up to 16 bytes; p aligned to one load */
template <int MODE, typename T, int N> __device__ inline void fmt_load(const T *p, T (&out)[N])
{
    constexpr int K = N * sizeof(T) <= 16 ? N : 16 / (int)sizeof(T);
    using V = typename fmt_vec<T, K>::type;
    const V *q = reinterpret_cast<const V *>(p);
#pragma unroll
    for (int v = 0; v < N / K; v++) {
        V w;
        if constexpr (MODE == FMT_STREAM)
            w = __ldcs(q + v);
        else if constexpr (MODE == FMT_READONLY)
            w = __ldg(q + v);
        else
            w = q[v];
        memcpy(&out[v * K], &w, sizeof w);
    }
}

/* *p by the load path MODE */
template <int MODE, typename T> __device__ inline T fmt_load1(const T *p)
{
    if constexpr (MODE == FMT_STREAM)
        return __ldcs(p);
    else if constexpr (MODE == FMT_READONLY)
        return __ldg(p);
    else
        return *p;
}

/* y_i = alpha*sum + beta*z_i (z NULL: alpha*sum) */
template <typename T>
__device__ inline void fmt_store(T *y, const T *z, int64_t i, double alpha, double beta, double sum)
{
    y[i] = (T)(z ? alpha * sum + beta * (double)z[i] : alpha * sum);
}

/* f(fmt_loads<RO, EF>{}) with m's load paths as template arguments. */
template <typename F> static inline void fmt_with_loads(const cuda_fmt *m, F &&f)
{
    if (m->x_readonly && m->evict_first)
        f(fmt_loads<true, true>{});
    else if (m->x_readonly)
        f(fmt_loads<true, false>{});
    else if (m->evict_first)
        f(fmt_loads<false, true>{});
    else
        f(fmt_loads<false, false>{});
}

/* ---- column-major formats: ELL, ELLR, JDS, pJDS, SELL ----
 * A layout L says where entry j of row r is: at(base(r), j), and how many
 * entries row r has: length(r) (0 past the last row). */

/* y = alpha*A*x + beta*z over work units, a warp each: lane l takes row
 * r = 32*group + l and sums a_rj x_col(rj) over its entries [first,
 * min(end, length(r))), the warp's loads of one j coalesced (ELLPACK-R and
 * pJDS, Kreutzer et al. 2012, listings 1 and 2; JDS "CSR-like", Cevahir et
 * al. 2009, fig. 3). */
template <typename T, typename L, typename M>
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void slab_kernel(
    L layout, const slab_unit *__restrict__ units, int64_t unit_count, int64_t nrows,
    const int32_t *__restrict__ col, const T *__restrict__ val, const T *x, double alpha,
    double beta, const T *z, T *y, double *partial, const int32_t *stop)
{
    if (stop && *stop) return;
    const int64_t u = ((int64_t)blockIdx.x * KRYL_CUDA_THREADS + threadIdx.x) >> 5;
    if (u >= unit_count) return;
    const int lane = (int)(threadIdx.x & 31u);
    const slab_unit w = units[u];
    const int64_t row = (int64_t)w.group * 32 + lane;
    const int end = row < nrows ? min(w.end, layout.length(row)) : 0;
    const int64_t base = end > 0 ? layout.base(row) : 0;
    double sum = 0.0;
    for (int j = w.first; j < end; j += SLAB_DEPTH) {
        /* SLAB_DEPTH entries loaded before any is used, without branches (past
         * the row's end the last entry again, not added) so that every load
         * is issued before the first multiply */
        T a[SLAB_DEPTH];
        int32_t c[SLAB_DEPTH];
#pragma unroll
        for (int q = 0; q < SLAB_DEPTH; q++) {
            const int64_t at = layout.at(base, min(j + q, end - 1));
            a[q] = fmt_load1<M::A>(val + at);
            c[q] = fmt_load1<M::A>(col + at);
        }
        /* the x gathers (past the row's end x_0, one line every warp shares,
         * instead of gathering the last entry's x again), then sum += a_q x_c(q) */
        T xv[SLAB_DEPTH];
#pragma unroll
        for (int q = 0; q < SLAB_DEPTH; q++) xv[q] = fmt_load1<M::X>(x + (j + q < end ? c[q] : 0));
#pragma unroll
        for (int q = 0; q < SLAB_DEPTH; q++)
            if (j + q < end) sum += (double)a[q] * (double)xv[q];
    }
    if (w.slot >= 0)
        partial[(int64_t)w.slot * 32 + lane] = sum;
    else if (row < nrows)
        fmt_store(y, z, row, alpha, beta, sum);
}

/* Threads of the kernel that adds a split group's partial sums. */
constexpr int SLAB_FINISH_THREADS = 1024;

/* y_r = alpha * sum_s partial[32 s + lane] + beta z_r for the rows of a split
 * group, a block per group: warp w adds slots w, w + 32, ..., then lane l of
 * warp 0 adds the 32 warps' sums in order (deterministic) */
template <typename T>
__global__ __launch_bounds__(SLAB_FINISH_THREADS) void slab_finish_kernel(
    const slab_heavy *__restrict__ heavy, int64_t nrows, const double *__restrict__ partial,
    double alpha, double beta, const T *z, T *y, const int32_t *stop)
{
    __shared__ double sums[32][33];
    if (stop && *stop) return;
    const slab_heavy h = heavy[blockIdx.x];
    const int lane = (int)(threadIdx.x & 31u), warp = (int)(threadIdx.x >> 5);
    double sum = 0.0;
#pragma unroll 8
    for (int s = warp; s < h.count; s += 32)
        sum += __ldcg(&partial[((int64_t)h.first_slot + s) * 32 + lane]);
    sums[warp][lane] = sum;
    __syncthreads();
    if (warp != 0) return;
    sum = 0.0;
    for (int v = 0; v < 32; v++) sum += sums[v][lane];
    const int64_t row = (int64_t)h.group * 32 + lane;
    if (row < nrows) fmt_store(y, z, row, alpha, beta, sum);
}

/* The slab kernels of m over layout L, in precision p. */
template <typename L>
static kryl_status fmt_launch_slab(const cuda_fmt *m, kryl_precision p, const cuda_fmt_args *a,
                                   const L &layout)
{
    const unsigned int blocks =
        (unsigned int)((m->unit_count * 32 + KRYL_CUDA_THREADS - 1) / KRYL_CUDA_THREADS);
    kryl_cuda_with_type(p, [&](auto t) {
        using T = decltype(t);
        const T *x = static_cast<const T *>(a->x), *z = static_cast<const T *>(a->z);
        T *y = static_cast<T *>(a->y);
        fmt_with_loads(m, [&](auto loads) {
            slab_kernel<T, L, decltype(loads)><<<blocks, KRYL_CUDA_THREADS, 0, a->stream>>>(
                layout, m->units, m->unit_count, m->nrows, m->col, static_cast<const T *>(m->val),
                x, a->alpha, a->beta, z, y, m->partial, a->stop);
        });
        if (m->heavy_count > 0)
            slab_finish_kernel<T>
                <<<(unsigned int)m->heavy_count, SLAB_FINISH_THREADS, 0, a->stream>>>(
                    m->heavy, m->nrows, m->partial, a->alpha, a->beta, z, y, a->stop);
    });
    KRYL_CUDA_CHECK_LAUNCH("the column-major format kernels");
    return KRYL_SUCCESS;
}

#endif
