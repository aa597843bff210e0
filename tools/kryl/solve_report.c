/* kryl solve's report: the method as run (format, mixed scheme), the
 * result, and where the time went, as a summary or as JSON. */
#include "solve_report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_mpi.h"
#include "json.h"
#include "report_amg.h"
#include "report_hybrid.h"
#include "solve_advice.h"
#include "view.h"

/* Every rank's part of A and its SpMVs' cost, on rank 0 (collective);
 * NULL on one rank.  *size = the number of ranks. */
static kryl_dist_info *gather_ranks(const solve_job *job, int *size)
{
    kryl_context_rank(job->ctx, NULL, size);
    if (*size < 2) return NULL;
    kryl_dist_info mine, *all = calloc((size_t)*size, sizeof *all);
    kryl_matrix_dist_info(job->A, &mine);
    if (all != NULL) cli_mpi_gather_info(&mine, all);
    return all;
}

/* The ranks as JSON: "ranks": {"0": {...}, ...}. */
static void json_ranks(json_writer *w, const solve_job *job)
{
    int size;
    kryl_dist_info *all = gather_ranks(job, &size);
    if (all == NULL) return;
    json_int(w, "ranks_count", size);
    json_begin(w, "ranks");
    for (int p = 0; p < size; p++) {
        char key[16];
        snprintf(key, sizeof key, "%d", p);
        json_begin(w, key);
        json_int(w, "rows", all[p].rows);
        json_int(w, "nnz", all[p].nnz);
        json_int(w, "ghosts", all[p].ghosts);
        json_int(w, "neighbours", all[p].neighbours);
        json_int(w, "bytes_sent_per_spmv", all[p].bytes_sent);
        json_int(w, "spmvs", all[p].spmvs);
        json_double(w, "compute_s", all[p].compute_s);
        json_double(w, "comm_s", all[p].comm_s);
        json_double(w, "wait_s", all[p].wait_s);
        json_end(w);
    }
    json_end(w);
    free(all);
}

/* The ranks as a table (rank 0 prints it). */
static void print_ranks(const solve_job *job)
{
    int size;
    kryl_dist_info *all = gather_ranks(job, &size);
    if (all == NULL) return;
    printf("ranks       %d; per rank: rows, nonzeros, ghosts, neighbours, bytes sent per SpMV,\n"
           "            SpMV time in compute / communication / waiting\n",
           size);
    for (int p = 0; p < size; p++) {
        char t[3][32], b[32];
        printf("  rank %-4d %10" PRId64 " %12" PRId64 " %9" PRId64 " %3d %10s   %s / %s / %s\n", p,
               all[p].rows, all[p].nnz, all[p].ghosts, all[p].neighbours,
               cli_format_bytes(b, sizeof b, (double)all[p].bytes_sent),
               cli_format_seconds(t[0], sizeof t[0], all[p].compute_s),
               cli_format_seconds(t[1], sizeof t[1], all[p].comm_s),
               cli_format_seconds(t[2], sizeof t[2], all[p].wait_s));
    }
    free(all);
}

static double total_seconds(const solve_job *job, double read_s)
{
    return read_s + job->setup_s + job->result.solve_s;
}

/* The storage format the solver uses and why ("requested" unless auto). */
static kryl_format solver_format(const solve_job *job, const char **reason)
{
    kryl_format format = job->result.format;
    *reason = "";
    kryl_solver_format(job->solver, &format, reason);
    return format;
}

