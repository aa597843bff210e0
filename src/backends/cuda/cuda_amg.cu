/* The products of one level of the multigrid setup on the device
 * (backend.h, amg_products): S = I - omega D^-1 A by a kernel over rows,
 * then P = S T, AP = A P and Ac = R AP by cuSPARSE's SpGEMM and R = P' by
 * its CSR-to-CSC conversion, all with 32-bit offsets (cuSPARSE's SpGEMM
 * takes no others), every block through the context's counting allocator.
 * The host's CSR goes up once and P, R and Ac come back. */
#include <cusparse.h>
#include <limits.h>

#include "backends/cuda/cuda_internal.cuh"
#include "core/csr.h"

/* A CSR matrix in device memory with 32-bit offsets. */
struct dev_csr {
    int64_t rows = 0, cols = 0, nnz = 0;
    int32_t *offsets = nullptr; /* rows + 1 */
    int32_t *col_idx = nullptr; /* nnz */
    double *values = nullptr;   /* nnz */
};

static void dev_csr_free(kryl_cuda_state *s, dev_csr *M)
{
    kryl_cuda_free(s, M->offsets);
    kryl_cuda_free(s, M->col_idx);
    kryl_cuda_free(s, M->values);
    *M = dev_csr{};
}

static kryl_status cusparse_failed(cusparseStatus_t st, const char *call, const char *where)
{
    return kryl_error_set(KRYL_ERR_DEVICE, where, "cuda: %s failed: %s", call,
                          cusparseGetErrorString(st));
}

/* Check a cuSPARSE call: on failure set st (once) and skip the rest. */
#define CUSPARSE_STEP(st, call)                                                                    \
    do {                                                                                           \
        if ((st) == KRYL_SUCCESS) {                                                                \
            cusparseStatus_t kryl_cusparse_err_ = (call);                                          \
            if (kryl_cusparse_err_ != CUSPARSE_STATUS_SUCCESS)                                     \
                (st) = cusparse_failed(kryl_cusparse_err_, #call, KRYL_WHERE);                     \
        }                                                                                          \
    } while (0)

/* Run a kryl_status expression only while st is still success. */
#define KRYL_STEP(st, expr)                                                                        \
    do {                                                                                           \
        if ((st) == KRYL_SUCCESS) (st) = (expr);                                                   \
    } while (0)

/* Check a CUDA runtime call only while st is still success. */
#define CUDA_STEP(st, call)                                                                        \
    do {                                                                                           \
        if ((st) == KRYL_SUCCESS) {                                                                \
            cudaError_t kryl_cuda_err_ = (call);                                                   \
            if (kryl_cuda_err_ != cudaSuccess)                                                     \
                (st) = kryl_cuda_failed(kryl_cuda_err_, #call, KRYL_WHERE);                        \
        }                                                                                          \
    } while (0)

__global__ void offsets_narrow(const int64_t *__restrict__ wide, int32_t *__restrict__ narrow,
                               int64_t count)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count;
         i += (int64_t)gridDim.x * blockDim.x)
        narrow[i] = (int32_t)wide[i];
}

__global__ void offsets_widen(const int32_t *__restrict__ narrow, int64_t *__restrict__ wide,
                              int64_t count)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count;
         i += (int64_t)gridDim.x * blockDim.x)
        wide[i] = narrow[i];
}

/* Row by row: s_ij = delta_ij - omega a_ij / a_ii; a row without a
 * nonzero a_ii lowers *zero_row to its index (and its s_ij are 0). */
__global__ void smoother_matrix(int64_t rows, const int32_t *__restrict__ offsets,
                                const int32_t *__restrict__ col_idx, const double *__restrict__ a,
                                double omega, double *__restrict__ s_values,
                                unsigned long long *__restrict__ zero_row)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows;
         i += (int64_t)gridDim.x * blockDim.x) {
        double diag = 0.0;
        for (int32_t k = offsets[i]; k < offsets[i + 1]; k++)
            if (col_idx[k] == i) diag = a[k];
        if (diag == 0.0) atomicMin(zero_row, (unsigned long long)i);
        double scale = diag != 0.0 ? omega / diag : 0.0;
        for (int32_t k = offsets[i]; k < offsets[i + 1]; k++)
            s_values[k] = diag != 0.0 ? (col_idx[k] == i ? 1.0 : 0.0) - scale * a[k] : 0.0;
    }
}

