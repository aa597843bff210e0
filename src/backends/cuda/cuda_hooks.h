/* Entry points of the cuda backend beyond the operation table, for tests and
 * benchmarks (C-compatible; defined only in builds with CUDA). */
#ifndef KRYL_BACKENDS_CUDA_HOOKS_H
#define KRYL_BACKENDS_CUDA_HOOKS_H

#include <stddef.h>

#include "backends/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* SpMV kernels of the cuda backend's CSR storage. */
typedef enum kryl_cuda_spmv_kernel {
    KRYL_CUDA_SPMV_VECTOR = 0, /* `lanes` threads per row (1 = scalar row-per-thread) */
    KRYL_CUDA_SPMV_STREAM = 1  /* CSR-stream: blocks of rows, coalesced products in shared memory */
} kryl_cuda_spmv_kernel;

/* Make A's SpMV use `kernel` (lanes 1, 2, 4, 8, 16 or 32 for VECTOR; ignored for
 * STREAM) instead of the one chosen from its row lengths. */
kryl_status kryl_cuda_spmv_select(kryl_matrix A, kryl_cuda_spmv_kernel kernel, int lanes);

/* Kernel variants of the formats other than CSR (kryl_cuda_fmt_select):
 * JDS: KRYL_CUDA_FMT_JDS_ROW (a thread per row over the diagonals, the
 * default) or KRYL_CUDA_FMT_JDS_DIAGONAL (a launch per jagged diagonal);
 * DIA: rows per thread, 1 (default) or 2; BCSR2/4: threads per block row,
 * 1, 2, 4, 8, 16 or 32 (default from the blocks per block row); ELL, ELLR,
 * SELL and pJDS: 0 only. */
enum { KRYL_CUDA_FMT_JDS_ROW = 0, KRYL_CUDA_FMT_JDS_DIAGONAL = 1 };

kryl_status kryl_cuda_fmt_select(kryl_matrix A, int variant);

/* Read x through the read-only data cache (true, the default) or with plain
 * loads, in A's format kernels (not CSR). */
kryl_status kryl_cuda_fmt_readonly_x(kryl_matrix A, bool readonly);

/* Host copies of the device arrays of A's storage in ELL, ELLR, JDS, pJDS,
 * SELL or DIA (for tests against kryl_fmt_build's): `stored` slots of col
 * (NULL for DIA) and val (as doubles), row_len (ELLR: stride entries; JDS:
 * nrows; SELL/pJDS: nslices*C; else NULL), ptr (JDS: diag_ptr; SELL/pJDS:
 * slice_ptr; else NULL) and offset (DIA: ndiag).  Free with
 * kryl_cuda_fmt_copy_free. */
typedef struct kryl_cuda_fmt_copy {
    int64_t stored;
    int32_t *col;
    double *val;
    int32_t *row_len;
    int64_t row_len_count;
    int64_t *ptr;
    int64_t ptr_count;
    int32_t *offset;
    int64_t ndiag;
} kryl_cuda_fmt_copy;

kryl_status kryl_cuda_fmt_download(kryl_matrix A, kryl_cuda_fmt_copy *out);
void kryl_cuda_fmt_copy_free(kryl_cuda_fmt_copy *copy);

/* Write a description of A's SpMV kernel ("stream", "vector/8", "dia/rows1",
 * "bcsr2/lanes8, x plain") into buf. */
void kryl_cuda_spmv_describe(kryl_matrix A, char *buf, size_t size);

/* The context's cudaStream_t (as void *), NULL for a context of another backend. */
void *kryl_cuda_stream(kryl_context ctx);

/* Give the context's blocks from now on by cudaMalloc, not from its pool
 * (whose free blocks go back to the device now): other processes map them
 * (cudaIpcGetMemHandle takes no pool's), as the ranks of a host do each
 * other's halos. */
void kryl_cuda_share_memory(kryl_context ctx);

/* Queue the context's operations on `stream` (a cudaStream_t of its device)
 * from now on; kryl_cuda_stream tells the one to go back to.  For work on a
 * second stream between two events, as the distributed SpMV's exchange and
 * ghost product (operations that use the reduction workspace excepted). */
