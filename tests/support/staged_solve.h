/* One solve from nothing back to nothing, made as a caller makes it, for the
 * tests of allocation failures: generate A on the context (its upload),
 * set up a solver (format conversion, preconditioner, vectors and
 * workspace), create b and x, solve, and destroy everything, also after a
 * failure at any step. */
#ifndef KRYL_TEST_STAGED_SOLVE_H
#define KRYL_TEST_STAGED_SOLVE_H

#include <stddef.h>

#include "kryl.h"

typedef struct staged_case {
    const char *name;
    kryl_generator_kind kind;
    int64_t n; /* grid points per direction */
    kryl_method method;
    kryl_precond_kind precond;
    kryl_format format;
    int restart;             /* GMRES; 0: the default */
    kryl_mixed_scheme mixed; /* KRYL_MIXED_NONE: double throughout */
} staged_case;

/* The steps a staged solve fails in. */
typedef enum staged_step {
    STAGED_MATRIX = 0, /* kryl_matrix_generate: the matrix's upload */
    STAGED_SOLVER,     /* kryl_solver_create: conversion, preconditioner, workspace */
    STAGED_VECTORS,    /* kryl_vector_create of b and x */
    STAGED_SOLVE,      /* kryl_solver_solve */
    STAGED_DONE        /* no failure */
} staged_step;

const char *staged_step_name(staged_step step);

/* Run c on ctx.  Returns the status of the first failing call (*step says
 * which, `message` holds kryl_last_error() as it was then) or KRYL_SUCCESS
 * with *step = STAGED_DONE and the solve's *result.  Every object made is
 * destroyed before it returns. */
kryl_status staged_solve(kryl_context ctx, const staged_case *c, staged_step *step,
                         kryl_result *result, char *message, size_t size);

#endif
