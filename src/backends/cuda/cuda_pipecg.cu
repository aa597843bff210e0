/* Pipelined (P)CG's step on the cuda backend as ONE kernel (section V-B of
 * Tiwari & Vadhiyar, "Efficient executions of pipelined conjugate gradient
 * method on heterogeneous architectures": the vector updates, the Jacobi
 * preconditioner and the three dot products fused, each vector loaded once),
 * with alpha and beta computed inside it from device scalars and the dots
 * completed by the single-launch deterministic reduction; and dot2, two dot
 * products sharing one pass over z.  Arithmetic in double, rounded once
 * when stored, as the ref backend does. */
#include <math.h>

#include "backends/cuda/cuda_csr.cuh"
#include "backends/cuda/cuda_pipecg.cuh"
#include "backends/step_rules.h"

/* The step's reduction: (gamma, delta, rr) = the grid's sums, the old gamma
 * and alpha kept;  record: the monitor takes rr.  sc is read by every block
 * before its ticket and written by the last block after all tickets. */
__device__ inline void pipecg_end(double (&sums)[3], double *sc, double alpha,
                                  kryl_monitor *monitor, bool record, double *partials,
                                  unsigned int stride, unsigned int *counter)
{
    if (!kryl_grid_sum<3>(sums, partials, stride, counter)) return;
    sc[KRYL_PIPECG_GAMMA_OLD] = sc[KRYL_PIPECG_GAMMA];
    sc[KRYL_PIPECG_ALPHA_OLD] = alpha;
    sc[KRYL_PIPECG_GAMMA] = sums[0];
    sc[KRYL_PIPECG_DELTA] = sums[1];
    sc[KRYL_PIPECG_RR] = sums[2];
    if (record) kryl_monitor_record(monitor, sums[2], 1);
}

/* A step with n read from v.n (pipecg_row for every row). */
template <typename T, bool PC, bool JACOBI>
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void pipecg_kernel(
    int64_t len, double *sc, int restart, pipecg_args<T> v, double *coef, kryl_monitor *monitor,
    bool record, double *partials, unsigned int stride, unsigned int *counter)
{
    double alpha, beta;
    bool fresh;
    if (!pipecg_begin(sc, restart, coef, monitor, &alpha, &beta, &fresh)) return;
    double sums[3] = {0.0, 0.0, 0.0};
    KRYL_CUDA_GRID_LOOP(i, len)
    {
        const pipecg_state o = pipecg_load<T, PC, JACOBI>(i, v);
        pipecg_row<T, PC, JACOBI>(i, (double)v.n[i], o, alpha, beta, fresh, v, sums);
    }
    pipecg_end(sums, sc, alpha, monitor, record, partials, stride, counter);
}

/* A step with n = A in computed as the rows are updated (A in CSR, the
 * grid striding over tiles of LANES rows): a group of LANES threads forms
 * each row's product of its tile in turn, lane j keeping row j's, then every
 * lane updates its own row, so the updates' loads and stores stay as wide
 * as the group (one lane updating a row of 32 lanes cost 125-point PCG's
 * step half again, docs/BENCHMARKS.md).  n is never stored, and in (m, or w
 * without a preconditioner) is read by the products while its update goes
 * to v.next. */
template <typename T, typename I, int LANES, bool PC, bool JACOBI>
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void pipecg_spmv_kernel(
    int64_t nrows, const I *__restrict__ row_ptr, const int32_t *__restrict__ col_idx,
    const T *__restrict__ values, const T *__restrict__ in, double *sc, pipecg_args<T> v,
    double *coef, kryl_monitor *monitor, bool record, double *partials, unsigned int stride,
    unsigned int *counter)
{
    double alpha, beta;
    bool fresh;
    if (!pipecg_begin(sc, 0, coef, monitor, &alpha, &beta, &fresh)) return;
    double sums[3] = {0.0, 0.0, 0.0};
    const int lane = (int)(threadIdx.x % LANES);
    const int64_t groups = (int64_t)gridDim.x * (KRYL_CUDA_THREADS / LANES);
    for (int64_t first = ((int64_t)blockIdx.x * KRYL_CUDA_THREADS + threadIdx.x) / LANES * LANES;
         first < nrows; first += groups * LANES) {
        /* n_(first + j) = (A in)_(first + j), kept by lane j */
        double ni = 0.0;
        for (int j = 0; j < LANES; j++) {
            const int64_t row = first + j < nrows ? first + j : -1;
            const double sum = row_sum<T, I, LANES>(row, lane, row_ptr, col_idx, values, in);
            if (lane == j) ni = sum;
        }
        /* the lane's row's updates */
        const int64_t row = first + lane;
        if (row < nrows)
            pipecg_row<T, PC, JACOBI>(row, ni, pipecg_load<T, PC, JACOBI>(row, v), alpha, beta,
                                      fresh, v, sums);
    }
    pipecg_end(sums, sc, alpha, monitor, record, partials, stride, counter);
}

