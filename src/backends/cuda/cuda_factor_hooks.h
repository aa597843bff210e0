/* Entry points of the cuda backend's factor beyond the operation table,
 * for tests (C-compatible; defined only in builds with CUDA). */
#ifndef KRYL_BACKENDS_CUDA_FACTOR_HOOKS_H
#define KRYL_BACKENDS_CUDA_FACTOR_HOOKS_H

#include "factor/factor_pattern.h"

#ifdef __cplusplus
extern "C" {
#endif

/* P = a host copy of the pattern and level schedules the handle (of
 * factor_setup or factor_analyse and factor_schedule) holds on the device
 * (the levels' per-row array left NULL; no schedule: empty ones).  Free
 * with kryl_factor_pattern_free. */
kryl_status kryl_cuda_factor_download(kryl_context ctx, const void *handle, kryl_factor_pattern *P);

/* *values (malloc'd, *count = the factor's entries) = a host copy of the
 * factor's values, in the order of its pattern (kryl_cuda_factor_download). */
kryl_status kryl_cuda_factor_values(kryl_context ctx, const void *handle, double **values,
                                    int64_t *count);

#ifdef __cplusplus
}
#endif

#endif
