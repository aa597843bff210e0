/*
 * Smoothed-aggregation algebraic multigrid (Vanek, Mandel & Brezina,
 * Computing 56, 1996), with the parallel aggregation of Bell, Dalton &
 * Olson (SIAM J. Sci. Comput. 34, 2012).  The hierarchy (setup, the files
 * amg_*.c) lives in backend memory, the device's on cuda: strength graph
 * and aggregates from the level's host copy (uploaded), the tentative
 * prolongator of the constant near-nullspace (backend amg_tentative; a
 * user's near-nullspace by QR on the host), lambda_max by backend Lanczos,
 * P, R and P'AP by the backend's amg_products, each coarse level a backend
 * matrix made from those arrays without a host copy; the cycle
 * (amg_cycle.c) runs through backend operations only.
 */
#ifndef KRYL_AMG_AMG_H
#define KRYL_AMG_AMG_H

#include "backends/backend.h"
#include "precond/precond.h"

/* Above this many rows the coarsest level is smoothed, not inverted. */
#define KRYL_AMG_DENSE_MAX 4000
/* Coarsening stops when a level keeps more than this fraction of the rows. */
#define KRYL_AMG_MIN_REDUCTION 0.85
/* Over ranks, a coarse level of fewer rows than this per rank goes whole
 * to rank 0 (KRYL_AMG_AGGLOMERATE overrides; 0: never): a level that
 * small is bound by the latency of its exchanges, not by its work. */
#define KRYL_AMG_AGGLOMERATE_ROWS 8192
/* The coarse levels' strength threshold by default (coarse_theta): their
 * Galerkin operators gain many small entries, which theta = 0 counts as
 * strong, so that their aggregates grew too large: 5-point 4000^2 took 18
 * PCG iterations against 11, 7-point 160^3 12 against 9.  The finest level
 * keeps the caller's theta: at 0.05 a 27-point stencil's couplings are all
 * weak (docs/BENCHMARKS.md). */
#define KRYL_AMG_COARSE_THETA 0.02
/* On a device the default smoother of a nonsymmetric matrix is ILU(0) up to
 * this many rows, Chebyshev above: ILU(0) is worth its setup and sweeps
 * where Chebyshev struggles (sherman5: no convergence in 10000 iterations
 * against 23), not on an easy large matrix, where even with its setup on
 * the device (0.06 us a row on an H200) its sweeps cost more than
 * Chebyshev's extra iterations (convection-diffusion 300^2: 0.073 s in all
 * against 0.05; 1000^2: 0.127 against 0.11; docs/BENCHMARKS.md). */
#define KRYL_AMG_DEVICE_ILU0_ROWS 65536
/* Lanczos steps of each level's lambda_max(D^-1 A) estimate: 6 come within
 * 4-6% of the converged Ritz value (the Chebyshev margin of 1.1 covers it)
 * with the same PCG iterations as 8 or 12 on the Poisson, anisotropic,
 * finite-element, random and elasticity generators, in less time
 * (docs/BENCHMARKS.md). */
#define KRYL_AMG_LANCZOS_STEPS 6
/* Chebyshev smoothing interval [upper/ratio, upper], upper = margin lambda_max;
 * ratio 4 against 30 (pyamg's): 8 against 14 PCG iterations on 5-point 500^2,
 * 9 against 14 on 7-point 50^3 (degree 2; docs/BENCHMARKS.md). */
#define KRYL_AMG_CHEBYSHEV_MARGIN 1.1
#define KRYL_AMG_CHEBYSHEV_RATIO  4.0

/* Strength-of-connection graph: the pattern of the strong couplings i != j. */
typedef struct amg_graph {
    int64_t n;
    int64_t *row_ptr; /* n + 1 */
    int32_t *col_idx; /* sorted within each row */
} amg_graph;

void amg_graph_free(amg_graph *G);

/* G: j ~ i when |a_ij| >= theta sqrt(|a_ii a_jj|), a_ij != 0, i != j; made
 * symmetric (j ~ i or i ~ j) unless A is known to be. */
kryl_status amg_strength(const kryl_csr *A, double theta, bool symmetric, int threads,
                         amg_graph *G);

/* Aggregates of G: aggregate[i] in 0..*count-1, or -1 for a row without
 * strong couplings.  Greedy in row order (Vanek, Mandel & Brezina 1996,
 * "standard aggregation"; serial), from a distance-2 maximal independent
 * set with roots chosen by a fixed hash of the row index (Bell, Dalton &
 * Olson 2012; parallel), or that set with secondary aggregates between
 * its roots (Kelley & Rajamanickam 2022; parallel, amg_aggregate.c: the
 * secondary ones larger where `finest`, amg_secondary_min); all
 * deterministic, whatever the thread count. */
