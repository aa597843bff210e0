/* The split of a hybrid pipelined CG between the host and the device
 * (Tiwari & Vadhiyar, sections IV-C1 and IV-C2): the speeds that size the
 * host's share, and each side's rows cut into the entries that need only
 * its own part of a vector and those that need the other side's. */
#include <stdlib.h>
#include <string.h>

#include "core/host_threads.h"
#include "solvers/hybrid.h"

/* Products timed on each side after one warm-up: later ones see the
 * caches the iteration will see (the paper times five). */
enum { MODEL_PRODUCTS = 5 };
/* The host's sample: at most this many entries of A's first rows, so the
 * measurement stays a few tens of milliseconds on any matrix. */
static const int64_t MODEL_SAMPLE_NNZ = 2 << 20;
/* The device's sample where A is not on the device: at most this many
 * entries of A's last rows (the device's), enough for a GPU's SpMV to run
 * at its bandwidth rather than its launch latency. */
static const int64_t DEVICE_SAMPLE_NNZ = 32 << 20;

kryl_status kryl_hybrid_part(kryl_context ctx, const kryl_csr *A, int64_t begin, int64_t rows,
                             kryl_matrix *own, kryl_matrix *coupling, int64_t *own_nnz,
                             int64_t *coupling_nnz)
{
    *own = NULL;
    *coupling = NULL;
    const int64_t end = begin + rows, n = A->nrows;
    /* the other side's rows: [0, begin) or [end, n) (two sides, one cut) */
    const int64_t other_begin = begin == 0 ? end : 0, other_rows = n - rows;
    const int64_t *rp = A->row_ptr;
    const int threads = kryl_host_threads(ctx);
    /* each row's entries in its own side's columns (rows of billions of
     * entries: the host's threads) */
    int64_t *mine = malloc((size_t)(rows > 0 ? rows : 1) * sizeof *mine);
    if (mine == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "hybrid: cannot count the entries of %lld rows",
                          (long long)rows);
    int64_t in = 0;
    KRYL_HOST_PARALLEL_REDUCE(threads, +, in)
    for (int64_t i = 0; i < rows; i++) {
        int64_t c = 0;
        for (int64_t k = rp[begin + i]; k < rp[begin + i + 1]; k++)
            c += A->col_idx[k] >= begin && A->col_idx[k] < end;
        mine[i] = c;
        in += c;
    }
    const int64_t out = rp[end] - rp[begin] - in;
    *own_nnz = in;
    *coupling_nnz = out;
    kryl_csr parts[2];
    memset(parts, 0, sizeof parts);
    kryl_status st = kryl_csr_alloc(&parts[0], rows, rows, in);
    if (st == KRYL_SUCCESS) st = kryl_csr_alloc(&parts[1], rows, other_rows, out);
    if (st != KRYL_SUCCESS) {
        free(mine);
        kryl_csr_free(&parts[0]);
        return st;
    }
    /* row offsets: the prefix sums of the counts */
    parts[0].row_ptr[0] = parts[1].row_ptr[0] = 0;
    for (int64_t i = 0; i < rows; i++) {
        parts[0].row_ptr[i + 1] = parts[0].row_ptr[i] + mine[i];
        parts[1].row_ptr[i + 1] =
            parts[1].row_ptr[i] + (rp[begin + i + 1] - rp[begin + i] - mine[i]);
    }
    free(mine);
    /* each thread a contiguous range of rows, as the host backend's product
     * reads them, so the first touch puts their pages on its memory node;
     * after a fill by a dynamic schedule the host's part ran at 72% of the
     * host alone's speed, after this one at 86% (docs/BENCHMARKS.md) */
    KRYL_HOST_PARALLEL_STATIC(threads)
    for (int64_t i = 0; i < rows; i++) {
        int64_t at[2] = {parts[0].row_ptr[i], parts[1].row_ptr[i]};
        for (int64_t k = rp[begin + i]; k < rp[begin + i + 1]; k++) {
            int32_t j = A->col_idx[k];
            int t = j >= begin && j < end ? 0 : 1;
            parts[t].col_idx[at[t]] = (int32_t)(j - (t == 0 ? begin : other_begin));
            parts[t].values[at[t]++] = A->values[k];
        }
    }
    st = kryl_matrix_from_csr(own, ctx, &parts[0]);
    if (st == KRYL_SUCCESS && other_rows > 0) return kryl_matrix_from_csr(coupling, ctx, &parts[1]);
    kryl_csr_free(&parts[1]);
    return st;
}