/* Sets *unsorted when a row's columns are not increasing. */
__global__ void rows_unsorted(int64_t rows, const int32_t *__restrict__ offsets,
                              const int32_t *__restrict__ col_idx, int *__restrict__ unsorted)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows;
         i += (int64_t)gridDim.x * blockDim.x)
        for (int32_t k = offsets[i] + 1; k < offsets[i + 1]; k++)
            if (col_idx[k] <= col_idx[k - 1]) *unsorted = 1;
}

/* M on the device from the host's A (fewer than 2^31 entries). */
static kryl_status upload(kryl_cuda_state *s, const kryl_csr *A, dev_csr *M, const char *what)
{
    M->rows = A->nrows;
    M->cols = A->ncols;
    M->nnz = kryl_csr_nnz(A);
    int64_t *wide = nullptr;
    size_t offset_bytes = ((size_t)M->rows + 1) * sizeof(int64_t);
    kryl_status st = kryl_cuda_malloc(s, (void **)&wide, offset_bytes, what);
    KRYL_STEP(st, kryl_cuda_malloc(s, (void **)&M->offsets, ((size_t)M->rows + 1) * sizeof(int32_t),
                                   what));
    KRYL_STEP(st,
              kryl_cuda_malloc(s, (void **)&M->col_idx, (size_t)M->nnz * sizeof(int32_t), what));
    KRYL_STEP(st, kryl_cuda_malloc(s, (void **)&M->values, (size_t)M->nnz * sizeof(double), what));
    CUDA_STEP(st,
              cudaMemcpyAsync(wide, A->row_ptr, offset_bytes, cudaMemcpyHostToDevice, s->stream));
    CUDA_STEP(st, cudaMemcpyAsync(M->col_idx, A->col_idx, (size_t)M->nnz * sizeof(int32_t),
                                  cudaMemcpyHostToDevice, s->stream));
    CUDA_STEP(st, cudaMemcpyAsync(M->values, A->values, (size_t)M->nnz * sizeof(double),
                                  cudaMemcpyHostToDevice, s->stream));
    if (st == KRYL_SUCCESS) {
        /* offsets below 2^31: the caller checked the entry count */
        offsets_narrow<<<kryl_cuda_stream_grid(s, M->rows + 1), KRYL_CUDA_THREADS, 0, s->stream>>>(
            wide, M->offsets, M->rows + 1);
        CUDA_STEP(st, cudaGetLastError());
    }
    CUDA_STEP(st, cudaStreamSynchronize(s->stream));
    kryl_cuda_free(s, wide);
    return st;
}

