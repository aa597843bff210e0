/* Setup of the cuda backend's matrix storage from A->fmt, in A's precision:
 *   - CSR: the arrays copied to the device, row-length statistics, the
 *     stream kernel's row blocks and the choice of kernel (cuda_spmv.cu);
 *   - the other formats: their arrays as they are (values converted to
 *     float for single), the work units of the column-major formats
 *     (cuda_fmt.cuh) and the kernel variant (cuda_spmv_<format>.cu).
 * Also the hooks that pick kernels for tests and benchmarks, and the
 * dispatch of a product to the format's kernels. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>

#include "backends/cuda/cuda_csr.cuh"
#include "backends/cuda/cuda_fmt.cuh"

void kryl_cuda_csr_free(kryl_cuda_state *s, cuda_csr *m)
{
    if (m == nullptr) return;
    kryl_cuda_free(s, m->row_ptr);
    kryl_cuda_free(s, m->col_idx);
    kryl_cuda_free(s, m->values);
    kryl_cuda_free(s, m->row_blocks);
    kryl_cuda_value_map_free(s, &m->map);
    free(m);
}

/* *dst = a device copy of bytes from host src, `what` for an error */
static kryl_status device_copy(kryl_cuda_state *s, void **dst, const void *src, size_t bytes,
                               const char *what)
{
    KRYL_TRY(kryl_cuda_malloc(s, dst, bytes, what));
    return kryl_cuda_upload_from_host(s, *dst, src, bytes);
}

/* Mean, standard deviation and maximum of the row lengths. */
static void row_statistics(const kryl_csr *h, cuda_csr *m)
{
    double sum = 0.0, sum2 = 0.0;
    m->max_len = 0;
    for (int64_t i = 0; i < h->nrows; i++) {
        int64_t len = h->row_ptr[i + 1] - h->row_ptr[i];
        sum += (double)len;
        sum2 += (double)len * (double)len;
        if (len > m->max_len) m->max_len = len;
    }
    double n = h->nrows > 0 ? (double)h->nrows : 1.0;
    m->mean = sum / n;
    double var = sum2 / n - m->mean * m->mean;
    m->sd = var > 0.0 ? sqrt(var) : 0.0;
}

int64_t kryl_cuda_stream_blocks(const kryl_csr *h, int32_t *blocks)
{
    int64_t count = 0, i = 0;
    while (i < h->nrows) {
        blocks[count++] = (int32_t)i;
        const int64_t first = i;
        if (h->row_ptr[i + 1] - h->row_ptr[i] > STREAM_NNZ) {
            i++;
            continue;
        }
        while (i < h->nrows && i - first < STREAM_THREADS &&
               h->row_ptr[i + 1] - h->row_ptr[first] <= STREAM_NNZ)
            i++;
    }
    blocks[count] = (int32_t)h->nrows;
    return count;
}

/* Lanes per row for the vector kernel, from a typical row length (mean plus
 * one standard deviation): one thread per row while a thread covers it in
 * two rounds of loads (short, uniform rows: the thread's entries share L1
 * lines), else the fewest lanes (a power of two, at most 32) whose first
 * round covers it.  Measured on an H100 (double): 1 lane for the 5- and
 * 7-point stencils, 4 for 9-point, 8 for 27-point, 32 for rows of about a
 * hundred entries. */
static int vector_lanes(double length)
{
    if (length <= 2.0 * VECTOR_DEPTH) return 1;
    int lanes = 2;
    while (lanes < 32 && (double)(lanes * VECTOR_DEPTH) < length) lanes *= 2;
    return lanes;
}

/* The kernel for these row lengths: the vector kernel unless the longest
 * row would keep its group of lanes for more than STREAM_MAX_PASSES rounds of
 * VECTOR_DEPTH loads (a few very long rows among short ones, where the whole
 * kernel would wait for one group): then the load-balanced stream kernel,
 * which gives such a row a block of its own. */
constexpr int STREAM_MAX_PASSES = 8;

void kryl_cuda_csr_choose_kernel(cuda_csr *m)
{
    m->lanes = vector_lanes(m->mean + m->sd);
    const int64_t per_pass = (int64_t)m->lanes * VECTOR_DEPTH;
    const bool long_tail = m->max_len > STREAM_MAX_PASSES * per_pass;
    m->kernel = long_tail ? KRYL_CUDA_SPMV_STREAM : KRYL_CUDA_SPMV_VECTOR;
}

