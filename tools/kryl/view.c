/* --view: one description of the solver stack, written through an emitter
 * either as text ("  precond    ilut (droptol 0.001, maxfill 20)") or as
 * JSON ({"precond": {"type": "ilut", "droptol": 0.001, ...}}). */
#include "view.h"

#include <inttypes.h>
#include <string.h>

/* Where a view goes: text lines or a JSON writer. */
typedef struct emitter {
    FILE *out;      /* text, or NULL */
    json_writer *w; /* JSON, or NULL */
    int params;     /* parameters written in the open section (text) */
} emitter;

/* Open a part of the stack: its name and what it is. */
static void part(emitter *e, const char *name, const char *type)
{
    if (e->w != NULL) {
        json_begin(e->w, name);
        json_string(e->w, "type", type);
        return;
    }
    fprintf(e->out, "  %-11s%s", name, type);
    e->params = 0;
}

static void end_part(emitter *e)
{
    if (e->w != NULL) {
        json_end(e->w);
        return;
    }
    fprintf(e->out, "%s\n", e->params > 0 ? ")" : "");
}

/* Text: " (" before the first parameter, ", " between them. */
static void key(emitter *e, const char *name)
{
    fprintf(e->out, "%s%s ", e->params++ == 0 ? " (" : ", ", name);
}

static void param_string(emitter *e, const char *name, const char *value)
{
    if (e->w != NULL) {
        json_string(e->w, name, value);
        return;
    }
    key(e, name);
    fputs(value, e->out);
}

static void param_int(emitter *e, const char *name, int64_t value)
{
    if (e->w != NULL) {
        json_int(e->w, name, value);
        return;
    }
    key(e, name);
    fprintf(e->out, "%" PRId64, value);
}

static void param_double(emitter *e, const char *name, double value)
{
    if (e->w != NULL) {
        json_double(e->w, name, value);
        return;
    }
    key(e, name);
    fprintf(e->out, "%g", value);
}

static void param_bool(emitter *e, const char *name, bool value)
{
    if (e->w != NULL) {
        json_bool(e->w, name, value);
        return;
    }
    key(e, name);
    fputs(value ? "true" : "false", e->out);
}

/* The outer iteration a mixed scheme runs around its single-precision solves. */
static const char *mixed_outer(const kryl_solver_options *o)
{
    bool symmetric = o->method == KRYL_METHOD_CG || o->method == KRYL_METHOD_PCG ||
                     o->method == KRYL_METHOD_PIPECG;
    switch (o->mixed) {
    case KRYL_MIXED_IR: return "iterative refinement";
    case KRYL_MIXED_INNER_OUTER: return symmetric ? "fcg" : "fgmres";
    case KRYL_MIXED_RELIABLE: return "reliable updates";
    default: return "none";
    }
}

static void method(emitter *e, const kryl_solver_options *o)
{
    part(e, "method", kryl_method_name(o->method));
    if (o->method == KRYL_METHOD_GMRES) {
        param_int(e, "restart", o->restart > 0 ? o->restart : 40);
        param_string(e, "orthog", o->gmres_orthog == KRYL_ORTHOG_CGS2 ? "cgs2" : "dcgs2");
    }
    param_double(e, "rtol", o->rtol);
    param_double(e, "atol", o->atol);
    param_int(e, "maxit", o->max_iterations);
    if (o->check_interval > 0)
        param_int(e, "check_interval", o->check_interval);
    else
        param_string(e, "check_interval", "adaptive");
    end_part(e);
    if (o->mixed == KRYL_MIXED_NONE) return;
    part(e, "mixed", kryl_mixed_scheme_name(o->mixed));
    param_string(e, "outer", mixed_outer(o));
    param_string(e, "outer_precision", "double");
    param_string(e, "inner", kryl_method_name(o->method));
    param_string(e, "inner_precision", "single");
    param_string(e, "inner_precond", kryl_precond_name(o->precond));
    param_double(e, o->mixed == KRYL_MIXED_RELIABLE ? "refresh_drop" : "inner_rtol", o->inner_rtol);
    if (o->inner_iterations > 0) param_int(e, "inner_its", o->inner_iterations);
    end_part(e);
}

