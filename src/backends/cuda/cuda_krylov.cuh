/* The cuda backend's operations of the Krylov methods beyond CG (pipelined
 * CG, BiCGSTAB, GMRES, flexible CG, inner-solve monitors) and its graph
 * capture, with the device helpers their kernels share: the monitor guard,
 * stopping, and "am I the last block" for kernels that must update a scalar
 * every block has read.  Semantics: backend.h; specification: the ref
 * backend (src/backends/ref/ref_krylov.c). */
#ifndef KRYL_BACKENDS_CUDA_KRYLOV_CUH
#define KRYL_BACKENDS_CUDA_KRYLOV_CUH

#include "backends/cuda/cuda_reduce.cuh"

/* Grid-stride loop over i in [0, n). */
#define KRYL_CUDA_GRID_LOOP(i, n)                                                                  \
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);                      \
         i += (int64_t)gridDim.x * blockDim.x)

/* Whether a guarded kernel must do nothing (monitor NULL: unguarded).  The
 * flag is read from device memory; within one launch it is written only by
 * a kryl_cuda_halt whose decision every block reaches on its own, so a
 * block that sees it set returns as that block would have. */
__device__ inline bool kryl_cuda_halted(const kryl_monitor *monitor)
{
    return monitor && *(volatile const int32_t *)&monitor->stop != KRYL_STOP_RUNNING;
}

/* Stop the iteration for `why` (one thread of the grid writes it). */
__device__ inline void kryl_cuda_halt(kryl_monitor *monitor, int32_t why)
{
    if (monitor && blockIdx.x == 0 && threadIdx.x == 0) monitor->stop = why;
}

/* True in thread 0 of the last block to get here (every thread of every
 * block calls it once, after its last read of the scalars the last block
 * will overwrite).  counter is 0 on entry and is left 0. */
__device__ inline bool kryl_cuda_last_block(unsigned int *counter)
{
    __syncthreads();
    return kryl_last_block(counter) && threadIdx.x == 0;
}

/* The typed data of v, or NULL. */
template <typename T> static inline T *kryl_cuda_data(kryl_vector v)
{
    return v ? static_cast<T *>(v->data) : nullptr;
}

/* A scalar argument must point somewhere. */
kryl_status kryl_cuda_check_scalar(const char *op, const char *name, kryl_scalar scalar);

/* ---- operations (cuda_pipecg.cu, cuda_bicgstab.cu, cuda_krylov.cu, cuda_gmres.cu) ---- */
kryl_status kryl_cuda_pipecg_update(kryl_context ctx, kryl_scalar sc, int restart,
                                    const kryl_pipecg_vectors *v, kryl_vector dinv, double *coef,
                                    kryl_monitor *monitor, bool record);
kryl_status kryl_cuda_pipecg_spmv_update(kryl_context ctx, kryl_matrix A, kryl_scalar sc,
                                         const kryl_pipecg_vectors *v, kryl_vector dinv,
                                         kryl_vector next, double *coef, kryl_monitor *monitor,
                                         bool record);
/* cuda_pipecg_resident.cu */
kryl_status kryl_cuda_pipecg_spmv_steps(kryl_context ctx, kryl_matrix A, kryl_scalar sc,
                                        const kryl_pipecg_vectors *v, kryl_vector dinv,
                                        kryl_vector next, double *coef, kryl_monitor *monitor,
                                        int64_t steps, bool *queued);
kryl_status kryl_cuda_dot2(kryl_context ctx, kryl_vector x, kryl_vector y, kryl_vector z,
                           kryl_scalar out);
kryl_status kryl_cuda_bicgstab_update_s(kryl_context ctx, kryl_scalar sc, kryl_vector r,
                                        kryl_vector v, kryl_vector dinv, kryl_vector s_hat,
                                        kryl_monitor *monitor);
kryl_status kryl_cuda_bicgstab_update_xr(kryl_context ctx, kryl_scalar sc, kryl_vector x,
                                         kryl_vector r, kryl_vector p_hat, kryl_vector s_hat,
                                         kryl_vector t, kryl_vector r_hat, kryl_monitor *monitor);
kryl_status kryl_cuda_bicgstab_update_p(kryl_context ctx, kryl_scalar sc, kryl_vector p,
                                        kryl_vector r, kryl_vector v, kryl_vector dinv,
                                        kryl_vector p_hat, kryl_monitor *monitor);
kryl_status kryl_cuda_multi_dot(kryl_context ctx, kryl_vector V, int k, kryl_vector w,
                                kryl_scalar h, kryl_monitor *monitor);
kryl_status kryl_cuda_multi_axpy(kryl_context ctx, kryl_vector V, int k, double alpha,
                                 kryl_scalar h, kryl_vector w, kryl_scalar ww,
                                 kryl_monitor *monitor);
kryl_status kryl_cuda_normalize(kryl_context ctx, kryl_vector v, kryl_scalar vv,
                                kryl_monitor *monitor);
kryl_status kryl_cuda_gmres_cycle_start(kryl_context ctx, const kryl_gmres_ls *ls, kryl_scalar rr,
                                        kryl_monitor *monitor);
kryl_status kryl_cuda_gmres_givens(kryl_context ctx, const kryl_gmres_ls *ls, int k,
                                   kryl_monitor *monitor);
kryl_status kryl_cuda_gmres_solve(kryl_context ctx, const kryl_gmres_ls *ls);
/* cuda_dcgs2.cu */
kryl_status kryl_cuda_gmres_dcgs2_dot(kryl_context ctx, kryl_vector V, int k, kryl_vector w,
                                      kryl_scalar d, kryl_monitor *monitor);
kryl_status kryl_cuda_gmres_dcgs2_update(kryl_context ctx, kryl_vector V, int k, kryl_vector w,
                                         kryl_scalar d, kryl_scalar f, kryl_monitor *monitor);
kryl_status kryl_cuda_gmres_dcgs2_column(kryl_context ctx, const kryl_gmres_ls *ls, int k,
                                         kryl_monitor *monitor);
kryl_status kryl_cuda_fcg_update_p(kryl_context ctx, kryl_scalar num, kryl_scalar den,
                                   kryl_vector z, kryl_vector p, kryl_monitor *monitor);
kryl_status kryl_cuda_monitor_restart(kryl_context ctx, kryl_monitor *inner,
                                      const kryl_monitor *outer, kryl_scalar rr, double factor);

/* ---- graphs (cuda_graph.cu) ---- */
kryl_status kryl_cuda_capture_begin(kryl_context ctx);
kryl_status kryl_cuda_capture_end(kryl_context ctx, void **graph);
kryl_status kryl_cuda_graph_launch(kryl_context ctx, void *graph);
void kryl_cuda_graph_release(kryl_context ctx, void *graph);

#endif
