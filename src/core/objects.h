/* The library's objects behind the public opaque handles. */
#ifndef KRYL_CORE_OBJECTS_H
#define KRYL_CORE_OBJECTS_H

#include "core/csr.h"
#include "core/error.h"
#include "formats/format.h"
#include "kryl.h"

#ifdef __cplusplus
extern "C" {
#endif

struct kryl_backend_ops;
struct kryl_dist_context; /* src/dist: the ranks of a distributed context */
struct kryl_dist_matrix;  /* src/dist: a matrix's local and non-local parts, its halo */

/* Seconds of each phase of the solver setup running on a context
 * (src/core/setup_clock.c). */
typedef struct kryl_setup_clock {
    int depth; /* solver setups running (a mixed scheme's inner one inside the outer) */
    int phase; /* the kryl_setup_phase running */
    double mark;
    double seconds[KRYL_SETUP_PHASES];
} kryl_setup_clock;

struct kryl_context_s {
    kryl_backend_kind kind; /* resolved, never AUTO */
    const struct kryl_backend_ops *ops;
    void *backend; /* the backend's own state: device, stream, reduction workspace */
    int device;
    int threads;
    /* the host threads setup work may use now (the omp backend's team,
     * which follows the cores other programs leave free); NULL: threads */
    int (*host_team)(kryl_context ctx);
    kryl_log_fn log;
    void *log_user;
    kryl_log_level log_level;
    bool deterministic; /* no choice by timing that changes results (kryl_context_options) */
    char device_name[160];
    int live_objects; /* matrices, vectors and solvers not yet destroyed */
    /* the ranks of a context made by kryl_context_create_mpi, else NULL */
    struct kryl_dist_context *dist;
    kryl_setup_clock setup_clock;
    /* matrices the caller creates keep only their host copy until a step
     * needs their backend storage (kryl_context_defer_matrix_storage) */
    bool defer_storage;
    /* a device memory cap given to a context without a device: reported by
     * kryl_context_device_memory, where the hybrid split's device side
     * (ref standing in for the GPU) honors it; 0: none */
    int64_t emulated_gpu_memory;
    /* the host's copy bandwidth in bytes/s, timed once for the hybrid's
     * model (solvers/hybrid_predict.c); 0: not yet, < 0: untimeable */
    double host_bandwidth;
};

/* The host copy of a matrix, shared by the matrices converted from it. */
typedef struct kryl_host_matrix {
    int refs;
    kryl_csr csr;     /* owned rows, natural order, double, as given */
    double asymmetry; /* max |a_ij - a_ji| / max |a_ij| (absent = 0); < 0: not measured yet */
    /* entry of csr each entry of the caller's CSR arrays was summed into
     * (kryl_matrix_create_csr with unsorted or repeated columns); NULL: the
     * caller's entry k is entry k of csr */
    int64_t *entry_of;
    int64_t entries;      /* the caller's entries (the length of entry_of) */
    uint64_t values_seen; /* kryl_matrix_update_values calls so far */
    /* rows of a distributed matrix: its checks are collective */
    struct kryl_dist_context *dist;
    /* a distributed matrix whose columns are split unlike its rows (the
     * transfers of multigrid over ranks): this rank owns the columns
     * [col_begin, col_end); else it owns the columns of its rows */
    bool cols_split;
    int64_t col_begin, col_end;
    int threads; /* for its checks: the creating context's host threads */
    /* created from device arrays (kryl_matrix_create_csr_device): csr's
     * arrays are NULL until a host-side step downloads them from origin's
     * backend storage (kryl_matrix_need_host), which then says why */
    struct kryl_matrix_s *origin;
    char copied_for[96];
    /* set by kryl_matrix_update_values_device: csr.values are older than
     * this matrix's storage (its natural double CSR), and
     * kryl_matrix_need_host downloads them from there; NULL: current */
    struct kryl_matrix_s *values_on;
} kryl_host_matrix;

/* How a matrix's rows are ordered on the backend: vectors created from the
 * matrix share it.  A NULL permutation is the natural order. */
typedef struct kryl_layout {
    int refs;
    int64_t n; /* owned rows */
    int64_t n_global;
    int64_t row_begin;
    int32_t *perm;         /* host: backend row i holds original row perm[i]; NULL = identity */
    int32_t *perm_backend; /* the same in backend memory */
} kryl_layout;

struct kryl_matrix_s {
    kryl_context ctx;
    int solvers; /* solvers set up on this matrix: it is not destroyed while any is */
    kryl_host_matrix *host;
    kryl_layout *layout;
    kryl_precision precision; /* of the backend storage and its SpMV */
    kryl_fmt fmt;             /* the storage format on the host, in the layout's order */
    kryl_fmt_params params;   /* the format's parameters, to rebuild its layout */
    /* 1 + the host entry each value slot of fmt holds (0: padding), built
     * at the first update of values; NULL when fmt borrows the host CSR */
    int64_t *value_source;
    void *storage; /* the backend's SpMV storage built from fmt, owned */
    /* storage not built yet: kryl_matrix_need_storage builds it for the
     * first step that needs it (context's defer_storage) */
    bool storage_deferred;
    /* over several ranks: the storage is in its parts (storage NULL), else NULL */
    struct kryl_dist_matrix *dist;
    bool pattern; /* read from a Matrix Market pattern file: every value 1 */
    double read_phases[KRYL_READ_PHASES]; /* seconds of the read that made it (zeros: none) */
};

struct kryl_vector_s {
    kryl_context ctx;
    kryl_layout *layout;
    int64_t n;
    kryl_precision precision;
    void *data;    /* backend memory: n floats or doubles */
    bool borrowed; /* data is the caller's (kryl_vector_wrap): never released */
};

static inline size_t kryl_precision_size(kryl_precision p)
{
    return p == KRYL_SINGLE ? sizeof(float) : sizeof(double);
}

/* Logging through the context's callback (printf-style). */
void kryl_log(kryl_context ctx, kryl_log_level level, const char *fmt, ...) KRYL_PRINTF_LIKE(3, 4);

/* The SpMV bandwidth model's device numbers for the context's backend: its
 * own (ops->device_model), or a generic host's (matrix_formats.c). */
kryl_status kryl_context_device_model(kryl_context ctx, kryl_device_model *dev);
/* The generic host's numbers (a server socket's). */
void kryl_host_device_model(kryl_device_model *dev);

/* Matrices from a host CSR (takes ownership of csr's arrays, also on failure). */
kryl_status kryl_matrix_from_csr(kryl_matrix *A, kryl_context ctx, kryl_csr *csr);

/* kryl_matrix_create_csr_device for arrays the library built in backend
 * memory (columns in range and ascending, values finite by construction):
 * not checked again, and taken over by the matrix where the backend
 * stores them as they are (else copied); M is emptied, also on failure. */
struct kryl_backend_csr; /* backends/backend.h */
kryl_status kryl_matrix_from_built_csr_device(kryl_matrix *A, kryl_context ctx,
                                              struct kryl_backend_csr *M);

/* The same for a rectangular matrix over several ranks whose columns are
 * split unlike its rows: this rank owns the columns [col_begin, col_end)
 * (the ranks' ranges tile csr->ncols in rank order); x of its products
 * has those entries. */
kryl_status kryl_matrix_from_csr_columns(kryl_matrix *A, kryl_context ctx, kryl_csr *csr,
                                         int64_t col_begin, int64_t col_end);

/* The same for a matrix the caller creates (generated, read, from its
 * arrays): its backend storage waits where the context defers it. */
kryl_status kryl_matrix_from_caller_csr(kryl_matrix *A, kryl_context ctx, kryl_csr *csr);

/* Build A's backend storage if it was deferred; a failure names `why`,
 * the step that needs the whole matrix there. */
kryl_status kryl_matrix_need_storage(kryl_matrix A, const char *why);

/* A matrix sharing A's host copy, stored in another precision and format
 * (params NULL: defaults), its rows and columns reordered by `order` before
 * the format's own sort (one composed permutation).  A format that sorts rows gives B a layout of
 * its own; vectors for B must be created from B. */
kryl_status kryl_matrix_convert(kryl_matrix *B, kryl_matrix A, kryl_precision precision,
                                kryl_format format, const kryl_fmt_params *params,
                                kryl_order_kind order);

/* B's host values have changed (kryl_matrix_update_values on a matrix
 * sharing its host copy): B's format takes them through its value slots'
 * sources, on the backend where it has matrix_values (from `from`'s
 * storage when that holds them: a matrix on the same host copy already
 * refreshed, or NULL), else gathered on the host and set up again; the
 * layout, the permutation and every index array stay. */
kryl_status kryl_matrix_refresh_values(kryl_matrix B, kryl_matrix from);

/* B->value_source, built at the first call (nothing when B->fmt borrows
 * the host CSR: slot k is entry k). */
kryl_status kryl_matrix_value_source(kryl_matrix B);

/* slot[i] (B->fmt.nrows entries, the caller's) = the value slot of B's
 * format holding a_ii of B's layout row i, or -1 where the row stores none. */
kryl_status kryl_matrix_diagonal_slots(kryl_matrix B, int64_t *slot);

/* The relative asymmetry max |a_ij - a_ji| / max |a_ij| of the host copy
 * (an absent a_ji counts as 0; INFINITY for a matrix that is not square or
 * could not be checked), measured once and cached; collective on a
 * distributed matrix. */
double kryl_host_matrix_asymmetry(kryl_host_matrix *h);

/* Whether A counts as symmetric: kryl_host_matrix_asymmetry(h) <= tol. */
bool kryl_host_matrix_is_symmetric(kryl_host_matrix *h, double tol);

/* Whether A's storage is double CSR of all its rows in its layout's order
 * (P A P^T where the layout permutes, columns sorted), built, on one
 * process, square: what the backends' matrix_csr_arrays reads
 * (matrix_checks.c). */
bool kryl_matrix_stored_csr(kryl_matrix A);

/* The same in the natural order (no permutation): what the backends'
 * csr_asymmetry and csr_diagonal read. */
bool kryl_matrix_natural_csr(kryl_matrix A);

/* The nnz values of A's storage in backend memory where they are A's host
 * CSR values in their order, in double (A->fmt borrows the host CSR), as
 * ops->matrix_csr_arrays gives them; else NULL (matrix_checks.c). */
const double *kryl_matrix_stored_values(kryl_matrix A);

/* The relative asymmetry of A (kryl_host_matrix_asymmetry's), measured by
 * the backend's csr_asymmetry where A's CSR is stored there (no host copy
 * needed), else on the host copy, made for `why` ("the symmetry check of
 * cg") when A has none yet; cached with the host copy's. */
kryl_status kryl_matrix_measure_asymmetry(kryl_matrix A, const char *why, double *asymmetry);

/* The diagonal check of A's owned rows (kryl_csr_check_diagonal), by the
 * backend's csr_diagonal where A's CSR is stored there, else on the host
 * copy (made for `why`); d (in A's layout and precision, or NULL) gets
 * a_ii, or 1/a_ii when invert (then unspecified where found->first_zero
 * is a row). */
kryl_status kryl_matrix_check_diagonal(kryl_matrix A, const char *why, kryl_vector d, bool invert,
                                       kryl_diagonal_check *found);

/* d = A's rows' absolute sums as `what` says (kryl_csr_abs_row_sums), by
 * the backend's csr_row_sums where A's CSR is stored there, else on the
 * host copy (made for `why`); d in A's layout, double or A's precision;
 * *zero_row = the first row of A whose sum is 0, or -1. */
kryl_status kryl_matrix_abs_row_sums(kryl_matrix A, const char *why, kryl_row_sums what,
                                     kryl_vector d, int64_t *zero_row);

/* A's host copy, downloaded from its backend storage the first time a
 * host-side step (`why`: "the symmetry check of cg", ...) needs it when A
 * was created from device arrays; nothing to do otherwise. */
kryl_status kryl_matrix_need_host(kryl_matrix A, const char *why);

/* Free A's host copy where A's storage is built in a device's memory and
 * nothing shares the copy (a matrix in natural-order CSR that a backend
 * can download): A is then as if created from device arrays, its copy
 * made again by kryl_matrix_need_host where a host step asks.  Nothing
 * happens otherwise (host backends keep their storage in the copy). */
void kryl_matrix_drop_host_copy(kryl_matrix A);

/* Stored entries, also of a matrix whose host copy is not made yet. */
int64_t kryl_matrix_nnz(kryl_matrix A);

/* A vector of n entries in A's layout (for the solver's workspace). */
kryl_status kryl_vector_create_like(kryl_vector *v, kryl_context ctx, kryl_layout *layout,
                                    kryl_precision precision);

kryl_layout *kryl_layout_retain(kryl_layout *layout);
void kryl_layout_release(kryl_context ctx, kryl_layout *layout);

/* A distributed matrix's part over its owned columns (its iteration
 * storage, preconditioners factor it); A itself otherwise. */
kryl_matrix kryl_matrix_local_part(kryl_matrix A);

/* Collective on a distributed context: the first failing status of any
 * rank (KRYL_SUCCESS if none); a rank that succeeded gets a message
 * naming the rank that failed.  `st` itself on one rank. */
kryl_status kryl_context_agree(kryl_context ctx, kryl_status st);

/* Monotonic wall-clock seconds. */
double kryl_wtime(void);

#ifdef __cplusplus
}
#endif

#endif
