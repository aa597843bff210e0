/* One level of the multigrid setup on the device (backend.h,
 * amg_tentative, amg_products), every array in device memory and every
 * block through the context's counting allocator: the tentative
 * prolongator by kernels over rows and a scan; P = (I - omega D^-1 A) T
 * in one pass where T has one entry a row (cuda_prolong.cu), else S =
 * I - omega D^-1 A by a kernel over rows and P = S T; AP = A P and Ac =
 * R AP by the backend's hash SpGEMM and R = P' by its transpose
 * (cuda_spgemm.cu) or, with KRYL_AMG_SPGEMM=cusparse, by cuSPARSE's SpGEMM
 * and CSR-to-CSC conversion (whose first call in a process loads
 * cuSPARSE's kernels: about 40 ms of a 7-point 160^3 setup,
 * docs/BENCHMARKS.md), with 32-bit offsets (what cuSPARSE's SpGEMM
 * takes), widened to 64 bits for the level matrices.
 * Nothing comes back to the host but sizes. */
#include <cub/cub.cuh>
#include <cusparse.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_spgemm.cuh"
#include "core/csr.h"

static kryl_status cusparse_failed(cusparseStatus_t st, const char *call, const char *where)
{
    return kryl_error_set(KRYL_ERR_DEVICE, where, "cuda: %s failed: %s", call,
                          cusparseGetErrorString(st));
}

/* Check a cuSPARSE call: on failure set st (once) and skip the rest. */
#define CUSPARSE_STEP(st, call)                                                                    \
    KRYL_LIBRARY_STEP(st, cusparseStatus_t, CUSPARSE_STATUS_SUCCESS, cusparse_failed, call)

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

/* Row by row: s_ij = delta_ij - omega a_ij / a_ii;  a row without a
 * nonzero a_ii lowers *zero_row to its index (and its s_ij are 0).
 * KRYL_CUDA_ROW_LANES lanes a row, over its entries. */
__global__ void smoother_matrix(int64_t rows, const int32_t *__restrict__ offsets,
                                const int32_t *__restrict__ col_idx, const double *__restrict__ a,
                                double omega, double *__restrict__ s_values,
                                unsigned long long *__restrict__ zero_row)
{
    const int lane = kryl_cuda_row_lane();
    KRYL_CUDA_FOR_EACH_ROW(i, rows)
    {
        const int32_t begin = offsets[i], end = offsets[i + 1];
        const double diag = kryl_cuda_row_diagonal(i, begin, end, col_idx, a);
        if (lane == 0 && diag == 0.0) atomicMin(zero_row, (unsigned long long)i);
        const double scale = diag != 0.0 ? omega / diag : 0.0;
        for (int32_t k = begin + lane; k < end; k += KRYL_CUDA_ROW_LANES)
            s_values[k] = diag != 0.0 ? (col_idx[k] == i ? 1.0 : 0.0) - scale * a[k] : 0.0;
    }
}

/* Each row's entries by ascending column (insertion sort: rows are short,
 * and already sorted ones cost one pass). */
__global__ void sort_rows(int64_t rows, const int32_t *__restrict__ offsets,
                          int32_t *__restrict__ col_idx, double *__restrict__ values)
{
    KRYL_CUDA_FOR_EACH(i, rows)
    {
        for (int32_t k = offsets[i] + 1; k < offsets[i + 1]; k++) {
            const int32_t c = col_idx[k];
            const double v = values[k];
            int32_t j = k - 1;
            for (; j >= offsets[i] && col_idx[j] > c; j--) {
                col_idx[j + 1] = col_idx[j];
                values[j + 1] = values[j];
            }
            col_idx[j + 1] = c;
            values[j + 1] = v;
        }
    }
}

/* mirror_k = a_ji for A's entry k = a_ij (rows sorted), found by a
 * binary search of row j; *differs = 1 where a_ji is absent.
 * KRYL_CUDA_ROW_LANES lanes a row, over its entries. */
__global__ void mirror_values(int64_t rows, const int32_t *__restrict__ offsets,
                              const int32_t *__restrict__ col_idx, const double *__restrict__ a,
                              double *__restrict__ mirror, int *__restrict__ differs)
{
    const int lane = kryl_cuda_row_lane();
    KRYL_CUDA_FOR_EACH_ROW(i, rows)
    for (int32_t k = offsets[i] + lane; k < offsets[i + 1]; k += KRYL_CUDA_ROW_LANES) {
        const int32_t j = col_idx[k];
        const int64_t at = kryl_cuda_find_sorted(col_idx, offsets[j], offsets[j + 1], (int32_t)i);
        if (at >= 0)
            mirror[k] = a[at];
        else
            *differs = 1;
    }
}

