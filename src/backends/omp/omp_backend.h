/* The omp backend's shared state and the operations its files implement. */
#ifndef KRYL_BACKENDS_OMP_OMP_BACKEND_H
#define KRYL_BACKENDS_OMP_OMP_BACKEND_H

#include "backends/backend.h"

/* Reductions add over fixed parts of the vector, whatever the team size:
 * each part's sum is formed in entry order, then the parts' sums are added
 * in part order.  The parts depend only on the length n (at least
 * KRYL_OMP_PART_MIN entries each, at most KRYL_OMP_PARTS_MAX of them), so
 * a sum has the same bits on 1, 2 or 64 threads, and threads share the
 * parts by a static schedule. */
#define KRYL_OMP_PART_MIN  1024
#define KRYL_OMP_PARTS_MAX 256

/* Partial sums one part holds at once: the fused reductions use a few, the
 * basis operations a group of columns.  Four cache lines, so threads
 * working on different parts never write to the same line. */
#define KRYL_OMP_PART_SLOTS 32

/* Vectors shorter than this are handled by one thread: below it, starting a
 * parallel region costs more than the loop. */
#define KRYL_OMP_MIN_PARALLEL 2048

/* ctx->backend of an omp context (used by one host thread at a time, as
 * every context is). */
typedef struct kryl_omp_state {
    int threads;         /* team size of the parallel regions now (omp_team.c) */
    int max_threads;     /* the context's thread count: the team at most */
    bool adapt;          /* the team follows the free cores (no wait policy chosen) */
    int cores;           /* cores this process may run on */
    double next_sample;  /* monotonic seconds of the next count of busy cores */
    int room_samples;    /* counts in a row that found room for a larger team */
    int crowded_samples; /* counts in a row that found the team too large */
    /* KRYL_OMP_PARTS_MAX * KRYL_OMP_PART_SLOTS partial sums of the
     * reductions, allocated once so that iteration operations never allocate */
    double *partials;
} kryl_omp_state;

/* The SpMV storage of a matrix (A->storage).  CSR, compressed where that
 * loses nothing (Kourtis, Goumas and Koziris, "Optimizing sparse
 * matrix-vector multiplication using index and value compression", CF
 * 2008): SpMV streams the matrix from memory, so fewer bytes per entry is
 * less time.
 *   - values: single matrices store floats; a double matrix whose every
 *     value is exactly a float stores them as floats too (the products,
 *     formed in double, are bit for bit the same), else it uses the CSR's
 *     doubles;
 *   - columns: with float values, and every |column - row| <= 32767, as
 *     16-bit offsets from the row; else the CSR's 32-bit columns.
 * The CSR is A->fmt's, in whatever row order it has.  Every other format
 * (fmt not NULL) is multiplied from its own arrays by omp_spmv_fmt.c, with
 * the same value choice and no column compression. */
typedef struct kryl_omp_matrix {
    int64_t nrows, ncols;
    const kryl_fmt *fmt;         /* A->fmt when it is not CSR (then the CSR fields are NULL) */
    const int64_t *row_ptr;      /* the CSR's, shared */
    const int32_t *col_idx;      /* the CSR's absolute columns, shared */
    int16_t *col_offset;         /* owned column - row, or NULL */
    const double *values_double; /* the format's values, shared */
    float *values_single;        /* owned float values, or NULL */
    int nparts;                  /* blocks, one per thread */
    /* nparts + 1 boundaries of rows (CSR, ELL, ELLR, JDS, DIA), slices (SELL,
     * pJDS) or block rows (BCSR), balanced by stored entries */
    int64_t *part;
    int64_t chunk; /* rows the ELL, ELLR, JDS and DIA kernels sum together */
} kryl_omp_matrix;

/* Bounds of kryl_omp_matrix.chunk: the sums of a chunk sit on the stack. */
#define KRYL_OMP_CHUNK_MIN 64
#define KRYL_OMP_CHUNK_MAX 256

