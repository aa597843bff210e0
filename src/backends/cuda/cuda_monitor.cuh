/* The convergence monitor's update as a device function: the body of the
 * monitor_update kernel, and the step a fused update's last block runs once
 * its reduction is complete (record = true), saving a launch per iteration. */
#ifndef KRYL_BACKENDS_CUDA_MONITOR_CUH
#define KRYL_BACKENDS_CUDA_MONITOR_CUH

#include <math.h>

#include "backends/cuda/cuda_internal.cuh"

/* Unless stopped: iteration += advance; rr recorded; history = sqrt(|rr|);
 * stop on a non-finite rr or on rr <= tol2.  One thread calls it. */
__device__ inline void kryl_cuda_monitor_record(kryl_monitor *monitor, double rr, int advance)
{
    if (monitor->stop != KRYL_STOP_RUNNING) return;
    const int64_t k = monitor->iteration + advance;
    monitor->iteration = k;
    monitor->rr = rr;
    if (monitor->history && k >= 0 && k < monitor->history_capacity)
        monitor->history[k] = sqrt(fabs(rr));
    if (!isfinite(rr))
        monitor->stop = KRYL_STOP_NAN;
    else if (rr <= monitor->tol2)
        monitor->stop = KRYL_STOP_CONVERGED;
}

#endif
