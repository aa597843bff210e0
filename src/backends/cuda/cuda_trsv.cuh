/* The cuda backend's triangular solves: the ops' trsv_setup, trsv,
 * trsv_release and trsv_path (cuda_trsv.cu), and the handle the solve
 * paths share (cuda_trsv_levels.cu, cuda_trsv_syncfree.cu,
 * cuda_trsv_host.cu; the choice between them in cuda_trsv_choose.cu). */
#ifndef KRYL_BACKENDS_CUDA_TRSV_CUH
#define KRYL_BACKENDS_CUDA_TRSV_CUH

#include "backends/cuda/cuda_internal.cuh"
#include "backends/cuda/cuda_trsv_hooks.h"

extern "C" {
#include "backends/ref/ref_trsv.h"
}

/* One triangle on the device (the handle): the off-diagonal entries by
 * row, the diagonal and the level schedule, plus what its path needs. */
struct cuda_trsv {
    int64_t n;
    int64_t nnz; /* off-diagonal entries */
    bool lower;
    kryl_precision precision;
    kryl_cuda_trsv_path_kind path; /* never AUTO once set up */
    int lanes;                     /* threads per row: a power of two, at most a warp */
    int64_t *ptr;       /* device, n + 1: off-diagonal entries of row i at [ptr[i], ptr[i+1]) */
    int32_t *col;       /* device: column of each off-diagonal entry */
    void *val;          /* device: its value, float or double */
    void *diag;         /* device: n diagonal values; NULL: unit diagonal */
    int32_t *rows;      /* device: rows level by level */
    int64_t *level_ptr; /* host, nlevels + 1: level l's rows at rows[level_ptr[l] ..] */
    int64_t nlevels;
    int64_t max_level_rows; /* rows of the widest level */
    bool device_only;       /* its values are refreshed on the device: never the host path */
    /* syncfree: the block ticket (zeroed before each solve) */
    unsigned int *ticket;
    /* host: the host split, and pinned copies of b and x in its precision */
    kryl_host_trsv *host;
    struct kryl_vector_s host_b, host_x;
};

/* Finish a handle whose device arrays (ptr, col, val, diag, rows) its
 * caller has filled (cuda_factor.cu: index arrays from the factor's
 * pattern, values gathered on the device), from the level schedule
 * (host): the lanes, then the path chosen as trsv_setup chooses it, never
 * the host path (there is no host copy to solve from). */
kryl_status kryl_cuda_trsv_adopt(kryl_context ctx, kryl_cuda_state *s, cuda_trsv *D,
                                 const int64_t *level_ptr, int64_t nlevels);

/* x = T^{-1} b on the context's stream by each path (b, x device arrays in
 * D's precision); no allocation, no synchronisation. */
kryl_status kryl_cuda_trsv_levels(kryl_cuda_state *s, const cuda_trsv *D, const void *b, void *x);
kryl_status kryl_cuda_trsv_syncfree(kryl_cuda_state *s, const cuda_trsv *D, const void *b, void *x);
kryl_status kryl_cuda_trsv_host(kryl_cuda_state *s, cuda_trsv *D, const void *b, void *x);

/* The syncfree path's ticket; the host path's pinned buffers (D->host set). */
kryl_status kryl_cuda_trsv_syncfree_setup(kryl_cuda_state *s, cuda_trsv *D);
kryl_status kryl_cuda_trsv_host_setup(cuda_trsv *D);
/* Free what only the host path uses (the host split and its buffers). */
void kryl_cuda_trsv_host_release(cuda_trsv *D);

/* x = T^{-1} b by D->path. */
kryl_status kryl_cuda_trsv_run(kryl_cuda_state *s, cuda_trsv *D, const void *b, void *x);

/* Set D->path to the fastest of the paths the model leaves in the running,
 * timed on D's triangle (requested != AUTO: that path, untimed), after
 * setting up the buffers of those paths. */
kryl_status kryl_cuda_trsv_choose(kryl_context ctx, kryl_cuda_state *s, cuda_trsv *D,
                                  kryl_cuda_trsv_path_kind requested);

#endif