int64_t kryl_hybrid_rows_for_share(const kryl_csr *A, double share)
{
    const int64_t budget = (int64_t)(share * (double)kryl_csr_nnz(A));
    int64_t rows = 0;
    while (rows < A->nrows && A->row_ptr[rows + 1] <= budget) rows++;
    return rows;
}

/* Bytes of the device's part when the host has the first host_rows rows:
 * its two matrices (values, columns; row offsets and the kernel's row
 * blocks, each matrix up to 12 bytes a row), its vectors (the nine of a
 * step) and the halo of the host's m. */
static double device_part_bytes(const kryl_csr *A, int64_t host_rows)
{
    const double rows = (double)(A->nrows - host_rows);
    const double nnz = (double)(kryl_csr_nnz(A) - A->row_ptr[host_rows]);
    return 12.0 * nnz + 24.0 * (rows + 1.0) + 72.0 * rows + 8.0 * (double)host_rows;
}

int64_t kryl_hybrid_rows_to_fit(const kryl_csr *A, int64_t host_rows, int64_t available)
{
    while (host_rows < A->nrows && device_part_bytes(A, host_rows) > (double)available) host_rows++;
    return host_rows;
}

/* Seconds of one y = A x on ctx, the mean of MODEL_PRODUCTS after a warm-up. */
static kryl_status time_spmv(kryl_context ctx, kryl_matrix A, kryl_vector x, kryl_vector y,
                             double *seconds)
{
    const kryl_backend_ops *ops = ctx->ops;
    KRYL_TRY(ops->spmv(ctx, A, 1.0, x, 0.0, NULL, y, NULL));
    KRYL_TRY(ops->synchronize(ctx));
    double t0 = kryl_wtime();
    for (int k = 0; k < MODEL_PRODUCTS; k++)
        KRYL_TRY(ops->spmv(ctx, A, 1.0, x, 0.0, NULL, y, NULL));
    KRYL_TRY(ops->synchronize(ctx));
    *seconds = (kryl_wtime() - t0) / MODEL_PRODUCTS;
    return KRYL_SUCCESS;
}

/* A's rows [begin, begin + rows), all of its columns, as a matrix on ctx. */
static kryl_status row_sample(kryl_context ctx, const kryl_csr *A, int64_t begin, int64_t rows,
                              kryl_matrix *S)
{
    const int64_t *rp = A->row_ptr, first = rp[begin], nnz = rp[begin + rows] - first;
    kryl_csr c;
    KRYL_TRY(kryl_csr_alloc(&c, rows, A->ncols, nnz));
    for (int64_t i = 0; i <= rows; i++) c.row_ptr[i] = rp[begin + i] - first;
    memcpy(c.col_idx, A->col_idx + first, (size_t)nnz * sizeof *c.col_idx);
    memcpy(c.values, A->values + first, (size_t)nnz * sizeof *c.values);
    return kryl_matrix_from_csr(S, ctx, &c);
}

/* The host's sample: A's first rows holding at most MODEL_SAMPLE_NNZ entries. */
static kryl_status host_sample(kryl_context host, const kryl_csr *A, kryl_matrix *S)
{
    int64_t rows = kryl_hybrid_rows_for_share(
        A, (double)MODEL_SAMPLE_NNZ / (double)(kryl_csr_nnz(A) > 0 ? kryl_csr_nnz(A) : 1));
    if (rows == 0) rows = A->nrows < 1 ? 0 : 1;
    return row_sample(host, A, 0, rows, S);
}

/* The device's sample, where A's storage is not on the device: its last
 * rows holding at most DEVICE_SAMPLE_NNZ entries and a quarter of what the
 * device may still allocate (at least one row). */
static kryl_status device_sample(kryl_solver s, const kryl_csr *A, kryl_matrix *S)
{
    kryl_device_memory mem;
    KRYL_TRY(kryl_context_device_memory(s->ctx, &mem));
    int64_t most = DEVICE_SAMPLE_NNZ;
    if ((mem.total > 0 || mem.limit > 0) && mem.available / 48 < most) most = mem.available / 48;
    const int64_t *rp = A->row_ptr, n = A->nrows;
    int64_t rows = 0;
    while (rows < n && rp[n] - rp[n - rows - 1] <= most) rows++;
    if (rows == 0 && n > 0) rows = 1;
    return row_sample(s->ctx, A, n - rows, rows, S);
}

