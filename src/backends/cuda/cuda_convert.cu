/* Storage formats built on the device from a matrix's CSR there
 * (backend.h: matrix_convert), to the same permutation, arrays and
 * refusals as the host's kryl_fmt_build (src/formats), against which the
 * tests hold them.  Rows are sorted by decreasing length within windows
 * by a stable radix sort (cub) of (window, decreasing length) keys, which
 * is the host's stable counting sort; a permuted format's rows are first
 * copied renumbered, columns sorted again (kryl_cuda_csr_permute); each
 * format's slots, padding included, are then written a thread per row or
 * slot.  Only the shape crosses the link: sizes, DIA offsets, JDS diagonal
 * and SELL slice pointers, the work units' group widths, the permutation. */
#include <stdlib.h>
#include <string.h>

#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "backends/cuda/cuda_csr.cuh"
#include "backends/cuda/cuda_fmt.cuh"
#include "formats/fmt_dia_find.h"

/* Slots per stored column of ELL and per diagonal of DIA: n rounded up to
 * a warp (formats/fmt_internal.h, FMT_WARP). */
static int64_t fmt_stride(int64_t n) { return (n + 31) / 32 * 32; }

/* The device blocks of one conversion, freed together; the storage's own
 * arrays belong to the cuda_fmt record instead. */
struct convert_work {
    kryl_cuda_state *s;
    int64_t *row_ptr = nullptr; /* the source's 64-bit offsets */
    bool row_ptr_copy = false;  /* ... a widened copy, freed here */
    int32_t *perm = nullptr;    /* the permutation until handed over */
    int32_t *inv = nullptr;     /* its inverse (the format model's counts) */
    int64_t *p_row_ptr = nullptr;
    int32_t *p_col = nullptr;
    double *p_val = nullptr;       /* the permuted copy */
    int32_t *len = nullptr;        /* row lengths in the format's order */
    uint64_t *keys = nullptr;      /* sort keys in, then out */
    int32_t *rows = nullptr;       /* 0..n-1 */
    unsigned char *mark = nullptr; /* DIA: occupied diagonals */
    int64_t *found = nullptr;      /* DIA: their indices */
    int32_t *slice_width = nullptr;
    int32_t *group_width = nullptr;
    unsigned long long *count = nullptr; /* a reduction's result */
    void *temp = nullptr;
    explicit convert_work(kryl_cuda_state *state) : s(state) {}
    ~convert_work()
    {
        if (row_ptr_copy) kryl_cuda_free(s, row_ptr);
        void *blocks[] = {perm, inv,  p_row_ptr, p_col,       p_val,       len,   rows,
                          keys, mark, found,     slice_width, group_width, count, temp};
        for (void *b : blocks) kryl_cuda_free(s, b);
    }
};

/* len[i] = row_ptr[i+1] - row_ptr[i] */
__global__ void row_lengths_kernel(int64_t n, const int64_t *__restrict__ row_ptr, int32_t *len)
{
    KRYL_CUDA_FOR_EACH(i, n) len[i] = (int32_t)(row_ptr[i + 1] - row_ptr[i]);
}

/* key[i] = (i / window) << 32 | (2^32 - 1 - len[i]): by window, then longest first */
__global__ void sort_keys_kernel(int64_t n, int64_t window, const int32_t *__restrict__ len,
                                 uint64_t *key, int32_t *rows)
{
    KRYL_CUDA_FOR_EACH(i, n)
    {
        key[i] = (uint64_t)(i / window) << 32 | (uint64_t)(0xffffffffu - (uint32_t)len[i]);
        rows[i] = (int32_t)i;
    }
}

/* *moved = 1 if perm[i] != i for some i */
__global__ void moved_kernel(int64_t n, const int32_t *__restrict__ perm, unsigned long long *moved)
{
    KRYL_CUDA_FOR_EACH(i, n)
    {
        if (perm[i] != i) *moved = 1;
    }
}

/* *longest = max_i len[i] (one atomic per warp) */
__global__ void longest_kernel(int64_t n, const int32_t *__restrict__ len,
                               unsigned long long *longest)
{
    unsigned long long m = 0;
    KRYL_CUDA_FOR_EACH(i, n) m = max(m, (unsigned long long)len[i]);
    for (int offset = 16; offset > 0; offset /= 2)
        m = max(m, __shfl_down_sync(0xffffffffu, m, offset));
    if ((threadIdx.x & 31u) == 0 && m > 0) atomicMax(longest, m);
}

/* mark[j - i + n - 1] = 1 for every entry (i, j); a mark is read before it
 * is set, so a band's few marks are not stored to by every thread */
__global__ void mark_diagonals_kernel(int64_t n, const int64_t *__restrict__ row_ptr,
                                      const int32_t *__restrict__ col, unsigned char *mark)
{
    KRYL_CUDA_FOR_EACH(i, n)
    {
        for (int64_t q = row_ptr[i]; q < row_ptr[i + 1]; q++) {
            unsigned char *flag = &mark[col[q] - i + n - 1];
            if (!*flag) *flag = 1;
        }
    }
}