/* a = (a + b) / 2 entry by entry, unless *differs (a + b == b + a: symmetric to the bit). */
__global__ void average_values(int64_t nnz, double *__restrict__ a, const double *__restrict__ b,
                               const int *__restrict__ differs)
{
    if (*differs) return;
    KRYL_CUDA_FOR_EACH(k, nnz) a[k] = 0.5 * (a[k] + b[k]);
}

/* len[i] = the length of row perm[i] of P. */
__global__ void permuted_lengths(int64_t rows, const int32_t *__restrict__ offsets,
                                 const int32_t *__restrict__ perm, int32_t *__restrict__ len)
{
    KRYL_CUDA_FOR_EACH(i, rows) len[i] = offsets[perm[i] + 1] - offsets[perm[i]];
}

/* Q's row i = P's row perm[i]. */
__global__ void permuted_rows(int64_t rows, const int32_t *__restrict__ p_offsets,
                              const int32_t *__restrict__ p_col, const double *__restrict__ p_val,
                              const int32_t *__restrict__ perm,
                              const int32_t *__restrict__ q_offsets, int32_t *__restrict__ q_col,
                              double *__restrict__ q_val)
{
    KRYL_CUDA_FOR_EACH(i, rows)
    {
        const int32_t from = p_offsets[perm[i]], len = p_offsets[perm[i] + 1] - from;
        for (int32_t k = 0; k < len; k++) {
            q_col[q_offsets[i] + k] = p_col[from + k];
            q_val[q_offsets[i] + k] = p_val[from + k];
        }
    }
}

/* Each row of aggregate j >= 0 has one entry;  wc_j += w_i (exact: whole numbers). */
__global__ void tentative_count(int64_t n, const int32_t *__restrict__ aggregate,
                                const double *__restrict__ w, double *__restrict__ wc,
                                int64_t *__restrict__ len)
{
    KRYL_CUDA_FOR_EACH(i, n)
    {
        const int32_t a = aggregate[i];
        len[i] = a >= 0;
        if (a >= 0) atomicAdd(&wc[a], w ? w[i] : 1.0);
    }
}

/* t_ij = sqrt(w_i / wc_j) for row i of aggregate j. */
__global__ void tentative_fill(int64_t n, const int32_t *__restrict__ aggregate,
                               const double *__restrict__ w, const double *__restrict__ wc,
                               const int64_t *__restrict__ row_ptr, int32_t *__restrict__ col_idx,
                               double *__restrict__ values)
{
    KRYL_CUDA_FOR_EACH(i, n)
    {
        const int32_t a = aggregate[i];
        if (a < 0) continue;
        col_idx[row_ptr[i]] = a;
        values[row_ptr[i]] = sqrt((w ? w[i] : 1.0) / wc[a]);
    }
}

/* D's 32-bit offsets (allocated) over M's columns and values (borrowed). */
static kryl_status narrow_view(kryl_cuda_state *s, const kryl_backend_csr *M, dev_csr *D,
                               const char *what)
{
    D->rows = M->nrows;
    D->cols = M->ncols;
    D->nnz = M->nnz;
    D->col_idx = M->col_idx;
    D->values = M->values;
    kryl_status st =
        kryl_cuda_malloc(s, (void **)&D->offsets, ((size_t)D->rows + 1) * sizeof(int32_t), what);
    if (st == KRYL_SUCCESS) {
        /* offsets below 2^31: the caller checked the entry count */
        offsets_narrow<<<kryl_cuda_stream_grid(s, D->rows + 1), KRYL_CUDA_THREADS, 0, s->stream>>>(
            M->row_ptr, D->offsets, D->rows + 1);
        CUDA_STEP(st, cudaGetLastError());
    }
    return st;
}

