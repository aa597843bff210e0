/* One synchronisation-free sweep over a triangle (Liu, Li, Hou & Vinter,
 * "A synchronization-free algorithm for parallel sparse triangular solves",
 * Euro-Par 2016), on rows: every row publishes one word w_i, computed from
 * the words of the rows it reads, which come before it in the sweep's
 * order.  A triangular solve is x_i = (b_i - sum_j t_ij x_j) / t_ii; a
 * row's level is the same recurrence in the (max, +) semiring,
 * level_i = max_j (level_j + 1) (0 for a row that reads none); first-fit
 * coloring takes the smallest color that none of the rows read has.  The
 * operation says what differs (the Op below); the sweep is the same.
 *
 * Readiness is carried by the words themselves: they start at Op::unsolved
 * (a memset) and a finished row never publishes that word, so a lane reads
 * w_j with a relaxed load that sees either unsolved or the final word (an
 * aligned word is written at once): no flag to order against a value, no
 * fence, and no acquire that would drop the multiprocessor's L1.
 *
 * Forward progress: slot s of the sweep belongs to the block that took
 * ticket s / (rows per block), blocks taking tickets in the order they
 * start, and a row reads only rows of earlier slots, so it waits only on
 * blocks that are already running or done, never on one waiting for a
 * free multiprocessor.  A warp never blocks on one of its lanes: in each
 * round every lane adds the terms whose w_j are in, the groups of lanes
 * whose terms are all in are finished, and the warp polls again, so rows
 * of one warp may read each other.
 *
 * With Op::local (the sweeps in natural order, whose consecutive rows
 * often read each other: a level, a color), blocks are larger and a
 * block's words are kept in shared memory too.  A lane first waits for
 * the words of the rows of earlier blocks it reads, one at a time, asleep
 * between polls (none is a lane of its warp, and their blocks run or are
 * done; sleeping leaves the issue slots to the warps that finish rows);
 * then the rounds read only the block's own rows, from shared memory, so
 * a chain of rows inside a block costs a round each instead of a trip
 * through L2.  The terms are then added out of order: add must be
 * commutative.  The solve in level order, whose rows of one level read
 * none of each other, has no such chains and keeps the order of its sums.
 *
 * An Op supplies:
 *   word, acc               the published word (unsigned) and a lane's partial result
 *   unsolved, local         the word of a row not yet finished; the block's words
 *                           kept in shared memory (above)
 *   threads                 the threads of a block (the kernel's launch bounds)
 *   words                   the published words (device, unsolved at the start)
 *   row(slot), slot_of(j)   the row at a slot and (local) the slot of a row
 *   reads(i, j)             whether row i reads column j's row (else skipped)
 *   start()                 acc before any term
 *   add(acc, k, w)          acc with the term of entry k, whose row published w
 *   finish(i, first, end, lanes, solve, acc, read)
 *                           the word of row i from its lanes' accs, called by
 *                           every lane of the warp each round (solve: whether
 *                           this lane's group finishes its row now); a lane's
 *                           entries are first, first + lanes, ... < end, and
 *                           read(j) the word of row j (published). */
#ifndef KRYL_BACKENDS_CUDA_SYNCFREE_CUH
#define KRYL_BACKENDS_CUDA_SYNCFREE_CUH

#include <cuda/atomic>

#include "backends/cuda/cuda_internal.cuh"

constexpr unsigned int KRYL_FULL_WARP = 0xffffffffu;

/* Nanoseconds a lane sleeps between polls of a word of an earlier block
 * (a trip through L2 takes about a microsecond), and a warp whose round
 * finished no row of the block's own. */
constexpr unsigned int KRYL_SYNCFREE_POLL_NS = 200;
constexpr unsigned int KRYL_SYNCFREE_ROUND_NS = 32;
/* Threads of a block of a sweep with Op::local: more of the rows a row
 * reads lie in its own block (on 7-point 160^3 the row above in a plane,
 * 160 rows back, for 84% of the rows in blocks of 1024, 38% in 256). */
constexpr int KRYL_SYNCFREE_LOCAL_THREADS = 1024;

template <typename W> using kryl_word_ref = cuda::atomic_ref<W, cuda::thread_scope_device>;

/* f(v) over the `lanes` lanes of each group, in every lane of it; lane
 * 0's value is bit for bit that of a shuffle-down tree (the same pairs in
 * the same order). */
template <typename V, typename F> __device__ V kryl_group_reduce(V v, int lanes, F f)
{
    for (int offset = lanes / 2; offset > 0; offset /= 2)
        v = f(v, __shfl_xor_sync(KRYL_FULL_WARP, v, offset, lanes));
    return v;
}

