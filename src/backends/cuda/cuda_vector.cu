/* Vector operations of the cuda backend: fill, permuted/converting copy,
 * axpby, pointwise product, the Chebyshev smoother's step and the
 * deterministic dot product.  Arithmetic is done in double and each stored
 * result rounded once to the vector's type, as the ref backend does. */
#include "backends/cuda/cuda_reduce.cuh"
#include "gen/hash.h"

/* y_i = entry(i) */
template <typename T, typename Entry> __global__ void fill_kernel(int64_t n, T *y, Entry entry)
{
    KRYL_CUDA_FOR_EACH(i, n) y[i] = (T)entry(i);
}

/* The entries fill writes: one value, or the pseudo-random entries first + i of a seed. */
struct constant_entry {
    double value;
    __device__ double operator()(int64_t) const { return value; }
};
struct random_entry {
    uint64_t seed;
    int64_t first;
    __device__ double operator()(int64_t i) const { return kryl_random_entry(seed, first + i); }
};

/* gather: y_i = x_perm(i);  scatter: y_perm(i) = x_i;  perm NULL: y_i = x_i (types may differ) */
template <typename TY, typename TX>
__global__ void permute_copy_kernel(int64_t n, TY *__restrict__ y, const TX *__restrict__ x,
                                    const int32_t *__restrict__ perm, kryl_permute_dir dir,
                                    const int32_t *stop)
{
    if (stop && *stop) return; /* guarded: the monitor has stopped */
    KRYL_CUDA_FOR_EACH(i, n)
    {
        const int64_t j = perm ? perm[i] : i;
        if (dir == KRYL_SCATTER_ADD)
            y[j] += (TY)x[i];
        else if (dir == KRYL_SCATTER)
            y[j] = (TY)x[i];
        else
            y[i] = (TY)x[j];
    }
}

/* y = alpha*x + beta*y */
template <typename T>
__global__ void axpby_kernel(int64_t n, double alpha, const T *x, double beta, T *y)
{
    KRYL_CUDA_FOR_EACH(i, n) y[i] = (T)(alpha * (double)x[i] + beta * (double)y[i]);
}

/* y = d .* x (y may be d or x) */
template <typename T> __global__ void pointwise_mult_kernel(int64_t n, T *y, const T *d, const T *x)
{
    KRYL_CUDA_FOR_EACH(i, n) y[i] = (T)((double)d[i] * (double)x[i]);
}

/* d = alpha dinv .* r + beta d (beta = 0: d unread; d NULL: not kept);
 * x = d (x_zero) or x += d */
template <typename T>
__global__ void chebyshev_step_kernel(int64_t n, double alpha, const T *__restrict__ r,
                                      const T *__restrict__ dinv, double beta, T *__restrict__ d,
                                      T *__restrict__ x, bool x_zero)
{
    KRYL_CUDA_FOR_EACH(i, n)
    {
        double di = alpha * (double)dinv[i] * (double)r[i];
        if (beta != 0.0) di += beta * (double)d[i];
        const T dt = (T)di;
        if (d) d[i] = dt;
        x[i] = x_zero ? dt : (T)((double)x[i] + (double)dt);
    }
}

/* out = x'y, summed in double in a fixed order */
template <typename T>
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void dot_kernel(int64_t n, const T *__restrict__ x,
                                                                const T *__restrict__ y,
                                                                double *out, double *partials,
                                                                unsigned int stride,
                                                                unsigned int *counter)
{
    double sum[1] = {0.0};
    KRYL_CUDA_FOR_EACH(i, n) sum[0] += (double)x[i] * (double)y[i];
    if (kryl_grid_sum<1>(sum, partials, stride, counter)) *out = sum[0];
}

/* launch(T{}, grid, stream) for y's n > 0 entries, T the type of y's
 * precision: an elementwise kernel's launch on the context's stream
 * (`what` names it where it fails). */
template <typename Launch>
static kryl_status launch_over(kryl_context ctx, kryl_vector y, const char *what, Launch launch)
{
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    if (y->n == 0) return KRYL_SUCCESS;
    kryl_cuda_with_type(y->precision,
                        [&](auto t) { launch(t, kryl_cuda_stream_grid(s, y->n), s->stream); });
    const cudaError_t err = cudaGetLastError();
    return err == cudaSuccess ? KRYL_SUCCESS : kryl_cuda_failed(err, what, KRYL_WHERE);
}

/* y_i = entry(i) on the context's stream */
template <typename Entry> static kryl_status fill_with(kryl_context ctx, kryl_vector y, Entry entry)
{
    KRYL_REQUIRE_ARG(y);
    return launch_over(
        ctx, y, "launch of fill_kernel", [&](auto t, unsigned grid, cudaStream_t st) {
            using T = decltype(t);
            fill_kernel<<<grid, KRYL_CUDA_THREADS, 0, st>>>(y->n, static_cast<T *>(y->data), entry);
        });
}

kryl_status kryl_cuda_fill(kryl_context ctx, kryl_vector y, double value)
{
    return fill_with(ctx, y, constant_entry{value});
}

kryl_status kryl_cuda_fill_random(kryl_context ctx, kryl_vector y, uint64_t seed, int64_t first)
{
    return fill_with(ctx, y, random_entry{seed, first});
}