/* M = D with 64-bit offsets; D's columns and values move over, D is emptied. */
static kryl_status widen_into(kryl_cuda_state *s, dev_csr *D, kryl_backend_csr *M, const char *what)
{
    kryl_status st =
        kryl_cuda_malloc(s, (void **)&M->row_ptr, ((size_t)D->rows + 1) * sizeof(int64_t), what);
    if (st == KRYL_SUCCESS) {
        offsets_widen<<<kryl_cuda_stream_grid(s, D->rows + 1), KRYL_CUDA_THREADS, 0, s->stream>>>(
            D->offsets, M->row_ptr, D->rows + 1);
        CUDA_STEP(st, cudaGetLastError());
    }
    if (st != KRYL_SUCCESS) {
        kryl_cuda_free(s, M->row_ptr);
        M->row_ptr = nullptr;
        return st;
    }
    M->nrows = D->rows;
    M->ncols = D->cols;
    M->nnz = D->nnz;
    M->col_idx = D->col_idx;
    M->values = D->values;
    D->col_idx = nullptr;
    D->values = nullptr;
    kryl_cuda_dev_csr_free(s, D);
    return KRYL_SUCCESS;
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
    if (st != KRYL_SUCCESS) kryl_cuda_dev_csr_free(s, C);
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
    if (st != KRYL_SUCCESS) kryl_cuda_dev_csr_free(s, R);
    return st;
}

/* R = P' by the backend's transpose (cuda_spgemm.cu) without a cuSPARSE
 * handle (the hash SpGEMM's products), else by cuSPARSE's. */
static kryl_status transpose_by(kryl_cuda_state *s, cusparseHandle_t handle, const dev_csr *P,
                                dev_csr *R, const char *what)
{
    return handle == nullptr ? kryl_cuda_transpose(s, P, R, what)
                             : transpose(s, handle, P, R, what);
}

kryl_status kryl_cuda_zero_diagonal(unsigned long long row)
{
    return KRYL_ERROR(KRYL_ERR_ZERO_DIAGONAL,
                      "amg: a_ii of row %llu of a level is zero; smoothed aggregation divides by "
                      "the diagonal (try --amg-aggregation plain)",
                      row);
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
        smoother_matrix<<<kryl_cuda_stream_grid(s, A->rows * KRYL_CUDA_ROW_LANES),
                          KRYL_CUDA_THREADS, 0, s->stream>>>(A->rows, A->offsets, A->col_idx,
                                                             A->values, omega, S->values, zero_row);
        CUDA_STEP(st, cudaGetLastError());
    }
    CUDA_STEP(st,
              cudaMemcpyAsync(&first, zero_row, sizeof first, cudaMemcpyDeviceToHost, s->stream));
    CUDA_STEP(st, cudaStreamSynchronize(s->stream));
    kryl_cuda_free(s, zero_row);
    if (st == KRYL_SUCCESS && first < none) st = kryl_cuda_zero_diagonal(first);
    if (st != KRYL_SUCCESS) {
        kryl_cuda_free(s, S->values);
        S->values = nullptr;
    }
    return st;
}

/* A's rows sorted by column (cuSPARSE's SpGEMM does not promise it). */
static kryl_status sort(kryl_cuda_state *s, dev_csr *A)
{
    sort_rows<<<kryl_cuda_stream_grid(s, A->rows), KRYL_CUDA_THREADS, 0, s->stream>>>(
        A->rows, A->offsets, A->col_idx, A->values);
    KRYL_CUDA_CHECK_LAUNCH("sort_rows");
    return KRYL_SUCCESS;
}

/* Ac = (Ac + Ac') / 2 where Ac' has Ac's pattern (decided on the device;
 * Ac's rows sorted). */
static kryl_status symmetrize(kryl_cuda_state *s, dev_csr *Ac)
{
    double *mirror = nullptr;
    int *differs = nullptr;
    const char *what = "the symmetric part of the multigrid coarse matrix";
    kryl_status st = kryl_cuda_malloc(s, (void **)&mirror, (size_t)Ac->nnz * sizeof *mirror, what);
    KRYL_STEP(st, kryl_cuda_malloc(s, (void **)&differs, sizeof *differs, what));
    CUDA_STEP(st, cudaMemsetAsync(differs, 0, sizeof *differs, s->stream));
    if (st == KRYL_SUCCESS) {
        /* mirror_k = a_ji for a_ij;  a_ij = (a_ij + a_ji) / 2 unless a pattern's entry has no
         * mirror */
        mirror_values<<<kryl_cuda_stream_grid(s, KRYL_CUDA_ROW_LANES * Ac->rows), KRYL_CUDA_THREADS,
                        0, s->stream>>>(Ac->rows, Ac->offsets, Ac->col_idx, Ac->values, mirror,
                                        differs);
        average_values<<<kryl_cuda_stream_grid(s, Ac->nnz), KRYL_CUDA_THREADS, 0, s->stream>>>(
            Ac->nnz, Ac->values, mirror, differs);
        CUDA_STEP(st, cudaGetLastError());
    }
    CUDA_STEP(st, cudaStreamSynchronize(s->stream));
    kryl_cuda_free(s, differs);
    kryl_cuda_free(s, mirror);
    return st;
}