/* The host's C (allocated here, rows sorted) from M. */
static kryl_status download(kryl_cuda_state *s, const dev_csr *M, kryl_csr *C, const char *what)
{
    int64_t *wide = nullptr;
    int *unsorted = nullptr, flag = 0;
    size_t offset_bytes = ((size_t)M->rows + 1) * sizeof(int64_t);
    kryl_status st = kryl_cuda_malloc(s, (void **)&wide, offset_bytes, what);
    KRYL_STEP(st, kryl_cuda_malloc(s, (void **)&unsorted, sizeof *unsorted, what));
    CUDA_STEP(st, cudaMemsetAsync(unsorted, 0, sizeof *unsorted, s->stream));
    if (st == KRYL_SUCCESS) {
        unsigned int grid = kryl_cuda_stream_grid(s, M->rows + 1);
        offsets_widen<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(M->offsets, wide, M->rows + 1);
        rows_unsorted<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(M->rows, M->offsets, M->col_idx,
                                                                 unsorted);
        CUDA_STEP(st, cudaGetLastError());
    }
    KRYL_STEP(st, kryl_csr_alloc(C, M->rows, M->cols, M->nnz));
    CUDA_STEP(st,
              cudaMemcpyAsync(C->row_ptr, wide, offset_bytes, cudaMemcpyDeviceToHost, s->stream));
    CUDA_STEP(st, cudaMemcpyAsync(C->col_idx, M->col_idx, (size_t)M->nnz * sizeof(int32_t),
                                  cudaMemcpyDeviceToHost, s->stream));
    CUDA_STEP(st, cudaMemcpyAsync(C->values, M->values, (size_t)M->nnz * sizeof(double),
                                  cudaMemcpyDeviceToHost, s->stream));
    CUDA_STEP(st, cudaMemcpyAsync(&flag, unsorted, sizeof flag, cudaMemcpyDeviceToHost, s->stream));
    CUDA_STEP(st, cudaStreamSynchronize(s->stream));
    kryl_cuda_free(s, wide);
    kryl_cuda_free(s, unsorted);
    /* rows as kryl_csr keeps them, should cuSPARSE leave any unsorted */
    if (st == KRYL_SUCCESS && flag)
        for (int64_t i = 0; i < C->nrows; i++)
            kryl_csr_sort_row(C->col_idx + C->row_ptr[i], C->values + C->row_ptr[i],
                              C->row_ptr[i + 1] - C->row_ptr[i]);
    if (st != KRYL_SUCCESS) kryl_csr_free(C);
    return st;
}

/* cuSPARSE's descriptor of M. */
static cusparseStatus_t describe(const dev_csr *M, cusparseSpMatDescr_t *d)
{
    return cusparseCreateCsr(d, M->rows, M->cols, M->nnz, M->offsets, M->col_idx, M->values,
                             CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                             CUDA_R_64F);
}

/* C = A B by cuSPARSE's SpGEMM (its default algorithm). */
static kryl_status spgemm(kryl_cuda_state *s, cusparseHandle_t handle, const dev_csr *A,
                          const dev_csr *B, dev_csr *C, const char *what)
{
    const double one = 1.0, zero = 0.0;
    const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    const cusparseSpGEMMAlg_t alg = CUSPARSE_SPGEMM_DEFAULT;
    C->rows = A->rows;
    C->cols = B->cols;
    cusparseSpMatDescr_t da = nullptr, db = nullptr, dc = nullptr;
    cusparseSpGEMMDescr_t plan = nullptr;
    void *work1 = nullptr, *work2 = nullptr;
    size_t bytes1 = 0, bytes2 = 0;
    kryl_status st =
        kryl_cuda_malloc(s, (void **)&C->offsets, ((size_t)C->rows + 1) * sizeof(int32_t), what);
    CUSPARSE_STEP(st, describe(A, &da));
    CUSPARSE_STEP(st, describe(B, &db));
    CUSPARSE_STEP(st, describe(C, &dc));
    CUSPARSE_STEP(st, cusparseSpGEMM_createDescr(&plan));
    CUSPARSE_STEP(st, cusparseSpGEMM_workEstimation(handle, op, op, &one, da, db, &zero, dc,
                                                    CUDA_R_64F, alg, plan, &bytes1, nullptr));
    KRYL_STEP(st, kryl_cuda_malloc(s, &work1, bytes1, "cuSPARSE's SpGEMM workspace"));
    CUSPARSE_STEP(st, cusparseSpGEMM_workEstimation(handle, op, op, &one, da, db, &zero, dc,
                                                    CUDA_R_64F, alg, plan, &bytes1, work1));
    CUSPARSE_STEP(st, cusparseSpGEMM_compute(handle, op, op, &one, da, db, &zero, dc, CUDA_R_64F,
                                             alg, plan, &bytes2, nullptr));
    KRYL_STEP(st, kryl_cuda_malloc(s, &work2, bytes2, "cuSPARSE's SpGEMM workspace"));
    CUSPARSE_STEP(st, cusparseSpGEMM_compute(handle, op, op, &one, da, db, &zero, dc, CUDA_R_64F,
                                             alg, plan, &bytes2, work2));
    int64_t rows = 0, cols = 0, nnz = 0;
    CUSPARSE_STEP(st, cusparseSpMatGetSize(dc, &rows, &cols, &nnz));
    C->nnz = nnz;
    KRYL_STEP(st, kryl_cuda_malloc(s, (void **)&C->col_idx, (size_t)nnz * sizeof(int32_t), what));
    KRYL_STEP(st, kryl_cuda_malloc(s, (void **)&C->values, (size_t)nnz * sizeof(double), what));
    CUSPARSE_STEP(st, cusparseCsrSetPointers(dc, C->offsets, C->col_idx, C->values));
    CUSPARSE_STEP(
        st, cusparseSpGEMM_copy(handle, op, op, &one, da, db, &zero, dc, CUDA_R_64F, alg, plan));
    CUDA_STEP(st, cudaStreamSynchronize(s->stream));
    if (plan) cusparseSpGEMM_destroyDescr(plan);
    if (da) cusparseDestroySpMat(da);
    if (db) cusparseDestroySpMat(db);
    if (dc) cusparseDestroySpMat(dc);
    kryl_cuda_free(s, work1);
    kryl_cuda_free(s, work2);
    if (st != KRYL_SUCCESS) dev_csr_free(s, C);
    return st;
}