/* *count = sum_k mark[k] (one atomic per warp) */
__global__ void count_marks_kernel(int64_t count, const unsigned char *__restrict__ mark,
                                   unsigned long long *total)
{
    unsigned long long c = 0;
    KRYL_CUDA_FOR_EACH(k, count) c += mark[k];
    for (int offset = 16; offset > 0; offset /= 2) c += __shfl_down_sync(0xffffffffu, c, offset);
    if ((threadIdx.x & 31u) == 0 && c > 0) atomicAdd(total, c);
}

/* inv[perm[k]] = k */
__global__ void invert_kernel(int64_t n, const int32_t *__restrict__ perm, int32_t *inv)
{
    KRYL_CUDA_FOR_EACH(k, n) inv[perm[k]] = (int32_t)k;
}

/* *far += the entries (i, j) with |inv_j - inv_i| > near (inv NULL: |j - i|),
 * a thread per row (one atomic per warp) */
__global__ void far_entries_kernel(int64_t n, const int64_t *__restrict__ row_ptr,
                                   const int32_t *__restrict__ col, const int32_t *__restrict__ inv,
                                   int64_t near, unsigned long long *far)
{
    unsigned long long c = 0;
    KRYL_CUDA_FOR_EACH(i, n)
    {
        const int64_t at = inv ? inv[i] : i;
        for (int64_t q = row_ptr[i]; q < row_ptr[i + 1]; q++) {
            const int64_t d = (int64_t)(inv ? inv[col[q]] : col[q]) - at;
            c += d > near || -d > near;
        }
    }
    for (int offset = 16; offset > 0; offset /= 2) c += __shfl_down_sync(0xffffffffu, c, offset);
    if ((threadIdx.x & 31u) == 0 && c > 0) atomicAdd(far, c);
}

/* *blocks += the distinct j / b of the b rows of each block row (b = 2 or
 * 4), a thread per block row merging its rows' ascending columns (one
 * atomic per warp) */
__global__ void block_count_kernel(int64_t n, int b, const int64_t *__restrict__ row_ptr,
                                   const int32_t *__restrict__ col, unsigned long long *blocks)
{
    unsigned long long c = 0;
    KRYL_CUDA_FOR_EACH(I, (n + b - 1) / b)
    {
        int64_t pos[4], end[4], block[4]; /* row r's next entry, its end, its block column */
        int rows = 0;
        for (int64_t i = I * b; i < n && i < (I + 1) * b; i++, rows++) {
            pos[rows] = row_ptr[i];
            end[rows] = row_ptr[i + 1];
            block[rows] = pos[rows] < end[rows] ? col[pos[rows]] / b : INT64_MAX;
        }
        for (;;) {
            int64_t next = INT64_MAX; /* the smallest block column not yet counted */
            for (int r = 0; r < rows; r++) next = min(next, block[r]);
            if (next == INT64_MAX) break;
            c++;
            for (int r = 0; r < rows; r++)
                while (block[r] == next) block[r] = ++pos[r] < end[r] ? col[pos[r]] / b : INT64_MAX;
        }
    }
    for (int offset = 16; offset > 0; offset /= 2) c += __shfl_down_sync(0xffffffffu, c, offset);
    if ((threadIdx.x & 31u) == 0 && c > 0) atomicAdd(blocks, c);
}

/* offset[d] = found[d] - (n - 1) */
__global__ void dia_offsets_kernel(int64_t ndiag, int64_t n, const int64_t *__restrict__ found,
                                   int32_t *offset)
{
    KRYL_CUDA_FOR_EACH(d, ndiag) offset[d] = (int32_t)(found[d] - (n - 1));
}

/* val[d*stride + i] = a(i, i + offset[d]), d found by halving the ascending
 * marks found (offset + n - 1) */
template <typename T>
__global__ void dia_fill_kernel(int64_t n, int64_t ndiag, int64_t stride,
                                const int64_t *__restrict__ row_ptr,
                                const int32_t *__restrict__ col, const double *__restrict__ val,
                                const int64_t *__restrict__ found, T *slots)
{
    KRYL_CUDA_FOR_EACH(i, n)
    {
        for (int64_t q = row_ptr[i]; q < row_ptr[i + 1]; q++)
            slots[fmt_dia_find(found, ndiag, col[q] - i + n - 1) * stride + i] = (T)val[q];
    }
}

/* The padding column of row i: the row itself, 0 past the last row (fmt_pad_col). */
__device__ inline int32_t pad_col(int64_t i, int64_t n) { return (int32_t)(i < n ? i : 0); }

/* slot j*stride + i = entry j of row i, or padding (col = pad_col, 0);
 * row_len[i] = len[i] (0 past n) */
template <typename T>
__global__ void
ell_fill_kernel(int64_t n, int64_t stride, int64_t stored, const int64_t *__restrict__ row_ptr,
                const int32_t *__restrict__ col, const double *__restrict__ val,
                const int32_t *__restrict__ len, int32_t *slot_col, T *slot_val, int32_t *row_len)
{
    KRYL_CUDA_FOR_EACH(k, stored)
    {
        const int64_t j = k / stride, i = k - j * stride;
        const bool entry = i < n && j < len[i];
        slot_col[k] = entry ? col[row_ptr[i] + j] : pad_col(i, n);
        slot_val[k] = entry ? (T)val[row_ptr[i] + j] : T(0);
        if (row_len && j == 0) row_len[i] = i < n ? len[i] : 0;
    }
}

