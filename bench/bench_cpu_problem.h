/* The problem of the CPU benchmarks, through the public API only: an omp
 * context of a given thread count, a generated matrix on it, b = A*1 and
 * x = 0.  A failed call ends the program with its message. */
#ifndef KRYL_BENCH_CPU_PROBLEM_H
#define KRYL_BENCH_CPU_PROBLEM_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_try.h"
#include "kryl.h"

typedef struct bench_problem {
    kryl_context ctx;
    kryl_matrix A;
    kryl_vector b, x;
    int64_t nrows, nnz;
} bench_problem;

/* The generated matrix `kind` of size n on an omp context of `threads`
 * threads, deterministic or not (log: its log callback at INFO, or NULL),
 * b = A*1, x = 0. */
static inline bench_problem bench_problem_create(kryl_generator_kind kind, long n, int threads,
                                                 bool deterministic, kryl_log_fn log,
                                                 void *log_user)
{
    bench_problem p;
    kryl_context_options copt;
    kryl_context_options_init(&copt);
    copt.backend = KRYL_BACKEND_OMP;
    copt.threads = threads;
    copt.deterministic = deterministic;
    if (log != NULL) {
        copt.log = log;
        copt.log_user = log_user;
        copt.log_level = KRYL_LOG_INFO;
    }
    BENCH_TRY(kryl_context_create(&p.ctx, &copt));
    kryl_generator_options gen;
    kryl_generator_options_init(&gen, kind, n);
    int64_t ncols;
    BENCH_TRY(kryl_generator_size(&gen, &p.nrows, &p.nnz));
    BENCH_TRY(kryl_matrix_generate(&p.A, p.ctx, &gen, 0, p.nrows));
    BENCH_TRY(kryl_matrix_size(p.A, &p.nrows, &ncols, &p.nnz));
    kryl_vector ones;
    BENCH_TRY(kryl_vector_create(&ones, p.A, KRYL_DOUBLE));
    BENCH_TRY(kryl_vector_create(&p.b, p.A, KRYL_DOUBLE));
    BENCH_TRY(kryl_vector_create(&p.x, p.A, KRYL_DOUBLE));
    /* b = A*1 */
    BENCH_TRY(kryl_vector_fill(ones, 1.0));
    BENCH_TRY(kryl_matrix_spmv(p.A, 1.0, ones, 0.0, p.b));
    kryl_vector_destroy(&ones);
    return p;
}

static inline void bench_problem_destroy(bench_problem *p)
{
    kryl_vector_destroy(&p->b);
    kryl_vector_destroy(&p->x);
    kryl_matrix_destroy(&p->A);
    kryl_context_destroy(&p->ctx);
}

/* A positive integer argument, or exit with a message. */
static inline long bench_parse_count(const char *text, const char *what)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (*end != '\0' || v <= 0) {
        fprintf(stderr, "%s '%s' is not a positive integer\n", what, text);
        exit(2);
    }
    return v;
}

#endif