static void precond(emitter *e, const solve_job *job)
{
    const kryl_solver_options run = solve_job_options_run(job, NULL), *o = &run;
    part(e, "precond", kryl_precond_name(o->precond));
    switch (o->precond) {
    case KRYL_PRECOND_LSPOLY: param_int(e, "degree", o->degree > 0 ? o->degree : 8); break;
    case KRYL_PRECOND_ILUK: param_int(e, "fill", o->fill); break;
    case KRYL_PRECOND_ILUT:
        param_double(e, "droptol", o->droptol);
        param_int(e, "maxfill", o->maxfill);
        break;
    case KRYL_PRECOND_BJACOBI:
        if (o->blocks > 0)
            param_int(e, "blocks", o->blocks);
        else
            param_string(e, "blocks", "one per 4096 rows");
        param_string(e, "partition", kryl_partition_name(o->partition));
        param_string(e, "block_factor",
                     o->block_factor == KRYL_PRECOND_NONE ? "ic0 or ilu0 (by symmetry)"
                                                          : kryl_precond_name(o->block_factor));
        break;
    case KRYL_PRECOND_MCSSOR:
        param_int(e, "sweeps", o->sweeps);
        param_double(e, "omega", o->omega);
        break;
    case KRYL_PRECOND_AMG:
        param_string(e, "aggregation", kryl_amg_aggregation_name(o->amg.aggregation));
        param_string(e, "coarsening", kryl_amg_coarsening_name(o->amg.coarsening));
        param_double(e, "theta", o->amg.theta);
        param_double(e, "coarse_theta", o->amg.coarse_theta);
        param_string(e, "smoother", kryl_amg_smoother_name(o->amg.smoother));
        if (o->amg.sweeps > 0) param_int(e, "sweeps", o->amg.sweeps);
        param_string(e, "cycle", kryl_amg_cycle_name(o->amg.cycle));
        param_int(e, "coarse_size", o->amg.coarse_size);
        param_int(e, "nullspace_vectors", o->amg.nullspace_vectors ? o->amg.nullspace_vectors : 1);
        break;
    default: break;
    }
    /* what setup built: levels and solve paths, colors, blocks */
    char built[192] = "";
    kryl_solver_precond_info(job->solver, built, sizeof built);
    if (built[0] != '\0' && strcmp(built, kryl_precond_name(o->precond)) != 0)
        param_string(e, "built", built);
    end_part(e);
}

static void matrix(emitter *e, const solve_job *job)
{
    const kryl_solver_options *o = &job->options;
    kryl_format format = o->format;
    const char *reason = "requested";
    kryl_solver_format(job->solver, &format, &reason);
    int64_t nrows = 0, ncols = 0, nnz = 0;
    kryl_matrix_size(job->A, &nrows, &ncols, &nnz);
    part(e, "matrix", kryl_format_name(format));
    param_int(e, "rows", nrows);
    param_int(e, "nnz", nnz);
    param_string(e, "order", kryl_order_name(o->order));
    if (o->format == KRYL_FORMAT_AUTO) param_string(e, "format_reason", reason);
    if (kryl_matrix_is_pattern(job->A)) param_string(e, "values", "pattern file: all 1");
    end_part(e);
}

/* The hybrid method as run, and the rows of each side (nothing without --hybrid). */
static void hybrid(emitter *e, const solve_job *job)
{
    kryl_hybrid_info info;
    if (kryl_solver_hybrid_info(job->solver, &info) != KRYL_SUCCESS) return;
    part(e, "hybrid", kryl_hybrid_name(info.method));
    param_string(e, "requested", kryl_hybrid_name(job->options.hybrid));
    param_int(e, "host_rows", info.host_rows);
    param_int(e, "device_rows", info.device_rows);
    end_part(e);
}

static void emit(emitter *e, const solve_job *job)
{
    const kryl_solver_options run = solve_job_options_run(job, NULL), *o = &run;
    method(e, o);
    precond(e, job);
    matrix(e, job);
    part(e, "precision", kryl_precision_name(o->precision));
    end_part(e);
    part(e, "backend", kryl_backend_name(kryl_context_backend(job->ctx)));
    param_string(e, "device", kryl_context_device_name(job->ctx));
    /* the text names the flag only when it is on; the JSON always */
    if (e->w != NULL || kryl_context_deterministic(job->ctx))
        param_bool(e, "deterministic", kryl_context_deterministic(job->ctx));
    end_part(e);
    hybrid(e, job);
}

void view_print(const solve_job *job, FILE *out)
{
    emitter e = {.out = out};
    fprintf(out, "solver stack\n");
    emit(&e, job);
}

void view_json(const solve_job *job, json_writer *w)
{
    emitter e = {.w = w};
    json_begin(w, "view");
    emit(&e, job);
    json_end(w);
}
