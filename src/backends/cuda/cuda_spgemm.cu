/* C = A B on the device, row by row through a hash table of the row's
 * columns (Nagasaka, Nukada & Matsuoka, "High-performance and
 * memory-saving sparse general matrix-matrix multiplication for NVIDIA
 * Pascal GPU", ICPP 2017): each row's products counted against an upper
 * bound of its entries, the rows binned by it, a count pass (symbolic)
 * then a fill pass (numeric) per bin, binned again by the exact counts.
 * A group of lanes takes a row: its products a_ik b_kj, flattened over
 * the row's k, go to the lanes in batches; the table lives in shared
 * memory, or in global memory for rows longer than the largest shared
 * table holds.  In the fill pass the lanes of a batch that hit one column
 * (__match_any_sync) are summed by its first lane in lane order, batch
 * after batch: each c_ij is summed in the order of row i of A, with no
 * atomic on a value, so the result is the same on every run.  The row is
 * then compacted and ordered by column: each entry written at its rank,
 * or, for long rows, a bitonic sort in the table.  Rows of few products
 * and entries (a finest level's P = S T and A P on 5- and 7-point
 * stencils) take a thread each instead: a list searched linearly, summed
 * in the same order, written by rank.  Where B has few columns and A's
 * rows take many products (R (A P) of a coarse level), a block takes a
 * row instead: each warp sums a share of it into its own dense array of
 * B's columns, the arrays summed in warp order. */
#include <cub/cub.cuh>
#include <limits.h>

#include "backends/cuda/cuda_spgemm.cuh"

/* An empty slot of a table (columns are >= 0). */
constexpr int32_t HASH_EMPTY = -1;

/* The bins of rows in shared memory: at most `most` entries, a table of
 * `table` slots (at least twice the entries: probes stay short), `group`
 * lanes per row; the first, ROW_BIN, a thread per row and a list of
 * `most` entries (rows of at most ROW_PRODUCTS products); the last,
 * WIDE_BIN, a warp for a row of bin 1's or 2's entries whose products
 * would take its narrower group more than WIDE_BATCHES batches.  Longer
 * rows go to the global bin. */
struct hash_bin {
    int32_t most;
    int table, group;
};
constexpr int32_t HASH_MOST_0 = 16, HASH_MOST_1 = 32, HASH_MOST_2 = 128, HASH_MOST_3 = 1024,
                  HASH_MOST_4 = 2048;
constexpr int32_t ROW_MOST = 16, ROW_PRODUCTS = 64;
/* The count pass's lists (columns alone) hold twice as many. */
constexpr int32_t ROW_COUNT_MOST = 2 * ROW_MOST;
constexpr int HASH_GROUP_1 = 8, HASH_GROUP_2 = 16, WIDE_BATCHES = 8;
constexpr hash_bin HASH_BINS[] = {
    {ROW_MOST, 0, 1},       {HASH_MOST_0, 32, HASH_GROUP_1}, {HASH_MOST_1, 64, HASH_GROUP_2},
    {HASH_MOST_2, 256, 32}, {HASH_MOST_3, 2048, 32},         {HASH_MOST_4, 4096, 32},
    {HASH_MOST_1, 64, 32}};
constexpr int SHARED_BINS = sizeof HASH_BINS / sizeof HASH_BINS[0];
/* The count pass tries rows of a bound past bin 2's in bin 3's place with
 * a table of HASH_TRY_TABLE slots, given up past HASH_TRY_MOST entries
 * (the bound of R (A P) is many times its entries); those given up are
 * counted again, binned by their bound. */
constexpr int ROW_BIN = 0, TRY_BIN = 4, WIDE_BIN = 6, HASH_TRY_TABLE = 512, HASH_TRY_MOST = 256;
constexpr int GLOBAL_BIN = SHARED_BINS;
constexpr int ALL_BINS = SHARED_BINS + 1;
/* Shared memory a block of a shared bin takes (the default limit): more
 * warps while they fit, else one warp with the limit raised for it. */
constexpr int HASH_SHARED_BYTES = 48 * 1024;
/* Rows of at most RANK_MOST entries are written by rank, longer ones
 * sorted first (bitonic: fewer steps past that). */
constexpr int RANK_MOST = 128;
/* Warps of a block at most; threads of a block of ROW_BIN. */
constexpr int HASH_WARPS = 8, ROW_THREADS = 128;
/* The dense rows: B of at most DENSE_COLS columns, at least DENSE_PRODUCTS
 * products a row of A on average; DENSE_THREADS a block (a row). */
constexpr int64_t DENSE_COLS = 2048, DENSE_PRODUCTS = 1024;
constexpr int DENSE_THREADS = 256;
/* Global tables' bytes the global bin aims at (it takes one table at least). */
constexpr int64_t HASH_GLOBAL_BYTES = (int64_t)64 << 20;

/* Per bin: its rows, and the largest row of the global bin; the rows placed so far. */
struct hash_meta {
    unsigned int count[ALL_BINS];
    unsigned int cursor[ALL_BINS];
    int32_t largest;
    unsigned long long total; /* the sum of the sizes */
};

/* What a row's size is: an upper bound of its entries, minus that bound
 * where the try table gave the row up (the rows counted again), or its
 * entries. */
enum hash_sizing { SIZE_BOUND, SIZE_RETRY, SIZE_EXACT };