/* width[s] = the longest row of rows [s*C, (s+1)*C) (0 past n) */
__global__ void slice_widths_kernel(int64_t groups, int64_t C, int64_t n,
                                    const int32_t *__restrict__ len, int64_t fixed, int32_t *width)
{
    KRYL_CUDA_FOR_EACH(s, groups)
    {
        int32_t w = 0;
        for (int64_t i = s * C; i < n && i < (s + 1) * C; i++)
            w = max(w, fixed ? (int32_t)fixed : len[i]);
        width[s] = w;
    }
}

/* slot slice_ptr[s] + j*C + r = entry j of row i = s*C + r, or padding
 * (col = pad_col, 0) up to the slice's width; row_len[i] = len[i] (0 past n) */
template <typename T>
__global__ void
sell_fill_kernel(int64_t rows, int64_t C, int64_t n, const int64_t *__restrict__ row_ptr,
                 const int32_t *__restrict__ col, const double *__restrict__ val,
                 const int32_t *__restrict__ len, const int64_t *__restrict__ slice_ptr,
                 const int32_t *__restrict__ width, int32_t *slot_col, T *slot_val,
                 int32_t *row_len)
{
    KRYL_CUDA_FOR_EACH(i, rows)
    {
        const int64_t s = i / C, r = i - s * C;
        const int64_t b = i < n ? row_ptr[i] : 0, l = i < n ? len[i] : 0;
        row_len[i] = (int32_t)l;
        for (int64_t j = 0; j < width[s]; j++) {
            const int64_t at = slice_ptr[s] + j * C + r;
            slot_col[at] = j < l ? col[b + j] : pad_col(i, n);
            slot_val[at] = j < l ? (T)val[b + j] : T(0);
        }
    }
}

/* longer[d + 1] = rows longer than d, rows sorted by decreasing length */
__global__ void jds_counts_kernel(int64_t ndiag, int64_t n, const int32_t *__restrict__ len,
                                  int64_t *longer)
{
    KRYL_CUDA_FOR_EACH(d, ndiag)
    {
        /* the first row of length <= d */
        longer[d + 1] = kryl_cuda_partition_point(0, n, [&](int64_t r) { return len[r] > d; });
    }
}

/* slot diag_ptr[d] + i = entry d of row i (padding stays col 0, value 0) */
template <typename T>
__global__ void jds_fill_kernel(int64_t n, const int64_t *__restrict__ row_ptr,
                                const int32_t *__restrict__ col, const double *__restrict__ val,
                                const int32_t *__restrict__ len,
                                const int64_t *__restrict__ diag_ptr, int32_t *slot_col,
                                T *slot_val, int32_t *row_len)
{
    KRYL_CUDA_FOR_EACH(i, n)
    {
        const int64_t b = row_ptr[i];
        row_len[i] = len[i];
        for (int64_t d = 0; d < len[i]; d++) {
            slot_col[diag_ptr[d] + i] = col[b + d];
            slot_val[diag_ptr[d] + i] = (T)val[b + d];
        }
    }
}

/* The conversion's state: source arrays (natural or permuted), target
 * record, host shape. */
struct convert {
    kryl_cuda_state *s;
    kryl_matrix A;
    kryl_fmt_params p;
    int64_t n, nnz;
    const int64_t *row_ptr;
    const int32_t *col;
    const double *val;
    cuda_fmt *m = nullptr; /* freed by kryl_cuda_fmt_adopt on failure */
    convert_work w;
    explicit convert(kryl_cuda_state *state) : s(state), w(state) {}
};

/* *out = a device result of one reduction kernel, reset to 0 first by the caller */
static kryl_status fetch_count(kryl_cuda_state *s, const unsigned long long *device,
                               unsigned long long *out)
{
    KRYL_CUDA_CHECK(
        cudaMemcpyAsync(s->staging, device, sizeof *out, cudaMemcpyDeviceToHost, s->stream));
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    memcpy(out, s->staging, sizeof *out);
    return KRYL_SUCCESS;
}

/* host dst = bytes of device src (the shape), waited for */
static kryl_status download(kryl_cuda_state *s, void *dst, const void *src, size_t bytes)
{
    if (bytes == 0) return KRYL_SUCCESS;
    KRYL_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, s->stream));
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    return KRYL_SUCCESS;
}

/* *p = zeroed host room for count elements, or the error */
template <typename E> static kryl_status host_room(E **p, int64_t count, const char *what)
{
    *p = static_cast<E *>(calloc((size_t)(count > 0 ? count : 1), sizeof(E)));
    if (*p == nullptr)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cuda: cannot allocate %s on the host (%lld)",
                          what, (long long)count);
    return KRYL_SUCCESS;
}

/* w.count = 0, allocated at the first use */
static kryl_status reset_count(convert_work &w)
{
    if (w.count == nullptr)
        KRYL_TRY(kryl_cuda_malloc(w.s, (void **)&w.count, sizeof *w.count, "a reduction"));
    KRYL_CUDA_CHECK(cudaMemsetAsync(w.count, 0, sizeof *w.count, w.s->stream));
    return KRYL_SUCCESS;
}