void solve_report_json(const solve_job *job, const char *matrix, double read_s)
{
    const kryl_result *r = &job->result;
    const char *why;
    const kryl_solver_options run = solve_job_options_run(job, &why), *o = &run;
    int64_t nrows, ncols, nnz;
    kryl_matrix_size(job->A, &nrows, &ncols, &nnz);
    const char *reason;
    kryl_format format = solver_format(job, &reason);
    json_writer w;
    json_init(&w, stdout);
    json_begin(&w, NULL);
    json_string(&w, "matrix", matrix);
    json_int(&w, "n", nrows);
    json_int(&w, "ncols", ncols);
    json_int(&w, "nnz", nnz);
    json_bool(&w, "pattern", kryl_matrix_is_pattern(job->A)); /* values all 1 */
    double asymmetry = INFINITY;
    kryl_matrix_asymmetry(job->A, &asymmetry);
    json_double(&w, "asymmetry", asymmetry);
    json_double(&w, "symmetry_tol", o->symmetry_tol);
    json_string(&w, "method", kryl_method_name(o->method));
    json_string(&w, "precond", kryl_precond_name(o->precond));
    json_string(&w, "method_requested", kryl_method_name(job->options.method));
    json_string(&w, "choice", why);
    json_bool(&w, "match", o->match);
    char precond_info[192] = "";
    kryl_solver_precond_info(job->solver, precond_info, sizeof precond_info);
    json_string(&w, "precond_info", precond_info);
    json_int(&w, "restart", o->restart);
    json_string(&w, "orthog", o->gmres_orthog == KRYL_ORTHOG_CGS2 ? "cgs2" : "dcgs2");
    json_int(&w, "degree", o->degree);
    json_int(&w, "fill", o->fill);
    json_double(&w, "droptol", o->droptol);
    json_int(&w, "maxfill", o->maxfill);
    json_int(&w, "blocks", o->blocks);
    json_string(&w, "partition", kryl_partition_name(o->partition));
    json_string(&w, "block_factor", kryl_precond_name(o->block_factor));
    json_int(&w, "sweeps", o->sweeps);
    json_double(&w, "omega", o->omega);
    if (o->precond == KRYL_PRECOND_AMG) {
        json_double(&w, "amg_theta", o->amg.theta);
        json_double(&w, "amg_coarse_theta", o->amg.coarse_theta);
        json_string(&w, "amg_smoother", kryl_amg_smoother_name(o->amg.smoother));
        json_int(&w, "amg_sweeps", o->amg.sweeps);
        json_string(&w, "amg_cycle", kryl_amg_cycle_name(o->amg.cycle));
        json_string(&w, "amg_aggregation", kryl_amg_aggregation_name(o->amg.aggregation));
        json_string(&w, "amg_coarsening", kryl_amg_coarsening_name(o->amg.coarsening));
        json_int(&w, "amg_coarse_size", o->amg.coarse_size);
        json_int(&w, "amg_max_levels", o->amg.max_levels);
        json_int(&w, "amg_nullspace_vectors",
                 o->amg.nullspace_vectors ? o->amg.nullspace_vectors : 1);
    }
    json_string(&w, "backend", kryl_backend_name(kryl_context_backend(job->ctx)));
    json_string(&w, "device", kryl_context_device_name(job->ctx));
    json_bool(&w, "deterministic", kryl_context_deterministic(job->ctx));
    json_string(&w, "precision", kryl_precision_name(o->precision));
    json_string(&w, "mixed", kryl_mixed_scheme_name(o->mixed));
    json_int(&w, "inner_its", o->inner_iterations);
    json_double(&w, "inner_rtol", o->inner_rtol);
    json_string(&w, "format", kryl_format_name(format));
    json_string(&w, "format_requested", kryl_format_name(o->format));
    json_string(&w, "format_reason", reason);
    json_string(&w, "order", kryl_order_name(o->order));
    json_bool(&w, "tune", o->tune);
    json_double(&w, "rtol", o->rtol);
    json_double(&w, "atol", o->atol);
    json_double(&w, "dtol", o->dtol);
    json_int(&w, "maxit", o->max_iterations);
    json_int(&w, "iterations", r->iterations);
    json_double(&w, "relres", r->relres);
    json_double(&w, "relres_recursive", r->relres_recursive);
    json_double(&w, "relres_last", r->relres_last);
    json_int(&w, "best_iteration", r->best_iteration);
    json_bool(&w, "orthog_fallback", r->orthog_fallback);
    json_double(&w, "resnorm", r->resnorm);
    json_double(&w, "bnorm", r->bnorm);
    json_int(&w, "residual_replacements", r->residual_replacements);
    json_int(&w, "inner_iterations", r->inner_iterations);
    json_string(&w, "reason", kryl_reason_name(r->reason));
    char advice[160];
    const char *advice_why = "";
    if (solve_advice(job, advice, sizeof advice, &advice_why)) {
        json_string(&w, "advice", advice);
        json_string(&w, "advice_why", advice_why);
    }
    json_bool(&w, "converged", r->converged);
    json_double(&w, "time_s", total_seconds(job, read_s));
    json_double(&w, "read_s", read_s);
    json_double(&w, "setup_s", job->setup_s);
    json_double(&w, "solve_s", r->solve_s);
    json_double(&w, "context_s", job->context_s);
    json_double(&w, "context_wait_s", job->context_wait_s);
    /* (placed OpenMP threads bind the main thread to one place before the command starts) */
    if (!cli_threads_placed()) json_int(&w, "cpus", cli_cpus());
    json_double(&w, "time_per_iteration_s",
                r->iterations > 0 ? r->solve_s / (double)r->iterations : 0.0);
    kryl_iteration_bound bound;
    if (kryl_solver_iteration_bound(job->solver, &bound) == KRYL_SUCCESS) {
        json_begin(&w, "iteration_bound");
        json_double(&w, "spmv_bytes", bound.spmv_bytes);
        json_double(&w, "vector_bytes", bound.vector_bytes);
        json_double(&w, "bytes", bound.bytes);
        json_double(&w, "bandwidth", bound.bandwidth);
        json_double(&w, "seconds", bound.seconds);
        /* the measured time per iteration over the bound (1: at the bound) */
        json_double(&w, "ratio",
                    r->iterations > 0 ? r->solve_s / (double)r->iterations / bound.seconds : 0.0);
        json_end(&w);
    }
    json_begin(&w, "setup_phases");
    for (int k = 0; k < KRYL_SETUP_PHASES; k++)
        json_double(&w, kryl_setup_phase_name((kryl_setup_phase)k), r->setup_phases[k]);
    json_end(&w);
    double read[KRYL_READ_PHASES];
    kryl_matrix_read_phases(job->A, read);
    json_begin(&w, "read_phases");
    for (int k = 0; k < KRYL_READ_PHASES; k++)
        json_double(&w, kryl_read_phase_name((kryl_read_phase)k), read[k]);
    json_end(&w);
    if (o->profile) {
        json_begin(&w, "profile");
        json_double(&w, "spmv_s", r->profile.spmv);
        json_double(&w, "precond_s", r->profile.precond);
        json_double(&w, "vector_s", r->profile.vector);
        json_double(&w, "reduction_s", r->profile.reduction);
        json_double(&w, "transfer_s", r->profile.transfer);
        json_double(&w, "iteration_s", r->profile.iteration);
        json_end(&w);
    }
    view_json(job, &w);
    report_amg_json(&w, job->solver);
    report_hybrid_json(&w, job->solver, job->options.hybrid);
    json_ranks(&w, job);
    json_end(&w);
}