__device__ __forceinline__ int hash_bin_of(int32_t size, hash_sizing sizing, int64_t products)
{
    if (sizing == SIZE_RETRY) {
        if (size >= 0) return -1; /* counted already */
        size = -size;
    }
    /* an empty row: nothing to do */
    if (size == 0) return -1;
    if (size <= (sizing == SIZE_BOUND ? ROW_COUNT_MOST : ROW_MOST) && products <= ROW_PRODUCTS)
        return ROW_BIN;
    if (size <= HASH_MOST_1 && sizing == SIZE_EXACT) {
        /* a warp for a row of few entries but many products (7-point 160^3's setup: the
         * hash rows' kernels 13.3 -> 10.8 ms; docs/BENCHMARKS.md) */
        const int group = size <= HASH_MOST_0 ? HASH_GROUP_1 : HASH_GROUP_2;
        if (products > (int64_t)WIDE_BATCHES * group) return WIDE_BIN;
    }
    if (size <= HASH_MOST_2) return size <= HASH_MOST_0 ? 1 : size <= HASH_MOST_1 ? 2 : 3;
    if (sizing == SIZE_BOUND) return TRY_BIN;
    return size <= HASH_MOST_3 ? 4 : size <= HASH_MOST_4 ? 5 : GLOBAL_BIN;
}

/* The products a_ik b_kj of row i of A B. */
__device__ __forceinline__ int64_t row_products(int64_t i, const int32_t *__restrict__ a_off,
                                                const int32_t *__restrict__ a_col,
                                                const int32_t *__restrict__ b_off)
{
    int64_t n = 0;
    for (int32_t k = a_off[i]; k < a_off[i + 1]; k++) n += b_off[a_col[k] + 1] - b_off[a_col[k]];
    return n;
}

/* The entries of keys[0], keys[stride], ... (count of them, distinct)
 * below key: its place in the row written in column order. */
__device__ __forceinline__ int rank_among(const int32_t *keys, int stride, int count, int32_t key)
{
    int rank = 0;
    for (int f = 0; f < count; f++) rank += keys[f * stride] < key;
    return rank;
}

/* size_i = min(sum_k |row a_ik of B|, B's columns) (SIZE_BOUND), or the
 * given size_i; bin_i = its bin (-1: none); per block, the bins' counts,
 * the global bin's largest row and the total added into *meta. */
__global__ void hash_bin_sizes(int64_t rows, const int32_t *__restrict__ a_off,
                               const int32_t *__restrict__ a_col, const int32_t *__restrict__ b_off,
                               int64_t b_cols, hash_sizing sizing, int32_t *__restrict__ size,
                               int8_t *__restrict__ bin, hash_meta *__restrict__ meta)
{
    __shared__ unsigned int count[ALL_BINS];
    __shared__ unsigned long long total;
    if (threadIdx.x < ALL_BINS) count[threadIdx.x] = 0;
    if (threadIdx.x == 0) total = 0;
    __syncthreads();
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long row_total = 0;
    if (i < rows) {
        int64_t n = 0, products = INT64_MAX;
        if (sizing == SIZE_BOUND) {
            n = products = row_products(i, a_off, a_col, b_off);
            n = n < b_cols ? n : b_cols;
            size[i] = (int32_t)n;
        } else {
            n = size[i];
            /* the products, where few entries may take a thread or a warp */
            if (sizing == SIZE_EXACT && n <= HASH_MOST_1)
                products = row_products(i, a_off, a_col, b_off);
        }
        const int b = hash_bin_of((int32_t)n, sizing, products);
        bin[i] = (int8_t)b;
        n = n < 0 ? -n : n;
        if (b >= 0) atomicAdd(&count[b], 1u);
        if (b == GLOBAL_BIN) atomicMax(&meta->largest, (int32_t)n);
        row_total = (unsigned long long)n;
    }
    /* the warp's sum first: a 64-bit atomic add in shared memory is a loop of
     * compare-and-swaps, which a block's threads all contending for serialised */
    for (int offset = 16; offset > 0; offset /= 2)
        row_total += __shfl_down_sync(0xffffffffu, row_total, offset);
    if ((threadIdx.x & 31) == 0 && row_total > 0) atomicAdd(&total, row_total);
    __syncthreads();
    if (threadIdx.x < ALL_BINS && count[threadIdx.x] > 0)
        atomicAdd(&meta->count[threadIdx.x], count[threadIdx.x]);
    if (threadIdx.x == 0 && total > 0) atomicAdd(&meta->total, total);
}

/* list = the rows of bin 0, then of bin 1, ...; each block reserves its
 * places in every bin at once. */
__global__ void hash_bin_scatter(int64_t rows, const int8_t *__restrict__ bin,
                                 hash_meta *__restrict__ meta, int32_t *__restrict__ list)
{
    __shared__ unsigned int count[ALL_BINS], base[ALL_BINS];
    if (threadIdx.x < ALL_BINS) count[threadIdx.x] = 0;
    __syncthreads();
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int b = i < rows ? bin[i] : -1;
    const unsigned int at = b >= 0 ? atomicAdd(&count[b], 1u) : 0;
    __syncthreads();
    if (threadIdx.x < ALL_BINS) {
        unsigned int start = 0;
        for (int p = 0; p < (int)threadIdx.x; p++) start += meta->count[p];
        base[threadIdx.x] = count[threadIdx.x] > 0
                                ? start + atomicAdd(&meta->cursor[threadIdx.x], count[threadIdx.x])
                                : 0;
    }
    __syncthreads();
    if (b >= 0) list[base[b] + at] = (int32_t)i;
}

/* What a bin's pass reads and writes. */
struct hash_pass {
    const int32_t *a_off, *a_col;
    const double *a_val;
    const int32_t *b_off, *b_col;
    const double *b_val;
    const int32_t *rows; /* the bin's rows */
    int64_t count;       /* how many */
    int table;           /* slots of a table, a power of two, at least the group */
    int most;            /* count pass: entries past which a row is given up (0: none) */
    int32_t *keys;       /* the global bin's tables (groups x table), else NULL: shared */
    double *vals;
    int32_t *c_len;       /* symbolic: each row's entries */
    const int32_t *c_off; /* numeric: C's row offsets, columns and values */
    int32_t *c_col;
    double *c_val;
};