/* Copy the host CSR to the device in A's precision (host temporaries freed on return). */
static kryl_status upload_csr(kryl_cuda_state *s, const kryl_csr *h, kryl_precision precision,
                              cuda_csr *m)
{
    const int64_t n = h->nrows, nnz = m->nnz;
    const bool narrow_rows = !m->wide, float_values = precision == KRYL_SINGLE && nnz > 0;
    int32_t *blocks = static_cast<int32_t *>(malloc((size_t)(n + 1) * sizeof(int32_t)));
    int32_t *rows32 =
        narrow_rows ? static_cast<int32_t *>(malloc((size_t)(n + 1) * sizeof(int32_t))) : nullptr;
    float *values32 =
        float_values ? static_cast<float *>(malloc((size_t)nnz * sizeof(float))) : nullptr;
    kryl_status st = KRYL_SUCCESS;
    cudaError_t err;
    if (blocks == nullptr || (narrow_rows && rows32 == nullptr) ||
        (float_values && values32 == nullptr)) {
        st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                        "cuda: cannot allocate host staging for a %lld-row matrix", (long long)n);
        goto done;
    }
    for (int64_t i = 0; narrow_rows && i <= n; i++) rows32[i] = (int32_t)h->row_ptr[i];
    for (int64_t k = 0; float_values && k < nnz; k++) values32[k] = (float)h->values[k];
    m->block_count = kryl_cuda_stream_blocks(h, blocks);
    KRYL_CHECK_GOTO(st,
                    device_copy(s, &m->row_ptr,
                                narrow_rows ? (const void *)rows32 : (const void *)h->row_ptr,
                                (size_t)(n + 1) * (m->wide ? sizeof(int64_t) : sizeof(int32_t)),
                                "the CSR row offsets"),
                    done);
    KRYL_CHECK_GOTO(st,
                    device_copy(s, (void **)&m->col_idx, h->col_idx, (size_t)nnz * sizeof(int32_t),
                                "the CSR column indices"),
                    done);
    KRYL_CHECK_GOTO(st,
                    device_copy(s, &m->values,
                                float_values ? (const void *)values32 : (const void *)h->values,
                                (size_t)nnz * kryl_precision_size(precision), "the CSR values"),
                    done);
    KRYL_CHECK_GOTO(st,
                    device_copy(s, (void **)&m->row_blocks, blocks,
                                (size_t)(m->block_count + 1) * sizeof(int32_t),
                                "the CSR row blocks"),
                    done);
done:
    /* the temporaries are read by the copies queued above */
    err = cudaStreamSynchronize(s->stream);
    if (err != cudaSuccess && st == KRYL_SUCCESS)
        st = kryl_cuda_failed(err, "cudaStreamSynchronize", KRYL_WHERE);
    free(blocks);
    free(rows32);
    free(values32);
    return st;
}

const char *kryl_cuda_csr_describe(const cuda_csr *m, char *buf, size_t size)
{
    if (m->kernel == KRYL_CUDA_SPMV_STREAM)
        snprintf(buf, size, "stream");
    else if (m->lanes == 1)
        snprintf(buf, size, "scalar");
    else
        snprintf(buf, size, "vector/%d", m->lanes);
    return buf;
}

/* The CSR storage of A from A->fmt (natural order: A's own arrays). */
static kryl_status setup_csr(kryl_context ctx, kryl_cuda_state *s, kryl_matrix A)
{
    const kryl_fmt *f = &A->fmt;
    kryl_csr view = {};
    view.nrows = view.nrows_global = f->nrows;
    view.ncols = f->ncols;
    view.row_ptr = f->u.csr.row_ptr;
    view.col_idx = f->u.csr.col;
    view.values = f->u.csr.val;
    const kryl_csr *h = &view;
    cuda_csr *m = kryl_cuda_csr_new(h->nrows, h->ncols, kryl_csr_nnz(h));
    if (m == nullptr) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cuda: cannot allocate storage");
    row_statistics(h, m);
    kryl_cuda_csr_choose_kernel(m);
    return kryl_cuda_csr_adopt(ctx, s, A, m, upload_csr(s, h, A->precision, m), "");
}