/* Q = P with its rows in the order perm (Q's row i is P's row perm[i]). */
static kryl_status permute(kryl_cuda_state *s, const dev_csr *P, const int32_t *perm, dev_csr *Q)
{
    const char *what = "the multigrid prolongator in the matrix's order";
    int32_t *len = nullptr;
    const unsigned int grid = kryl_cuda_stream_grid(s, P->rows);
    *Q = *P;
    Q->offsets = nullptr;
    Q->col_idx = nullptr;
    Q->values = nullptr;
    kryl_status st = kryl_cuda_malloc(s, (void **)&len, (size_t)P->rows * sizeof *len, what);
    KRYL_STEP(st, kryl_cuda_malloc(s, (void **)&Q->offsets, ((size_t)P->rows + 1) * sizeof(int32_t),
                                   what));
    KRYL_STEP(st,
              kryl_cuda_malloc(s, (void **)&Q->col_idx, (size_t)P->nnz * sizeof(int32_t), what));
    KRYL_STEP(st, kryl_cuda_malloc(s, (void **)&Q->values, (size_t)P->nnz * sizeof(double), what));
    if (st == KRYL_SUCCESS) {
        permuted_lengths<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(P->rows, P->offsets, perm, len);
        CUDA_STEP(st, cudaGetLastError());
    }
    KRYL_STEP(st, kryl_cuda_running_sums(s, len, Q->offsets, P->rows));
    if (st == KRYL_SUCCESS) {
        permuted_rows<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(
            P->rows, P->offsets, P->col_idx, P->values, perm, Q->offsets, Q->col_idx, Q->values);
        CUDA_STEP(st, cudaGetLastError());
    }
    CUDA_STEP(st, cudaStreamSynchronize(s->stream));
    kryl_cuda_free(s, len);
    if (st != KRYL_SUCCESS) kryl_cuda_dev_csr_free(s, Q);
    return st;
}

/* A copy of T (plain aggregation: P = T, and T stays the caller's). */
static kryl_status copy(kryl_cuda_state *s, const dev_csr *T, dev_csr *P)
{
    const char *what = "the multigrid prolongator P";
    *P = *T;
    P->offsets = nullptr;
    P->col_idx = nullptr;
    P->values = nullptr;
    kryl_status st =
        kryl_cuda_malloc(s, (void **)&P->offsets, ((size_t)T->rows + 1) * sizeof(int32_t), what);
    KRYL_STEP(st,
              kryl_cuda_malloc(s, (void **)&P->col_idx, (size_t)T->nnz * sizeof(int32_t), what));
    KRYL_STEP(st, kryl_cuda_malloc(s, (void **)&P->values, (size_t)T->nnz * sizeof(double), what));
    CUDA_STEP(st, cudaMemcpyAsync(P->offsets, T->offsets, ((size_t)T->rows + 1) * sizeof(int32_t),
                                  cudaMemcpyDeviceToDevice, s->stream));
    CUDA_STEP(st, cudaMemcpyAsync(P->col_idx, T->col_idx, (size_t)T->nnz * sizeof(int32_t),
                                  cudaMemcpyDeviceToDevice, s->stream));
    CUDA_STEP(st, cudaMemcpyAsync(P->values, T->values, (size_t)T->nnz * sizeof(double),
                                  cudaMemcpyDeviceToDevice, s->stream));
    if (st != KRYL_SUCCESS) kryl_cuda_dev_csr_free(s, P);
    return st;
}

/* C = A B: by the backend's hash SpGEMM (cuda_spgemm.cu: rows sorted)
 * without a cuSPARSE handle, else by cuSPARSE's, then with its rows
 * sorted where `sorted` asks for it. */