/* One row of the profile table: the phase, its time, its share of the loop. */
static void print_phase(const char *lead, const char *name, double seconds, double loop)
{
    char t[32];
    printf("%-12s%-16s%-10s%3.0f%%\n", lead, name, cli_format_seconds(t, sizeof t, seconds),
           loop > 0.0 ? 100.0 * seconds / loop : 0.0);
}

/* "symmetry    ..." : the measured max |a_ij - a_ji| / max |a_ij| against the tolerance. */
static void print_symmetry(const solve_job *job)
{
    double asymmetry = INFINITY;
    kryl_matrix_asymmetry(job->A, &asymmetry);
    const double tol = job->options.symmetry_tol;
    if (asymmetry == 0.0)
        printf("symmetry    symmetric\n");
    else if (isinf(asymmetry))
        printf("symmetry    not square\n");
    else
        printf("symmetry    %s: max |a_ij - a_ji| = %.2g max |a_ij| (--symmetry-tol %g)\n",
               asymmetry <= tol ? "symmetric up to rounding" : "nonsymmetric", asymmetry, tol);
}

/* "method      gmres(40), precond jacobi, mixed precision (ir: ...) (rtol ...)" */
static void print_method(const kryl_solver_options *o)
{
    printf("method      %s", kryl_method_name(o->method));
    if (o->method == KRYL_METHOD_GMRES)
        printf("(%d), orthog %s", o->restart,
               o->gmres_orthog == KRYL_ORTHOG_CGS2 ? "cgs2" : "dcgs2");
    printf(", precond %s", kryl_precond_name(o->precond));
    if (o->precond == KRYL_PRECOND_LSPOLY) printf("(degree %d)", o->degree);
    if (o->precond == KRYL_PRECOND_ILUK) printf("(fill %d)", o->fill);
    if (o->precond == KRYL_PRECOND_ILUT) printf("(droptol %g, maxfill %d)", o->droptol, o->maxfill);
    if (o->precond == KRYL_PRECOND_BJACOBI)
        printf("(blocks %d, partition %s%s%s)", o->blocks, kryl_partition_name(o->partition),
               o->block_factor == KRYL_PRECOND_NONE ? "" : ", blocks by ",
               o->block_factor == KRYL_PRECOND_NONE ? "" : kryl_precond_name(o->block_factor));
    if (o->precond == KRYL_PRECOND_MCSSOR) printf("(sweeps %d, omega %g)", o->sweeps, o->omega);
    if (o->precond == KRYL_PRECOND_AMG)
        printf("(theta %g, coarse levels %g, %s, %s, coarse size %d, near-nullspace of %d)",
               o->amg.theta, fmax(o->amg.theta, o->amg.coarse_theta),
               kryl_amg_aggregation_name(o->amg.aggregation),
               kryl_amg_coarsening_name(o->amg.coarsening), o->amg.coarse_size,
               o->amg.nullspace_vectors ? o->amg.nullspace_vectors : 1);
    printf(", %s precision", kryl_precision_name(o->precision));
    if (o->mixed != KRYL_MIXED_NONE) {
        if (o->mixed == KRYL_MIXED_RELIABLE)
            printf(" (reliable updates: one single CG, x and r refreshed in double at every %g "
                   "drop",
                   o->inner_rtol);
        else
            printf(" (%s: single inner solves to rtol %g",
                   o->mixed == KRYL_MIXED_IR ? "iterative refinement" : "inner-outer",
                   o->inner_rtol);
        if (o->inner_iterations > 0) printf(", at most %d iterations", o->inner_iterations);
        printf(")");
    }
    printf("\n            rtol %g, atol %g, maxit %" PRId64 "\n", o->rtol, o->atol,
           o->max_iterations);
}