cuda_csr *kryl_cuda_csr_new(int64_t nrows, int64_t ncols, int64_t nnz)
{
    cuda_csr *m = static_cast<cuda_csr *>(calloc(1, sizeof(cuda_csr)));
    if (m == nullptr) return nullptr;
    m->nrows = nrows;
    m->ncols = ncols;
    m->nnz = nnz;
    /* 32-bit offsets while every offset a kernel forms (an entry's plus a few
     * rounds of lanes) stays below 2^31 */
    m->wide = m->nnz > INT32_MAX - 4096;
    return m;
}

kryl_status kryl_cuda_csr_adopt(kryl_context ctx, kryl_cuda_state *s, kryl_matrix A, cuda_csr *m,
                                kryl_status st, const char *from)
{
    if (st != KRYL_SUCCESS) {
        kryl_cuda_csr_free(s, m);
        return st;
    }
    A->storage = m;
    char name[32];
    kryl_log(ctx, KRYL_LOG_INFO,
             "cuda: spmv kernel %s for %lld rows, %lld entries%s (row length mean %.2f, sd %.2f, "
             "max %lld), %d-bit offsets, %s",
             kryl_cuda_csr_describe(m, name, sizeof name), (long long)m->nrows, (long long)m->nnz,
             from, m->mean, m->sd, (long long)m->max_len, m->wide ? 64 : 32,
             kryl_precision_name(A->precision));
    return KRYL_SUCCESS;
}

/* ---- the other formats ---- */

void kryl_cuda_fmt_free(kryl_cuda_state *s, cuda_fmt *m)
{
    if (m == nullptr) return;
    kryl_cuda_free(s, m->val);
    kryl_cuda_free(s, m->col);
    kryl_cuda_free(s, m->row_len);
    kryl_cuda_free(s, m->ptr);
    kryl_cuda_free(s, m->offset);
    kryl_cuda_free(s, m->units);
    kryl_cuda_free(s, m->heavy);
    kryl_cuda_free(s, m->partial);
    kryl_cuda_free(s, m->acc);
    free(m->diag_rows);
    kryl_cuda_value_map_free(s, &m->map);
    free(m);
}

/* *dst = a device copy of count host values, converted to float for single */
static kryl_status upload_values(kryl_cuda_state *s, void **dst, const double *values,
                                 int64_t count, kryl_precision precision)
{
    if (precision == KRYL_DOUBLE || count == 0)
        return device_copy(s, dst, values, (size_t)count * sizeof(double), "the format's values");
    float *narrow = static_cast<float *>(malloc((size_t)count * sizeof(float)));
    if (narrow == nullptr)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                          "cuda: cannot allocate host staging for %lld float values",
                          (long long)count);
    for (int64_t k = 0; k < count; k++) narrow[k] = (float)values[k];
    kryl_status st =
        device_copy(s, dst, narrow, (size_t)count * sizeof(float), "the format's values");
    cudaError_t err = cudaStreamSynchronize(s->stream); /* the copy reads narrow */
    free(narrow);
    if (err != cudaSuccess && st == KRYL_SUCCESS)
        st = kryl_cuda_failed(err, "cudaStreamSynchronize", KRYL_WHERE);
    return st;
}

/* Entries of row r of a column-major format (0 past the last row). */
static int64_t row_length(const kryl_fmt *f, int64_t r)
{
    if (r >= f->nrows) return 0;
    switch (f->kind) {
    case KRYL_FORMAT_ELL: return f->u.ell.width;
    case KRYL_FORMAT_ELLR: return f->u.ell.row_len[r];
    case KRYL_FORMAT_JDS: return f->u.jds.row_len[r];
    default: return f->u.sell.row_len[r];
    }
}

/* Entries per unit of a split group: SLAB_CHUNK, or fewer (a multiple of
 * SLAB_DEPTH, at least SLAB_MIN_CHUNK) when the groups' entries would give
 * the multiprocessors fewer than SLAB_UNITS_PER_SM units each. */
static int32_t unit_grain(const int32_t *width, int64_t groups, int sm_count)
{
    /* work = sum of the groups' widths: warp steps of one product */
    int64_t work = 0;
    for (int64_t g = 0; g < groups; g++) work += width[g];
    const int64_t target = (int64_t)sm_count * SLAB_UNITS_PER_SM;
    int64_t grain = (work + target - 1) / target;
    grain = (grain + SLAB_DEPTH - 1) / SLAB_DEPTH * SLAB_DEPTH;
    return (int32_t)std::min<int64_t>(SLAB_CHUNK, std::max<int64_t>(SLAB_MIN_CHUNK, grain));
}