/* R = P' by cuSPARSE's CSR-to-CSC conversion (the CSC of P is the CSR of P'). */
static kryl_status transpose(kryl_cuda_state *s, cusparseHandle_t handle, const dev_csr *P,
                             dev_csr *R, const char *what)
{
    R->rows = P->cols;
    R->cols = P->rows;
    R->nnz = P->nnz;
    void *work = nullptr;
    size_t bytes = 0;
    kryl_status st =
        kryl_cuda_malloc(s, (void **)&R->offsets, ((size_t)R->rows + 1) * sizeof(int32_t), what);
    KRYL_STEP(st,
              kryl_cuda_malloc(s, (void **)&R->col_idx, (size_t)R->nnz * sizeof(int32_t), what));
    KRYL_STEP(st, kryl_cuda_malloc(s, (void **)&R->values, (size_t)R->nnz * sizeof(double), what));
    CUSPARSE_STEP(
        st, cusparseCsr2cscEx2_bufferSize(handle, (int)P->rows, (int)P->cols, (int)P->nnz,
                                          P->values, P->offsets, P->col_idx, R->values, R->offsets,
                                          R->col_idx, CUDA_R_64F, CUSPARSE_ACTION_NUMERIC,
                                          CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &bytes));
    KRYL_STEP(st, kryl_cuda_malloc(s, &work, bytes, "cuSPARSE's transpose workspace"));
    CUSPARSE_STEP(st, cusparseCsr2cscEx2(handle, (int)P->rows, (int)P->cols, (int)P->nnz, P->values,
                                         P->offsets, P->col_idx, R->values, R->offsets, R->col_idx,
                                         CUDA_R_64F, CUSPARSE_ACTION_NUMERIC,
                                         CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, work));
    CUDA_STEP(st, cudaStreamSynchronize(s->stream));
    kryl_cuda_free(s, work);
    if (st != KRYL_SUCCESS) dev_csr_free(s, R);
    return st;
}

/* S = I - omega D^-1 A (A's pattern, its own values), or
 * KRYL_ERR_ZERO_DIAGONAL naming the first row without a nonzero a_ii. */