void solve_report_summary(const solve_job *job, const char *matrix, double read_s)
{
    const kryl_result *r = &job->result;
    const char *why;
    const kryl_solver_options run = solve_job_options_run(job, &why), *o = &run;
    int64_t nrows, ncols, nnz;
    kryl_matrix_size(job->A, &nrows, &ncols, &nnz);
    const char *reason;
    kryl_format format = solver_format(job, &reason);
    char t[5][32];
    printf("matrix      %s: %" PRId64 " x %" PRId64 ", %" PRId64 " nonzeros%s\n",
           cli_basename(matrix), nrows, ncols, nnz,
           kryl_matrix_is_pattern(job->A) ? " (a pattern file: every value 1)" : "");
    print_symmetry(job);
    if (job->options.method == KRYL_METHOD_AUTO) printf("auto        %s\n", why);
    print_method(o);
    printf("format      %s, order %s", kryl_format_name(format), kryl_order_name(o->order));
    if (o->format == KRYL_FORMAT_AUTO)
        printf(" (--format auto%s)\n            %s", o->tune ? " --tune" : "", reason);
    printf("\n");
    char precond_info[192] = "";
    kryl_solver_precond_info(job->solver, precond_info, sizeof precond_info);
    /* the preconditioner as built, when that says more than its name */
    if (strcmp(precond_info, kryl_precond_name(o->precond)) != 0)
        printf("precond     %s\n", precond_info);
    report_amg_summary(job->solver);
    printf("backend     %s: %s%s\n", kryl_backend_name(kryl_context_backend(job->ctx)),
           kryl_context_device_name(job->ctx),
           kryl_context_deterministic(job->ctx) ? ", deterministic" : "");
    report_hybrid_summary(job->solver, job->options.hybrid);
    printf("iterations  %" PRId64, r->iterations);
    if (o->mixed != KRYL_MIXED_NONE)
        printf(" (%" PRId64 " single-precision inner iterations)", r->inner_iterations);
    printf("\n");
    printf("relres      %.3e true ||b - Ax||/||b||, %.3e recursive\n", r->relres,
           r->relres_recursive);
    if (r->best_iteration != r->iterations)
        printf("            x is the iterate of iteration %" PRId64
               " (the last one's true relres is %.3e)\n",
               r->best_iteration, r->relres_last);
    printf("result      %s (%s)\n", r->converged ? "converged" : "NOT converged",
           kryl_reason_name(r->reason));
    char advice[160];
    const char *advice_why = "";
    if (solve_advice(job, advice, sizeof advice, &advice_why))
        printf("next        rerun with %s: %s\n", advice, advice_why);
    if (r->orthog_fallback)
        printf("            DCGS2 lost orthogonality: the solve went on with --orthog cgs2\n");
    printf("time        %s total: read %s, setup %s, solve %s",
           cli_format_seconds(t[0], sizeof t[0], total_seconds(job, read_s)),
           cli_format_seconds(t[1], sizeof t[1], read_s),
           cli_format_seconds(t[2], sizeof t[2], job->setup_s),
           cli_format_seconds(t[3], sizeof t[3], r->solve_s));
    if (r->iterations > 0)
        printf(" (%s per iteration)",
               cli_format_seconds(t[4], sizeof t[4], r->solve_s / (double)r->iterations));
    printf("\n");
    kryl_iteration_bound bound;
    if (r->iterations > 0 && kryl_solver_iteration_bound(job->solver, &bound) == KRYL_SUCCESS) {
        char b[32];
        printf("            bound %s per iteration (%s at %.0f GB/s); %.2fx the bound\n",
               cli_format_seconds(t[4], sizeof t[4], bound.seconds),
               cli_format_bytes(b, sizeof b, bound.bytes), 1e-9 * bound.bandwidth,
               r->solve_s / (double)r->iterations / bound.seconds);
    }
    if (o->profile) {
        const kryl_profile *p = &r->profile;
        print_phase("profile", "spmv", p->spmv, p->iteration);
        print_phase("", "precond", p->precond, p->iteration);
        print_phase("", "vector", p->vector, p->iteration);
        print_phase("", "reduction", p->reduction, p->iteration);
        print_phase("", "transfer", p->transfer, p->iteration);
        print_phase("", "whole loop", p->iteration, p->iteration);
        const char *lead = "setup";
        for (int k = 0; k < KRYL_SETUP_PHASES; k++) {
            /* phases under 0.1% of the setup are left out */
            if (r->setup_phases[k] < 1e-3 * r->setup_s) continue;
            print_phase(lead, kryl_setup_phase_name((kryl_setup_phase)k), r->setup_phases[k],
                        r->setup_s);
            lead = "";
        }
        double read[KRYL_READ_PHASES];
        kryl_matrix_read_phases(job->A, read);
        lead = "read";
        for (int k = 0; k < KRYL_READ_PHASES; k++) {
            if (read[k] <= 0.0) continue; /* a generated matrix: none */
            print_phase(lead, kryl_read_phase_name((kryl_read_phase)k), read[k], read_s);
            lead = "";
        }
    }
    print_ranks(job);
}