/* width[g] = the longest row of group g of 32 rows of f (host arrays) */
static kryl_status group_widths(const kryl_fmt *f, int32_t **width, int64_t *groups)
{
    *groups = (f->nrows + 31) / 32;
    *width = static_cast<int32_t *>(malloc((size_t)(*groups ? *groups : 1) * sizeof(int32_t)));
    if (*width == nullptr)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cuda: cannot allocate %lld group widths",
                          (long long)*groups);
    for (int64_t g = 0; g < *groups; g++) {
        int64_t w = 0;
        for (int64_t r = 32 * g; r < 32 * g + 32; r++) w = std::max(w, row_length(f, r));
        (*width)[g] = (int32_t)w;
    }
    return KRYL_SUCCESS;
}

/* The work units of a column-major format: a unit per group of 32 rows,
 * or, for a group whose longest row (width[g]) exceeds twice the grain,
 * one per grain of its entries (these first, since they are the longest to
 * run). */
kryl_status kryl_cuda_fmt_units(kryl_cuda_state *s, const int32_t *width, int64_t groups,
                                cuda_fmt *m)
{
    const int32_t grain = unit_grain(width, groups, s->sm_count);
    int64_t chunks = 0, heavy = 0;
    for (int64_t g = 0; g < groups; g++) {
        if (width[g] <= 2 * grain) continue;
        chunks += (width[g] + grain - 1) / grain;
        heavy++;
    }
    kryl_status st = KRYL_SUCCESS;
    cudaError_t err;
    slab_unit *units = nullptr;
    slab_heavy *split = nullptr;
    if (chunks > INT32_MAX) {
        st = KRYL_ERROR(KRYL_ERR_INDEX_OVERFLOW,
                        "cuda: %lld partial sums of long rows exceed 32-bit slot numbers",
                        (long long)chunks);
        goto done;
    }
    m->unit_count = groups - heavy + chunks;
    m->heavy_count = heavy;
    units = static_cast<slab_unit *>(malloc((size_t)(m->unit_count + 1) * sizeof(slab_unit)));
    split = static_cast<slab_heavy *>(malloc((size_t)(heavy + 1) * sizeof(slab_heavy)));
    if (units == nullptr || split == nullptr) {
        st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cuda: cannot allocate %lld work units",
                        (long long)m->unit_count);
        goto done;
    }
    {
        int64_t u = 0, h = 0;
        int32_t slot = 0;
        for (int64_t g = 0; g < groups; g++) {
            if (width[g] <= 2 * grain) continue;
            split[h++] = {(int32_t)g, slot, (width[g] + grain - 1) / grain, 0};
            for (int32_t j = 0; j < width[g]; j += grain)
                units[u++] = {(int32_t)g, j, std::min(width[g], j + grain), slot++};
        }
        for (int64_t g = 0; g < groups; g++)
            if (width[g] <= 2 * grain) units[u++] = {(int32_t)g, 0, width[g], -1};
    }
    KRYL_CHECK_GOTO(st,
                    device_copy(s, (void **)&m->units, units,
                                (size_t)m->unit_count * sizeof(slab_unit), "the work units"),
                    done);
    KRYL_CHECK_GOTO(st,
                    device_copy(s, (void **)&m->heavy, split, (size_t)heavy * sizeof(slab_heavy),
                                "the long-row splits"),
                    done);
    KRYL_CHECK_GOTO(st,
                    kryl_cuda_malloc(s, (void **)&m->partial, (size_t)chunks * 32 * sizeof(double),
                                     "the long-row partial sums"),
                    done);
done:
    /* the copies read the host tables */
    err = cudaStreamSynchronize(s->stream);
    if (err != cudaSuccess && st == KRYL_SUCCESS)
        st = kryl_cuda_failed(err, "cudaStreamSynchronize", KRYL_WHERE);
    free(units);
    free(split);
    return st;
}

/* The work units of f, from its host row lengths. */
static kryl_status build_units(kryl_cuda_state *s, const kryl_fmt *f, cuda_fmt *m)
{
    int32_t *width = nullptr;
    int64_t groups = 0;
    KRYL_TRY(group_widths(f, &width, &groups));
    kryl_status st = kryl_cuda_fmt_units(s, width, groups, m);
    free(width);
    return st;
}

