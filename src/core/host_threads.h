/* Host loops of setup work (matrix products, aggregation) run by the
 * context's threads: one on ref (the serial oracle), OpenMP's count on the
 * others.  Each iteration of such a loop writes only its own outputs, so
 * the result does not depend on the thread count. */
#ifndef KRYL_CORE_HOST_THREADS_H
#define KRYL_CORE_HOST_THREADS_H

#include "kryl.h"

#define KRYL_PRAGMA(x) _Pragma(#x)
#ifdef KRYL_HAVE_OPENMP
/* A for loop over independent iterations on nt threads (nt = 1: serial). */
#define KRYL_HOST_PARALLEL_FOR(nt)                                                                 \
    KRYL_PRAGMA(omp parallel for num_threads(nt) schedule(dynamic, 512) if ((nt) > 1))
/* A parallel region on nt threads; kryl_host_thread() numbers them 0.. */
#define KRYL_HOST_PARALLEL(nt) KRYL_PRAGMA(omp parallel num_threads(nt) if ((nt) > 1))
/* The loop after it shares the region's iterations among its threads. */
#define KRYL_HOST_FOR KRYL_PRAGMA(omp for schedule(dynamic, 512))
/* A for loop whose iterations combine into `var` by op (max, min, +) on nt
 * threads; with max and min the result is the serial loop's whatever nt. */
#define KRYL_HOST_PARALLEL_REDUCE(nt, op, var)                                                     \
    KRYL_PRAGMA(omp parallel for num_threads(nt) schedule(static) reduction(op : var) if ((nt) > 1))
/* KRYL_HOST_FOR whose iterations add into the two integers a and b. */
#define KRYL_HOST_FOR_REDUCE(op, a, b) KRYL_PRAGMA(omp for schedule(dynamic, 1) reduction(op : a, b))
#else
#define KRYL_HOST_PARALLEL_FOR(nt)
#define KRYL_HOST_PARALLEL(nt)
#define KRYL_HOST_FOR
#define KRYL_HOST_PARALLEL_REDUCE(nt, op, var)
#define KRYL_HOST_FOR_REDUCE(op, a, b)
#endif

/* Threads for the host setup work of a context: 1 on ref, else the
 * context's OpenMP threads (its option, or OpenMP's default). */
int kryl_host_threads(kryl_context ctx);

/* The calling thread's number inside a KRYL_HOST_PARALLEL region (0 outside). */
int kryl_host_thread(void);

#endif