kryl_status amg_aggregate_greedy(const amg_graph *G, int32_t *aggregate, int64_t *count);
kryl_status amg_aggregate_mis2(const amg_graph *G, int threads, int32_t *aggregate, int64_t *count);
kryl_status amg_aggregate_parallel(const amg_graph *G, bool finest, int threads, int32_t *aggregate,
                                   int64_t *count);

/* The tentative prolongator T (n x nc) and the coarse near-nullspace Bc
 * (nc x k, column by column, malloc'ed): on each aggregate, the thin QR of
 * B's rows B_a = Q_a R_a gives T's block Q_a and Bc's rows R_a; columns of
 * B_a that are numerically dependent are dropped, so nc <= k aggregates. */
kryl_status amg_tentative(const int32_t *aggregate, int64_t naggregates, const double *B, int64_t n,
                          int k, kryl_csr *T, double **Bc, int64_t *nc);

/* S = I - omega D^-1 A for A's rows whose a_ii is at column i (the rows
 * of a whole matrix, or a rank's over [owned columns; ghosts]); a zero or
 * absent a_ii is refused naming its row (first_row + i). */
kryl_status amg_jacobi_operator(const kryl_csr *A, int64_t first_row, double omega, int threads,
                                kryl_csr *S);

/* The dense inverse of the small square A, as a CSR matrix with every
 * entry stored (LU with partial pivoting). */
kryl_status amg_dense_inverse(const kryl_csr *A, kryl_csr *Ainv);

/* One level of the hierarchy. */
typedef struct amg_level {
    bool symmetric;     /* level 0 up to the symmetry tolerance; Galerkin keeps it */
    double lambda_max;  /* of D^-1 A */
    int32_t *aggregate; /* backend memory, the level's rows (NULL on the coarsest) */
    int64_t naggregates;
    kryl_backend_csr T; /* the tentative prolongator (kept for a resetup) */
    /* over ranks: T on the host (src/dist's products take it), not T */
    kryl_csr T_host;
    /* the next level's rows over all ranks, the first of this rank's
     * aggregates (0 on one rank), and those this rank owns: its
     * aggregates', or all of them on rank 0 where the level is agglomerated */
    int64_t coarse_rows, coarse_begin, coarse_owned[2];
    /* this level's matrix as double CSR in the natural order, built from
     * backend arrays (level 0: the iteration matrix or the double matrix it
     * was converted from, not owned, else NULL: its host copy serves; over
     * ranks from the ranks' host rows) */
    kryl_matrix A;
    /* backend (level 0: the iteration matrix's order and precision) */
    kryl_matrix Ab;     /* this level's matrix in the iteration's precision (A or a copy;
                           level 0: not owned) */
    kryl_matrix P, R;   /* to and from the next level (NULL on the coarsest) */
    kryl_matrix Ainv;   /* the coarsest level's dense inverse, else NULL */
    kryl_vector b, x;   /* right-hand side and iterate (level 0: the apply's r and z) */
    kryl_vector r;      /* residual */
    kryl_vector t, d;   /* smoother work */
    kryl_vector bw, e;  /* W-cycle: the second visit's right-hand side and correction */
    kryl_vector dinv;   /* the smoother's diagonal scaling */
    kryl_precond sweep; /* the smoother's M where it is a preconditioner (mcgs, ilu0) */
} amg_level;

/* The level's double matrix: L->A, or level 0's iteration matrix. */
static inline kryl_matrix amg_level_matrix(const amg_level *L) { return L->A ? L->A : L->Ab; }

/* lambda_max of the level's D^-1 A: Lanczos on its backend matrix for a
 * symmetric A with a positive diagonal, else the Gershgorin bound
 * max_i sum_j |a_ij| / |a_ii| from its rows' sums where it is stored. */
kryl_status amg_lambda_max(const amg_level *L, double *lambda);

typedef struct amg_hierarchy {
    kryl_context ctx;
    kryl_amg_options opts;    /* resolved: sweeps and sizes filled in */
    int64_t agglomerate_rows; /* over ranks: KRYL_AMG_AGGLOMERATE_ROWS or the variable's */
    double symmetry_tol;      /* the finest level is symmetric up to it */
    bool cg_method;           /* the cycle preconditions a CG method */
    int nlevels;
    amg_level levels[KRYL_AMG_MAX_LEVELS];
    kryl_amg_info info;
} amg_hierarchy;

/* Level L's P = (I - omega D^-1 A) T (omega = 0: P = T), R = P' and
 * Ac = R A P (exactly symmetric when L is), in backend memory, P's rows
 * (R's columns) in L->Ab's order: by the backend's amg_products where it
 * has them (the device for cuda), else on the host's threads; the seconds
 * go to h->info. */
