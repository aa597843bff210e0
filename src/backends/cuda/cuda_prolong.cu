/* The smoothed prolongator P = (I - omega D^-1 A) T of smoothed
 * aggregation on the device where T has at most one entry a row (the
 * constant near-nullspace): p_iJ = sum over row i's entries a_ij with j in
 * aggregate J of s_ij t_j, s_ij = delta_ij - omega a_ij / a_ii.  Without
 * the product's hash tables and bins: T is read as two tables over A's
 * columns (each one's aggregate and t_j), then KRYL_CUDA_ROW_LANES lanes a
 * row compare each entry's aggregate with those before it in the row
 * (shuffles, chunk by chunk), which marks the first entry of each
 * aggregate; a count pass, a scan, then a fill pass in which each first
 * entry sums its aggregate's products in the row's order (the order of
 * the hash SpGEMM: the same P to the bit) and writes them at its rank
 * among the row's aggregates.  Rows longer than PROLONG_MOST entries take
 * the general products instead (the comparisons grow with the square of a
 * row's length). */
#include "backends/cuda/cuda_reduce.cuh"
#include "backends/cuda/cuda_spgemm.cuh"

/* The longest row of A taken here. */
constexpr int32_t PROLONG_MOST = 256;

/* An entry of a row past its end, or whose column has no aggregate. */
constexpr int32_t NO_AGGREGATE = -1;

/* The aggregate of entry k of a row ending at `end` (NO_AGGREGATE past it). */
__device__ __forceinline__ int32_t entry_aggregate(int32_t k, int32_t end,
                                                   const int32_t *__restrict__ a_col,
                                                   const int32_t *__restrict__ agg)
{
    return k < end ? agg[a_col[k]] : NO_AGGREGATE;
}

/* Whether this lane's entry (aggregate `mine`, chunk c of the row from
 * `begin`) is the first of its aggregate in the row. */
__device__ __forceinline__ bool first_of_aggregate(int32_t mine, int32_t c, int32_t begin,
                                                   int32_t end, int lane, unsigned int mask,
                                                   const int32_t *__restrict__ a_col,
                                                   const int32_t *__restrict__ agg)
{
    bool first = mine != NO_AGGREGATE;
    for (int32_t c0 = 0; c0 <= c; c0++) {
        const int32_t other =
            entry_aggregate(begin + c0 * KRYL_CUDA_ROW_LANES + lane, end, a_col, agg);
        const int before = c0 < c ? KRYL_CUDA_ROW_LANES : lane;
        for (int m = 0; m < KRYL_CUDA_ROW_LANES; m++) {
            const int32_t o = __shfl_sync(mask, other, m, KRYL_CUDA_ROW_LANES);
            if (m < before && o == mine) first = false;
        }
    }
    return first;
}

/* agg[j] = row j of T's column (NO_AGGREGATE where empty), t[j] = its
 * value;  longest[0] = max_i |row i of A|, longest[1] = max_j |row j of T|
 * (a block tree, then one atomic a block). */
__global__ void prolong_tables(int64_t rows, const int32_t *__restrict__ a_off,
                               const int32_t *__restrict__ t_off, const int32_t *__restrict__ t_col,
                               const double *__restrict__ t_val, int32_t *__restrict__ agg,
                               double *__restrict__ t, unsigned long long *__restrict__ longest)
{
    unsigned long long most[2] = {0, 0};
    KRYL_CUDA_FOR_EACH(j, rows)
    {
        const int32_t a_len = a_off[j + 1] - a_off[j], t_len = t_off[j + 1] - t_off[j];
        most[0] = most[0] > (unsigned long long)a_len ? most[0] : (unsigned long long)a_len;
        most[1] = most[1] > (unsigned long long)t_len ? most[1] : (unsigned long long)t_len;
        agg[j] = t_len > 0 ? t_col[t_off[j]] : NO_AGGREGATE;
        t[j] = t_len > 0 ? t_val[t_off[j]] : 0.0;
    }
    kryl_block_reduce<2>(most, 0ull, kryl_max_op{});
    if (threadIdx.x == 0) {
        atomicMax(&longest[0], most[0]);
        atomicMax(&longest[1], most[1]);
    }
}

/* len[i] = the aggregates among row i's columns; first[k] = whether entry
 * k is the first of its aggregate; a row without a nonzero a_ii lowers
 * *zero_row to its index. */