void kryl_cuda_set_stream(kryl_context ctx, void *stream);

/* What one rank of a host receives from the others for kryl_cuda_peer_sum
 * (device memory, every rank's mapped into every other's): each rank's
 * values as slots of 8 bytes, half a value and the number of the sum that
 * stored it (cuda_peer.cuh), two sets used in turn. */
enum { KRYL_PEER_MAX_RANKS = 8, KRYL_PEER_MAX_SUMS = 32 };
typedef struct kryl_peer_box {
    unsigned long long slots[2][KRYL_PEER_MAX_RANKS][2 * KRYL_PEER_MAX_SUMS];
    unsigned long long sequence; /* sums this box's rank has completed */
} kryl_peer_box;

/* scalars[0..count) (device) = the sum over the `size` ranks, queued on
 * `stream` (a cudaStream_t): boxes is a device array of every rank's box
 * as this rank maps it, zeroed before the first call; every rank makes the
 * same calls in the same order. */
kryl_status kryl_cuda_peer_sum(void *stream, double *scalars, int count, int rank, int size,
                               kryl_peer_box *const *boxes);

/* The ranks a kernel sums over by peer-to-peer stores: this one, their
 * number, and every rank's box as this rank maps it (device array). */
typedef struct kryl_peer_group {
    int rank, size;
    kryl_peer_box *const *boxes;
} kryl_peer_group;

/* cg1_terms, their sum over `peers` (NULL: this rank's terms) and
 * cg1_update (backend.h) on the context's stream: in one cooperative
 * launch, or in three where the device cannot launch so.  Every rank of
 * the group makes the same calls in order. */
kryl_status kryl_cuda_cg1_step_ranks(kryl_context ctx, kryl_vector p, kryl_vector q, kryl_vector x,
                                     kryl_vector r, kryl_vector dinv, kryl_scalar t,
                                     kryl_monitor *monitor, const kryl_peer_group *peers);

/* What one rank receives from its halo neighbours for the exchange by
 * peer-to-peer stores (device memory, mapped into every neighbour's):
 * flags[q] counts the exchanges whose values rank q has stored into this
 * rank's ghosts, acks[q] those rank q is ready to receive (it has read its
 * ghosts of the one before). */
typedef struct kryl_peer_halo_box {
    unsigned long long flags[KRYL_PEER_MAX_RANKS];
    unsigned long long acks[KRYL_PEER_MAX_RANKS];
    unsigned long long sequence; /* exchanges this box's rank has completed */
    unsigned int arrived;        /* the store's block tickets (kryl_last_block): 0 between stores */
} kryl_peer_halo_box;

/* One halo neighbour as this rank maps it. */
typedef struct kryl_peer_link {
    kryl_peer_halo_box *box; /* its box */
    void *ghosts;            /* its ghost vector, where this rank's values start */
    int64_t send_offset;     /* this rank's values for it: send positions [offset, +count) */
    int64_t send_count;
    int64_t recv_count; /* the ghosts it sends this rank */
    int rank;
} kryl_peer_link;

/* The neighbours' ghosts <- x at the send positions send_perm, on `stream`:
 * this rank's side of the exchange it counts in `mine` (zeroed before the
 * first), once each neighbour is ready for it (has read its ghosts of the
 * exchange before); links (device, nlinks of them) as this rank maps them,
 * element_size 4 (float) or 8 (double), nsend the positions' count ... */
kryl_status kryl_cuda_peer_halo_store(void *stream, const void *x, size_t element_size,
                                      const int32_t *send_perm, int64_t nsend, int rank,
                                      kryl_peer_halo_box *mine, const kryl_peer_link *links,
                                      int nlinks);
/* ... and the wait until every neighbour's stores of that exchange are
 * here (its values in this rank's ghosts).  Every rank of a halo makes the
 * same calls in order, and reads or writes its ghosts only before the
 * store call or after the wait. */
kryl_status kryl_cuda_peer_halo_wait(void *stream, kryl_peer_halo_box *mine,
                                     const kryl_peer_link *links, int nlinks);

#ifdef __cplusplus
}
#endif

#endif