/* w.perm = the rows sorted by decreasing length within windows (a stable
 * radix sort of (window, decreasing length) keys, from w.len); *moved = 0
 * where that is the identity. */
static kryl_status sorted_order(convert &c, int64_t window, unsigned long long *moved)
{
    kryl_cuda_state *s = c.s;
    convert_work &w = c.w;
    const int64_t n = c.n;
    int64_t windows = (n + window - 1) / window, bits = 32;
    while (windows > 1) {
        bits++;
        windows = (windows + 1) / 2;
    }
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&w.keys, (size_t)(2 * n) * sizeof *w.keys,
                              "the row sort's keys"));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&w.rows, (size_t)n * sizeof *w.rows, "the row sort"));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&w.perm, (size_t)n * sizeof *w.perm,
                              "a format's permutation"));
    const unsigned int grid = kryl_cuda_stream_grid(s, n);
    /* key_i = (window of i, 2^32 - 1 - len_i) */
    sort_keys_kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(n, window, w.len, w.keys, w.rows);
    KRYL_CUDA_CHECK_LAUNCH("sort_keys_kernel");
    size_t bytes = 0;
    KRYL_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, w.keys, w.keys + n, w.rows,
                                                    w.perm, (int)n, 0, (int)bits, s->stream));
    KRYL_TRY(kryl_cuda_malloc(s, &w.temp, bytes, "the row sort's workspace"));
    /* perm = rows stably sorted by key */
    KRYL_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(w.temp, bytes, w.keys, w.keys + n, w.rows,
                                                    w.perm, (int)n, 0, (int)bits, s->stream));
    KRYL_TRY(reset_count(w));
    /* moved = any perm_i != i */
    moved_kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(n, w.perm, w.count);
    KRYL_CUDA_CHECK_LAUNCH("moved_kernel");
    KRYL_TRY(fetch_count(s, w.count, moved));
    kryl_cuda_free(s, w.keys);
    kryl_cuda_free(s, w.rows);
    kryl_cuda_free(s, w.temp);
    w.keys = nullptr;
    w.rows = nullptr;
    w.temp = nullptr;
    return KRYL_SUCCESS;
}

/* The rows sorted by decreasing length within windows (a stable radix sort
 * of (window, decreasing length)); the identity is no permutation. */
static kryl_status sort_rows(convert &c, int64_t window)
{
    kryl_cuda_state *s = c.s;
    convert_work &w = c.w;
    const int64_t n = c.n;
    if (window <= 1 || n <= 1) return KRYL_SUCCESS;
    unsigned long long moved = 0;
    KRYL_TRY(sorted_order(c, window, &moved));
    const unsigned int grid = kryl_cuda_stream_grid(s, n);
    if (!moved) {
        kryl_cuda_free(s, w.perm);
        w.perm = nullptr;
        return KRYL_SUCCESS;
    }
    /* the source becomes P A P^T, columns of each row sorted again */
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&w.p_row_ptr, (size_t)(n + 1) * sizeof *w.p_row_ptr,
                              "the permuted row offsets"));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&w.p_col, (size_t)c.nnz * sizeof *w.p_col,
                              "the permuted columns"));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&w.p_val, (size_t)c.nnz * sizeof *w.p_val,
                              "the permuted values"));
    KRYL_TRY(kryl_cuda_csr_permute(c.A->ctx, n, c.row_ptr, c.col, c.val, w.perm, w.p_row_ptr,
                                   w.p_col, w.p_val));
    c.row_ptr = w.p_row_ptr;
    c.col = w.p_col;
    c.val = w.p_val;
    /* len_i = the length of row i of P A P^T */
    row_lengths_kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(n, c.row_ptr, w.len);
    KRYL_CUDA_CHECK_LAUNCH("row_lengths_kernel");
    /* the host's copy of the permutation */
    kryl_fmt *f = &c.A->fmt;
    KRYL_TRY(host_room(&f->perm, n, "a format's permutation"));
    return download(s, f->perm, w.perm, (size_t)n * sizeof *f->perm);
}

/* The longest row. */
static kryl_status longest_row(convert &c, int64_t *longest)
{
    kryl_cuda_state *s = c.s;
    KRYL_TRY(reset_count(c.w));
    /* longest = max_i len_i */
    longest_kernel<<<kryl_cuda_reduce_grid(s, c.n), KRYL_CUDA_THREADS, 0, s->stream>>>(c.n, c.w.len,
                                                                                       c.w.count);
    KRYL_CUDA_CHECK_LAUNCH("longest_kernel");
    unsigned long long found = 0;
    KRYL_TRY(fetch_count(s, c.w.count, &found));
    *longest = (int64_t)found;
    return KRYL_SUCCESS;
}

/* m->val: `stored` slots of A's precision, zeroed when `zero` */
static kryl_status value_slots(convert &c, bool zero)
{
    const size_t bytes = (size_t)c.m->stored * kryl_precision_size(c.A->precision);
    KRYL_TRY(kryl_cuda_malloc(c.s, &c.m->val, bytes, "the format's values"));
    if (zero && bytes) KRYL_CUDA_CHECK(cudaMemsetAsync(c.m->val, 0, bytes, c.s->stream));
    return KRYL_SUCCESS;
}