__global__ void prolong_count(int64_t rows, const int32_t *__restrict__ a_off,
                              const int32_t *__restrict__ a_col, const double *__restrict__ a,
                              const int32_t *__restrict__ agg, int32_t *__restrict__ len,
                              uint8_t *__restrict__ first,
                              unsigned long long *__restrict__ zero_row)
{
    const int lane = kryl_cuda_row_lane();
    const unsigned int mask = kryl_cuda_row_mask();
    KRYL_CUDA_FOR_EACH_ROW(i, rows)
    {
        const int32_t begin = a_off[i], end = a_off[i + 1];
        const double diag = kryl_cuda_row_diagonal(i, begin, end, a_col, a);
        if (lane == 0 && diag == 0.0) atomicMin(zero_row, (unsigned long long)i);
        int32_t count = 0;
        for (int32_t c = 0; begin + c * KRYL_CUDA_ROW_LANES < end; c++) {
            const int32_t k = begin + c * KRYL_CUDA_ROW_LANES + lane;
            const int32_t mine = entry_aggregate(k, end, a_col, agg);
            const bool is_first = first_of_aggregate(mine, c, begin, end, lane, mask, a_col, agg);
            if (k < end) first[k] = is_first;
            count += __popc(__ballot_sync(mask, is_first));
        }
        if (lane == 0) len[i] = count;
    }
}

/* P's row i: each first entry of an aggregate J writes p_iJ = the sum of
 * s_ij t_j over row i's entries of J, in the row's order, at its rank by
 * J among the row's aggregates. */
__global__ void prolong_fill(int64_t rows, const int32_t *__restrict__ a_off,
                             const int32_t *__restrict__ a_col, const double *__restrict__ a,
                             const int32_t *__restrict__ agg, const double *__restrict__ t,
                             const uint8_t *__restrict__ first, double omega,
                             const int32_t *__restrict__ p_off, int32_t *__restrict__ p_col,
                             double *__restrict__ p_val)
{
    const int lane = kryl_cuda_row_lane();
    const unsigned int mask = kryl_cuda_row_mask();
    KRYL_CUDA_FOR_EACH_ROW(i, rows)
    {
        const int32_t begin = a_off[i], end = a_off[i + 1];
        const double diag = kryl_cuda_row_diagonal(i, begin, end, a_col, a);
        const double scale = diag != 0.0 ? omega / diag : 0.0;
        for (int32_t c = 0; begin + c * KRYL_CUDA_ROW_LANES < end; c++) {
            const int32_t k = begin + c * KRYL_CUDA_ROW_LANES + lane;
            const int32_t mine = entry_aggregate(k, end, a_col, agg);
            const bool writes = k < end && first[k];
            int32_t rank = 0;
            double sum = 0.0;
            for (int32_t c0 = 0; begin + c0 * KRYL_CUDA_ROW_LANES < end; c0++) {
                const int32_t k0 = begin + c0 * KRYL_CUDA_ROW_LANES + lane;
                const int32_t other = entry_aggregate(k0, end, a_col, agg);
                const bool other_first = k0 < end && first[k0];
                /* s_ij t_j, as the smoother's matrix times T would give it */
                const double s =
                    other == NO_AGGREGATE ? 0.0 : (a_col[k0] == i ? 1.0 : 0.0) - scale * a[k0];
                const double st = other == NO_AGGREGATE ? 0.0 : s * t[a_col[k0]];
                for (int m = 0; m < KRYL_CUDA_ROW_LANES; m++) {
                    const int32_t o = __shfl_sync(mask, other, m, KRYL_CUDA_ROW_LANES);
                    const bool of = __shfl_sync(mask, other_first, m, KRYL_CUDA_ROW_LANES);
                    const double v = __shfl_sync(mask, st, m, KRYL_CUDA_ROW_LANES);
                    rank += of && o < mine;
                    /* the entries of J from the first on, in order: the first starts the sum */
                    if (o == mine && (c0 > c || (c0 == c && m >= lane)))
                        sum = c0 == c && m == lane ? v : sum + v;
                }
            }
            if (writes) {
                p_col[p_off[i] + rank] = mine;
                p_val[p_off[i] + rank] = diag != 0.0 ? sum : 0.0;
            }
        }
    }
}

/* P from the tables of T's rows (agg, t; found + 2 holds A's rows):
 * its pattern counted and summed, then filled.  Synchronises. */