/* The slot of column col in the table (inserted where absent; *added counts it). */
__device__ __forceinline__ int hash_insert(int32_t *keys, int table, int32_t col, int *added)
{
    int slot = (int)(((uint32_t)col * 2654435761u) & (uint32_t)(table - 1));
    for (;;) {
        const int32_t old = atomicCAS(&keys[slot], HASH_EMPTY, col);
        if (old == HASH_EMPTY) {
            ++*added;
            return slot;
        }
        if (old == col) return slot;
        slot = (slot + 1) & (table - 1);
    }
}

/* One bin's pass, G lanes per row (a divisor of 32): NUMERIC false counts
 * each row's entries into c_len, true sums them and writes C's rows sorted.
 * Shared memory per group: numeric, table doubles, G doubles (a batch's
 * products), then every group's table of keys; symbolic, the keys alone
 * (the global bin: the G doubles alone). */
template <int G, bool NUMERIC> __global__ void hash_rows(hash_pass p)
{
    extern __shared__ double shared[];
    const int lane = (int)(threadIdx.x % 32), l = lane % G;
    const unsigned int gmask = G == 32 ? 0xffffffffu : ((1u << G) - 1u) << (lane - l);
    const unsigned int below = (1u << lane) - 1u; /* the lanes before this one */
    const int in_block = (int)(threadIdx.x / G), per_block = (int)(blockDim.x / G);
    const int64_t group = (int64_t)blockIdx.x * per_block + in_block;
    const int64_t groups = (int64_t)gridDim.x * per_block;
    const int T = p.table;
    int32_t *keys;
    double *vals = nullptr, *batch = nullptr;
    if (p.keys != nullptr) {
        keys = p.keys + group * T;
        if (NUMERIC) vals = p.vals + group * T;
        batch = shared + (int64_t)in_block * G;
    } else if (NUMERIC) {
        vals = shared + (int64_t)in_block * (T + G);
        batch = vals + T;
        keys = reinterpret_cast<int32_t *>(shared + (int64_t)per_block * (T + G)) +
               (int64_t)in_block * T;
    } else {
        keys = reinterpret_cast<int32_t *>(shared) + (int64_t)in_block * T;
    }
    for (int64_t r = group; r < p.count; r += groups) {
        const int32_t row = p.rows[r];
        for (int s = l; s < T; s += G) {
            keys[s] = HASH_EMPTY;
            if (NUMERIC) vals[s] = 0.0;
        }
        __syncwarp(gmask);
        int added = 0;
        /* count pass with a limit: the row's bound, and whether it is given up */
        const int32_t bound = !NUMERIC && p.most > 0 ? p.c_len[row] : 0;
        bool full = false;
        const int32_t a_end = p.a_off[row + 1];
        for (int32_t chunk = p.a_off[row]; chunk < a_end && !full; chunk += G) {
            /* lane l holds a_ik for k = chunk + l, and where row k of B starts and its length */
            const int32_t k = chunk + l;
            const bool valid = k < a_end;
            const int32_t a_col = valid ? p.a_col[k] : 0;
            const double a_val = NUMERIC && valid ? p.a_val[k] : 0.0;
            const int32_t b_start = valid ? p.b_off[a_col] : 0;
            const int32_t b_len = valid ? p.b_off[a_col + 1] - b_start : 0;
            /* ends = the inclusive running sums of the lengths: the chunk's products */
            int32_t ends = b_len;
            for (int d = 1; d < G; d <<= 1) {
                const int32_t t = __shfl_up_sync(gmask, ends, d, G);
                if (l >= d) ends += t;
            }
            const int32_t total = __shfl_sync(gmask, ends, G - 1, G);
            for (int32_t first = 0; first < total && !full; first += G) {
                /* product q = first + l belongs to the lane `owner` whose range holds it */
                const int32_t q = first + l;
                int owner = 0;
                for (int step = G / 2; step > 0; step >>= 1)
                    if (__shfl_sync(gmask, ends, owner + step - 1, G) <= q) owner += step;
                const int32_t before = __shfl_sync(gmask, ends - b_len, owner, G);
                const int32_t start = __shfl_sync(gmask, b_start, owner, G);
                const double a = NUMERIC ? __shfl_sync(gmask, a_val, owner, G) : 0.0;
                const bool active = q < total;
                int slot = -1;
                double v = 0.0;
                if (active) {
                    const int32_t at = start + (q - before);
                    slot = hash_insert(keys, T, p.b_col[at], &added);
                    if (NUMERIC) v = a * p.b_val[at];
                }
                if (NUMERIC) {
                    /* c_ij += a_ik b_kj: the batch's lanes of one column, in lane order */
                    batch[l] = v;
                    const unsigned int same = __match_any_sync(gmask, active ? slot : -1 - lane);
                    __syncwarp(gmask);
                    if (active && __ffs(same) - 1 == lane) {
                        double sum = vals[slot];
                        for (unsigned int m = same; m != 0; m &= m - 1)
                            sum += batch[__ffs(m) - 1 - (lane - l)];
                        vals[slot] = sum;
                    }
                    __syncwarp(gmask);
                }
                if (!NUMERIC && p.most > 0) {
                    /* the group's entries so far past the limit: given up (the table
                     * holds a batch more) */
                    int sum = added;
                    for (int d = G / 2; d > 0; d >>= 1) sum += __shfl_xor_sync(gmask, sum, d, G);
                    full = sum > p.most;
                }
            }
        }
        if (!NUMERIC) {
            for (int d = G / 2; d > 0; d >>= 1) added += __shfl_xor_sync(gmask, added, d, G);
            if (l == 0) p.c_len[row] = full ? -bound : added;
            __syncwarp(gmask);
            continue;
        }
        __syncwarp(gmask);
        /* the occupied slots to the front, in slot order (each moves down, never past
         * a slot not yet read) */
        int c = 0;
        for (int first = 0; first < T; first += G) {
            const int32_t key = keys[first + l];
            const double val = vals[first + l];
            const unsigned int occupied = __ballot_sync(gmask, key != HASH_EMPTY) & gmask;
            __syncwarp(gmask);
            if (key != HASH_EMPTY) {
                const int at = c + __popc(occupied & below);
                keys[at] = key;
                vals[at] = val;
            }
            c += __popc(occupied);
            __syncwarp(gmask);
        }
        const int32_t out = p.c_off[row];
        if (c <= RANK_MOST) {
            /* each entry straight to its rank by column */
            for (int i = l; i < c; i += G) {
                const int rank = rank_among(keys, 1, c, keys[i]);
                p.c_col[out + rank] = keys[i];
                p.c_val[out + rank] = vals[i];
            }
            __syncwarp(gmask);
            continue;
        }
        /* bitonic sort of the first n >= c slots by column, the rest padded past every column */
        int n = 1;
        while (n < c) n <<= 1;
        for (int s = c + l; s < n; s += G) keys[s] = INT_MAX;
        __syncwarp(gmask);
        for (int size = 2; size <= n; size <<= 1)
            for (int stride = size >> 1; stride > 0; stride >>= 1) {
                for (int i = l; i < n; i += G) {
                    const int j = i ^ stride;
                    if (j <= i) continue;
                    const int32_t ki = keys[i], kj = keys[j];
                    if ((ki > kj) == ((i & size) == 0)) {
                        keys[i] = kj;
                        keys[j] = ki;
                        const double t = vals[i];
                        vals[i] = vals[j];
                        vals[j] = t;
                    }
                }
                __syncwarp(gmask);
            }
        for (int i = l; i < c; i += G) {
            p.c_col[out + i] = keys[i];
            p.c_val[out + i] = vals[i];
        }
        __syncwarp(gmask);
    }
}

