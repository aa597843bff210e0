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
#include "backends/cuda/cuda_krylov.cuh"
#include "backends/cuda/cuda_monitor.cuh"

/* The vectors of one step, typed.  next receives the updated vector that
 * the step's SpMV reads (m = dinv .* w with Jacobi, w without a
 * preconditioner): the vector itself for the plain update, a second buffer
 * for the fused one, whose other rows still read the old values. */
template <typename T> struct pipecg_args {
    T *x, *r, *u, *w, *m, *p, *s, *q, *z, *next;
    const T *n, *dinv;
};

/* alpha and beta of a step from sc (Ghysels & Vanroose 2014, Alg. 2 of Tiwari
 * & Vadhiyar), or false after stopping the monitor.  *fresh: the recurrences
 * restart (beta = 0, old p, s, q, z not read). */
__device__ inline bool pipecg_coefficients(const double *c, int restart, kryl_monitor *monitor,
                                           double *alpha, double *beta, bool *fresh)
{
    const int checked = KRYL_PIPECG_SCALARS - (restart ? 2 : 0);
    for (int i = 0; i < checked; i++)
        if (!isfinite(c[i])) {
            kryl_cuda_halt(monitor, KRYL_STOP_NAN);
            return false;
        }
    const double gamma = c[KRYL_PIPECG_GAMMA], delta = c[KRYL_PIPECG_DELTA];
    const double gamma_old = c[KRYL_PIPECG_GAMMA_OLD], alpha_old = c[KRYL_PIPECG_ALPHA_OLD];
    double b = 0.0, den = delta;
    bool f = restart || !(gamma_old > 0.0) || !(alpha_old > 0.0);
    if (!f) {
        /* beta = gamma/gamma_old;  alpha = gamma/(delta - beta gamma/alpha_old) */
        b = gamma / gamma_old;
        den = delta - b * gamma / alpha_old;
        if (!isfinite(b) || !isfinite(den)) {
            kryl_cuda_halt(monitor, KRYL_STOP_NAN);
            return false;
        }
        /* a denominator spoilt by rounding (Cools et al. 2018): restart the recurrence */
        if (!(den > 0.0)) f = true;
    }
    if (f) {
        b = 0.0;
        den = delta;
    }
    if (!(den > 0.0)) {
        kryl_cuda_halt(monitor, KRYL_STOP_BREAKDOWN);
        return false;
    }
    const double a = gamma / den;
    if (!isfinite(a)) {
        kryl_cuda_halt(monitor, KRYL_STOP_NAN);
        return false;
    }
    *alpha = a;
    *beta = b;
    *fresh = f;
    return true;
}

/* The step's alpha and beta, recorded in coef; false: the kernel does nothing. */
__device__ inline bool pipecg_begin(const double *sc, int restart, double *coef,
                                    kryl_monitor *monitor, double *alpha, double *beta, bool *fresh)
{
    if (kryl_cuda_halted(monitor) || !pipecg_coefficients(sc, restart, monitor, alpha, beta, fresh))
        return false;
    if (coef && monitor && blockIdx.x == 0 && threadIdx.x == 0) {
        coef[2 * monitor->iteration] = *alpha;
        coef[2 * monitor->iteration + 1] = *beta;
    }
    return true;
}

/* Row i's values before a step, loaded before the row's product so that
 * their loads are in flight with it; z, s, p, q are read even where a fresh
 * step does not use them. */
struct pipecg_old {
    double w, r, u, m, z, s, p, q, x, dinv;
};

template <typename T, bool PC, bool JACOBI>
__device__ inline pipecg_old pipecg_load(int64_t i, const pipecg_args<T> &v)
{
    pipecg_old o;
    o.w = (double)v.w[i];
    o.r = (double)v.r[i];
    o.u = PC ? (double)v.u[i] : o.r;
    o.m = PC ? (double)v.m[i] : o.w;
    o.z = (double)v.z[i];
    o.s = (double)v.s[i];
    o.p = (double)v.p[i];
    o.q = PC ? (double)v.q[i] : 0.0;
    o.x = (double)v.x[i];
    o.dinv = JACOBI ? (double)v.dinv[i] : 0.0;
    return o;
}

/* Row i of a step from its old values o and n_i = (A m)_i:
 * z = n + beta z;  q = m + beta q;  s = w + beta s;  p = u + beta p;
 * x += alpha p;  r -= alpha s;  u -= alpha q;  w -= alpha z;  m = dinv .* w;
 * sums += (r_i u_i, w_i u_i, r_i r_i).
 * PC: u, m, q exist (else they are r, w, s);  JACOBI: m = dinv .* w here. */
