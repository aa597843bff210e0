/* New values on a matrix's pattern without a new setup: the nnz values of
 * the host CSR reach the device once (or are there already: another
 * matrix's storage, or the caller's device array), and a kernel gathers
 * them into the format's value slots through the slot -> entry map, which
 * is uploaded at the first update and kept with the storage.  The Jacobi
 * diagonal is gathered from the slots the same way.  Nothing else of the
 * storage (indices, offsets, work units, kernel choice) is touched, so a
 * captured graph stays valid. */
#include <limits.h>

#include "backends/cuda/cuda_csr.cuh"
#include "backends/cuda/cuda_fmt.cuh"

/* Grid-stride loop over i in [0, n). */
#define KRYL_CUDA_FOR_EACH(i, n)                                                                   \
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);                      \
         i += (int64_t)gridDim.x * blockDim.x)

void kryl_cuda_value_map_free(kryl_cuda_state *s, cuda_value_map *map)
{
    kryl_cuda_free(s, map->source);
    kryl_cuda_free(s, map->diagonal);
    map->source = nullptr;
    map->diagonal = nullptr;
}

/* The value slots of A's storage, how many, and its map. */
struct value_slots {
    void *values;
    int64_t count;
    cuda_value_map *map;
};

static value_slots slots_of(kryl_matrix A)
{
    if (A->fmt.kind == KRYL_FORMAT_CSR) {
        cuda_csr *m = static_cast<cuda_csr *>(A->storage);
        return {m->values, m->nnz, &m->map};
    }
    cuda_fmt *m = static_cast<cuda_fmt *>(A->storage);
    return {m->val, m->stored, &m->map};
}

/* A device copy of `count` host int64s for `what`. */
static kryl_status upload_indices(kryl_cuda_state *s, int64_t **dst, const int64_t *src,
                                  int64_t count, const char *what)
{
    KRYL_TRY(kryl_cuda_malloc(s, (void **)dst, (size_t)count * sizeof(int64_t), what));
    if (count > 0)
        KRYL_CUDA_CHECK(cudaMemcpyAsync(*dst, src, (size_t)count * sizeof(int64_t),
                                        cudaMemcpyHostToDevice, s->stream));
    /* the copy reads the caller's host array */
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    return KRYL_SUCCESS;
}

/* slots[q] = values[source[q] - 1] (0 where source[q] = 0), or values[q]
 * without a map; in the storage's precision */
template <typename T>
__global__ void gather_values_kernel(int64_t count, const int64_t *__restrict__ source,
                                     const double *__restrict__ values, T *__restrict__ slots)
{
    KRYL_CUDA_FOR_EACH(q, count)
    {
        const int64_t e = source ? source[q] - 1 : q;
        slots[q] = e >= 0 ? (T)values[e] : T(0);
    }
}

/* *first = the smallest k with values[k] not finite (left as it is where none) */
__global__ void first_nonfinite_kernel(int64_t nnz, const double *__restrict__ values,
                                       unsigned long long *first)
{
    KRYL_CUDA_FOR_EACH(k, nnz)
    {
        if (!isfinite(values[k])) atomicMin(first, (unsigned long long)k);
    }
}

/* KRYL_ERR_INVALID_VALUE naming the first value of the device array that
 * is not finite, or success; read before anything takes them. */
static kryl_status check_finite(kryl_cuda_state *s, const double *values, int64_t nnz)
{
    unsigned long long *first = nullptr, found = ULLONG_MAX;
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&first, sizeof *first, "the value check"));
    cudaError_t err =
        cudaMemcpyAsync(first, &found, sizeof found, cudaMemcpyHostToDevice, s->stream);
    if (err == cudaSuccess) {
        /* first = min { k : values[k] not finite } */
        first_nonfinite_kernel<<<kryl_cuda_stream_grid(s, nnz), KRYL_CUDA_THREADS, 0, s->stream>>>(
            nnz, values, first);
        err = cudaGetLastError();
    }
    if (err == cudaSuccess)
        err = cudaMemcpyAsync(&found, first, sizeof found, cudaMemcpyDeviceToHost, s->stream);
    double value = 0.0;
    if (err == cudaSuccess) err = cudaStreamSynchronize(s->stream);
    if (err == cudaSuccess && found != ULLONG_MAX)
        err = cudaMemcpy(&value, values + found, sizeof value, cudaMemcpyDeviceToHost);
    kryl_cuda_free(s, first);
    if (err != cudaSuccess) return kryl_cuda_failed(err, "the check of new values", KRYL_WHERE);
    if (found == ULLONG_MAX) return KRYL_SUCCESS;
    return KRYL_ERROR(KRYL_ERR_INVALID_VALUE,
                      "update_values: value %llu is %g; values must be finite", found, value);
}