/* The host's SpMV seconds on its sample S of rows, x of all n columns. */
static kryl_status host_speed(kryl_context host, kryl_matrix S, int64_t n, double *seconds,
                              kryl_vector *x, kryl_vector *y)
{
    kryl_layout *full = calloc(1, sizeof *full);
    if (full == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a layout");
    full->refs = 1;
    full->n = full->n_global = n;
    kryl_status st = kryl_vector_create_like(x, host, full, KRYL_DOUBLE);
    kryl_layout_release(host, full);
    if (st == KRYL_SUCCESS) st = kryl_vector_create_like(y, host, S->layout, KRYL_DOUBLE);
    if (st == KRYL_SUCCESS) st = host->ops->fill(host, *x, 1.0);
    if (st == KRYL_SUCCESS) st = time_spmv(host, S, *x, *y, seconds);
    return st;
}

kryl_status kryl_hybrid_measure(kryl_solver s, kryl_context host, kryl_hybrid_model *model,
                                kryl_hybrid_info *info)
{
    const kryl_csr *A = &s->A->host->csr;
    const kryl_backend_ops *ops = s->ops;
    double device_s = 0.0, host_s = 0.0;
    /* the device's product: A where it is there, else a sample of A's rows
     * (the driver's x is free until a solve; its b too where A is the product) */
    kryl_matrix D = s->Aw, S = NULL;
    kryl_vector x = NULL, y = NULL, y_sample = NULL;
    kryl_status st = KRYL_SUCCESS;
    if (s->A->storage_deferred) st = device_sample(s, A, &D);
    if (st == KRYL_SUCCESS && D != s->Aw)
        st = kryl_vector_create_like(&y_sample, s->ctx, D->layout, KRYL_DOUBLE);
    if (st == KRYL_SUCCESS) st = ops->fill(s->ctx, s->x_work, 1.0);
    if (st == KRYL_SUCCESS)
        st = time_spmv(s->ctx, D, s->x_work, y_sample ? y_sample : s->b_work, &device_s);
    const int64_t device_nnz = D ? kryl_matrix_nnz(D) : 0;
    info->device_model_rows = D ? D->layout->n : 0;
    kryl_vector_destroy(&y_sample);
    if (D != s->Aw) kryl_matrix_destroy(&D);
    KRYL_TRY(st);
    st = host_sample(host, A, &S);
    if (st == KRYL_SUCCESS) st = host_speed(host, S, A->nrows, &host_s, &x, &y);
    int64_t sample_nnz = S ? S->host->csr.row_ptr[S->host->csr.nrows] : 0;
    if (S) info->model_rows = S->host->csr.nrows;
    /* one synchronising fetch of the step's scalars; a whole vector over the link */
    double scalars[KRYL_PIPECG_SCALARS], t0 = kryl_wtime();
    if (st == KRYL_SUCCESS) st = ops->download(s->ctx, scalars, s->b_work->data, sizeof scalars);
    model->sync_s = kryl_wtime() - t0;
    t0 = kryl_wtime();
    if (st == KRYL_SUCCESS)
        st = ops->copy_to_host_async(s->ctx, x->data, s->x_work->data,
                                     (size_t)A->nrows * sizeof(double));
    if (st == KRYL_SUCCESS) st = ops->copy_wait(s->ctx);
    model->link_s = kryl_wtime() - t0;
    kryl_vector_destroy(&x);
    kryl_vector_destroy(&y);
    kryl_matrix_destroy(&S);
    KRYL_TRY(st);
    const double tiny = 1e-9; /* a product too fast for the clock still has a speed */
    model->device_rate = (double)device_nnz / (device_s > tiny ? device_s : tiny);
    model->host_rate = (double)sample_nnz / (host_s > tiny ? host_s : tiny);
    info->device_nnz_per_s = model->device_rate;
    info->host_nnz_per_s = model->host_rate;
    info->model_host_share = model->host_rate / (model->host_rate + model->device_rate);
    return KRYL_SUCCESS;
}
