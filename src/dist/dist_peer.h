/* CUDA IPC of device memory for the peer-to-peer transport among the GPUs
 * of one host (dist_peer.c, dist_peer_halo.c; builds with NCCL), and the
 * CUDA status of src/dist's runtime calls.  cudaMalloc
 * may carve small allocations out of a larger block, and CUDA IPC maps
 * the whole block (CUDA C++ Programming Guide, "Interprocess
 * Communication"), so an export names the block and the offset in it. */
#ifndef KRYL_DIST_PEER_H
#define KRYL_DIST_PEER_H

#include <cuda_runtime_api.h>

#include "dist/dist_internal.h"

typedef struct kryl_peer_export {
    cudaIpcMemHandle_t block;
    int64_t offset; /* of the memory in its block, bytes */
} kryl_peer_export;

/* The export of device memory p (allocated with cudaMalloc). */
kryl_status kryl_peer_export_memory(void *p, kryl_peer_export *e);
/* *box = `bytes` of device memory, zeroed (done on return), and its export. */
kryl_status kryl_peer_new_box(size_t bytes, void **box, kryl_peer_export *e);
/* *p = the memory another process exported as e, mapped here; *block =
 * the mapping to close (cudaIpcCloseMemHandle). */
kryl_status kryl_peer_import_memory(const kryl_peer_export *e, void **block, void **p);
/* A CUDA error -> kryl status naming `what` (and the error cleared); for
 * every CUDA runtime call of src/dist. */
kryl_status kryl_dist_cuda_status(cudaError_t e, const char *what);

#endif
