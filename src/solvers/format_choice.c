/* --format auto: the storage format for a solve, chosen by the SpMV
 * bandwidth model (src/formats/fmt_model.c) or, with tune, by timing a few
 * SpMVs of each candidate the backend can run. */
#include <math.h>
#include <stdio.h>

#include "solvers/solver_impl.h"

enum { TUNE_REPETITIONS = 5, TUNE_ROUNDS = 3 };

/* Seconds per SpMV of A stored in `format` on the backend, or a refusal. */
static kryl_status time_format(kryl_solver s, kryl_format format, double *seconds)
{
    kryl_matrix B = NULL;
    kryl_vector x = NULL, y = NULL;
    kryl_status st = kryl_matrix_convert(&B, s->A, s->precision, format, NULL, KRYL_ORDER_NONE);
    if (st == KRYL_SUCCESS) st = kryl_vector_create_like(&x, s->ctx, B->layout, s->precision);
    if (st == KRYL_SUCCESS) st = kryl_vector_create_like(&y, s->ctx, B->layout, s->precision);
    if (st == KRYL_SUCCESS) st = s->ops->fill(s->ctx, x, 1.0);
    /* y = A x, once to warm up, then timed */
    if (st == KRYL_SUCCESS) st = s->ops->spmv(s->ctx, B, 1.0, x, 0.0, NULL, y, NULL);
    if (st == KRYL_SUCCESS) st = s->ops->synchronize(s->ctx);
    /* the best of a few rounds: a busy host spoils averages, not minima */
    *seconds = INFINITY;
    for (int round = 0; round < TUNE_ROUNDS && st == KRYL_SUCCESS; round++) {
        double t0 = kryl_wtime();
        for (int k = 0; k < TUNE_REPETITIONS && st == KRYL_SUCCESS; k++)
            st = s->ops->spmv(s->ctx, B, 1.0, x, 0.0, NULL, y, NULL);
        if (st == KRYL_SUCCESS) st = s->ops->synchronize(s->ctx);
        *seconds = fmin(*seconds, (kryl_wtime() - t0) / TUNE_REPETITIONS);
    }
    kryl_vector_destroy(&x);
    kryl_vector_destroy(&y);
    kryl_matrix_destroy(&B);
    return st;
}

static kryl_status choose_by_timing(kryl_solver s)
{
    double best = 0.0;
    s->format = KRYL_FORMAT_AUTO;
    char *why = s->format_reason;
    size_t room = sizeof s->format_reason;
    int used = snprintf(why, room, "timed:");
    for (int f = KRYL_FORMAT_CSR; f <= KRYL_FORMAT_DIA; f++) {
        if (!(s->ops->formats & (1u << f))) continue;
        double t;
        kryl_status st = time_format(s, (kryl_format)f, &t);
        if (st == KRYL_ERR_FORMAT_UNSUITABLE) continue; /* refused: too much padding */
        KRYL_TRY(st);
        if (used >= 0 && (size_t)used < room)
            used += snprintf(why + used, room - (size_t)used, " %s %.3g ms", kryl_format_name(f),
                             1e3 * t);
        if (s->format == KRYL_FORMAT_AUTO || t < best) {
            best = t;
            s->format = (kryl_format)f;
        }
    }
    kryl_log(s->ctx, KRYL_LOG_INFO, "kryl: format %s (%s)", kryl_format_name(s->format), why);
    return KRYL_SUCCESS;
}

kryl_status kryl_solver_choose_format(kryl_solver s)
{
    if (s->options.tune && kryl_context_deterministic(s->ctx))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "tune chooses the format by timing, which can differ from run to run: "
                          "not on a deterministic context (the model's choice is reproducible)");
    if (s->options.tune) return choose_by_timing(s);
    return kryl_matrix_choose_format(s->A, &s->format, s->format_reason, sizeof s->format_reason);
}