/* Lanes per BCSR block row: the fewest (a power of two <= 32) that leave
 * each lane at most two blocks of a mean block row (measured on an H100,
 * double: 8 lanes for 15 blocks per block row, 32 for 75). */
static int bcsr_lanes(const kryl_fmt_bcsr *b)
{
    /* mean blocks per block row */
    const double mean = b->nbrows > 0 ? (double)b->brow_ptr[b->nbrows] / (double)b->nbrows : 0.0;
    int lanes = 1;
    while (lanes < 32 && 2.0 * lanes < mean) lanes *= 2;
    return lanes;
}

/* Two rows per thread past 8 diagonals (H100, double: 2% faster on 27 and
 * 45 diagonals, 0-1% slower on 7), and in single precision, where two rows
 * load 8 bytes of a diagonal at once (7-point 160^3: 57 against 69 us a
 * product; in double 107 against 103). */
int kryl_cuda_dia_variant(int64_t ndiag, kryl_precision precision)
{
    return ndiag > 8 || precision == KRYL_SINGLE ? 2 : 1;
}

/* Copy the arrays of f (not CSR) to the device. */
static kryl_status upload_fmt(kryl_cuda_state *s, const kryl_fmt *f, kryl_precision precision,
                              cuda_fmt *m)
{
    double *values = nullptr;
    int64_t count = 0;
    kryl_fmt_values(f, &values, &count);
    KRYL_TRY(upload_values(s, &m->val, values, count, precision));
    switch (f->kind) {
    case KRYL_FORMAT_ELL:
    case KRYL_FORMAT_ELLR:
        m->width = f->u.ell.width;
        m->stride = f->u.ell.stride;
        KRYL_TRY(device_copy(s, (void **)&m->col, f->u.ell.col, (size_t)f->stored * 4,
                             "the format's column indices"));
        if (f->kind == KRYL_FORMAT_ELLR)
            KRYL_TRY(device_copy(s, (void **)&m->row_len, f->u.ell.row_len,
                                 (size_t)f->u.ell.stride * 4, "the row lengths"));
        return build_units(s, f, m);
    case KRYL_FORMAT_JDS:
        m->ndiag = f->u.jds.ndiag;
        m->diag_start = f->u.jds.diag_ptr;
        KRYL_TRY(device_copy(s, (void **)&m->col, f->u.jds.col, (size_t)f->stored * 4,
                             "the format's column indices"));
        KRYL_TRY(device_copy(s, (void **)&m->row_len, f->u.jds.row_len, (size_t)f->nrows * 4,
                             "the row lengths"));
        KRYL_TRY(device_copy(s, (void **)&m->ptr, f->u.jds.diag_ptr,
                             (size_t)(f->u.jds.ndiag + 1) * 8, "the jagged diagonal offsets"));
        return build_units(s, f, m);
    case KRYL_FORMAT_PJDS:
    case KRYL_FORMAT_SELL:
        m->C = f->u.sell.C;
        KRYL_TRY(device_copy(s, (void **)&m->col, f->u.sell.col, (size_t)f->stored * 4,
                             "the format's column indices"));
        KRYL_TRY(device_copy(s, (void **)&m->row_len, f->u.sell.row_len,
                             (size_t)(f->u.sell.nslices * f->u.sell.C) * 4, "the row lengths"));
        KRYL_TRY(device_copy(s, (void **)&m->ptr, f->u.sell.slice_ptr,
                             (size_t)(f->u.sell.nslices + 1) * 8, "the slice offsets"));
        return build_units(s, f, m);
    case KRYL_FORMAT_BCSR2:
    case KRYL_FORMAT_BCSR4: {
        const kryl_fmt_bcsr *b = &f->u.bcsr;
        m->b = b->b;
        m->nbrows = b->nbrows;
        m->variant = bcsr_lanes(b);
        KRYL_TRY(device_copy(s, (void **)&m->col, b->bcol, (size_t)b->brow_ptr[b->nbrows] * 4,
                             "the block column indices"));
        return device_copy(s, (void **)&m->ptr, b->brow_ptr, (size_t)(b->nbrows + 1) * 8,
                           "the block row offsets");
    }
    case KRYL_FORMAT_DIA: {
        m->ndiag = f->u.dia.ndiag;
        m->stride = f->u.dia.stride;
        m->offset_host = f->u.dia.offset;
        m->variant = kryl_cuda_dia_variant(m->ndiag, precision);
        int32_t *offsets = static_cast<int32_t *>(malloc((size_t)(m->ndiag + 1) * 4));
        if (offsets == nullptr)
            return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cuda: cannot allocate %lld dia offsets",
                              (long long)m->ndiag);
        /* |offset| < n < 2^31 */
        for (int64_t d = 0; d < m->ndiag; d++) offsets[d] = (int32_t)f->u.dia.offset[d];
        kryl_status st = device_copy(s, (void **)&m->offset, offsets, (size_t)m->ndiag * 4,
                                     "the diagonal offsets");
        cudaError_t err = cudaStreamSynchronize(s->stream); /* the copy reads offsets */
        free(offsets);
        if (err != cudaSuccess && st == KRYL_SUCCESS)
            st = kryl_cuda_failed(err, "cudaStreamSynchronize", KRYL_WHERE);
        return st;
    }
    default:
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda: A->fmt has no storage format (%d)",
                          (int)f->kind);
    }
}