/* ROW_BIN's pass, a thread per row: its columns in a list of ROW_MOST
 * (ROW_COUNT_MOST when counting) in shared memory (entry e of thread t at
 * e * blockDim + t), each product summed into its column's entry in the
 * order of row i of A, rounded as hash_rows rounds it (no fused
 * multiply-add); NUMERIC false counts the entries into c_len, true writes
 * each entry at its rank by column. */
template <bool NUMERIC> __global__ void list_rows(hash_pass p)
{
    extern __shared__ double shared[];
    const int t = (int)threadIdx.x, B = (int)blockDim.x;
    double *vals = shared;
    int32_t *cols = reinterpret_cast<int32_t *>(shared + (NUMERIC ? ROW_MOST * B : 0));
    for (int64_t r = (int64_t)blockIdx.x * B + t; r < p.count; r += (int64_t)gridDim.x * B) {
        const int32_t row = p.rows[r];
        int c = 0;
        for (int32_t k = p.a_off[row]; k < p.a_off[row + 1]; k++) {
            const int32_t j = p.a_col[k];
            const double a = NUMERIC ? p.a_val[k] : 0.0;
            for (int32_t m = p.b_off[j]; m < p.b_off[j + 1]; m++) {
                const int32_t col = p.b_col[m];
                int e = 0;
                while (e < c && cols[e * B + t] != col) e++;
                if (e == c) {
                    cols[e * B + t] = col;
                    if (NUMERIC) vals[e * B + t] = 0.0;
                    c++;
                }
                /* c_ij += a_ik b_kj */
                if (NUMERIC) vals[e * B + t] = __dadd_rn(vals[e * B + t], __dmul_rn(a, p.b_val[m]));
            }
        }
        if (!NUMERIC) {
            p.c_len[row] = c;
            continue;
        }
        const int32_t out = p.c_off[row];
        for (int e = 0; e < c; e++) {
            const int rank = rank_among(cols + t, B, c, cols[e * B + t]);
            p.c_col[out + rank] = cols[e * B + t];
            p.c_val[out + rank] = vals[e * B + t];
        }
    }
}

/* The dense rows' pass, a block per row of A (all rows): warp w sums its
 * share of the row's a_ik (consecutive k) times row k of B over the lanes
 * into vals[w][j] (a row of B repeats no column: no two lanes meet; k by
 * k), every product's column flagged; then each thread takes a run of
 * consecutive columns, their places from a scan of the flags, the warps'
 * sums in warp order.  NUMERIC false counts the entries into c_len and
 * their total into meta->total. */
