/* The guard helpers the omp backend's operations of the Krylov methods
 * beyond CG (pipelined CG, BiCGSTAB, GMRES, flexible CG; declared in
 * omp_backend.h) share.  The serial operations on a handful of host
 * scalars (GMRES's least-squares problem, inner-solve monitors) are the ref
 * backend's: omp memory is host memory, and one implementation of them
 * serves both. */
#ifndef KRYL_BACKENDS_OMP_OMP_KRYLOV_H
#define KRYL_BACKENDS_OMP_OMP_KRYLOV_H

#include <math.h>
#include <stdbool.h>

#include "backends/host_step.h"
#include "backends/omp/omp_backend.h"
#include "backends/ref/ref_krylov.h"

/* Rows of one cache-resident chunk of the basis operations: a part is
 * swept chunk by chunk, each chunk of w (4 KiB of doubles) read
 * from memory once and reused from L1 for every basis vector. */
#define KRYL_OMP_BASIS_CHUNK 512

/* A loop body inlined at every call, so that calls passing constant flags
 * become loops specialised for them. */
#if defined(__GNUC__)
#define KRYL_OMP_INLINE inline __attribute__((always_inline))
#else
#define KRYL_OMP_INLINE inline
#endif

/* No vector the operation writes (bit i of `written` for list[i]) shares
 * storage with another of the non-NULL vectors in list (omp_krylov.c). */
kryl_status kryl_omp_check_distinct(const char *op, const kryl_vector *list, int count,
                                    unsigned written);

/* Optional vectors share storage (both non-NULL and non-empty). */
static inline bool kryl_omp_overlap(kryl_vector a, kryl_vector b)
{
    return a != NULL && b != NULL && a->n > 0 && a->data == b->data;
}

#endif