static kryl_status multiply(kryl_cuda_state *s, cusparseHandle_t handle, const dev_csr *A,
                            const dev_csr *B, dev_csr *C, bool sorted, const char *what)
{
    if (handle == nullptr) return kryl_cuda_spgemm_hash(s, A, B, C, what);
    KRYL_TRY(spgemm(s, handle, A, B, C, what));
    return sorted ? sort(s, C) : KRYL_SUCCESS;
}

/* Whether KRYL_AMG_SPGEMM leaves the products to the hash SpGEMM ("hash",
 * the default: unset or empty) rather than to cuSPARSE's ("cusparse"). */
static kryl_status hash_from_environment(bool *hash)
{
    const char *name = getenv("KRYL_AMG_SPGEMM");
    *hash = name == nullptr || name[0] == '\0' || strcmp(name, "hash") == 0;
    if (*hash || strcmp(name, "cusparse") == 0) return KRYL_SUCCESS;
    return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                      "KRYL_AMG_SPGEMM=\"%s\": expected hash or cusparse", name);
}

/* P, R and Ac on the device (see amg_products), with 32-bit offsets: by
 * cuSPARSE with a handle, else by the backend's own products. */
static kryl_status products(kryl_cuda_state *s, cusparseHandle_t handle, const dev_csr *dA,
                            const dev_csr *dT, double omega, bool symmetric, const int32_t *perm,
                            dev_csr *dP, dev_csr *dR, dev_csr *dAc)
{
    dev_csr dS, dAP, dQ;
    kryl_status st = KRYL_SUCCESS;
    bool fused = false;
    /* P = (I - omega D^-1 A) T in one pass where T has one entry a row (the hash products') */
    if (omega != 0.0 && handle == nullptr)
        st = kryl_cuda_smoothed_prolongator(s, dA, dT, omega, dP, &fused);
    if (omega != 0.0 && !fused) {
        /* P = (I - omega D^-1 A) T;  S borrows A's offsets and columns */
        KRYL_STEP(st, smoother(s, dA, omega, &dS));
        KRYL_STEP(st, multiply(s, handle, &dS, dT, dP, true, "the multigrid prolongator P"));
        kryl_cuda_free(s, dS.values);
    } else if (omega == 0.0) {
        /* plain aggregation: P = T */
        st = copy(s, dT, dP);
    }
    /* R = P';  AP = A P;  Ac = R AP */
    KRYL_STEP(st, transpose_by(s, handle, dP, dR, "the multigrid restriction R"));
    KRYL_STEP(st, multiply(s, handle, dA, dP, &dAP, false, "the multigrid product A P"));
    KRYL_STEP(st, multiply(s, handle, dR, &dAP, dAc, true, "the multigrid coarse matrix R A P"));
    kryl_cuda_dev_csr_free(s, &dAP);
    if (symmetric) KRYL_STEP(st, symmetrize(s, dAc));
    if (perm != nullptr && st == KRYL_SUCCESS) {
        /* level 0 in a sorted format's order: P's rows and R's columns follow it */
        st = permute(s, dP, perm, &dQ);
        if (st == KRYL_SUCCESS) {
            kryl_cuda_dev_csr_free(s, dP);
            kryl_cuda_dev_csr_free(s, dR);
            *dP = dQ;
            st = transpose_by(s, handle, dP, dR, "the multigrid restriction R");
        }
    }
    return st;
}