template <bool NUMERIC> __global__ void dense_rows(hash_pass p, int32_t cols, hash_meta *meta)
{
    extern __shared__ double shared[];
    using block_scan = cub::BlockScan<int, DENSE_THREADS>;
    __shared__ typename block_scan::TempStorage scan_temp;
    const int warps = DENSE_THREADS / 32, warp = (int)threadIdx.x / 32,
              lane = (int)threadIdx.x % 32;
    double *vals = shared;
    int32_t *flag = reinterpret_cast<int32_t *>(shared + (NUMERIC ? (size_t)warps * cols : 0));
    const int32_t per = (cols + DENSE_THREADS - 1) / DENSE_THREADS;
    const int32_t c0 = (int32_t)threadIdx.x * per;
    const int32_t c1 = c0 + per < cols ? c0 + per : cols;
    for (int64_t row = blockIdx.x; row < p.count; row += gridDim.x) {
        for (int32_t c = (int32_t)threadIdx.x; c < cols; c += DENSE_THREADS) {
            flag[c] = 0;
            if (NUMERIC)
                for (int w = 0; w < warps; w++) vals[(size_t)w * cols + c] = 0.0;
        }
        __syncthreads();
        const int32_t begin = p.a_off[row], end = p.a_off[row + 1];
        const int32_t share = (end - begin + warps - 1) / warps;
        const int32_t first = begin + warp * share;
        const int32_t last = first + share < end ? first + share : end;
        double *mine = vals + (size_t)warp * cols;
        for (int32_t k = first; k < last; k++) {
            const int32_t j = p.a_col[k];
            const double a = NUMERIC ? p.a_val[k] : 0.0;
            for (int32_t m = p.b_off[j] + lane; m < p.b_off[j + 1]; m += 32) {
                const int32_t col = p.b_col[m];
                flag[col] = 1;
                /* c_ij += a_ik b_kj (no fused multiply-add) */
                if (NUMERIC) mine[col] = __dadd_rn(mine[col], __dmul_rn(a, p.b_val[m]));
            }
            __syncwarp();
        }
        __syncthreads();
        int count = 0;
        for (int32_t c = c0; c < c1; c++) count += flag[c];
        int before = 0, total = 0;
        block_scan(scan_temp).ExclusiveSum(count, before, total);
        if (!NUMERIC && threadIdx.x == 0) {
            p.c_len[row] = total;
            atomicAdd(&meta->total, (unsigned long long)total);
        }
        if (NUMERIC) {
            int32_t at = p.c_off[row] + before;
            for (int32_t c = c0; c < c1; c++) {
                if (!flag[c]) continue;
                double v = vals[c];
                for (int w = 1; w < warps; w++) v += vals[(size_t)w * cols + c];
                p.c_col[at] = c;
                p.c_val[at] = v;
                at++;
            }
        }
        __syncthreads();
    }
}

/* row[k] = the row of entry k. */
__global__ void entry_rows(int64_t rows, const int32_t *__restrict__ offsets,
                           int32_t *__restrict__ row)
{
    KRYL_CUDA_FOR_EACH(i, rows)
    {
        for (int32_t k = offsets[i]; k < offsets[i + 1]; k++) row[k] = (int32_t)i;
    }
}

/* offsets of R from its entries' rows in order (sorted): offsets[c] = the
 * first entry of a row >= c, for every c in 0..rows. */
__global__ void offsets_of_sorted(int64_t nnz, int64_t rows, const int32_t *__restrict__ sorted,
                                  int32_t *__restrict__ offsets)
{
    KRYL_CUDA_FOR_EACH(t, nnz)
    {
        const int32_t before = t > 0 ? sorted[t - 1] : -1;
        for (int32_t c = before + 1; c <= sorted[t]; c++) offsets[c] = (int32_t)t;
        if (t == nnz - 1)
            for (int64_t c = sorted[t] + 1; c <= rows; c++) offsets[c] = (int32_t)nnz;
    }
}

/* R's entry t is P's entry from[t]: r_ji = p_ij. */
__global__ void gather_transposed(int64_t nnz, const int32_t *__restrict__ from,
                                  const int32_t *__restrict__ row, const double *__restrict__ p_val,
                                  int32_t *__restrict__ r_col, double *__restrict__ r_val)
{
    KRYL_CUDA_FOR_EACH(t, nnz)
    {
        r_col[t] = row[from[t]];
        r_val[t] = p_val[from[t]];
    }
}

/* 0, 1, ..., n - 1. */
__global__ void entry_numbers(int64_t n, int32_t *__restrict__ number)
{
    KRYL_CUDA_FOR_EACH(k, n) number[k] = (int32_t)k;
}

void kryl_cuda_dev_csr_free(kryl_cuda_state *s, dev_csr *M)
{
    kryl_cuda_free(s, M->offsets);
    kryl_cuda_free(s, M->col_idx);
    kryl_cuda_free(s, M->values);
    *M = dev_csr{};
}

/* The smallest power of two >= n (n >= 1). */
static int64_t power_of_two_above(int64_t n)
{
    int64_t p = 1;
    while (p < n) p <<= 1;
    return p;
}

/* Shared memory of one group of G lanes over a table of `table` slots. */
static size_t group_bytes(int table, int G, bool numeric)
{
    return numeric ? (size_t)table * (sizeof(double) + sizeof(int32_t)) + (size_t)G * sizeof(double)
                   : (size_t)table * sizeof(int32_t);
}

/* ROW_BIN's pass: ROW_THREADS threads a block. */
template <bool NUMERIC> static kryl_status launch_list_rows(kryl_cuda_state *s, hash_pass p)
{
    if (p.count == 0) return KRYL_SUCCESS;
    const size_t bytes =
        (size_t)ROW_THREADS * (NUMERIC ? ROW_MOST * (sizeof(double) + sizeof(int32_t))
                                       : ROW_COUNT_MOST * sizeof(int32_t));
    const int64_t blocks = (p.count + ROW_THREADS - 1) / ROW_THREADS;
    const int64_t most_blocks = (int64_t)1 << 30;
    list_rows<NUMERIC><<<(unsigned int)(blocks < most_blocks ? blocks : most_blocks), ROW_THREADS,
                         bytes, s->stream>>>(p);
    KRYL_CUDA_CHECK_LAUNCH("list_rows");
    return KRYL_SUCCESS;
}