/* w.mark = the occupied diagonals (offset j - i at j - i + n - 1), *ndiag their count */
static kryl_status count_diagonals(convert &c, unsigned long long *ndiag)
{
    kryl_cuda_state *s = c.s;
    convert_work &w = c.w;
    const int64_t n = c.n, marks = n > 0 ? 2 * n - 1 : 0;
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&w.mark, (size_t)marks, "the diagonal markers"));
    KRYL_TRY(reset_count(w));
    if (marks) KRYL_CUDA_CHECK(cudaMemsetAsync(w.mark, 0, (size_t)marks, s->stream));
    /* mark the offset j - i of every entry, then count the marks */
    mark_diagonals_kernel<<<kryl_cuda_stream_grid(s, n), KRYL_CUDA_THREADS, 0, s->stream>>>(
        n, c.row_ptr, c.col, w.mark);
    KRYL_CUDA_CHECK_LAUNCH("mark_diagonals_kernel");
    count_marks_kernel<<<kryl_cuda_reduce_grid(s, marks), KRYL_CUDA_THREADS, 0, s->stream>>>(
        marks, w.mark, w.count);
    KRYL_CUDA_CHECK_LAUNCH("count_marks_kernel");
    return fetch_count(s, w.count, ndiag);
}

static kryl_status convert_dia(convert &c)
{
    kryl_cuda_state *s = c.s;
    convert_work &w = c.w;
    kryl_fmt_dia *f = &c.A->fmt.u.dia;
    const int64_t n = c.n, marks = n > 0 ? 2 * n - 1 : 0;
    unsigned long long ndiag = 0;
    KRYL_TRY(count_diagonals(c, &ndiag));
    f->ndiag = (int64_t)ndiag;
    f->stride = fmt_stride(n);
    KRYL_TRY(kryl_fmt_accept(KRYL_FORMAT_DIA, n, c.nnz, f->ndiag, 0, &c.p, &c.A->fmt.stored));
    c.m->stored = c.A->fmt.stored;
    /* the marked indices in ascending order, as offsets */
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&w.found, (size_t)f->ndiag * sizeof *w.found,
                              "the diagonals found"));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&c.m->offset, (size_t)f->ndiag * sizeof *c.m->offset,
                              "the diagonal offsets"));
    size_t bytes = 0;
    thrust::counting_iterator<int64_t> index(0);
    KRYL_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, bytes, index, w.mark, w.found, w.count,
                                               marks, s->stream));
    KRYL_TRY(kryl_cuda_malloc(s, &w.temp, bytes, "the diagonal selection's workspace"));
    KRYL_CUDA_CHECK(cub::DeviceSelect::Flagged(w.temp, bytes, index, w.mark, w.found, w.count,
                                               marks, s->stream));
    /* offset_d = found_d - (n - 1) */
    dia_offsets_kernel<<<kryl_cuda_stream_grid(s, f->ndiag), KRYL_CUDA_THREADS, 0, s->stream>>>(
        f->ndiag, n, w.found, c.m->offset);
    KRYL_CUDA_CHECK_LAUNCH("dia_offsets_kernel");
    KRYL_TRY(host_room(&f->offset, f->ndiag, "the diagonal offsets"));
    KRYL_TRY(download(s, f->offset, w.found, (size_t)f->ndiag * sizeof *f->offset));
    for (int64_t d = 0; d < f->ndiag; d++) f->offset[d] -= n - 1;
    KRYL_TRY(value_slots(c, true));
    c.m->ndiag = f->ndiag;
    c.m->stride = f->stride;
    c.m->offset_host = f->offset;
    c.m->variant = kryl_cuda_dia_variant(f->ndiag, c.A->precision);
    kryl_cuda_with_type(c.A->precision, [&](auto zero) {
        using T = decltype(zero);
        /* val[d*stride + i] = a(i, i + offset[d]) */
        dia_fill_kernel<T><<<kryl_cuda_stream_grid(s, n), KRYL_CUDA_THREADS, 0, s->stream>>>(
            n, f->ndiag, f->stride, c.row_ptr, c.col, c.val, w.found, static_cast<T *>(c.m->val));
    });
    KRYL_CUDA_CHECK_LAUNCH("dia_fill_kernel");
    return KRYL_SUCCESS;
}

/* m's work units from the longest row of each group of 32 (width: every row's, or 0). */
static kryl_status units(convert &c, int64_t width)
{
    kryl_cuda_state *s = c.s;
    const int64_t groups = (c.n + 31) / 32;
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&c.w.group_width,
                              (size_t)groups * sizeof *c.w.group_width, "the group widths"));
    /* width_g = the longest row of rows [32 g, 32 g + 32) */
    slice_widths_kernel<<<kryl_cuda_stream_grid(s, groups), KRYL_CUDA_THREADS, 0, s->stream>>>(
        groups, 32, c.n, c.w.len, width, c.w.group_width);
    KRYL_CUDA_CHECK_LAUNCH("slice_widths_kernel");
    int32_t *host = nullptr;
    KRYL_TRY(host_room(&host, groups, "the group widths"));
    kryl_status st = download(s, host, c.w.group_width, (size_t)groups * sizeof *host);
    if (st == KRYL_SUCCESS) st = kryl_cuda_fmt_units(s, host, groups, c.m);
    free(host);
    return st;
}