static inline kryl_omp_state *kryl_omp_state_of(kryl_context ctx)
{
    return (kryl_omp_state *)ctx->backend;
}

/* This thread's block [*lo, *hi) of 0..n-1: contiguous blocks, in thread
 * order, sizes differing by at most one (libgomp's split for schedule(static)). */
static inline void kryl_omp_block(int64_t n, int thread, int team, int64_t *lo, int64_t *hi)
{
    int64_t q = n / team, r = n % team;
    *lo = thread * q + (thread < r ? thread : r);
    *hi = *lo + q + (thread < r ? 1 : 0);
}

/* The number of parts of a reduction over n entries (KRYL_OMP_PART_MIN). */
static inline int kryl_omp_parts(int64_t n)
{
    int64_t parts = n / KRYL_OMP_PART_MIN;
    return parts < 1 ? 1 : parts > KRYL_OMP_PARTS_MAX ? KRYL_OMP_PARTS_MAX : (int)parts;
}

/* Part `part`'s partial sums (KRYL_OMP_PART_SLOTS of them). */
static inline double *kryl_omp_part_sums(const kryl_omp_state *s, int part)
{
    return s->partials + (int64_t)part * KRYL_OMP_PART_SLOTS;
}

/* Sum slot `slot` of the first `parts` parts in part order, so the result
 * depends only on the vector length, never on the team size or timing. */
static inline double kryl_omp_sum_partials(const kryl_omp_state *s, int parts, int slot)
{
    double sum = 0.0;
    for (int p = 0; p < parts; p++) sum += kryl_omp_part_sums(s, p)[slot];
    return sum;
}

/* The operations this backend implements, kryl_omp_<op> (semantics in
 * backend.h, declared from its list); the others it registers are the ref
 * backend's or the host's. */
#define KRYL_OMP_DECLARE_OP(ret, name, params) ret kryl_omp_##name params;
KRYL_BACKEND_OPS(KRYL_OMP_DECLARE_OP)

/* 64-byte aligned room for count entries of size bytes, or NULL (omp_matrix.c). */
void *kryl_omp_aligned_array(int64_t count, size_t size);

/* After M->values_single = (float) values: a single-precision matrix fails
 * when `overflow` values left the float range; a double one keeps the floats
 * only when none of them is `inexact` (omp_matrix.c). */
kryl_status kryl_omp_keep_floats(kryl_omp_matrix *M, bool single, int64_t inexact,
                                 int64_t overflow);

/* omp_matrix_fmt.c: the storage of a format other than CSR */
kryl_status kryl_omp_fmt_setup(kryl_context ctx, kryl_matrix A);

/* omp_spmv_fmt.c: y = alpha*A*x + beta*z in M->fmt (z NULL: beta*z left out) */
void kryl_omp_fmt_spmv(int nt, const kryl_omp_matrix *M, kryl_precision precision, double alpha,
                       const void *x, double beta, const void *z, void *y);

/* omp_team.c: the team size on a machine other programs use */
void kryl_omp_team_init(kryl_omp_state *s);
/* At most every few milliseconds: threads = the cores other processes leave free. */
void kryl_omp_team_refresh(kryl_omp_state *s);
/* The team on `cores` cores with `others` runnable threads of other
 * processes, for a context of `requested` threads: requested when that many
 * cores are free; else the free cores when two or more are; else 1. */
int kryl_omp_team_for(int cores, int others, int requested);
/* Whether the user bound OpenMP's threads to places (OMP_PROC_BIND other
 * than false, OMP_PLACES or GOMP_CPU_AFFINITY set). */
bool kryl_omp_threads_bound(void);
/* The team, refreshed, for the host setup work of ctx (its host_team). */
int kryl_omp_host_team(kryl_context ctx);

/* Shared argument checks (omp_vector.c): same length, same precision. */
kryl_status kryl_omp_check_pair(const char *op, kryl_vector a, kryl_vector b);

#endif