kryl_status kryl_cuda_matrix_values(kryl_context ctx, kryl_matrix A, const double *values,
                                    bool on_backend)
{
    KRYL_REQUIRE_ARG(A);
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    const value_slots t = slots_of(A);
    const int64_t nnz = kryl_csr_nnz(&A->host->csr);
    if (nnz == 0) return KRYL_SUCCESS; /* every slot is padding, 0 already */
    if (on_backend) KRYL_TRY(check_finite(s, values, nnz));
    const bool direct = A->fmt.borrowed && A->precision == KRYL_DOUBLE;
    if (direct) {
        /* the storage is the host CSR itself: one copy */
        if (values != t.values)
            KRYL_CUDA_CHECK(cudaMemcpyAsync(
                t.values, values, (size_t)nnz * sizeof(double),
                on_backend ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice, s->stream));
        KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
        return KRYL_SUCCESS;
    }
    if (!A->fmt.borrowed && t.map->source == nullptr) {
        KRYL_TRY(kryl_matrix_value_source(A));
        KRYL_TRY(upload_indices(s, &t.map->source, A->value_source, t.count, "the value map"));
    }
    double *staged = nullptr;
    if (!on_backend) {
        KRYL_TRY(
            kryl_cuda_malloc(s, (void **)&staged, (size_t)nnz * sizeof(double), "the new values"));
        cudaError_t err = cudaMemcpyAsync(staged, values, (size_t)nnz * sizeof(double),
                                          cudaMemcpyHostToDevice, s->stream);
        if (err != cudaSuccess) {
            kryl_cuda_free(s, staged);
            return kryl_cuda_failed(err, "cudaMemcpyAsync", KRYL_WHERE);
        }
        values = staged;
    }
    kryl_cuda_with_type(A->precision, [&](auto zero) {
        using T = decltype(zero);
        /* slot q = a_(source q - 1) */
        gather_values_kernel<T>
            <<<kryl_cuda_stream_grid(s, t.count), KRYL_CUDA_THREADS, 0, s->stream>>>(
                t.count, t.map->source, values, static_cast<T *>(t.values));
    });
    cudaError_t err = cudaGetLastError();
    /* the caller may reuse its array, and the staging is freed, on return */
    cudaError_t done = cudaStreamSynchronize(s->stream);
    kryl_cuda_free(s, staged);
    if (err != cudaSuccess)
        return kryl_cuda_failed(err, "launch of gather_values_kernel", KRYL_WHERE);
    if (done != cudaSuccess) return kryl_cuda_failed(done, "cudaStreamSynchronize", KRYL_WHERE);
    return KRYL_SUCCESS;
}

/* d_i = 1 / slots[slot_i]; a zero or absent a_ii gives d_i = 0 and the
 * smallest such i in *zero */
template <typename T>
__global__ void inverse_diagonal_kernel(int64_t n, const int64_t *__restrict__ slot,
                                        const T *__restrict__ slots, T *__restrict__ d,
                                        unsigned long long *zero)
{
    KRYL_CUDA_FOR_EACH(i, n)
    {
        const int64_t q = slot[i];
        const double a = q >= 0 ? (double)slots[q] : 0.0;
        if (a == 0.0) atomicMin(zero, (unsigned long long)i);
        d[i] = a == 0.0 ? T(0) : (T)(1.0 / a);
    }
}

kryl_status kryl_cuda_matrix_inverse_diagonal(kryl_context ctx, kryl_matrix A, kryl_vector d,
                                              int64_t *zero_row)
{
    KRYL_REQUIRE_ARG(A);
    KRYL_REQUIRE_ARG(d);
    KRYL_REQUIRE_ARG(zero_row);
    *zero_row = -1;
    const int64_t n = A->fmt.nrows;
    if (d->n != n || d->precision != A->precision)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "cuda inverse diagonal: a %lld-entry %s vector for a %lld-row %s matrix",
                          (long long)d->n, kryl_precision_name(d->precision), (long long)n,
                          kryl_precision_name(A->precision));
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    const value_slots t = slots_of(A);
    if (t.map->diagonal == nullptr) {
        int64_t *slot = static_cast<int64_t *>(malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t)));
        if (slot == nullptr)
            return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                              "cuda: cannot allocate %lld diagonal slots on the host",
                              (long long)n);
        kryl_status st = kryl_matrix_diagonal_slots(A, slot);
        if (st == KRYL_SUCCESS)
            st = upload_indices(s, &t.map->diagonal, slot, n, "the diagonal slots");
        free(slot);
        KRYL_TRY(st);
    }
    unsigned long long *zero = nullptr;
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&zero, sizeof *zero, "the zero-diagonal flag"));
    unsigned long long first = ULLONG_MAX;
    cudaError_t err =
        cudaMemcpyAsync(zero, &first, sizeof first, cudaMemcpyHostToDevice, s->stream);
    if (err == cudaSuccess && n > 0) {
        kryl_cuda_with_type(A->precision, [&](auto unit) {
            using T = decltype(unit);
            /* d = 1 ./ diag(A) */
            inverse_diagonal_kernel<T>
                <<<kryl_cuda_stream_grid(s, n), KRYL_CUDA_THREADS, 0, s->stream>>>(
                    n, t.map->diagonal, static_cast<const T *>(t.values), static_cast<T *>(d->data),
                    zero);
        });
        err = cudaGetLastError();
    }
    if (err == cudaSuccess)
        err = cudaMemcpyAsync(&first, zero, sizeof first, cudaMemcpyDeviceToHost, s->stream);
    if (err == cudaSuccess) err = cudaStreamSynchronize(s->stream);
    kryl_cuda_free(s, zero);
    if (err != cudaSuccess) return kryl_cuda_failed(err, "the inverse diagonal", KRYL_WHERE);
    if (first != ULLONG_MAX) *zero_row = (int64_t)first;
    return KRYL_SUCCESS;
}