/* out = (x'z, y'z) */
template <typename T>
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void dot2_kernel(
    int64_t len, const T *__restrict__ x, const T *__restrict__ y, const T *__restrict__ z,
    double *out, double *partials, unsigned int stride, unsigned int *counter)
{
    double sums[2] = {0.0, 0.0};
    KRYL_CUDA_GRID_LOOP(i, len)
    {
        const double zi = (double)z[i];
        sums[0] += (double)x[i] * zi;
        sums[1] += (double)y[i] * zi;
    }
    if (kryl_grid_sum<2>(sums, partials, stride, counter)) {
        out[0] = sums[0];
        out[1] = sums[1];
    }
}

kryl_status kryl_cuda_check_scalar(const char *op, const char *name, kryl_scalar scalar)
{
    if (scalar.ptr == nullptr)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda %s: the scalar %s is NULL", op, name);
    return KRYL_SUCCESS;
}

/* The vectors of a step: all present as the preconditioner requires, alike. */
static kryl_status check_pipecg_vectors(const char *op, const kryl_pipecg_vectors *v,
                                        kryl_vector dinv)
{
    if (v == nullptr)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda %s: the vectors are NULL", op);
    const kryl_vector always[] = {v->r, v->w, v->n, v->p, v->s, v->z};
    for (kryl_vector other : always) KRYL_TRY(kryl_cuda_check_vectors(op, v->x, other));
    const bool pc = v->u != nullptr;
    if (pc != (v->m != nullptr) || pc != (v->q != nullptr) || (dinv && !pc))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "cuda %s: u, m and q must all be given (a preconditioner) or "
                          "all be NULL, and dinv needs them",
                          op);
    const kryl_vector preconditioned[] = {v->u, v->m, v->q};
    if (pc)
        for (kryl_vector other : preconditioned) KRYL_TRY(kryl_cuda_check_vectors(op, v->x, other));
    if (dinv) KRYL_TRY(kryl_cuda_check_vectors(op, v->x, dinv));
    return KRYL_SUCCESS;
}

/* Run f(std::integral_constant<int, K>{}) for the step's kind K: 0 no
 * preconditioner, 1 one applied by the caller, 2 Jacobi fused. */
template <typename F>
static void with_step_kind(const kryl_pipecg_vectors *v, kryl_vector dinv, F f)
{
    if (dinv)
        f(std::integral_constant<int, 2>{});
    else if (v->u)
        f(std::integral_constant<int, 1>{});
    else
        f(std::integral_constant<int, 0>{});
}

