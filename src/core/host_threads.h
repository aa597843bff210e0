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
/* A for loop over a long array, each thread a contiguous range of it. */
#define KRYL_HOST_PARALLEL_STATIC(nt)                                                              \
    KRYL_PRAGMA(omp parallel for num_threads(nt) schedule(static) if ((nt) > 1))
/* Inside a region: all threads wait here; the next statement runs on one
 * thread, the others waiting after it. */
#define KRYL_HOST_BARRIER KRYL_PRAGMA(omp barrier)
#define KRYL_HOST_SINGLE  KRYL_PRAGMA(omp single)
/* The next statement x++ (or v = x++) on memory other threads update too. */
#define KRYL_HOST_ATOMIC         KRYL_PRAGMA(omp atomic update)
#define KRYL_HOST_ATOMIC_CAPTURE KRYL_PRAGMA(omp atomic capture)
#else
#define KRYL_HOST_PARALLEL_FOR(nt)
#define KRYL_HOST_PARALLEL(nt)
#define KRYL_HOST_FOR
#define KRYL_HOST_PARALLEL_REDUCE(nt, op, var)
#define KRYL_HOST_FOR_REDUCE(op, a, b)
#define KRYL_HOST_PARALLEL_STATIC(nt)
#define KRYL_HOST_BARRIER
#define KRYL_HOST_SINGLE
#define KRYL_HOST_ATOMIC
#define KRYL_HOST_ATOMIC_CAPTURE
#endif

/* The most threads of the regions that split work by kryl_host_team(). */
#define KRYL_HOST_MAX_TEAM 64

#ifdef __cplusplus
extern "C" {
#endif

/* Threads for the host setup work of a context: 1 on ref, the omp
 * backend's team as it stands (it follows the free cores), else the
 * context's OpenMP threads (its option, or OpenMP's default). */
int kryl_host_threads(kryl_context ctx);

/* The calling thread's number inside a KRYL_HOST_PARALLEL region (0 outside). */
int kryl_host_thread(void);

/* The threads of the calling thread's region (1 outside). */
int kryl_host_team(void);

/* The threads OpenMP runs a region on by default (1 without OpenMP). */
int kryl_host_max_threads(void);

#ifdef __cplusplus
}
#endif

#endif
