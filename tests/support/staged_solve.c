#include "staged_solve.h"

#include <stdio.h>
#include <stdlib.h>

const char *staged_step_name(staged_step step)
{
    static const char *names[] = {"matrix", "solver setup", "vectors", "solve", "done"};
    return step >= STAGED_MATRIX && step <= STAGED_DONE ? names[step] : "?";
}

/* Keep the first failure: its step and message. */
static kryl_status note(kryl_status st, staged_step at, staged_step *step, char *message,
                        size_t size)
{
    if (st != KRYL_SUCCESS && *step == STAGED_DONE) {
        *step = at;
        snprintf(message, size, "%s", kryl_last_error());
    }
    return st;
}

kryl_status staged_solve(kryl_context ctx, const staged_case *c, staged_step *step,
                         kryl_result *result, char *message, size_t size)
{
    *step = STAGED_DONE;
    if (size > 0) message[0] = '\0';
    kryl_matrix A = NULL;
    kryl_solver solver = NULL;
    kryl_vector b = NULL, x = NULL;
    kryl_generator_options g;
    kryl_generator_options_init(&g, c->kind, c->n);
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.method = c->method;
    o.precond = c->precond;
    o.format = c->format;
    if (c->restart > 0) o.restart = c->restart;
    o.mixed = c->mixed;
    if (c->mixed != KRYL_MIXED_NONE) o.precision = KRYL_MIXED;
    o.max_iterations = 2000;
    int64_t n = 0, estimate = 0;
    kryl_status st = kryl_generator_size(&g, &n, &estimate);
    if (st == KRYL_SUCCESS)
        st = note(kryl_matrix_generate(&A, ctx, &g, 0, n), STAGED_MATRIX, step, message, size);
    if (st == KRYL_SUCCESS)
        st = note(kryl_solver_create(&solver, A, &o), STAGED_SOLVER, step, message, size);
    if (st == KRYL_SUCCESS)
        st = note(kryl_vector_create(&b, A, KRYL_DOUBLE), STAGED_VECTORS, step, message, size);
    if (st == KRYL_SUCCESS)
        st = note(kryl_vector_create(&x, A, KRYL_DOUBLE), STAGED_VECTORS, step, message, size);
    if (st == KRYL_SUCCESS)
        st = note(kryl_vector_fill(b, 1.0), STAGED_VECTORS, step, message, size);
    if (st == KRYL_SUCCESS)
        st = note(kryl_solver_solve(solver, b, x, result), STAGED_SOLVE, step, message, size);
    kryl_vector_destroy(&x);
    kryl_vector_destroy(&b);
    kryl_solver_destroy(&solver);
    kryl_matrix_destroy(&A);
    return st;
}
