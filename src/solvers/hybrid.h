/* The host-and-device split of the hybrid pipelined CG (hybrid_pipecg.c):
 * the performance model that sizes the host's share of the rows, and the
 * 2-D decomposition of each side's rows (hybrid_split.c). */
#ifndef KRYL_SOLVERS_HYBRID_H
#define KRYL_SOLVERS_HYBRID_H

#include "solvers/solver_impl.h"

/* The rows of A on one side, [begin, begin + rows), as two matrices: over
 * the side's own columns (needs only its own entries of a vector) and over
 * the other side's columns (needs the other side's entries, numbered from
 * the other side's first row); coupling is NULL when the other side has
 * no rows.  Counts of their entries in *own_nnz, *coupling_nnz. */
kryl_status kryl_hybrid_part(kryl_context ctx, const kryl_csr *A, int64_t begin, int64_t rows,
                             kryl_matrix *own, kryl_matrix *coupling, int64_t *own_nnz,
                             int64_t *coupling_nnz);

/* The model of section IV-C of Tiwari & Vadhiyar: SpMV speeds in nonzeros
 * per second on the device (A itself, s->Aw) and on the host (a sample of
 * A's first rows holding at most a few million entries), measured over a
 * few products after one warm-up; the time of one synchronising fetch and
 * of copying a whole vector over the link.  Fills info's model fields. */
typedef struct kryl_hybrid_model {
    double device_rate, host_rate; /* nonzeros per second */
    double sync_s, link_s;         /* a fetch of a few scalars; n doubles device -> host */
} kryl_hybrid_model;

kryl_status kryl_hybrid_measure(kryl_solver s, kryl_context host, kryl_hybrid_model *model,
                                kryl_hybrid_info *info);

/* The bandwidth model's prediction for a split of a matrix of rows x cols
 * with nnz entries that fits the device (hybrid_predict.c). */
typedef struct kryl_hybrid_prediction {
    double device_bandwidth, host_bandwidth; /* bytes/s */
    double device_s, host_s;                 /* one SpMV of A on each side alone */
    double share;                            /* r_cpu = s_cpu / (s_cpu + s_gpu) */
    double exchange_s; /* a step's m over the link and its synchronising fetch */
    double split_s;    /* (1 - r_cpu) device_s + exchange_s */
    bool split;        /* the saving r_cpu device_s beats the exchange by the margin */
} kryl_hybrid_prediction;

void kryl_hybrid_predict(int64_t rows, int64_t cols, int64_t nnz, double device_bandwidth,
                         double host_bandwidth, kryl_hybrid_prediction *p);

/* The host's copy bandwidth for the prediction: timed once per context
 * (a few tens of MB copied on its host threads), the model's host default
 * on a deterministic context. */
kryl_status kryl_hybrid_host_bandwidth(kryl_context ctx, double *bandwidth);

/* The most the host's copy bandwidth can be: its threads at
 * 20 GB/s each, or the one timed where it was. */
double kryl_hybrid_host_bandwidth_bound(kryl_context ctx);

/* The fewest host rows, at least host_rows, that leave a device part of
 * at most `available` bytes. */
int64_t kryl_hybrid_rows_to_fit(const kryl_csr *A, int64_t host_rows, int64_t available);

/* The first rows of A holding at most share * nnz(A) entries. */
int64_t kryl_hybrid_rows_for_share(const kryl_csr *A, double share);

#endif
