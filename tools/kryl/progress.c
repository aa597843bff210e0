/* Live progress on a terminal: redrawn in place with a carriage return,
 * at most ten times a second, only after the solve has run half a second. */
#define _POSIX_C_SOURCE 200809L

#include "progress.h"

#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "cli.h"

#define PROGRESS_DELAY_S  0.5
#define PROGRESS_PERIOD_S 0.1

void progress_init(progress *p, bool wanted)
{
    p->enabled = wanted && isatty(STDERR_FILENO);
    p->start = p->last = 0.0;
    p->width = 0;
}

void progress_start(progress *p) { p->start = cli_wtime(); }

void progress_update(int64_t iteration, double relres, void *user)
{
    progress *p = user;
    if (!p->enabled) return;
    double now = cli_wtime();
    if (now - p->start < PROGRESS_DELAY_S || now - p->last < PROGRESS_PERIOD_S) return;
    p->last = now;
    int width = fprintf(stderr, "\riter %" PRId64 "  relres %.1e", iteration, relres) - 1;
    /* blank what is left of a longer earlier line */
    if (width < p->width) fprintf(stderr, "%*s", p->width - width, "");
    if (width > p->width) p->width = width;
    fflush(stderr);
}

void progress_finish(progress *p)
{
    if (p->width == 0) return;
    fprintf(stderr, "\r%*s\r", p->width, "");
    fflush(stderr);
    p->width = 0;
}
