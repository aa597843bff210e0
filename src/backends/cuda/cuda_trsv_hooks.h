/* Entry points of the cuda backend's triangular solves beyond the operation
 * table, for tests and benchmarks (C-compatible; defined only in builds with
 * CUDA): a triangle set up for one forced solve path. */
#ifndef KRYL_BACKENDS_CUDA_TRSV_HOOKS_H
#define KRYL_BACKENDS_CUDA_TRSV_HOOKS_H

#include "backends/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the cuda backend solves a triangle (docs/FACTORIZATIONS.md,
 * "Triangular solves on the GPU"). */
typedef enum kryl_cuda_trsv_path_kind {
    KRYL_CUDA_TRSV_AUTO = 0,     /* chosen at setup: model, then timing */
    KRYL_CUDA_TRSV_LEVELS = 1,   /* one launch per level */
    KRYL_CUDA_TRSV_SYNCFREE = 2, /* one launch, each row solved once its x_j are */
    KRYL_CUDA_TRSV_HOST = 3,     /* b to the host, serial substitution, x back */
    KRYL_CUDA_TRSV_PATHS = 4
} kryl_cuda_trsv_path_kind;

/* The ops' trsv_setup with the path given rather than chosen (AUTO: as
 * trsv_setup, which also honours the KRYL_TRSV_PATH environment variable;
 * the other paths ignore it).  The handle is solved by ops->trsv and freed
 * by ops->trsv_release. */
kryl_status kryl_cuda_trsv_setup_path(kryl_context ctx, const kryl_csr *T, kryl_precision precision,
                                      bool lower, bool unit_diagonal, const int32_t *level_rows,
                                      const int64_t *level_ptr, int64_t nlevels,
                                      kryl_cuda_trsv_path_kind path, void **handle);

/* The path's name: "auto", "levels", "syncfree" or "host". */
const char *kryl_cuda_trsv_path_name(kryl_cuda_trsv_path_kind path);

#ifdef __cplusplus
}
#endif

#endif