template <typename T, bool PC, bool JACOBI>
__device__ inline void pipecg_row(int64_t i, double ni, const pipecg_old &o, double alpha,
                                  double beta, bool fresh, const pipecg_args<T> &v,
                                  double (&sums)[3])
{
    const T zt = (T)(fresh ? ni : ni + beta * o.z);
    const T st = (T)(fresh ? o.w : o.w + beta * o.s);
    const T pt = (T)(fresh ? o.u : o.u + beta * o.p);
    T qt = st;
    if (PC) qt = (T)(fresh ? o.m : o.m + beta * o.q);
    const T xt = (T)(o.x + alpha * (double)pt);
    const T rt = (T)(o.r - alpha * (double)st);
    const T wt = (T)(o.w - alpha * (double)zt);
    T ut = rt;
    if (PC) ut = (T)(o.u - alpha * (double)qt);
    v.z[i] = zt;
    v.s[i] = st;
    v.p[i] = pt;
    v.x[i] = xt;
    v.r[i] = rt;
    if (PC) {
        v.w[i] = wt;
        v.q[i] = qt;
        v.u[i] = ut;
    } else {
        v.next[i] = wt;
    }
    if (JACOBI) v.next[i] = (T)(o.dinv * (double)wt);
    sums[0] += (double)rt * (double)ut;
    sums[1] += (double)wt * (double)ut;
    sums[2] += (double)rt * (double)rt;
}

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
    if (record) kryl_cuda_monitor_record(monitor, sums[2], 1);
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
        const pipecg_old o = pipecg_load<T, PC, JACOBI>(i, v);
        pipecg_row<T, PC, JACOBI>(i, (double)v.n[i], o, alpha, beta, fresh, v, sums);
    }
    pipecg_end(sums, sc, alpha, monitor, record, partials, stride, counter);
}

/* A step with n = A in computed row by row as the rows are updated (A in
 * CSR, LANES threads per row, the grid striding over the rows): n is never
 * stored, and in (m, or w without a preconditioner) is read by the products
 * while its update goes to v.next. */
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
    for (int64_t row = ((int64_t)blockIdx.x * KRYL_CUDA_THREADS + threadIdx.x) / LANES; row < nrows;
         row += groups) {
        pipecg_old o{};
        if (lane == 0) o = pipecg_load<T, PC, JACOBI>(row, v);
        /* n_row = (A in)_row;  the row's updates */
        const double ni = row_sum<T, I, LANES>(row, lane, row_ptr, col_idx, values, in);
        if (lane == 0) pipecg_row<T, PC, JACOBI>(row, ni, o, alpha, beta, fresh, v, sums);
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

/* The step's vectors typed; next as pipecg_args says. */
template <typename T>
static pipecg_args<T> typed_args(const kryl_pipecg_vectors *v, kryl_vector dinv, kryl_vector next)
{
    return {kryl_cuda_data<T>(v->x), kryl_cuda_data<T>(v->r),       kryl_cuda_data<T>(v->u),
            kryl_cuda_data<T>(v->w), kryl_cuda_data<T>(v->m),       kryl_cuda_data<T>(v->p),
            kryl_cuda_data<T>(v->s), kryl_cuda_data<T>(v->q),       kryl_cuda_data<T>(v->z),
            kryl_cuda_data<T>(next), kryl_cuda_data<const T>(v->n), kryl_cuda_data<const T>(dinv)};
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
                v->x->n, sc.ptr, restart ? 1 : 0, typed_args<T>(v, dinv, next), coef, monitor,
                record, s->partials, s->reduce_blocks, s->counter);
        });
    });
    KRYL_CUDA_CHECK_LAUNCH("pipecg_kernel");
    return KRYL_SUCCESS;
}

static kryl_status check_step(const char *op, const kryl_pipecg_vectors *v, kryl_vector dinv,
                              kryl_scalar sc, kryl_monitor *monitor, bool record)
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
    KRYL_TRY(check_step("pipecg_update", v, dinv, sc, monitor, record));
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
    const pipecg_args<T> a = typed_args<T>(v, dinv, next);
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
    KRYL_TRY(check_step("pipecg_spmv_update", v, dinv, sc, monitor, record));
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