/* The sweep over slots 0 .. n - 1 of the rows of (ptr, col), `lanes` lanes
 * (a power of two, at most a warp) per row; *ticket starts at 0. */
template <class Op>
__device__ void kryl_syncfree_sweep(const Op &op, int64_t n, const int64_t *__restrict__ ptr,
                                    const int32_t *__restrict__ col, unsigned int *ticket,
                                    int lanes)
{
    using W = typename Op::word;
    __shared__ unsigned int block;
    __shared__ W local[Op::local ? Op::threads : 1]; /* the words of this block's slots */
    if (threadIdx.x == 0) block = atomicAdd(ticket, 1u);
    if constexpr (Op::local) local[threadIdx.x] = Op::unsolved;
    __syncthreads();
    const int64_t first_slot = (int64_t)block * blockDim.x / lanes;
    const int64_t slot = ((int64_t)block * blockDim.x + threadIdx.x) / lanes;
    const int lane = (int)(threadIdx.x & (unsigned)(lanes - 1));
    const unsigned int group = lanes == 32 ? KRYL_FULL_WARP
                                           : ((1u << lanes) - 1u)
                                                 << ((threadIdx.x & 31u) & ~(unsigned)(lanes - 1));
    /* w_j, published: from this block's shared copy where j's slot is in it */
    const auto read = [&](int32_t j) -> W {
        if constexpr (Op::local) {
            const int64_t at = op.slot_of(j);
            if (at >= first_slot) return *static_cast<volatile W *>(&local[at - first_slot]);
        }
        return kryl_word_ref<W>(op.words[j]).load(cuda::memory_order_relaxed);
    };
    bool done = slot >= n;
    const int64_t i = done ? 0 : op.row(slot);
    const int64_t first = done ? 0 : ptr[i] + lane, end = done ? 0 : ptr[i + 1];
    int64_t k = first;
    typename Op::acc acc = op.start();
    if constexpr (Op::local) {
        /* acc = the terms of the rows of earlier blocks, each waited for */
        for (int64_t e = first; e < end; e += lanes) {
            const int32_t j = col[e];
            if (!op.reads(i, j) || op.slot_of(j) >= first_slot) continue;
            W w;
            while ((w = kryl_word_ref<W>(op.words[j]).load(cuda::memory_order_relaxed)) ==
                   Op::unsolved)
                __nanosleep(KRYL_SYNCFREE_POLL_NS);
            op.add(acc, e, w);
        }
    }
    while (!__all_sync(KRYL_FULL_WARP, done)) {
        /* acc += the terms of this lane's next entries whose w_j is in
         * (local: those of this block's rows, the others are in) */
        for (; !done && k < end; k += lanes) {
            const int32_t j = col[k];
            if (!op.reads(i, j)) continue;
            if constexpr (Op::local)
                if (op.slot_of(j) < first_slot) continue;
            const W w = read(j);
            if (w == Op::unsolved) break;
            op.add(acc, k, w);
        }
        const unsigned int in = __ballot_sync(KRYL_FULL_WARP, done || k >= end);
        const bool solve = !done && (in & group) == group;
        const W w = op.finish(i, first, end, lanes, solve, acc, read);
        if (solve && lane == 0) {
            kryl_word_ref<W>(op.words[i]).store(w, cuda::memory_order_relaxed);
            if constexpr (Op::local) *static_cast<volatile W *>(&local[slot - first_slot]) = w;
        }
        if constexpr (Op::local)
            if (__ballot_sync(KRYL_FULL_WARP, solve) == 0) __nanosleep(KRYL_SYNCFREE_ROUND_NS);
        done = done || solve;
    }
}

/* Lanes per row of a sweep in natural order over rows of `entries`
 * entries in all: the power of two at least a quarter of the mean row, so
 * a lane walks about four entries and a block holds many rows (the rows
 * in flight must span many levels for the wavefront to move), at most a
 * warp. */
static inline int kryl_syncfree_lanes(int64_t entries, int64_t n)
{
    const double quarter = n > 0 ? 0.25 * (double)entries / (double)n : 0.0;
    int lanes = 1;
    while (lanes < 32 && lanes < quarter) lanes *= 2;
    return lanes;
}

/* Blocks of Op::threads covering the n rows of a sweep, `lanes` threads each. */
template <class Op> static inline unsigned int kryl_syncfree_blocks(int64_t n, int lanes)
{
    return (unsigned int)((n * lanes + Op::threads - 1) / Op::threads);
}

/* *largest = the largest of the n words (n > 0) after a sweep, through
 * scratch (one device word), synchronising. */
kryl_status kryl_cuda_largest_word(kryl_cuda_state *s, int64_t n, const unsigned int *word,
                                   unsigned long long *scratch, unsigned int *largest);

#endif