static kryl_status smoother(kryl_cuda_state *s, const dev_csr *A, double omega, dev_csr *S)
{
    unsigned long long *zero_row = nullptr, first = 0;
    const unsigned long long none = (unsigned long long)A->rows;
    const char *what = "the multigrid prolongator's smoother";
    *S = *A;
    S->values = nullptr;
    kryl_status st =
        kryl_cuda_malloc(s, (void **)&S->values, (size_t)A->nnz * sizeof(double), what);
    KRYL_STEP(st, kryl_cuda_malloc(s, (void **)&zero_row, sizeof *zero_row, what));
    CUDA_STEP(st, cudaMemcpyAsync(zero_row, &none, sizeof none, cudaMemcpyHostToDevice, s->stream));
    if (st == KRYL_SUCCESS) {
        smoother_matrix<<<kryl_cuda_stream_grid(s, A->rows), KRYL_CUDA_THREADS, 0, s->stream>>>(
            A->rows, A->offsets, A->col_idx, A->values, omega, S->values, zero_row);
        CUDA_STEP(st, cudaGetLastError());
    }
    CUDA_STEP(st,
              cudaMemcpyAsync(&first, zero_row, sizeof first, cudaMemcpyDeviceToHost, s->stream));
    CUDA_STEP(st, cudaStreamSynchronize(s->stream));
    kryl_cuda_free(s, zero_row);
    if (st == KRYL_SUCCESS && first < none)
        st = KRYL_ERROR(KRYL_ERR_ZERO_DIAGONAL,
                        "amg: a_ii of row %llu of a level is zero; smoothed aggregation divides "
                        "by the diagonal (try --amg-aggregation plain)",
                        first);
    if (st != KRYL_SUCCESS) {
        kryl_cuda_free(s, S->values);
        S->values = nullptr;
    }
    return st;
}

/* P, R and Ac on the device (see amg_products); dA, dT uploaded. */
static kryl_status products(kryl_cuda_state *s, cusparseHandle_t handle, const dev_csr *dA,
                            const dev_csr *dT, double omega, kryl_csr *P, kryl_csr *R, kryl_csr *Ac)
{
    dev_csr dS, dP, dR, dAP, dAc;
    kryl_status st = KRYL_SUCCESS;
    if (omega != 0.0) {
        /* P = (I - omega D^-1 A) T;  S borrows A's offsets and columns */
        st = smoother(s, dA, omega, &dS);
        KRYL_STEP(st, spgemm(s, handle, &dS, dT, &dP, "the multigrid prolongator P"));
        kryl_cuda_free(s, dS.values);
    }
    /* plain aggregation: P = T, borrowed */
    const dev_csr *p = omega != 0.0 ? &dP : dT;
    /* R = P';  AP = A P;  Ac = R AP */
    KRYL_STEP(st, transpose(s, handle, p, &dR, "the multigrid restriction R"));
    KRYL_STEP(st, spgemm(s, handle, dA, p, &dAP, "the multigrid product A P"));
    KRYL_STEP(st, spgemm(s, handle, &dR, &dAP, &dAc, "the multigrid coarse matrix R A P"));
    dev_csr_free(s, &dAP);
    KRYL_STEP(st, download(s, p, P, "the multigrid prolongator P"));
    KRYL_STEP(st, download(s, &dR, R, "the multigrid restriction R"));
    KRYL_STEP(st, download(s, &dAc, Ac, "the multigrid coarse matrix R A P"));
    dev_csr_free(s, &dP);
    dev_csr_free(s, &dR);
    dev_csr_free(s, &dAc);
    return st;
}

kryl_status kryl_cuda_amg_products(kryl_context ctx, const kryl_csr *A, const kryl_csr *T,
                                   double omega, kryl_csr *P, kryl_csr *R, kryl_csr *Ac, bool *done)
{
    *done = false;
    /* cuSPARSE's SpGEMM takes 32-bit offsets: a level whose A or T has 2^28
     * entries or more (P, AP and Ac are a few times larger) stays on the host */
    const int64_t most = (int64_t)1 << 28;
    if (kryl_csr_nnz(A) >= most || kryl_csr_nnz(T) >= most || T->ncols >= most) return KRYL_SUCCESS;
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    cusparseHandle_t handle = nullptr;
    kryl_status st = KRYL_SUCCESS;
    CUSPARSE_STEP(st, cusparseCreate(&handle));
    CUSPARSE_STEP(st, cusparseSetStream(handle, s->stream));
    dev_csr dA, dT;
    KRYL_STEP(st, upload(s, A, &dA, "a multigrid level's matrix"));
    KRYL_STEP(st, upload(s, T, &dT, "the multigrid tentative prolongator"));
    KRYL_STEP(st, products(s, handle, &dA, &dT, omega, P, R, Ac));
    dev_csr_free(s, &dA);
    dev_csr_free(s, &dT);
    if (handle) cusparseDestroy(handle);
    *done = st == KRYL_SUCCESS;
    return st;
}