static kryl_status convert_ell(convert &c)
{
    kryl_cuda_state *s = c.s;
    kryl_fmt *F = &c.A->fmt;
    kryl_fmt_ell *f = &F->u.ell;
    int64_t width = 0;
    KRYL_TRY(longest_row(c, &width));
    KRYL_TRY(kryl_fmt_accept(F->kind, c.n, c.nnz, width, 0, &c.p, &F->stored));
    f->width = width;
    f->stride = fmt_stride(c.n);
    c.m->stored = F->stored;
    c.m->width = f->width;
    c.m->stride = f->stride;
    KRYL_TRY(value_slots(c, false));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&c.m->col, (size_t)F->stored * sizeof *c.m->col,
                              "the format's column indices"));
    if (F->kind == KRYL_FORMAT_ELLR) {
        KRYL_TRY(kryl_cuda_malloc(s, (void **)&c.m->row_len, (size_t)f->stride * sizeof(int32_t),
                                  "the row lengths"));
        KRYL_CUDA_CHECK(cudaMemsetAsync(c.m->row_len, 0, (size_t)f->stride * 4, s->stream));
    }
    kryl_cuda_with_type(c.A->precision, [&](auto zero) {
        using T = decltype(zero);
        /* slot j*stride + i = entry j of row i, else padding */
        ell_fill_kernel<T>
            <<<kryl_cuda_stream_grid(s, F->stored), KRYL_CUDA_THREADS, 0, s->stream>>>(
                c.n, f->stride, F->stored, c.row_ptr, c.col, c.val, c.w.len, c.m->col,
                static_cast<T *>(c.m->val), c.m->row_len);
    });
    KRYL_CUDA_CHECK_LAUNCH("ell_fill_kernel");
    return units(c, F->kind == KRYL_FORMAT_ELL ? width : 0);
}

static kryl_status convert_sell(convert &c)
{
    kryl_cuda_state *s = c.s;
    kryl_fmt *F = &c.A->fmt;
    kryl_fmt_sell *f = &F->u.sell;
    const int64_t C = c.p.slice_height, n = c.n;
    f->C = (int32_t)C;
    f->sigma = kryl_fmt_sort_window(F->kind, &c.p, n);
    f->nslices = (n + C - 1) / C;
    const int64_t ns = f->nslices;
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&c.w.slice_width, (size_t)ns * sizeof(int32_t),
                              "the slice widths"));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&c.m->ptr, (size_t)(ns + 1) * sizeof(int64_t),
                              "the slice offsets"));
    /* width_s = the longest row of slice s */
    slice_widths_kernel<<<kryl_cuda_stream_grid(s, ns), KRYL_CUDA_THREADS, 0, s->stream>>>(
        ns, C, n, c.w.len, 0, c.w.slice_width);
    KRYL_CUDA_CHECK_LAUNCH("slice_widths_kernel");
    KRYL_TRY(host_room(&f->slice_width, ns, "the slice widths"));
    KRYL_TRY(host_room(&f->slice_ptr, ns + 1, "the slice offsets"));
    KRYL_TRY(download(s, f->slice_width, c.w.slice_width, (size_t)ns * sizeof(int32_t)));
    /* slice_ptr[s + 1] = slice_ptr[s] + C * width_s, on the host as kryl_fmt_build forms it */
    int64_t longest = 0;
    for (int64_t k = 0; k < ns; k++) {
        longest = f->slice_width[k] > longest ? f->slice_width[k] : longest;
        f->slice_ptr[k + 1] = f->slice_ptr[k] + C * f->slice_width[k];
    }
    KRYL_TRY(kryl_fmt_accept(F->kind, n, c.nnz, longest, f->slice_ptr[ns], &c.p, &F->stored));
    c.m->stored = F->stored;
    c.m->C = f->C;
    KRYL_CUDA_CHECK(cudaMemcpyAsync(c.m->ptr, f->slice_ptr, (size_t)(ns + 1) * sizeof(int64_t),
                                    cudaMemcpyHostToDevice, s->stream));
    KRYL_TRY(value_slots(c, false));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&c.m->col, (size_t)F->stored * sizeof *c.m->col,
                              "the format's column indices"));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&c.m->row_len, (size_t)(ns * C) * sizeof(int32_t),
                              "the row lengths"));
    kryl_cuda_with_type(c.A->precision, [&](auto zero) {
        using T = decltype(zero);
        /* slot slice_ptr[s] + j*C + r = entry j of row s*C + r, else padding */
        sell_fill_kernel<T><<<kryl_cuda_stream_grid(s, ns * C), KRYL_CUDA_THREADS, 0, s->stream>>>(
            ns * C, C, n, c.row_ptr, c.col, c.val, c.w.len, c.m->ptr, c.w.slice_width, c.m->col,
            static_cast<T *>(c.m->val), c.m->row_len);
    });
    KRYL_CUDA_CHECK_LAUNCH("sell_fill_kernel");
    return units(c, 0);
}