kryl_status kryl_cuda_amg_products(kryl_context ctx, const kryl_backend_csr *A,
                                   const kryl_backend_csr *T, double omega, bool symmetric,
                                   const int32_t *perm, kryl_backend_csr *P, kryl_backend_csr *R,
                                   kryl_backend_csr *Ac, bool *done)
{
    *done = false;
    /* the products take 32-bit offsets: a level whose A or T has 2^28
     * entries or more (P, AP and Ac are a few times larger) goes to the host */
    const int64_t most = (int64_t)1 << 28;
    if (A->nnz >= most || T->nnz >= most || T->ncols >= most) return KRYL_SUCCESS;
    bool hash = false;
    KRYL_TRY(hash_from_environment(&hash));
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    cusparseHandle_t handle = nullptr;
    kryl_status st = KRYL_SUCCESS;
    /* the hash SpGEMM's products take no cuSPARSE */
    if (!hash) CUSPARSE_STEP(st, cusparseCreate(&handle));
    if (!hash) CUSPARSE_STEP(st, cusparseSetStream(handle, s->stream));
    dev_csr dA, dT, dP, dR, dAc;
    KRYL_STEP(st, narrow_view(s, A, &dA, "a multigrid level's row offsets"));
    KRYL_STEP(st, narrow_view(s, T, &dT, "the multigrid tentative prolongator's row offsets"));
    KRYL_STEP(st, products(s, handle, &dA, &dT, omega, symmetric, perm, &dP, &dR, &dAc));
    /* the views own only their offsets */
    kryl_cuda_free(s, dA.offsets);
    kryl_cuda_free(s, dT.offsets);
    KRYL_STEP(st, widen_into(s, &dP, P, "the multigrid prolongator P"));
    KRYL_STEP(st, widen_into(s, &dR, R, "the multigrid restriction R"));
    KRYL_STEP(st, widen_into(s, &dAc, Ac, "the multigrid coarse matrix R A P"));
    CUDA_STEP(st, cudaStreamSynchronize(s->stream));
    kryl_cuda_dev_csr_free(s, &dP);
    kryl_cuda_dev_csr_free(s, &dR);
    kryl_cuda_dev_csr_free(s, &dAc);
    if (handle) cusparseDestroy(handle);
    if (st != KRYL_SUCCESS) {
        kryl_backend_csr *out[] = {P, R, Ac};
        for (kryl_backend_csr *M : out) {
            kryl_cuda_free(s, M->row_ptr);
            kryl_cuda_free(s, M->col_idx);
            kryl_cuda_free(s, M->values);
            *M = kryl_backend_csr{};
        }
    }
    *done = st == KRYL_SUCCESS;
    return st;
}

kryl_status kryl_cuda_amg_tentative(kryl_context ctx, int64_t n, const int32_t *aggregate,
                                    int64_t naggregates, const double *w, double *wc,
                                    kryl_backend_csr *T)
{
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    const char *what = "the multigrid tentative prolongator";
    *T = kryl_backend_csr{};
    T->nrows = n;
    T->ncols = naggregates;
    int64_t *len = nullptr;
    const unsigned int grid = kryl_cuda_stream_grid(s, n);
    kryl_status st = kryl_cuda_malloc(s, (void **)&len, ((size_t)n + 1) * sizeof *len, what);
    KRYL_STEP(
        st, kryl_cuda_malloc(s, (void **)&T->row_ptr, ((size_t)n + 1) * sizeof *T->row_ptr, what));
    CUDA_STEP(st, cudaMemsetAsync(wc, 0, (size_t)naggregates * sizeof *wc, s->stream));
    if (st == KRYL_SUCCESS) {
        /* one entry in each row of an aggregate;  wc_j = the sum of w_i over aggregate j */
        tentative_count<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(n, aggregate, w, wc, len);
        CUDA_STEP(st, cudaGetLastError());
    }
    KRYL_STEP(st, kryl_cuda_running_sums(s, len, T->row_ptr, n));
    CUDA_STEP(st, cudaMemcpyAsync(&T->nnz, T->row_ptr + n, sizeof T->nnz, cudaMemcpyDeviceToHost,
                                  s->stream));
    CUDA_STEP(st, cudaStreamSynchronize(s->stream));
    KRYL_STEP(st,
              kryl_cuda_malloc(s, (void **)&T->col_idx, (size_t)T->nnz * sizeof *T->col_idx, what));
    KRYL_STEP(st,
              kryl_cuda_malloc(s, (void **)&T->values, (size_t)T->nnz * sizeof *T->values, what));
    if (st == KRYL_SUCCESS) {
        /* t_ij = sqrt(w_i / wc_j) */
        tentative_fill<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(n, aggregate, w, wc, T->row_ptr,
                                                                  T->col_idx, T->values);
        CUDA_STEP(st, cudaGetLastError());
    }
    CUDA_STEP(st, cudaStreamSynchronize(s->stream));
    kryl_cuda_free(s, len);
    if (st != KRYL_SUCCESS) {
        kryl_cuda_free(s, T->row_ptr);
        kryl_cuda_free(s, T->col_idx);
        kryl_cuda_free(s, T->values);
        *T = kryl_backend_csr{};
    }
    return st;
}