static const char *describe_fmt(const cuda_fmt *m, char *buf, size_t size)
{
    const char *name = kryl_format_name(m->kind);
    const char *x = m->x_readonly ? "" : ", x plain";
    if (m->kind == KRYL_FORMAT_JDS)
        snprintf(buf, size, "jds/%s%s",
                 m->variant == KRYL_CUDA_FMT_JDS_DIAGONAL ? "diagonal" : "row", x);
    else if (m->kind == KRYL_FORMAT_DIA)
        snprintf(buf, size, "dia/rows%d%s", m->variant, x);
    else if (m->kind == KRYL_FORMAT_BCSR2 || m->kind == KRYL_FORMAT_BCSR4)
        snprintf(buf, size, "%s/lanes%d%s", name, m->variant, x);
    else
        snprintf(buf, size, "%s%s", name, x);
    return buf;
}

cuda_fmt *kryl_cuda_fmt_new(kryl_cuda_state *s, kryl_matrix A)
{
    const kryl_fmt *f = &A->fmt;
    cuda_fmt *m = static_cast<cuda_fmt *>(calloc(1, sizeof(cuda_fmt)));
    if (m == nullptr) return nullptr;
    m->kind = f->kind;
    m->nrows = f->nrows;
    m->ncols = f->ncols;
    m->nnz = f->nnz;
    m->stored = f->stored;
    m->x_readonly = true;
    return m;
}

kryl_status kryl_cuda_fmt_adopt(kryl_context ctx, kryl_cuda_state *s, kryl_matrix A, cuda_fmt *m,
                                kryl_status st, const char *from)
{
    int l2_bytes = 0;
    if (st == KRYL_SUCCESS)
        st = cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, s->device) == cudaSuccess
                 ? KRYL_SUCCESS
                 : kryl_cuda_failed(cudaGetLastError(), "cudaDeviceGetAttribute", KRYL_WHERE);
    if (st != KRYL_SUCCESS) {
        kryl_cuda_fmt_free(s, m);
        return st;
    }
    /* a matrix larger than half the L2 is read once per product: evict-first */
    m->evict_first =
        (double)m->stored * (double)(kryl_precision_size(A->precision) + 4) > 0.5 * l2_bytes;
    A->storage = m;
    char name[48];
    kryl_log(ctx, KRYL_LOG_INFO,
             "cuda: spmv kernel %s for %lld rows, %lld entries in %lld slots, %lld work units "
             "(%lld groups split), matrix loads %s, %s%s",
             describe_fmt(m, name, sizeof name), (long long)m->nrows, (long long)m->nnz,
             (long long)m->stored, (long long)m->unit_count, (long long)m->heavy_count,
             m->evict_first ? "evict-first" : "cached", kryl_precision_name(A->precision), from);
    return KRYL_SUCCESS;
}

static kryl_status setup_fmt(kryl_context ctx, kryl_cuda_state *s, kryl_matrix A)
{
    cuda_fmt *m = kryl_cuda_fmt_new(s, A);
    if (m == nullptr) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cuda: cannot allocate storage");
    return kryl_cuda_fmt_adopt(ctx, s, A, m, upload_fmt(s, &A->fmt, A->precision, m),
                               ", converted on the host");
}

