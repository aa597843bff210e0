/* The setup clock: the phases of kryl_solver_create (kryl_setup_phase),
 * timed where each runs, however deep in the call tree.  A phase entered
 * inside another pauses it, so every second counts in exactly one phase.
 * Outside a solver's setup the calls do nothing. */
#ifndef KRYL_CORE_SETUP_CLOCK_H
#define KRYL_CORE_SETUP_CLOCK_H

#include "core/objects.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Start timing a solver's setup begun at `since` (kryl_wtime) in
 * KRYL_SETUP_CHECKS; nested setups (a mixed scheme's inner solver) add to
 * the running one. */
void kryl_setup_clock_start(kryl_context ctx, double since);

/* Stop (the outermost setup) and copy the seconds of each phase into
 * seconds[KRYL_SETUP_PHASES]. */
void kryl_setup_clock_stop(kryl_context ctx, double *seconds);

/* Enter `phase`; returns the phase to give kryl_setup_leave. */
int kryl_setup_enter(kryl_context ctx, kryl_setup_phase phase);

/* Leave the phase entered last, back to `previous`. */
void kryl_setup_leave(kryl_context ctx, int previous);

#ifdef __cplusplus
}
#endif

#endif