kryl_status kryl_cuda_permute_copy(kryl_context ctx, kryl_vector y, kryl_vector x,
                                   const int32_t *perm, kryl_permute_dir dir,
                                   const kryl_monitor *monitor)
{
    KRYL_REQUIRE_ARG(y);
    KRYL_REQUIRE_ARG(x);
    if (x->n != y->n)
        return KRYL_ERROR(KRYL_ERR_DIMENSION_MISMATCH,
                          "cuda permute_copy: y has %lld entries, x %lld", (long long)y->n,
                          (long long)x->n);
    const bool same_type = x->precision == y->precision;
    const bool add = dir == KRYL_SCATTER_ADD;
    if (x->data == y->data && x->n > 0 && (perm != nullptr || !same_type || add))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "cuda permute_copy: a permuted, converting or adding copy needs two "
                          "vectors");
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    if (x->n == 0 || (x->data == y->data)) return KRYL_SUCCESS;
    if (perm == nullptr && same_type && !add && monitor == nullptr) {
        /* y = x */
        KRYL_CUDA_CHECK(cudaMemcpyAsync(y->data, x->data,
                                        (size_t)x->n * kryl_precision_size(x->precision),
                                        cudaMemcpyDeviceToDevice, s->stream));
        return KRYL_SUCCESS;
    }
    const unsigned int grid = kryl_cuda_stream_grid(s, x->n);
    kryl_cuda_with_type(y->precision, [&](auto ty) {
        kryl_cuda_with_type(x->precision, [&](auto tx) {
            using TY = decltype(ty);
            using TX = decltype(tx);
            permute_copy_kernel<TY, TX><<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(
                x->n, static_cast<TY *>(y->data), static_cast<const TX *>(x->data), perm, dir,
                kryl_cuda_stop_flag(monitor));
        });
    });
    KRYL_CUDA_CHECK_LAUNCH("permute_copy_kernel");
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_axpby(kryl_context ctx, double alpha, kryl_vector x, double beta,
                            kryl_vector y)
{
    KRYL_TRY(kryl_cuda_check_vectors("axpby", x, y));
    /* y = alpha x + beta y */
    return launch_over(
        ctx, y, "launch of axpby_kernel", [&](auto t, unsigned grid, cudaStream_t st) {
            using T = decltype(t);
            axpby_kernel<T><<<grid, KRYL_CUDA_THREADS, 0, st>>>(
                y->n, alpha, static_cast<const T *>(x->data), beta, static_cast<T *>(y->data));
        });
}

kryl_status kryl_cuda_pointwise_mult(kryl_context ctx, kryl_vector y, kryl_vector d, kryl_vector x)
{
    KRYL_TRY(kryl_cuda_check_vectors("pointwise_mult", y, d));
    KRYL_TRY(kryl_cuda_check_vectors("pointwise_mult", y, x));
    /* y_i = d_i x_i */
    return launch_over(ctx, y, "launch of pointwise_mult_kernel",
                       [&](auto t, unsigned grid, cudaStream_t st) {
                           using T = decltype(t);
                           pointwise_mult_kernel<T><<<grid, KRYL_CUDA_THREADS, 0, st>>>(
                               y->n, static_cast<T *>(y->data), static_cast<const T *>(d->data),
                               static_cast<const T *>(x->data));
                       });
}

kryl_status kryl_cuda_chebyshev_step(kryl_context ctx, double alpha, kryl_vector r,
                                     kryl_vector dinv, double beta, kryl_vector d, kryl_vector x,
                                     bool x_zero)
{
    KRYL_TRY(kryl_cuda_check_vectors("chebyshev_step", x, r));
    KRYL_TRY(kryl_cuda_check_vectors("chebyshev_step", x, dinv));
    if (d) KRYL_TRY(kryl_cuda_check_vectors("chebyshev_step", x, d));
    KRYL_TRY(kryl_chebyshev_step_check("cuda", d, beta));
    /* d = alpha D^-1 r + beta d;  x += d (x = d where x_zero) */
    return launch_over(
        ctx, x, "launch of chebyshev_step_kernel", [&](auto t, unsigned grid, cudaStream_t st) {
            using T = decltype(t);
            chebyshev_step_kernel<T><<<grid, KRYL_CUDA_THREADS, 0, st>>>(
                x->n, alpha, static_cast<const T *>(r->data), static_cast<const T *>(dinv->data),
                beta, d ? static_cast<T *>(d->data) : nullptr, static_cast<T *>(x->data), x_zero);
        });
}

kryl_status kryl_cuda_dot(kryl_context ctx, kryl_vector x, kryl_vector y, kryl_scalar out)
{
    KRYL_TRY(kryl_cuda_check_vectors("dot", x, y));
    if (out.ptr == nullptr)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda dot: the output scalar is NULL");
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    kryl_cuda_with_type(x->precision, [&](auto t) {
        using T = decltype(t);
        dot_kernel<T><<<kryl_cuda_reduce_grid(s, x->n), KRYL_CUDA_THREADS, 0, s->stream>>>(
            x->n, static_cast<const T *>(x->data), static_cast<const T *>(y->data), out.ptr,
            s->partials, s->reduce_blocks, s->counter);
    });
    KRYL_CUDA_CHECK_LAUNCH("dot_kernel");
    return KRYL_SUCCESS;
}