kryl_status kryl_cuda_matrix_setup(kryl_context ctx, kryl_matrix A)
{
    KRYL_REQUIRE_ARG(A);
    const kryl_fmt *f = &A->fmt;
    /* permuted formats store P A P^T: x and y are in the layout's order */
    if (f->nrows >= INT32_MAX || f->ncols > (int64_t)INT32_MAX + 1)
        return KRYL_ERROR(KRYL_ERR_INDEX_OVERFLOW,
                          "cuda: a %lld x %lld matrix has more rows than 32-bit indices allow",
                          (long long)f->nrows, (long long)f->ncols);
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    if (f->kind == KRYL_FORMAT_CSR) return setup_csr(ctx, s, A);
    return setup_fmt(ctx, s, A);
}

void kryl_cuda_matrix_release(kryl_context ctx, kryl_matrix A)
{
    kryl_cuda_state *s = nullptr;
    if (A == nullptr || A->storage == nullptr || kryl_cuda_enter(ctx, &s) != KRYL_SUCCESS) return;
    if (A->fmt.kind == KRYL_FORMAT_CSR)
        kryl_cuda_csr_free(s, static_cast<cuda_csr *>(A->storage));
    else
        kryl_cuda_fmt_free(s, static_cast<cuda_fmt *>(A->storage));
    A->storage = nullptr;
}

kryl_status kryl_cuda_fmt_spmv(kryl_matrix A, const cuda_fmt_args *a)
{
    const cuda_fmt *m = static_cast<const cuda_fmt *>(A->storage);
    switch (m->kind) {
    case KRYL_FORMAT_ELL:
    case KRYL_FORMAT_ELLR: return kryl_cuda_spmv_ell(m, A->precision, a);
    case KRYL_FORMAT_JDS: return kryl_cuda_spmv_jds(m, A->precision, a);
    case KRYL_FORMAT_PJDS:
    case KRYL_FORMAT_SELL: return kryl_cuda_spmv_sell(m, A->precision, a);
    case KRYL_FORMAT_BCSR2:
    case KRYL_FORMAT_BCSR4: return kryl_cuda_spmv_bcsr(m, A->precision, a);
    case KRYL_FORMAT_DIA: return kryl_cuda_spmv_dia(m, A->precision, a);
    default:
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda spmv: storage of unknown format %d",
                          (int)m->kind);
    }
}

/* Whether A is a matrix of a cuda context with device storage. */
static bool is_cuda_matrix(kryl_matrix A)
{
    return A != nullptr && A->ctx != nullptr && A->ctx->kind == KRYL_BACKEND_CUDA &&
           A->storage != nullptr;
}

extern "C" kryl_status kryl_cuda_spmv_select(kryl_matrix A, kryl_cuda_spmv_kernel kernel, int lanes)
{
    KRYL_REQUIRE_ARG(A);
    if (!is_cuda_matrix(A) || A->fmt.kind != KRYL_FORMAT_CSR)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "cuda spmv_select: A is not a cuda matrix stored in csr");
    cuda_csr *m = static_cast<cuda_csr *>(A->storage);
    if (kernel == KRYL_CUDA_SPMV_STREAM) {
        kryl_cuda_state *s = nullptr;
        KRYL_TRY(kryl_cuda_enter(A->ctx, &s));
        KRYL_TRY(kryl_cuda_csr_blocks(s, m));
        m->kernel = kernel;
        return KRYL_SUCCESS;
    }
    if (kernel != KRYL_CUDA_SPMV_VECTOR || lanes < 1 || lanes > 32 || (lanes & (lanes - 1)))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "cuda spmv_select: kernel %d with %d lanes; expected stream, or vector "
                          "with 1, 2, 4, 8, 16 or 32 lanes",
                          (int)kernel, lanes);
    m->kernel = kernel;
    m->lanes = lanes;
    return KRYL_SUCCESS;
}

extern "C" void kryl_cuda_spmv_describe(kryl_matrix A, char *buf, size_t size)
{
    if (buf == nullptr || size == 0) return;
    if (!is_cuda_matrix(A))
        snprintf(buf, size, "none");
    else if (A->fmt.kind == KRYL_FORMAT_CSR)
        kryl_cuda_csr_describe(static_cast<const cuda_csr *>(A->storage), buf, size);
    else
        describe_fmt(static_cast<const cuda_fmt *>(A->storage), buf, size);
}

/* The per-diagonal JDS kernel's row counts (host) and row sums (device);
 * the row lengths are A->fmt's, or the storage's where it was built on
 * the device. */