/* Whether C = A B takes the dense rows: B's columns few, A's rows many products. */
static bool dense_product(const dev_csr *A, const dev_csr *B)
{
    if (B->cols > DENSE_COLS || A->rows == 0 || B->rows == 0) return false;
    /* the products a row of A: its entries times a row of B's, on average */
    const double products = (double)A->nnz / (double)A->rows * ((double)B->nnz / (double)B->rows);
    return products >= (double)DENSE_PRODUCTS;
}

/* The dense rows' pass over all of A's rows (counting: totals into *meta). */
template <bool NUMERIC>
static kryl_status launch_dense_rows(kryl_cuda_state *s, hash_pass p, int32_t cols, hash_meta *meta)
{
    const size_t bytes = (NUMERIC ? (size_t)(DENSE_THREADS / 32) * cols * sizeof(double) : 0) +
                         (size_t)cols * sizeof(int32_t);
    if (bytes > (size_t)HASH_SHARED_BYTES)
        KRYL_CUDA_CHECK(cudaFuncSetAttribute(
            dense_rows<NUMERIC>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    const int64_t most_blocks = (int64_t)1 << 30;
    dense_rows<NUMERIC><<<(unsigned int)(p.count < most_blocks ? p.count : most_blocks),
                          DENSE_THREADS, bytes, s->stream>>>(p, cols, meta);
    KRYL_CUDA_CHECK_LAUNCH("dense_rows");
    return KRYL_SUCCESS;
}

/* A bin's pass: its tables in shared memory, or in global memory (`global`). */
template <int G, bool NUMERIC>
static kryl_status launch_rows(kryl_cuda_state *s, hash_pass p, bool global, const char *what)
{
    if (p.count == 0) return KRYL_SUCCESS;
    const int per_warp = 32 / G;
    int warps;
    size_t bytes;
    int64_t blocks;
    void *keys = nullptr, *vals = nullptr;
    kryl_status st = KRYL_SUCCESS;
    if (!global) {
        /* shared tables: as many warps as fit the default limit, at most HASH_WARPS */
        const size_t warp_bytes = per_warp * group_bytes(p.table, G, NUMERIC);
        warps = (int)(HASH_SHARED_BYTES / warp_bytes);
        warps = warps < 1 ? 1 : warps > HASH_WARPS ? HASH_WARPS : warps;
        bytes = warps * warp_bytes;
        blocks = (p.count + (int64_t)warps * per_warp - 1) / ((int64_t)warps * per_warp);
        /* the largest numeric table (49 KB) takes a raised limit */
        if (bytes > (size_t)HASH_SHARED_BYTES)
            CUDA_STEP(st, cudaFuncSetAttribute(hash_rows<G, NUMERIC>,
                                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               (int)bytes));
    } else {
        /* global tables: enough groups to fill the device, fewer when the tables are large */
        const int64_t table_bytes =
            (int64_t)p.table * (NUMERIC ? sizeof(double) + sizeof(int32_t) : sizeof(int32_t));
        int64_t groups = HASH_GLOBAL_BYTES / table_bytes;
        const int64_t fill = (int64_t)s->sm_count * 32;
        groups = groups < 1 ? 1 : groups > fill ? fill : groups;
        groups = groups < p.count ? groups : p.count;
        warps = 4;
        blocks = (groups + warps - 1) / warps;
        groups = blocks * warps;
        bytes = NUMERIC ? (size_t)warps * G * sizeof(double) : 0;
        st = kryl_cuda_malloc(s, &keys, (size_t)(groups * p.table) * sizeof(int32_t), what);
        if (NUMERIC)
            KRYL_STEP(
                st, kryl_cuda_malloc(s, &vals, (size_t)(groups * p.table) * sizeof(double), what));
        p.keys = static_cast<int32_t *>(keys);
        p.vals = static_cast<double *>(vals);
    }
    if (st == KRYL_SUCCESS) {
        const int64_t most_blocks = (int64_t)1 << 30;
        hash_rows<G, NUMERIC><<<(unsigned int)(blocks < most_blocks ? blocks : most_blocks),
                                warps * 32, bytes, s->stream>>>(p);
        CUDA_STEP(st, cudaGetLastError());
    }
    /* the global tables are free once the pass is over */
    if (global) CUDA_STEP(st, cudaStreamSynchronize(s->stream));
    kryl_cuda_free(s, keys);
    kryl_cuda_free(s, vals);
    return st;
}

/* One pass over every bin: rows[b] lists bin b's rows (*meta's counts). */
template <bool NUMERIC>
static kryl_status pass_over_bins(kryl_cuda_state *s, hash_pass p, const hash_meta *meta,
                                  const int32_t *list, hash_sizing sizing, const char *what)
{
    kryl_status st = KRYL_SUCCESS;
    int64_t start = 0;
    for (int b = 0; b < ALL_BINS && st == KRYL_SUCCESS; b++) {
        p.rows = list + start;
        p.count = meta->count[b];
        start += p.count;
        p.keys = nullptr;
        p.vals = nullptr;
        p.most = 0;
        if (sizing == SIZE_BOUND && b == TRY_BIN) {
            p.table = HASH_TRY_TABLE;
            p.most = HASH_TRY_MOST;
            st = launch_rows<32, NUMERIC>(s, p, false, what);
            continue;
        }
        if (b == GLOBAL_BIN) {
            /* twice the largest row: probes stay short */
            const int64_t table = power_of_two_above(2 * (int64_t)meta->largest);
            if (table > ((int64_t)1 << 30))
                return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                                  "cuda: a row of %s has %d entries; the sparse product's tables "
                                  "hold at most 2^29",
                                  what, meta->largest);
            p.table = table > 64 ? (int)table : 64;
            st = launch_rows<32, NUMERIC>(s, p, true, what);
            continue;
        }
        p.table = HASH_BINS[b].table;
        switch (HASH_BINS[b].group) {
        case 1: st = launch_list_rows<NUMERIC>(s, p); break;
        case 8: st = launch_rows<8, NUMERIC>(s, p, false, what); break;
        case 16: st = launch_rows<16, NUMERIC>(s, p, false, what); break;
        default: st = launch_rows<32, NUMERIC>(s, p, false, what); break;
        }
    }
    return st;
}

/* Sizes of rows (bound: from A and B; else size's own), binned (bin,
 * each row's) into list; *meta (host) = the bins' counts, largest row and
 * total. */
static kryl_status bin_rows(kryl_cuda_state *s, const dev_csr *A, const dev_csr *B,
                            hash_sizing sizing, int32_t *size, int8_t *bin, int32_t *list,
                            hash_meta *meta_dev, hash_meta *meta)
{
    const int64_t rows = A->rows;
    const unsigned int blocks = (unsigned int)((rows + KRYL_CUDA_THREADS - 1) / KRYL_CUDA_THREADS);
    kryl_status st = KRYL_SUCCESS;
    CUDA_STEP(st, cudaMemsetAsync(meta_dev, 0, sizeof *meta_dev, s->stream));
    if (st == KRYL_SUCCESS) {
        /* size_i = min(sum_k |B_k|, B's columns) or the row's entries; the bins' counts */
        hash_bin_sizes<<<blocks, KRYL_CUDA_THREADS, 0, s->stream>>>(
            rows, A->offsets, A->col_idx, B->offsets, B->cols, sizing, size, bin, meta_dev);
        /* list = the rows bin by bin */
        hash_bin_scatter<<<blocks, KRYL_CUDA_THREADS, 0, s->stream>>>(rows, bin, meta_dev, list);
        CUDA_STEP(st, cudaGetLastError());
    }
    CUDA_STEP(st, cudaMemcpyAsync(meta, meta_dev, sizeof *meta, cudaMemcpyDeviceToHost, s->stream));
    CUDA_STEP(st, cudaStreamSynchronize(s->stream));
    return st;
}

kryl_status kryl_cuda_spgemm_hash(kryl_cuda_state *s, const dev_csr *A, const dev_csr *B,
                                  dev_csr *C, const char *what)
{
    *C = dev_csr{};
    C->rows = A->rows;
    C->cols = B->cols;
    const int64_t rows = A->rows;
    kryl_status st =
        kryl_cuda_malloc(s, (void **)&C->offsets, ((size_t)rows + 1) * sizeof(int32_t), what);
    CUDA_STEP(st, cudaMemsetAsync(C->offsets, 0, sizeof(int32_t), s->stream));
    if (st != KRYL_SUCCESS || rows == 0) {
        if (st != KRYL_SUCCESS) kryl_cuda_dev_csr_free(s, C);
        return st;
    }
    /* one workspace: the rows' sizes (then their entries), the bins' rows, the bins' counts,
     * the running sums' scratch, each row's bin */
    size_t scan_bytes = 0;
    CUDA_STEP(st,
              cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, static_cast<int32_t *>(nullptr),
                                            static_cast<int32_t *>(nullptr), (int)rows, s->stream));
    const size_t row_bytes = ((size_t)rows * sizeof(int32_t) + 255) / 256 * 256;
    const size_t meta_bytes = (sizeof(hash_meta) + 255) / 256 * 256;
    char *work = nullptr;
    const size_t scan_room = (scan_bytes + 255) / 256 * 256;
    KRYL_STEP(st, kryl_cuda_malloc(s, (void **)&work,
                                   2 * row_bytes + meta_bytes + scan_room + (size_t)rows,
                                   "the sparse product's workspace"));
    int32_t *size = reinterpret_cast<int32_t *>(work);
    int32_t *list = reinterpret_cast<int32_t *>(work + row_bytes);
    hash_meta *meta_dev = reinterpret_cast<hash_meta *>(work + 2 * row_bytes);
    void *scan = work + 2 * row_bytes + meta_bytes;
    int8_t *bin = reinterpret_cast<int8_t *>(work + 2 * row_bytes + meta_bytes + scan_room);
    hash_meta meta;
    hash_pass p = {};
    p.a_off = A->offsets;
    p.a_col = A->col_idx;
    p.a_val = A->values;
    p.b_off = B->offsets;
    p.b_col = B->col_idx;
    p.b_val = B->values;
    p.c_len = size;
    const bool dense = dense_product(A, B);
    if (dense) {
        /* every row's entries, and their total, by the dense rows */
        p.count = rows;
        CUDA_STEP(st, cudaMemsetAsync(meta_dev, 0, sizeof *meta_dev, s->stream));
        KRYL_STEP(st, launch_dense_rows<false>(s, p, (int32_t)B->cols, meta_dev));
        CUDA_STEP(st,
                  cudaMemcpyAsync(&meta, meta_dev, sizeof meta, cudaMemcpyDeviceToHost, s->stream));
        CUDA_STEP(st, cudaStreamSynchronize(s->stream));
    } else {
        /* symbolic: each row's entries, from its bins by the bound */
        KRYL_STEP(st, bin_rows(s, A, B, SIZE_BOUND, size, bin, list, meta_dev, &meta));
        KRYL_STEP(st, pass_over_bins<false>(s, p, &meta, list, SIZE_BOUND, what));
        if (st == KRYL_SUCCESS && meta.count[TRY_BIN] > 0) {
            /* the rows the try table gave up, by their bound */
            KRYL_STEP(st, bin_rows(s, A, B, SIZE_RETRY, size, bin, list, meta_dev, &meta));
            KRYL_STEP(st, pass_over_bins<false>(s, p, &meta, list, SIZE_RETRY, what));
        }
        /* numeric: binned by the entries */
        KRYL_STEP(st, bin_rows(s, A, B, SIZE_EXACT, size, bin, list, meta_dev, &meta));
    }
    /* C's offsets: the running sums of the entries */
    if (st == KRYL_SUCCESS && meta.total > (unsigned long long)INT_MAX)
        st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                        "cuda: %s would have %llu entries; the sparse product takes fewer than "
                        "2^31",
                        what, meta.total);
    CUDA_STEP(st, cub::DeviceScan::InclusiveSum(scan, scan_bytes, size, C->offsets + 1, (int)rows,
                                                s->stream));
    C->nnz = (int64_t)meta.total;
    KRYL_STEP(st,
              kryl_cuda_malloc(s, (void **)&C->col_idx, (size_t)C->nnz * sizeof(int32_t), what));
    KRYL_STEP(st, kryl_cuda_malloc(s, (void **)&C->values, (size_t)C->nnz * sizeof(double), what));
    p.c_off = C->offsets;
    p.c_col = C->col_idx;
    p.c_val = C->values;
    KRYL_STEP(st, dense ? launch_dense_rows<true>(s, p, (int32_t)B->cols, meta_dev)
                        : pass_over_bins<true>(s, p, &meta, list, SIZE_EXACT, what));
    /* the workspace is free once the last pass is over */
    CUDA_STEP(st, cudaStreamSynchronize(s->stream));
    kryl_cuda_free(s, work);
    if (st != KRYL_SUCCESS) kryl_cuda_dev_csr_free(s, C);
    return st;
}

