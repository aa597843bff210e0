/* KRYL_METHOD_AUTO (auto_choice.c): a solver that chooses a method and a
 * preconditioner from A and holds the solver of its choice. */
#ifndef KRYL_SOLVERS_AUTO_CHOICE_H
#define KRYL_SOLVERS_AUTO_CHOICE_H

#include "solvers/solver_impl.h"

/* The auto solver of A; options->method is KRYL_METHOD_AUTO (checked). */
kryl_status kryl_auto_create(kryl_solver *solver, kryl_matrix A,
                             const kryl_solver_options *options);

/* Solve with the chosen solver, falling back to the next candidates while
 * a solve does not converge. */
kryl_status kryl_auto_solve(kryl_solver s, kryl_vector b, kryl_vector x, kryl_result *result);

/* The solver doing the work: the chosen one for an auto solver, s itself otherwise. */
kryl_solver kryl_auto_chosen(kryl_solver s);

/* Free what an auto solver holds (nothing for another solver). */
void kryl_auto_destroy(kryl_solver s);

#endif