kryl_status amg_products(amg_hierarchy *h, const amg_level *L, double omega, kryl_backend_csr *P,
                         kryl_backend_csr *R, kryl_backend_csr *Ac);

/* Q = P with its rows in the order perm: row i is P's row perm[i]. */
kryl_status amg_permute_rows(const kryl_csr *P, const int32_t *perm, kryl_csr *Q);

/* C (host, allocated here) = M (backend memory). */
kryl_status amg_backend_csr_download(kryl_context ctx, const kryl_backend_csr *M, kryl_csr *C);

/* M (backend memory, allocated here) = C, whose arrays are freed. */
kryl_status amg_backend_csr_upload(kryl_context ctx, kryl_csr *C, kryl_backend_csr *M);

/* Build the hierarchy of the iteration matrix Aw (the finest level) with
 * options opts; source (or NULL) is the double matrix Aw was converted
 * from: the finest level's double matrix where both are in the natural
 * order and it is stored as CSR.  Aw counts as symmetric up to
 * symmetry_tol (then so are the coarse levels, exactly).  Under a CG
 * method (cg_method) the smoothers keep the cycle symmetric positive
 * definite. */
kryl_status amg_setup(amg_hierarchy *h, kryl_matrix Aw, kryl_matrix source,
                      const kryl_amg_options *opts, double symmetry_tol, bool cg_method);
void amg_release(amg_hierarchy *h);

/* New values of the finest level's matrix, on its pattern (the host copy
 * and the backend storage already hold them): the aggregates and tentative
 * prolongators are kept, P, R, the coarse matrices, smoothers and the
 * coarse inverse computed again (AmgX's resetup).  With theta = 0 the
 * aggregates depend on the pattern alone, so this is a fresh setup's
 * hierarchy; with theta > 0 the old values' aggregates are kept. */
kryl_status amg_update(amg_hierarchy *h);

/* Over several ranks (amg_ranks.c; on one rank the identity): whether the
 * context spans several ranks; host values summed or maximised over
 * them; the sum of `count` over the ranks before this one. */
bool amg_over_ranks(kryl_context ctx);
void amg_ranks_sum(kryl_context ctx, int64_t *values, int count);
void amg_ranks_max(kryl_context ctx, double *values, int count);
int64_t amg_ranks_before(kryl_context ctx, int64_t count);
/* The rows per rank below which a coarse level goes to rank 0: the
 * variable KRYL_AMG_AGGLOMERATE where set (the largest value of any rank),
 * else KRYL_AMG_AGGLOMERATE_ROWS. */
kryl_status amg_agglomerate_rows(kryl_context ctx, int64_t *rows);
/* L->coarse_owned from the next level's size: the rank's own aggregates'
 * rows (nc of them), or all of them on rank 0 when there are fewer than
 * h->agglomerate_rows per rank; then the coarse near-nullspace Bc (nc x k)
 * is gathered there too.  Collective. */
kryl_status amg_ranks_coarse_owner(const amg_hierarchy *h, amg_level *L, int64_t nc, int k,
                                   double **Bc);
/* Rows of A outside every aggregate that couple to another rank's rows
 * become aggregates of their own (numbered from *count on). */
void amg_boundary_singletons(const kryl_csr *A, int32_t *aggregate, int64_t *count);
/* amg_products over ranks (src/dist/dist_amg.c): P, R and Ac with global
 * columns and this rank's rows; *Ac_symmetric: whether Ac is exactly. */
kryl_status amg_ranks_products(amg_hierarchy *h, const amg_level *L, const kryl_csr *A,
                               double omega, kryl_csr *P, kryl_csr *R, kryl_csr *Ac,
                               bool *Ac_symmetric);
/* R = P' with this rank's coarse rows [coarse_begin, coarse_end) (on one
 * rank kryl_csr_transpose). */
kryl_status amg_ranks_transpose(kryl_context ctx, const kryl_csr *P, int64_t coarse_begin,
                                int64_t coarse_end, kryl_csr *R);
/* This rank's rows of the inverse of the whole coarsest matrix (on one
 * rank amg_dense_inverse). */
kryl_status amg_ranks_coarse_inverse(kryl_context ctx, const kryl_csr *A, kryl_csr *Ainv);

/* Each level's smoother data on the backend (amg_smoother.c). */
kryl_status amg_smoother_setup(amg_hierarchy *h, int level);

/* x = smoothing of A x = b at `level`, from x = 0 when zero_start. */
kryl_status amg_smooth(amg_hierarchy *h, int level, kryl_vector b, kryl_vector x, bool zero_start);

/* z = one cycle on A z = r from z = 0 (amg_cycle.c). */
kryl_status amg_cycle(amg_hierarchy *h, kryl_vector r, kryl_vector z);

#endif
