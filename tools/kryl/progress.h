/* A live "iter N  relres R" line on a terminal's stderr during long solves. */
#ifndef KRYL_TOOL_PROGRESS_H
#define KRYL_TOOL_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct progress {
    bool enabled; /* stderr is a terminal and progress was asked for */
    double start; /* when the solve started */
    double last;  /* when the line was last drawn */
    int width;    /* characters of the line now shown, 0 when none */
} progress;

/* Prepare a progress line; it shows only if `wanted` and stderr is a terminal. */
void progress_init(progress *p, bool wanted);

/* Start the clock (just before the solve). */
void progress_start(progress *p);

/* A kryl_progress_fn: draws the line once the solve has run > 0.5 s;
 * user is the progress. */
void progress_update(int64_t iteration, double relres, void *user);

/* Erase the line, if one is shown. */
void progress_finish(progress *p);

#endif