/* The plain step, the vector the SpMV reads updated into next. */
static kryl_status launch_update(kryl_cuda_state *s, kryl_scalar sc, int restart,
                                 const kryl_pipecg_vectors *v, kryl_vector dinv, kryl_vector next,
                                 double *coef, kryl_monitor *monitor, bool record)
{
    const unsigned int grid = kryl_cuda_reduce_grid(s, v->x->n);
    kryl_cuda_with_type(v->x->precision, [&](auto t) {
        using T = decltype(t);
        with_step_kind(v, dinv, [&](auto kind) {
            constexpr int K = decltype(kind)::value;
            pipecg_kernel<T, K != 0, K == 2><<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(
                v->x->n, sc.ptr, restart ? 1 : 0, kryl_cuda_pipecg_args<T>(v, dinv, next), coef,
                monitor, record, s->partials, s->reduce_blocks, s->counter);
        });
    });
    KRYL_CUDA_CHECK_LAUNCH("pipecg_kernel");
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_check_pipecg_step(const char *op, const kryl_pipecg_vectors *v,
                                        kryl_vector dinv, kryl_scalar sc, kryl_monitor *monitor,
                                        bool record)
{
    KRYL_TRY(check_pipecg_vectors(op, v, dinv));
    KRYL_TRY(kryl_cuda_check_scalar(op, "sc", sc));
    if (record && monitor == nullptr)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda %s: record needs a monitor", op);
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_pipecg_update(kryl_context ctx, kryl_scalar sc, int restart,
                                    const kryl_pipecg_vectors *v, kryl_vector dinv, double *coef,
                                    kryl_monitor *monitor, bool record)
{
    KRYL_TRY(kryl_cuda_check_pipecg_step("pipecg_update", v, dinv, sc, monitor, record));
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    /* the step, m (Jacobi) or w (no preconditioner) updated in place */
    return launch_update(s, sc, restart, v, dinv, dinv ? v->m : v->w, coef, monitor, record);
}

/* The fused step on A's CSR-vector storage. */
template <typename T>
static void launch_fused(kryl_cuda_state *s, const cuda_csr *m, kryl_scalar sc,
                         const kryl_pipecg_vectors *v, kryl_vector dinv, kryl_vector in,
                         kryl_vector next, double *coef, kryl_monitor *monitor, bool record)
{
    const pipecg_args<T> a = kryl_cuda_pipecg_args<T>(v, dinv, next);
    kryl_cuda_with_offsets(m, [&](auto offset) {
        using I = decltype(offset);
        kryl_cuda_with_lanes(m->lanes, [&](auto lanes) {
            with_step_kind(v, dinv, [&](auto kind) {
                constexpr int K = decltype(kind)::value;
                constexpr int LANES = decltype(lanes)::value;
                const unsigned int grid = kryl_cuda_reduce_grid(s, m->nrows * LANES);
                pipecg_spmv_kernel<T, I, LANES, K != 0, K == 2>
                    <<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(
                        m->nrows, static_cast<const I *>(m->row_ptr), m->col_idx,
                        static_cast<const T *>(m->values), kryl_cuda_data<const T>(in), sc.ptr, a,
                        coef, monitor, record, s->partials, s->reduce_blocks, s->counter);
            });
        });
    });
}

kryl_status kryl_cuda_pipecg_spmv_update(kryl_context ctx, kryl_matrix A, kryl_scalar sc,
                                         const kryl_pipecg_vectors *v, kryl_vector dinv,
                                         kryl_vector next, double *coef, kryl_monitor *monitor,
                                         bool record)
{
    KRYL_REQUIRE_ARG(A);
    KRYL_TRY(kryl_cuda_check_pipecg_step("pipecg_spmv_update", v, dinv, sc, monitor, record));
    const kryl_vector in = v->u ? v->m : v->w;
    const bool writes_in = dinv || !v->u;
    if (writes_in) {
        KRYL_TRY(kryl_cuda_check_vectors("pipecg_spmv_update", v->x, next));
        if (next->data == in->data)
            return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                              "cuda pipecg_spmv_update: next must not be the vector A multiplies");
    }
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    const cuda_csr *m = kryl_cuda_vector_csr(A);
    const bool fused = m != nullptr && A->fmt.nrows == v->x->n && A->precision == v->x->precision;
    if (!fused) {
        /* n = A in;  the step */
        KRYL_TRY(kryl_cuda_spmv(ctx, A, 1.0, in, 0.0, nullptr, v->n, monitor));
        return launch_update(s, sc, 0, v, dinv, writes_in ? next : in, coef, monitor, record);
    }
    /* n = A in, row by row;  the step */
    kryl_cuda_with_type(A->precision, [&](auto t) {
        launch_fused<decltype(t)>(s, m, sc, v, dinv, in, writes_in ? next : in, coef, monitor,
                                  record);
    });
    KRYL_CUDA_CHECK_LAUNCH("pipecg_spmv_kernel");
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_dot2(kryl_context ctx, kryl_vector x, kryl_vector y, kryl_vector z,
                           kryl_scalar out)
{
    KRYL_TRY(kryl_cuda_check_vectors("dot2", z, x));
    KRYL_TRY(kryl_cuda_check_vectors("dot2", z, y));
    KRYL_TRY(kryl_cuda_check_scalar("dot2", "out", out));
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    kryl_cuda_with_type(z->precision, [&](auto t) {
        using T = decltype(t);
        dot2_kernel<T><<<kryl_cuda_reduce_grid(s, z->n), KRYL_CUDA_THREADS, 0, s->stream>>>(
            z->n, kryl_cuda_data<const T>(x), kryl_cuda_data<const T>(y),
            kryl_cuda_data<const T>(z), out.ptr, s->partials, s->reduce_blocks, s->counter);
    });
    KRYL_CUDA_CHECK_LAUNCH("dot2_kernel");
    return KRYL_SUCCESS;
}
