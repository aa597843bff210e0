/* The structures of distributed contexts and matrices (MPI builds only). */
#ifndef KRYL_DIST_INTERNAL_H
#define KRYL_DIST_INTERNAL_H

#include <mpi.h>

#include "dist/dist.h"

#ifdef __cplusplus
extern "C" {
#endif

struct kryl_comm_thread; /* dist_thread.c */
struct kryl_nccl;        /* dist_nccl.c */
struct kryl_peer;        /* dist_peer.c */
struct kryl_peer_halo;   /* dist_peer_halo.c */

/* How halo values and reduced scalars travel between ranks. */
typedef enum kryl_dist_transport {
    KRYL_TRANSPORT_HOST = 0,       /* backend memory is host memory: MPI on it directly */
    KRYL_TRANSPORT_STAGED = 1,     /* device memory copied through host buffers for MPI */
    KRYL_TRANSPORT_DEVICE_MPI = 2, /* CUDA-aware MPI on device memory */
    KRYL_TRANSPORT_NCCL = 3        /* NCCL on the device, ordered by streams */
} kryl_dist_transport;

/* Accumulated cost of the context's distributed SpMVs (seconds; comm and
 * wait also count the halo exchanges of distributed multicolor sweeps). */
typedef struct kryl_dist_stats {
    int64_t spmvs;
    double compute_s, comm_s, wait_s;
} kryl_dist_stats;

struct kryl_dist_context {
    MPI_Comm comm; /* a duplicate of the caller's */
    int rank, size;
    int thread_level; /* MPI_Query_thread */
    kryl_overlap overlap;
    kryl_partition_kind partition; /* of kryl_matrix_read_mtx */
    kryl_dist_transport transport;
    int node_size;          /* ranks per node as KRYL_NODE_SIZE emulates them; 0: the hosts' */
    struct kryl_nccl *nccl; /* KRYL_TRANSPORT_NCCL */
    bool task_warned;
    const kryl_backend_ops *inner_ops; /* the backend's own table */
    kryl_backend_ops ops;              /* inner_ops with the distributed operations */
    struct kryl_context_s inner;       /* the backend alone: owns matrix parts */
    kryl_dist_stats stats;
    int64_t spmvs_before_capture; /* stats.spmvs when a capture began */
    /* the reduction in flight */
    MPI_Request reduce_req;
    kryl_scalar reduce_first;
    int reduce_count, reduce_capacity;
    double *reduce_buf;
    struct kryl_comm_thread *thread; /* task mode, started on first use */
};

/* Which rank owns which global rows, and (for a graph partition) where
 * each row came from. */
typedef struct kryl_dist_rows {
    int refs;
    int64_t *begin; /* size + 1: rank r owns rows [begin[r], begin[r+1]) */
    int64_t *orig;  /* rank 0 only: original index of global row k; NULL = identity */
} kryl_dist_rows;

/* The halo of a matrix's owned rows: the ghost columns (owned by other
 * ranks) sorted by owner then index, and the owned rows to send. */
typedef struct kryl_halo {
    int refs;
    int nneigh;                    /* ranks exchanged with */
    int *neigh;                    /* their ranks, increasing */
    int *recv_count, *recv_offset; /* per neighbour, into the ghost vector */
    int *send_count, *send_offset; /* per neighbour, into the send buffer */
    int64_t nghost, nsend;
    int32_t *send_rows; /* owned rows (natural local order) whose x entries are sent */
} kryl_halo;

struct kryl_dist_matrix {
    kryl_halo *halo;
    kryl_dist_rows *rows;
    kryl_matrix loc;               /* n x n: owned columns, any format (inner context) */
    kryl_matrix nl;                /* n x nghost: ghost columns, CSR, rows in loc's order */
    kryl_matrix nl_boundary;       /* nl's rows that hold entries, or NULL (dist_boundary.c) */
    int32_t *boundary_rows;        /* backend memory: their positions in y */
    kryl_vector y_boundary;        /* y at those rows */
    int32_t *send_perm;            /* backend memory: positions in x (loc's order) of send_rows */
    kryl_vector sendbuf, ghost;    /* inner vectors of nsend and nghost entries */
    void *send_host, *recv_host;   /* staging in host memory (device backends) */
    bool send_pinned, recv_pinned; /* whether CUDA pinned them */
    struct kryl_peer_halo
        *peer_halo;        /* NCCL transport: the exchange by peer-to-peer stores, or NULL */
    MPI_Request *requests; /* 2 nneigh */
    int64_t nnz_global;
};

/* ---- dist_graph.c ---- */
/* d->ops' graph operations: the backend's, counting SpMVs per replay, with
 * the NCCL transport; none otherwise. */
void kryl_dist_graph_ops(struct kryl_dist_context *d);

/* ---- dist_boundary.c ---- */
/* d->nl_boundary, boundary_rows and y_boundary in `precision` when fewer
 * than half of nl's rows hold entries (else nothing). */
kryl_status kryl_dist_boundary_setup(struct kryl_dist_context *dc, struct kryl_dist_matrix *d,
                                     kryl_precision precision);
void kryl_dist_boundary_release(struct kryl_dist_context *dc, struct kryl_dist_matrix *d);
/* y_boundary = alpha A_c ghosts, which reads no y (nothing without boundary rows) ... */
kryl_status kryl_dist_boundary_product(struct kryl_dist_context *dc, struct kryl_dist_matrix *d,
                                       double alpha, const kryl_monitor *monitor);
/* ... then y += alpha A_nl ghosts: y[rows] += y_boundary, or the product
 * over every row without boundary rows. */
kryl_status kryl_dist_boundary_add(struct kryl_dist_context *dc, struct kryl_dist_matrix *d,
                                   double alpha, kryl_vector y, const kryl_monitor *monitor);

/* ---- halo.c ---- */
/* Build the halo of csr's rows (global columns; rank r owns the columns
 * [begin[r], begin[r+1]), for a square matrix its rows) and split them
 * into the local part (columns - begin[rank]) and the non-local part
 * (ghost index). */
kryl_status kryl_halo_build(struct kryl_dist_context *dc, const kryl_csr *csr, const int64_t *begin,
                            kryl_halo **halo, kryl_csr *loc, kryl_csr *nl);
void kryl_halo_release(kryl_halo *halo);
/* ghosts[k] = the value its owner holds for ghost k of h, owned[i] being
 * this rank's value of its row i, one MPI `type` each (host memory;
 * collective over h's neighbours); _int32 for int32_t. */
kryl_status kryl_halo_exchange(struct kryl_dist_context *dc, const kryl_halo *h, MPI_Datatype type,
                               const void *owned, void *ghosts);
kryl_status kryl_halo_exchange_int32(struct kryl_dist_context *dc, const kryl_halo *h,
                                     const int32_t *owned, int32_t *ghosts);
/* G = the rows of M (this rank's rows, any int32 columns) that h's ghosts
 * are on their owners: h->nghost rows, columns as the owners store them
 * (dist_ghost_rows.c; collective over h's neighbours). */
kryl_status kryl_halo_ghost_rows(struct kryl_dist_context *dc, const kryl_halo *h,
                                 const kryl_csr *M, kryl_csr *G);

/* ---- dist_partition.c ---- */
/* begin[0..size] for rows of the given lengths (prefix offsets row_ptr),
 * contiguous and balanced by nonzeros; ranks may get no rows. */
void kryl_partition_contiguous(const int64_t *row_ptr, int64_t n, int size, int64_t *begin);
/* The graph partition as a renumbering: orig[k] = original row of new row
 * k (parts in rank order), begin[0..size]. */
kryl_status kryl_partition_graph(const kryl_csr *A, int size, int64_t *orig, int64_t *begin);
/* B = P A P^T with new row k = original row orig[k] (columns renumbered, rows sorted). */
kryl_status kryl_csr_renumber(const kryl_csr *A, const int64_t *orig, kryl_csr *B);

/* ---- dist_rows.c ---- */
kryl_status kryl_dist_rows_gather(struct kryl_dist_context *dc, int64_t row_begin, int64_t nrows,
                                  int64_t nrows_global, kryl_dist_rows **rows);
void kryl_dist_rows_release(kryl_dist_rows *rows);
/* The rank owning global row `row`. */
int kryl_dist_owner(const int64_t *begin, int size, int64_t row);

/* ---- dist_matrix.c ---- */
kryl_status kryl_dist_matrix_setup(kryl_context ctx, kryl_matrix A);
void kryl_dist_matrix_release(kryl_context ctx, kryl_matrix A);
/* The exchange buffers of d's halo in `precision` (send and ghost vectors,
 * requests, host staging) and its send positions: inv (NULL: identity)
 * maps an owned row (natural local order) to its position in the vectors
 * whose halo d exchanges. */
kryl_status kryl_dist_exchange_buffers(struct kryl_dist_context *dc, struct kryl_dist_matrix *d,
                                       kryl_precision precision, const int32_t *inv);
/* Free d and what it holds (parts, buffers, its halo and rows references). */
void kryl_dist_parts_free(struct kryl_dist_context *dc, struct kryl_dist_matrix *d);

/* ---- dist_spmv.c ---- */
kryl_status kryl_dist_spmv(kryl_context ctx, kryl_matrix A, double alpha, kryl_vector x,
                           double beta, kryl_vector z, kryl_vector y, const kryl_monitor *monitor);
/* Post the receives and sends of x's send buffer (host memory). */
kryl_status kryl_dist_exchange_post(struct kryl_dist_context *dc, struct kryl_dist_matrix *d,
                                    kryl_precision precision);
kryl_status kryl_dist_exchange_wait(struct kryl_dist_matrix *d);
/* Exchange x's halo into d's ghost vector (x holds the owned entries at
 * d's send positions): the pack and the start in the context's overlap
 * mode (*mode: the one used; vector mode completes it here) ... */
kryl_status kryl_dist_halo_begin(kryl_context ctx, struct kryl_dist_matrix *d, kryl_vector x,
                                 kryl_overlap *mode);
/* ... and its completion: d's ghosts are current in backend memory. */
kryl_status kryl_dist_halo_end(kryl_context ctx, struct kryl_dist_matrix *d, kryl_overlap mode);

/* ---- dist_color.c ---- */
/* A proper coloring of the global graph of a distributed matrix: rows
 * i != j coupled by a stored a_ij or a_ji (on any ranks) differ in color. */
typedef struct kryl_dist_coloring {
    int32_t ncolors; /* over all ranks */
    int32_t *color;  /* of the owned rows, natural local order */
    int rounds;      /* coloring rounds (1: no conflict between ranks) */
} kryl_dist_coloring;
/* Color the rows of A (owned rows, global columns; rank r owns rows
 * [begin[r], begin[r+1])).  Collective; deterministic for a given
 * partition.  Free with kryl_dist_coloring_free. */
kryl_status kryl_dist_color(struct kryl_dist_context *dc, const kryl_csr *A, const int64_t *begin,
                            kryl_dist_coloring *c);
void kryl_dist_coloring_free(kryl_dist_coloring *c);

/* ---- dist_thread.c: the communication thread of task mode ---- */
kryl_status kryl_comm_thread_start(struct kryl_comm_thread **t);
/* Hand the exchange of d to the thread (it posts and completes it). */
void kryl_comm_thread_run(struct kryl_comm_thread *t, struct kryl_dist_context *dc,
                          struct kryl_dist_matrix *d, kryl_precision precision);
/* Wait for the exchange handed over last; its status. */
kryl_status kryl_comm_thread_wait(struct kryl_comm_thread *t);
void kryl_comm_thread_stop(struct kryl_comm_thread *t);

/* ---- dist_nccl.c (builds with NCCL) ---- */
kryl_status kryl_nccl_start(struct kryl_dist_context *dc, kryl_context ctx, struct kryl_nccl **n);
void kryl_nccl_free(struct kryl_nccl *n);
/* Fork the communication stream from the context's stream: the inner
 * context's operations run on it until kryl_nccl_fork_end, which marks
 * where kryl_nccl_wait makes the context's stream join it. */
kryl_status kryl_nccl_fork(struct kryl_dist_context *dc);
kryl_status kryl_nccl_fork_end(struct kryl_dist_context *dc);
kryl_status kryl_nccl_wait(struct kryl_dist_context *dc);
/* Exchange d's halo (its send buffer into its ghosts) on the communication
 * stream, between kryl_nccl_fork and kryl_nccl_fork_end. */
kryl_status kryl_nccl_exchange(struct kryl_dist_context *dc, struct kryl_dist_matrix *d,
                               kryl_precision precision);
kryl_status kryl_nccl_allreduce(struct kryl_dist_context *dc, double *scalars, int count);
/* Whether sums of `count` scalars over the ranks go by peer-to-peer stores. */
bool kryl_nccl_peer_sums(const struct kryl_dist_context *dc, int count);
/* The operation cg1_step over the ranks (only where they sum by peers):
 * cg1_terms, their sum over the ranks and cg1_update, in one launch. */
kryl_status kryl_nccl_cg1_step(kryl_context ctx, kryl_vector p, kryl_vector q, kryl_vector x,
                               kryl_vector r, kryl_vector dinv, kryl_scalar t,
                               kryl_monitor *monitor);
/* Ready d's halo exchange in `precision` (collective): by peer-to-peer
 * stores where the sums go that way and every rank can map its
 * neighbours' ghosts (d->peer_halo), else by NCCL, connected now. */
kryl_status kryl_nccl_connect(struct kryl_dist_context *dc, struct kryl_dist_matrix *d,
                              kryl_precision precision);

/* ---- dist_peer.c (builds with NCCL) ---- */
/* Boxes for sums by peer-to-peer stores where every rank of dc runs on one
 * host and can map the others' memory; *p = NULL where not, or where
 * setting them up failed on some rank (NCCL sums then).  Collective. */
kryl_status kryl_peer_start(struct kryl_dist_context *dc, struct kryl_peer **p);
void kryl_peer_free(struct kryl_peer *p);
/* Whether p sums `count` scalars (else NCCL does). */
bool kryl_peer_sums(const struct kryl_peer *p, int count);
/* scalars (device, count of them) = the sum over ranks, on `stream`. */
kryl_status kryl_peer_sum(struct kryl_peer *p, void *stream, double *scalars, int count);
/* kryl_cuda_cg1_step_ranks over the ranks of `peer`. */
kryl_status kryl_peer_cg1_step(struct kryl_peer *peer, kryl_context ctx, kryl_vector p,
                               kryl_vector q, kryl_vector x, kryl_vector r, kryl_vector dinv,
                               kryl_scalar t, kryl_monitor *monitor);

/* ---- dist_peer_halo.c (builds with NCCL) ---- */
/* *p = the exchange of d's halo in `precision` by peer-to-peer stores, or
 * NULL where this rank has no neighbours or where some rank cannot map its
 * neighbours' memory.  Collective; call only where the sums go by peer. */
kryl_status kryl_peer_halo_start(struct kryl_dist_context *dc, struct kryl_dist_matrix *d,
                                 kryl_precision precision, struct kryl_peer_halo **p);
void kryl_peer_halo_free(struct kryl_peer_halo *p);
/* The neighbours' ghosts <- x at d's send positions, and the wait for
 * theirs in d's ghosts, queued on the inner context's current stream. */
kryl_status kryl_peer_halo_exchange(struct kryl_dist_context *dc, struct kryl_dist_matrix *d,
                                    kryl_vector x);

/* The first failing status of any rank of comm (kryl_context_agree). */
kryl_status kryl_dist_agree_comm(MPI_Comm comm, kryl_status st);

/* Whether all ranks of dc share one node: one host, or one node of
 * dc->node_size ranks where KRYL_NODE_SIZE emulates several.  Collective. */
bool kryl_dist_one_node(struct kryl_dist_context *dc);
/* The node of this rank where KRYL_NODE_SIZE emulates nodes (rank /
 * node_size), else -1. */
int kryl_dist_emulated_node(const struct kryl_dist_context *dc);

/* MPI error -> kryl status with the MPI message. */
kryl_status kryl_mpi_status(int err, const char *what);

#ifdef __cplusplus
}
#endif

#endif