static kryl_status build_prolongator(kryl_cuda_state *s, const dev_csr *A, const dev_csr *T,
                                     double omega, const int32_t *agg, const double *t,
                                     unsigned long long *found, dev_csr *P, const char *what)
{
    const unsigned int grid = kryl_cuda_stream_grid(s, A->rows * KRYL_CUDA_ROW_LANES);
    const unsigned long long none = (unsigned long long)A->rows;
    unsigned long long zero_row = none;
    int32_t *len = nullptr, nnz = 0;
    uint8_t *first = nullptr;
    P->rows = A->rows;
    P->cols = T->cols;
    kryl_status st = kryl_cuda_malloc(s, (void **)&len, (size_t)A->rows * sizeof *len + 1, what);
    KRYL_STEP(st, kryl_cuda_malloc(s, (void **)&first, (size_t)A->nnz + 1, what));
    KRYL_STEP(st, kryl_cuda_malloc(s, (void **)&P->offsets, ((size_t)A->rows + 1) * sizeof(int32_t),
                                   what));
    if (st == KRYL_SUCCESS) {
        /* len_i = |{agg_j : a_ij stored}|, first_k = entry k opens its aggregate */
        prolong_count<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(
            A->rows, A->offsets, A->col_idx, A->values, agg, len, first, found + 2);
        CUDA_STEP(st, cudaGetLastError());
    }
    KRYL_STEP(st, kryl_cuda_running_sums(s, len, P->offsets, A->rows));
    CUDA_STEP(st, cudaMemcpyAsync(&nnz, P->offsets + A->rows, sizeof nnz, cudaMemcpyDeviceToHost,
                                  s->stream));
    CUDA_STEP(st, cudaMemcpyAsync(&zero_row, found + 2, sizeof zero_row, cudaMemcpyDeviceToHost,
                                  s->stream));
    CUDA_STEP(st, cudaStreamSynchronize(s->stream));
    if (st == KRYL_SUCCESS && zero_row < none) st = kryl_cuda_zero_diagonal(zero_row);
    P->nnz = nnz;
    KRYL_STEP(st, kryl_cuda_malloc(s, (void **)&P->col_idx, (size_t)nnz * sizeof(int32_t), what));
    KRYL_STEP(st, kryl_cuda_malloc(s, (void **)&P->values, (size_t)nnz * sizeof(double), what));
    if (st == KRYL_SUCCESS) {
        /* p_iJ = sum_{j in J} (delta_ij - omega a_ij / a_ii) t_j */
        prolong_fill<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(A->rows, A->offsets, A->col_idx,
                                                                A->values, agg, t, first, omega,
                                                                P->offsets, P->col_idx, P->values);
        CUDA_STEP(st, cudaGetLastError());
    }
    /* the tables are free once the fill is over */
    CUDA_STEP(st, cudaStreamSynchronize(s->stream));
    kryl_cuda_free(s, len);
    kryl_cuda_free(s, first);
    return st;
}

kryl_status kryl_cuda_smoothed_prolongator(kryl_cuda_state *s, const dev_csr *A, const dev_csr *T,
                                           double omega, dev_csr *P, bool *applies)
{
    const char *what = "the multigrid prolongator P";
    *applies = false;
    *P = dev_csr{};
    int32_t *agg = nullptr;
    double *t = nullptr;
    unsigned long long *found = nullptr, longest[2] = {0, 0};
    const unsigned long long none = (unsigned long long)A->rows;
    kryl_status st = kryl_cuda_malloc(s, (void **)&found, 3 * sizeof *found, what);
    KRYL_STEP(st, kryl_cuda_malloc(s, (void **)&agg, (size_t)A->rows * sizeof *agg + 1, what));
    KRYL_STEP(st, kryl_cuda_malloc(s, (void **)&t, (size_t)A->rows * sizeof *t + 1, what));
    CUDA_STEP(st, cudaMemsetAsync(found, 0, 2 * sizeof *found, s->stream));
    CUDA_STEP(st,
              cudaMemcpyAsync(found + 2, &none, sizeof none, cudaMemcpyHostToDevice, s->stream));
    if (st == KRYL_SUCCESS) {
        /* agg_j, t_j = row j of T;  the longest rows of A and T (one pass for both: a level
         * declined costs a pass over its rows, a level taken no separate one) */
        prolong_tables<<<kryl_cuda_stream_grid(s, A->rows), KRYL_CUDA_THREADS, 0, s->stream>>>(
            A->rows, A->offsets, T->offsets, T->col_idx, T->values, agg, t, found);
        CUDA_STEP(st, cudaGetLastError());
    }
    CUDA_STEP(st,
              cudaMemcpyAsync(longest, found, sizeof longest, cudaMemcpyDeviceToHost, s->stream));
    CUDA_STEP(st, cudaStreamSynchronize(s->stream));
    if (st == KRYL_SUCCESS && longest[0] <= (unsigned long long)PROLONG_MOST && longest[1] <= 1) {
        *applies = true;
        st = build_prolongator(s, A, T, omega, agg, t, found, P, what);
    }
    kryl_cuda_free(s, found);
    kryl_cuda_free(s, agg);
    kryl_cuda_free(s, t);
    if (st != KRYL_SUCCESS) kryl_cuda_dev_csr_free(s, P);
    return st;
}
