/* The diagonal of a DIA entry, for the host's build and value map and the
 * device's build alike (C, and CUDA where __CUDACC__ makes it a host and
 * device function). */
#ifndef KRYL_FORMATS_FMT_DIA_FIND_H
#define KRYL_FORMATS_FMT_DIA_FIND_H

#include <stdint.h>

#ifdef __CUDACC__
#define KRYL_FMT_DIA_FIND static inline __host__ __device__
#else
#define KRYL_FMT_DIA_FIND static inline
#endif

/* The diagonal d with offset[d] == off among ndiag ascending offsets
 * (halving; it is there). */
KRYL_FMT_DIA_FIND int64_t fmt_dia_find(const int64_t *offset, int64_t ndiag, int64_t off)
{
    int64_t lo = 0, hi = ndiag - 1;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (offset[mid] < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

#endif