static kryl_status prepare_diagonals(kryl_matrix A, cuda_fmt *m)
{
    if (m->acc != nullptr) return KRYL_SUCCESS;
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(A->ctx, &s));
    const kryl_fmt_jds *j = &A->fmt.u.jds;
    const size_t len_bytes = (size_t)(m->nrows > 0 ? m->nrows : 1) * sizeof(int32_t);
    int32_t *downloaded = j->row_len ? nullptr : static_cast<int32_t *>(malloc(len_bytes));
    m->diag_rows = static_cast<int64_t *>(malloc((size_t)(j->ndiag + 1) * sizeof(int64_t)));
    if (m->diag_rows == nullptr || (j->row_len == nullptr && downloaded == nullptr)) {
        free(downloaded);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cuda: cannot allocate %lld diagonal lengths",
                          (long long)j->ndiag);
    }
    if (downloaded) {
        cudaError_t err = cudaMemcpyAsync(downloaded, m->row_len, (size_t)m->nrows * 4,
                                          cudaMemcpyDeviceToHost, s->stream);
        if (err == cudaSuccess) err = cudaStreamSynchronize(s->stream);
        if (err != cudaSuccess) {
            free(downloaded);
            return kryl_cuda_failed(err, "the download of the jds row lengths", KRYL_WHERE);
        }
    }
    const int32_t *row_len = j->row_len ? j->row_len : downloaded;
    /* rows sorted by decreasing length: diagonal d holds rows [0, diag_rows[d]) */
    int64_t rows = m->nrows;
    for (int64_t d = 0; d < j->ndiag; d++) {
        while (rows > 0 && row_len[rows - 1] <= d) rows--;
        m->diag_rows[d] = rows;
    }
    free(downloaded);
    return kryl_cuda_malloc(s, (void **)&m->acc, (size_t)(m->nrows + 1) * sizeof(double),
                            "the jds accumulator");
}

extern "C" kryl_status kryl_cuda_fmt_select(kryl_matrix A, int variant)
{
    KRYL_REQUIRE_ARG(A);
    if (!is_cuda_matrix(A) || A->fmt.kind == KRYL_FORMAT_CSR)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "cuda fmt_select: A is not a cuda matrix in a format other than csr "
                          "(use kryl_cuda_spmv_select for csr)");
    cuda_fmt *m = static_cast<cuda_fmt *>(A->storage);
    bool valid = variant == 0;
    switch (m->kind) {
    case KRYL_FORMAT_JDS:
        valid = variant == KRYL_CUDA_FMT_JDS_ROW || variant == KRYL_CUDA_FMT_JDS_DIAGONAL;
        break;
    case KRYL_FORMAT_DIA: valid = variant == 1 || variant == 2; break;
    case KRYL_FORMAT_BCSR2:
    case KRYL_FORMAT_BCSR4:
        valid = variant >= 1 && variant <= 32 && (variant & (variant - 1)) == 0;
        break;
    default: break;
    }
    if (!valid)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "cuda fmt_select: variant %d of %s; expected jds 0 (row) or 1 "
                          "(diagonal), dia 1 or 2 rows per thread, bcsr 1, 2, 4, 8, 16 or 32 "
                          "lanes, other formats 0",
                          variant, kryl_format_name(m->kind));
    if (m->kind == KRYL_FORMAT_JDS && variant == KRYL_CUDA_FMT_JDS_DIAGONAL)
        KRYL_TRY(prepare_diagonals(A, m));
    if (m->kind != KRYL_FORMAT_ELL && m->kind != KRYL_FORMAT_ELLR && m->kind != KRYL_FORMAT_SELL &&
        m->kind != KRYL_FORMAT_PJDS)
        m->variant = variant;
    return KRYL_SUCCESS;
}

extern "C" kryl_status kryl_cuda_fmt_readonly_x(kryl_matrix A, bool readonly)
{
    KRYL_REQUIRE_ARG(A);
    if (!is_cuda_matrix(A) || A->fmt.kind == KRYL_FORMAT_CSR)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "cuda fmt_readonly_x: A is not a cuda matrix in a format other than "
                          "csr (the csr kernels always read x through the read-only cache)");
    static_cast<cuda_fmt *>(A->storage)->x_readonly = readonly;
    return KRYL_SUCCESS;
}