kryl_status kryl_cuda_transpose(kryl_cuda_state *s, const dev_csr *P, dev_csr *R, const char *what)
{
    *R = dev_csr{};
    R->rows = P->cols;
    R->cols = P->rows;
    R->nnz = P->nnz;
    const int64_t nnz = P->nnz;
    kryl_status st =
        kryl_cuda_malloc(s, (void **)&R->offsets, ((size_t)R->rows + 1) * sizeof(int32_t), what);
    KRYL_STEP(st, kryl_cuda_malloc(s, (void **)&R->col_idx, (size_t)nnz * sizeof(int32_t), what));
    KRYL_STEP(st, kryl_cuda_malloc(s, (void **)&R->values, (size_t)nnz * sizeof(double), what));
    if (st != KRYL_SUCCESS || nnz == 0) {
        CUDA_STEP(
            st, cudaMemsetAsync(R->offsets, 0, ((size_t)R->rows + 1) * sizeof(int32_t), s->stream));
        if (st != KRYL_SUCCESS) kryl_cuda_dev_csr_free(s, R);
        return st;
    }
    /* bits of the largest column: the sort's keys */
    int bits = 1;
    while (bits < 31 && ((int64_t)1 << bits) < P->cols) bits++;
    size_t sort_bytes = 0;
    CUDA_STEP(st, cub::DeviceRadixSort::SortPairs(
                      nullptr, sort_bytes, static_cast<int32_t *>(nullptr),
                      static_cast<int32_t *>(nullptr), static_cast<int32_t *>(nullptr),
                      static_cast<int32_t *>(nullptr), (int)nnz, 0, bits, s->stream));
    /* workspace: each entry's row, number, sorted column and number; the sort's scratch */
    const size_t entry_bytes = ((size_t)nnz * sizeof(int32_t) + 255) / 256 * 256;
    char *work = nullptr;
    KRYL_STEP(st, kryl_cuda_malloc(s, (void **)&work, 4 * entry_bytes + sort_bytes,
                                   "the transpose's workspace"));
    int32_t *row = reinterpret_cast<int32_t *>(work);
    int32_t *number = reinterpret_cast<int32_t *>(work + entry_bytes);
    int32_t *sorted = reinterpret_cast<int32_t *>(work + 2 * entry_bytes);
    int32_t *from = reinterpret_cast<int32_t *>(work + 3 * entry_bytes);
    void *scratch = work + 4 * entry_bytes;
    if (st == KRYL_SUCCESS) {
        /* row[k] = i for p_ij's entry k;  number[k] = k */
        entry_rows<<<kryl_cuda_stream_grid(s, P->rows), KRYL_CUDA_THREADS, 0, s->stream>>>(
            P->rows, P->offsets, row);
        entry_numbers<<<kryl_cuda_stream_grid(s, nnz), KRYL_CUDA_THREADS, 0, s->stream>>>(nnz,
                                                                                          number);
        CUDA_STEP(st, cudaGetLastError());
    }
    /* the entries by column, rows ascending within one (the radix sort is stable) */
    CUDA_STEP(st, cub::DeviceRadixSort::SortPairs(scratch, sort_bytes, P->col_idx, sorted, number,
                                                  from, (int)nnz, 0, bits, s->stream));
    if (st == KRYL_SUCCESS) {
        /* R's offsets from the sorted columns; r_ji = p_ij */
        offsets_of_sorted<<<kryl_cuda_stream_grid(s, nnz), KRYL_CUDA_THREADS, 0, s->stream>>>(
            nnz, R->rows, sorted, R->offsets);
        gather_transposed<<<kryl_cuda_stream_grid(s, nnz), KRYL_CUDA_THREADS, 0, s->stream>>>(
            nnz, from, row, P->values, R->col_idx, R->values);
        CUDA_STEP(st, cudaGetLastError());
    }
    /* the workspace is free once the gather is over */
    CUDA_STEP(st, cudaStreamSynchronize(s->stream));
    kryl_cuda_free(s, work);
    if (st != KRYL_SUCCESS) kryl_cuda_dev_csr_free(s, R);
    return st;
}