static kryl_status convert_jds(convert &c)
{
    kryl_cuda_state *s = c.s;
    kryl_fmt *F = &c.A->fmt;
    kryl_fmt_jds *f = &F->u.jds;
    const int64_t n = c.n;
    int64_t ndiag = 0;
    KRYL_TRY(longest_row(c, &ndiag)); /* row 0's: the rows are sorted */
    f->ndiag = ndiag;
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&c.m->ptr, (size_t)(ndiag + 1) * sizeof(int64_t),
                              "the jagged diagonal offsets"));
    /* ptr[d + 1] = rows longer than d */
    jds_counts_kernel<<<kryl_cuda_stream_grid(s, ndiag), KRYL_CUDA_THREADS, 0, s->stream>>>(
        ndiag, n, c.w.len, c.m->ptr);
    KRYL_CUDA_CHECK_LAUNCH("jds_counts_kernel");
    KRYL_TRY(host_room(&f->diag_ptr, ndiag + 1, "the jagged diagonal offsets"));
    KRYL_TRY(download(s, f->diag_ptr + 1, c.m->ptr + 1, (size_t)ndiag * sizeof(int64_t)));
    kryl_fmt_jds_pad(f->diag_ptr, ndiag);
    KRYL_TRY(kryl_fmt_accept(F->kind, n, c.nnz, ndiag, f->diag_ptr[ndiag], &c.p, &F->stored));
    c.m->stored = F->stored;
    c.m->ndiag = ndiag;
    c.m->diag_start = f->diag_ptr;
    KRYL_CUDA_CHECK(cudaMemcpyAsync(c.m->ptr, f->diag_ptr, (size_t)(ndiag + 1) * sizeof(int64_t),
                                    cudaMemcpyHostToDevice, s->stream));
    KRYL_TRY(value_slots(c, true));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&c.m->col, (size_t)F->stored * sizeof *c.m->col,
                              "the format's column indices"));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&c.m->row_len, (size_t)n * sizeof(int32_t),
                              "the row lengths"));
    if (F->stored) KRYL_CUDA_CHECK(cudaMemsetAsync(c.m->col, 0, (size_t)F->stored * 4, s->stream));
    kryl_cuda_with_type(c.A->precision, [&](auto zero) {
        using T = decltype(zero);
        /* slot diag_ptr[d] + i = entry d of row i */
        jds_fill_kernel<T><<<kryl_cuda_stream_grid(s, n), KRYL_CUDA_THREADS, 0, s->stream>>>(
            n, c.row_ptr, c.col, c.val, c.w.len, c.m->ptr, c.m->col, static_cast<T *>(c.m->val),
            c.m->row_len);
    });
    KRYL_CUDA_CHECK_LAUNCH("jds_fill_kernel");
    return units(c, 0);
}

/* The formats converted here, and the largest source each takes: a sorted
 * format's permuted copy (kryl_cuda_csr_permute) holds at most 2^31 - 1
 * entries. */
static bool converts(kryl_format kind, int64_t nnz)
{
    switch (kind) {
    case KRYL_FORMAT_DIA:
    case KRYL_FORMAT_ELL:
    case KRYL_FORMAT_ELLR: return true;
    case KRYL_FORMAT_JDS:
    case KRYL_FORMAT_PJDS:
    case KRYL_FORMAT_SELL: return nnz <= INT32_MAX;
    default: return false;
    }
}

/* c's source: the CSR arrays of `from`'s storage (double, natural order). */
static kryl_status source_of(convert &c, kryl_matrix from)
{
    int32_t *col = nullptr;
    double *val = nullptr;
    KRYL_TRY(
        kryl_cuda_matrix_csr_arrays(from->ctx, from, &c.w.row_ptr, &c.w.row_ptr_copy, &col, &val));
    c.row_ptr = c.w.row_ptr;
    c.col = col;
    c.val = val;
    return KRYL_SUCCESS;
}

/* w.len = the row lengths of c's source */
static kryl_status row_lengths(convert &c)
{
    kryl_cuda_state *s = c.s;
    KRYL_TRY(
        kryl_cuda_malloc(s, (void **)&c.w.len, (size_t)c.n * sizeof *c.w.len, "the row lengths"));
    /* len_i = the length of row i */
    row_lengths_kernel<<<kryl_cuda_stream_grid(s, c.n), KRYL_CUDA_THREADS, 0, s->stream>>>(
        c.n, c.row_ptr, c.w.len);
    KRYL_CUDA_CHECK_LAUNCH("row_lengths_kernel");
    return KRYL_SUCCESS;
}

