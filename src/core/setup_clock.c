/* The setup clock (setup_clock.h). */
#include <string.h>

#include "backends/backend.h"
#include "core/setup_clock.h"

/* Close the running phase: its seconds up to now, after the backend's queued work. */
static void settle(kryl_setup_clock *c, kryl_context ctx)
{
    /* a failed synchronisation shows again in the next operation, which reports it */
    (void)ctx->ops->synchronize(ctx);
    double now = kryl_wtime();
    c->seconds[c->phase] += now - c->mark;
    c->mark = now;
}

void kryl_setup_clock_start(kryl_context ctx, double since)
{
    kryl_setup_clock *c = &ctx->setup_clock;
    if (c->depth++ > 0) return;
    memset(c->seconds, 0, sizeof c->seconds);
    c->phase = KRYL_SETUP_CHECKS;
    c->mark = since;
}

void kryl_setup_clock_stop(kryl_context ctx, double *seconds)
{
    kryl_setup_clock *c = &ctx->setup_clock;
    if (c->depth == 0) return;
    settle(c, ctx);
    memcpy(seconds, c->seconds, sizeof c->seconds);
    c->depth--;
}

int kryl_setup_enter(kryl_context ctx, kryl_setup_phase phase)
{
    kryl_setup_clock *c = &ctx->setup_clock;
    if (c->depth == 0) return -1;
    int previous = c->phase;
    settle(c, ctx);
    c->phase = (int)phase;
    return previous;
}

void kryl_setup_leave(kryl_context ctx, int previous)
{
    kryl_setup_clock *c = &ctx->setup_clock;
    if (c->depth == 0 || previous < 0) return;
    settle(c, ctx);
    c->phase = previous;
}
