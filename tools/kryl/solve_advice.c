/* Advice after a solve that did not converge.  Each suggestion is one step
 * forward along a fixed ladder, so following the advice never comes back
 * to where it started:
 *   - single precision that stagnated, or whose own residual met the
 *     tolerance while the true one did not: --precision double;
 *   - a CG method on a matrix that is not positive definite (breakdown,
 *     NaN): GMRES with ILU(0), ILUT, ILUTP;
 *   - a CG method otherwise: the next of IC(0) (MIC(0) where A refuses
 *     it), AMG after the preconditioner it ran with;
 *   - GMRES or BiCGSTAB: GMRES with the next of ILU(0), ILUT, ILUTP;
 *   - at the end of a ladder, or after --method auto (which has tried its
 *     own): twice the iterations.
 * A step is suggested only where kryl_solver_create accepts it on this
 * matrix, so the advice never names an option that is refused, up to
 * ADVICE_TRIAL_MAX_NNZ entries: trying a preconditioner is its whole
 * setup, which on a larger matrix can cost minutes (AMG, IC(0)), so there
 * the first step of the ladder is named untried and the reason says so. */
#include "solve_advice.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Largest matrix on which a suggestion is tried by creating its solver
 * (a setup of at most a few seconds). */
#define ADVICE_TRIAL_MAX_NNZ 50000000

/* Whether the solver of job's options changed by `change` ("--name value"
 * pairs) can be created for job->A. */
static bool accepted(const solve_job *job, const char *change)
{
    int64_t nnz = 0;
    if (kryl_matrix_size(job->A, NULL, NULL, &nnz) != KRYL_SUCCESS) return false;
    kryl_solver_options o = job->options;
    char words[256];
    snprintf(words, sizeof words, "%s", change);
    char *save = NULL;
    for (char *name = strtok_r(words, " ", &save); name != NULL;
         name = strtok_r(NULL, " ", &save)) {
        const char *value = strtok_r(NULL, " ", &save);
        if (value == NULL || kryl_solver_options_set(&o, name, value) != KRYL_SUCCESS) return false;
    }
    if (nnz > ADVICE_TRIAL_MAX_NNZ) return true;
    kryl_solver s = NULL;
    cli_log_mute(true);
    const bool ok = kryl_solver_create(&s, job->A, &o) == KRYL_SUCCESS;
    cli_log_mute(false);
    kryl_solver_destroy(&s);
    return ok;
}

/* A ladder's rung: preconditioners of one strength, tried in turn. */
typedef struct rung {
    kryl_precond_kind first, second; /* second: where A refuses first (NONE: no other) */
} rung;

/* The first preconditioner A accepts on a rung above the one `current` is
 * on (from the bottom where current is on none), as "--method M --precond P". */
static bool next_rung(const solve_job *job, const char *method, const rung *ladder, int rungs,
                      kryl_precond_kind current, char *advice, size_t size)
{
    int from = 0;
    for (int k = 0; k < rungs; k++)
        if (ladder[k].first == current ||
            (ladder[k].second != KRYL_PRECOND_NONE && ladder[k].second == current))
            from = k + 1;
    for (int k = from; k < rungs; k++) {
        const kryl_precond_kind kinds[2] = {ladder[k].first, ladder[k].second};
        for (int i = 0; i < 2 && kinds[i] != KRYL_PRECOND_NONE; i++) {
            snprintf(advice, size, "--method %s --precond %s", method, kryl_precond_name(kinds[i]));
            if (accepted(job, advice)) return true;
        }
    }
    return false;
}

bool solve_advice(const solve_job *job, char *advice, size_t size, const char **why)
{
    const kryl_result *r = &job->result;
    int ranks = 1;
    kryl_context_rank(job->ctx, NULL, &ranks);
    if (r->converged || ranks > 1) return false;
    const char *chosen;
    const kryl_solver_options run = solve_job_options_run(job, &chosen);
    if (run.precision == KRYL_SINGLE &&
        (r->reason == KRYL_DIVERGED_STAGNATION || r->relres_recursive <= run.rtol)) {
        snprintf(advice, size, "--precision double");
        *why = "single precision's rounding bounds the true residual";
        if (accepted(job, advice)) return true;
    }
    /* MIC(0) is IC(0) itself where that exists: the same rung */
    static const rung spd[] = {{KRYL_PRECOND_IC0, KRYL_PRECOND_MIC0},
                               {KRYL_PRECOND_AMG, KRYL_PRECOND_NONE}};
    static const rung lu[] = {{KRYL_PRECOND_ILU0, KRYL_PRECOND_NONE},
                              {KRYL_PRECOND_ILUT, KRYL_PRECOND_NONE},
                              {KRYL_PRECOND_ILUTP, KRYL_PRECOND_NONE}};
    const bool cg = run.method == KRYL_METHOD_CG || run.method == KRYL_METHOD_PCG ||
                    run.method == KRYL_METHOD_PIPECG;
    if (job->options.method != KRYL_METHOD_AUTO) {
        const bool indefinite_a =
            r->reason == KRYL_DIVERGED_BREAKDOWN || r->reason == KRYL_DIVERGED_NAN;
        if (cg && !indefinite_a) {
            *why = r->reason == KRYL_DIVERGED_INDEFINITE_PC
                       ? "the preconditioner is not positive definite: a CG method needs one "
                         "that is"
                       : "a stronger symmetric preconditioner";
            const char *method =
                run.method == KRYL_METHOD_CG ? "pcg" : kryl_method_name(run.method);
            if (next_rung(job, method, spd, 2, run.precond, advice, size)) return true;
        } else {
            *why = cg ? "the matrix is not positive definite, as CG needs: GMRES does not need it"
                      : "a stronger preconditioner";
            /* BiCGSTAB, or CG, moves to GMRES at the first rung */
            const kryl_precond_kind current =
                run.method == KRYL_METHOD_GMRES ? run.precond : KRYL_PRECOND_NONE;
            if (next_rung(job, "gmres", lu, 3, current, advice, size)) return true;
        }
    }
    if (r->reason != KRYL_DIVERGED_MAX_ITERATIONS) return false;
    snprintf(advice, size, "--maxit %lld", 2 * (long long)job->options.max_iterations);
    *why = job->options.method == KRYL_METHOD_AUTO ? "every choice of auto ran out of iterations"
                                                   : "the iteration limit ended the solve";
    return accepted(job, advice);
}