static kryl_status run(convert &c)
{
    kryl_cuda_state *s = c.s;
    kryl_fmt *F = &c.A->fmt;
    KRYL_TRY(row_lengths(c));
    KRYL_TRY(sort_rows(c, kryl_fmt_sort_window(F->kind, &c.p, c.n)));
    c.m = kryl_cuda_fmt_new(s, c.A);
    if (c.m == nullptr) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cuda: cannot allocate storage");
    kryl_status st = KRYL_SUCCESS;
    switch (F->kind) {
    case KRYL_FORMAT_DIA: st = convert_dia(c); break;
    case KRYL_FORMAT_ELL:
    case KRYL_FORMAT_ELLR: st = convert_ell(c); break;
    case KRYL_FORMAT_JDS: st = convert_jds(c); break;
    default: st = convert_sell(c); break;
    }
    /* the temporaries are freed on return: wait for the kernels that read them */
    if (st == KRYL_SUCCESS) {
        cudaError_t err = cudaStreamSynchronize(s->stream);
        if (err != cudaSuccess) st = kryl_cuda_failed(err, "the conversion", KRYL_WHERE);
    }
    return st;
}

/* c counts over A (double CSR of all its rows in the natural order) */
static kryl_status count_source(convert &c, kryl_matrix A)
{
    c.A = A;
    c.n = A->fmt.nrows;
    c.nnz = A->fmt.nnz;
    return c.n > 0 ? source_of(c, A) : KRYL_SUCCESS;
}

kryl_status kryl_cuda_csr_reach(kryl_context ctx, kryl_matrix A, int64_t window, int64_t near,
                                int64_t *far)
{
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    convert c(s);
    *far = 0;
    KRYL_TRY(count_source(c, A));
    if (c.n == 0) return KRYL_SUCCESS;
    if (window > 1 && c.n > 1) {
        unsigned long long moved = 0;
        KRYL_TRY(row_lengths(c));
        KRYL_TRY(sorted_order(c, window, &moved));
        if (moved) {
            KRYL_TRY(kryl_cuda_malloc(s, (void **)&c.w.inv, (size_t)c.n * sizeof *c.w.inv,
                                      "the inverse permutation"));
            /* inv[perm[k]] = k */
            invert_kernel<<<kryl_cuda_stream_grid(s, c.n), KRYL_CUDA_THREADS, 0, s->stream>>>(
                c.n, c.w.perm, c.w.inv);
            KRYL_CUDA_CHECK_LAUNCH("invert_kernel");
        }
    }
    KRYL_TRY(reset_count(c.w));
    /* far = #{(i, j): |inv_j - inv_i| > near} */
    far_entries_kernel<<<kryl_cuda_stream_grid(s, c.n), KRYL_CUDA_THREADS, 0, s->stream>>>(
        c.n, c.row_ptr, c.col, c.w.inv, near, c.w.count);
    KRYL_CUDA_CHECK_LAUNCH("far_entries_kernel");
    unsigned long long found = 0;
    KRYL_TRY(fetch_count(s, c.w.count, &found)); /* waits: the temporaries are free to go */
    *far = (int64_t)found;
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_csr_diagonals(kryl_context ctx, kryl_matrix A, int64_t *ndiag)
{
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    convert c(s);
    *ndiag = 0;
    KRYL_TRY(count_source(c, A));
    if (c.n == 0) return KRYL_SUCCESS;
    unsigned long long found = 0;
    KRYL_TRY(count_diagonals(c, &found)); /* waits */
    *ndiag = (int64_t)found;
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_csr_blocks(kryl_context ctx, kryl_matrix A, int64_t b, int64_t *nblocks)
{
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    if (b != 2 && b != 4)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda csr_blocks: blocks of %lld (2 or 4)",
                          (long long)b);
    convert c(s);
    *nblocks = 0;
    KRYL_TRY(count_source(c, A));
    if (c.n == 0) return KRYL_SUCCESS;
    KRYL_TRY(reset_count(c.w));
    /* nblocks = #{(i / b, j / b)} */
    block_count_kernel<<<kryl_cuda_stream_grid(s, (c.n + b - 1) / b), KRYL_CUDA_THREADS, 0,
                         s->stream>>>(c.n, (int)b, c.row_ptr, c.col, c.w.count);
    KRYL_CUDA_CHECK_LAUNCH("block_count_kernel");
    unsigned long long found = 0;
    KRYL_TRY(fetch_count(s, c.w.count, &found)); /* waits */
    *nblocks = (int64_t)found;
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_matrix_convert(kryl_context ctx, kryl_matrix A, kryl_matrix from,
                                     int32_t **perm_backend)
{
    *perm_backend = nullptr;
    kryl_fmt *F = &A->fmt;
    if (F->kind == KRYL_FORMAT_CSR) return kryl_cuda_csr_round(ctx, A, from);
    if (!converts(F->kind, F->nnz) || from->storage == nullptr || !kryl_matrix_natural_csr(from))
        return KRYL_ERR_UNSUPPORTED;
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    convert c(s);
    c.A = A;
    c.n = F->nrows;
    c.nnz = F->nnz;
    KRYL_TRY(kryl_fmt_params_resolve(&A->params, &c.p));
    KRYL_TRY(source_of(c, from));
    F->on_backend = true;
    kryl_status st = run(c);
    if (st == KRYL_SUCCESS) {
        *perm_backend = c.w.perm; /* the layout's from now on */
        c.w.perm = nullptr;
    }
    return kryl_cuda_fmt_adopt(ctx, s, A, c.m, st, ", converted on the device");
}
