/* Preconditioner benchmark: the analogues of Tables 8-12 of Li & Saad,
 * GPU-accelerated preconditioned iterative linear solvers, J. Supercomputing
 * 63 (2013), through the public API only (include/kryl.h).
 *
 *   Table 12  PCG on the 2-D 5-point and 3-D 7-point Poisson matrices with
 *             every preconditioner usable with CG (none, jacobi, lspoly at
 *             its best degree in 4..16, ic0, mic0, ilu0 and iluk(1) (L D L^T
 *             for a symmetric A), bjacobi, mcssor(k = 1, 2, 3), mcilu0 (IC(0)
 *             in color order)) on the main backend, and the omp backend's
 *             IC(0)-PCG as the CPU baseline of the same run.
 *   (i)       the best lspoly degree (4..16) of each SPD shared matrix;
 *   (ii)      ILUT-GMRES(40) on convection-diffusion and nonsymmetric shared
 *             matrices;
 *   (iii)     MC-ILU(0) against ILU(0) with GMRES(40);
 *   (iv)      colors before / after sparsification (read from the
 *             preconditioners' INFO log lines) with MC-SSOR and MC-ILU(0);
 *   (v)       block Jacobi: block count (1..4096) against iterations.
 * Times are the solver's own: setup_s (kryl_solver_create: preconditioner
 * and workspace) and solve_s (kryl_solver_solve); total = their sum.
 * b = A*1, x0 = 0, rtol 1e-8 (true residual), at most 20000 iterations.
 *
 * usage: bench_precond [n2d (1000)] [n3d (100)] [matrices dir
 *                      ($KRYL_MATRICES, or ../shared/matrices)]
 *                      [backend (auto: cuda when usable, else omp)]
 * Absent shared matrices are skipped; a preconditioner a matrix or backend
 * refuses prints the refusal in its row.  BENCH_PRECOND_TABLES (e.g.
 * "12,10,11") runs only the tables it names: 12, 8 (i), 9 (ii), 10 (iii),
 * 11 (iv and v); default all. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kryl.h"

#define RTOL  1e-8
#define MAXIT 20000

static const char *const spd_files[] = {"nos4.mtx",     "494_bus.mtx",  "1138_bus.mtx",
                                        "bcsstk06.mtx", "bcsstk08.mtx", "bcsstk09.mtx",
                                        "bcsstk10.mtx", "bcsstk15.mtx", "bcsstk19.mtx"};
static const char *const nonsym_files[] = {
    "sherman1.mtx", "sherman2.mtx", "sherman3.mtx", "sherman4.mtx", "sherman5.mtx", "pores_1.mtx",
    "dw8192.mtx",   "rdb2048.mtx",  "olm1000.mtx",  "cryg2500.mtx", "fidap_ex6.mtx"};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The INFO line of the last multicolor preconditioner built (log callback). */
typedef struct log_capture {
    char colors[512];
} log_capture;

static void capture_log(kryl_log_level level, const char *message, void *user)
{
    log_capture *cap = user;
    /* keep "<mcssor|mcilu0>: N colors; sparsification: ..." */
    if (level == KRYL_LOG_INFO && strstr(message, "sparsification:") != NULL)
        snprintf(cap->colors, sizeof cap->colors, "%s", message);
}

static void die(const char *what, kryl_status st)
{
    fprintf(stderr, "bench_precond: %s failed: %s: %s\n", what, kryl_strerror(st),
            kryl_last_error());
    exit(1);
}

/* A matrix with its right-hand side b = A*1 and iterate x. */
typedef struct problem {
    char name[64];
    kryl_matrix A;
    kryl_vector b, x;
    int64_t n;
} problem;

static bool problem_setup(problem *p, kryl_matrix A, const char *name)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->A = A;
    kryl_vector ones = NULL;
    kryl_status st = kryl_matrix_size(A, &p->n, NULL, NULL);
    if (st == KRYL_SUCCESS) st = kryl_vector_create(&ones, A, KRYL_DOUBLE);
    if (st == KRYL_SUCCESS) st = kryl_vector_create(&p->b, A, KRYL_DOUBLE);
    if (st == KRYL_SUCCESS) st = kryl_vector_create(&p->x, A, KRYL_DOUBLE);
    if (st == KRYL_SUCCESS) st = kryl_vector_fill(ones, 1.0);
    /* b = A*1 */
    if (st == KRYL_SUCCESS) st = kryl_matrix_spmv(A, 1.0, ones, 0.0, p->b);
    kryl_vector_destroy(&ones);
    if (st != KRYL_SUCCESS) die(name, st);
    return true;
}

static void problem_free(problem *p)
{
    kryl_vector_destroy(&p->b);
    kryl_vector_destroy(&p->x);
    kryl_matrix_destroy(&p->A);
}

static problem generated(kryl_context ctx, kryl_generator_kind kind, int64_t n)
{
    kryl_generator_options g;
    kryl_generator_options_init(&g, kind, n);
    int64_t rows = 0, nnz = 0;
    kryl_matrix A = NULL;
    kryl_status st = kryl_generator_size(&g, &rows, &nnz);
    if (st == KRYL_SUCCESS) st = kryl_matrix_generate(&A, ctx, &g, 0, rows);
    if (st != KRYL_SUCCESS) die(kryl_generator_name(kind), st);
    char name[64];
    snprintf(name, sizeof name, "%s %lld^%d", kryl_generator_name(kind), (long long)n,
             kind == KRYL_GEN_POISSON2D5 || kind == KRYL_GEN_CONVDIFF2D ? 2 : 3);
    problem p;
    problem_setup(&p, A, name);
    return p;
}

/* The shared matrix dir/file, or false (skipped) when it is absent. */
static bool shared(kryl_context ctx, const char *dir, const char *file, problem *p)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    if (f == NULL) return false;
    fclose(f);
    kryl_matrix A = NULL;
    kryl_status st = kryl_matrix_read_mtx(&A, ctx, path);
    if (st != KRYL_SUCCESS) {
        printf("  %s: cannot read: %s\n", file, kryl_last_error());
        return false;
    }
    return problem_setup(p, A, file);
}

/* One solve's outcome. */
typedef struct outcome {
    bool ok;        /* the solver was created and solved */
    char why[160];  /* the refusal when not ok */
    int64_t its;    /* iterations */
    bool converged; /* by the true residual */
    double setup, solve, total;
} outcome;

typedef struct knobs {
    kryl_method method;
    kryl_precond_kind precond;
    int degree, sweeps, blocks;
} knobs;

static outcome run(problem *p, knobs k)
{
    outcome out;
    memset(&out, 0, sizeof out);
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.method = k.method;
    o.precond = k.precond;
    o.rtol = RTOL;
    o.max_iterations = MAXIT;
    o.record_history = false;
    o.degree = k.degree;
    o.sweeps = k.sweeps > 0 ? k.sweeps : 1;
    o.blocks = k.blocks;
    kryl_solver s = NULL;
    kryl_result r;
    kryl_status st = kryl_vector_fill(p->x, 0.0);
    if (st == KRYL_SUCCESS) st = kryl_solver_create(&s, p->A, &o);
    if (st == KRYL_SUCCESS) st = kryl_solver_solve(s, p->b, p->x, &r);
    if (st != KRYL_SUCCESS) {
        /* the first clause of the message, enough for a table cell */
        snprintf(out.why, sizeof out.why, "%s", kryl_last_error());
        char *cut = strpbrk(out.why, ";(");
        if (cut != NULL) *cut = '\0';
    } else {
        out.ok = true;
        out.its = r.iterations;
        out.converged = r.converged;
        out.setup = r.setup_s;
        out.solve = r.solve_s;
        out.total = r.setup_s + r.solve_s;
    }
    kryl_solver_destroy(&s);
    return out;
}

/* "  its  setup  solve  total" cells, or the refusal. */
static void print_cells(const outcome *o)
{
    if (!o->ok)
        printf(" %-37.37s", o->why);
    else
        printf(" %6lld%s %9.3f %9.3f %9.3f", (long long)o->its, o->converged ? " " : "*", o->setup,
               o->solve, o->total);
}

/* lspoly at each degree 4, 6, ..., 16; the fastest in total time. */
static outcome best_lspoly(problem *p, kryl_method method, int *best_degree, bool verbose)
{
    outcome best;
    memset(&best, 0, sizeof best);
    snprintf(best.why, sizeof best.why, "no degree converged");
    *best_degree = 0;
    for (int d = 4; d <= 16; d += 2) {
        outcome o = run(p, (knobs){method, KRYL_PRECOND_LSPOLY, d, 1, 0});
        if (verbose) {
            if (o.ok)
                printf(" %d:%lld/%.3fs", d, (long long)o.its, o.total);
            else
                printf(" %d:-", d);
        }
        if (!o.ok) {
            if (*best_degree == 0) best = o;
            continue;
        }
        if (o.converged && (!best.ok || !best.converged || o.total < best.total)) {
            best = o;
            *best_degree = d;
        }
    }
    return best;
}

/* ---- Table 12 ---- */

typedef struct table12_row {
    const char *label;
    kryl_precond_kind precond;
    int sweeps;
} table12_row;

static void table12(kryl_context ctx, kryl_context cpu, int64_t n2, int64_t n3)
{
    static const table12_row rows[] = {
        {"none", KRYL_PRECOND_NONE, 1},        {"jacobi", KRYL_PRECOND_JACOBI, 1},
        {"lspoly", KRYL_PRECOND_LSPOLY, 1},    {"ic0", KRYL_PRECOND_IC0, 1},
        {"mic0", KRYL_PRECOND_MIC0, 1},        {"ilu0", KRYL_PRECOND_ILU0, 1},
        {"iluk(1)", KRYL_PRECOND_ILUK, 1},     {"bjacobi", KRYL_PRECOND_BJACOBI, 1},
        {"mcssor(1)", KRYL_PRECOND_MCSSOR, 1}, {"mcssor(2)", KRYL_PRECOND_MCSSOR, 2},
        {"mcssor(3)", KRYL_PRECOND_MCSSOR, 3}, {"mcilu0", KRYL_PRECOND_MCILU0, 1},
    };
    problem p[2] = {generated(ctx, KRYL_GEN_POISSON2D5, n2),
                    generated(ctx, KRYL_GEN_POISSON3D7, n3)};
    printf("\n== Table 12: PCG (cg + preconditioner) on %s, rtol %g; times in s; "
           "* = not converged ==\n",
           kryl_backend_name(kryl_context_backend(ctx)), RTOL);
    printf("%-18s", "preconditioner");
    for (int m = 0; m < 2; m++) printf(" | %-37.37s", p[m].name);
    printf("\n%-18s", "");
    for (int m = 0; m < 2; m++) printf(" | %6s  %9s %9s %9s", "its", "setup", "solve", "total");
    printf("\n");
    /* the CPU baseline: IC(0)-PCG on the omp backend, same matrices */
    printf("%-18s", "ic0 on omp (CPU)");
    for (int m = 0; m < 2; m++) {
        kryl_generator_kind kind = m == 0 ? KRYL_GEN_POISSON2D5 : KRYL_GEN_POISSON3D7;
        problem q = generated(cpu, kind, m == 0 ? n2 : n3);
        outcome o = run(&q, (knobs){KRYL_METHOD_CG, KRYL_PRECOND_IC0, 0, 1, 0});
        printf(" |");
        print_cells(&o);
        problem_free(&q);
    }
    printf("\n");
    for (size_t r = 0; r < COUNT(rows); r++) {
        char label[32];
        outcome o[2];
        int degree[2] = {0, 0};
        for (int m = 0; m < 2; m++)
            o[m] = rows[r].precond == KRYL_PRECOND_LSPOLY
                       ? best_lspoly(&p[m], KRYL_METHOD_CG, &degree[m], false)
                       : run(&p[m], (knobs){KRYL_METHOD_CG, rows[r].precond, 0, rows[r].sweeps, 0});
        if (rows[r].precond == KRYL_PRECOND_LSPOLY)
            snprintf(label, sizeof label, "lspoly(d=%d,%d)", degree[0], degree[1]);
        else
            snprintf(label, sizeof label, "%s", rows[r].label);
        printf("%-18s", label);
        for (int m = 0; m < 2; m++) {
            printf(" |");
            print_cells(&o[m]);
        }
        printf("\n");
        fflush(stdout);
    }
    problem_free(&p[0]);
    problem_free(&p[1]);
}

/* ---- Tables 8-11 analogues ---- */

static void table_lspoly(kryl_context ctx, const char *dir)
{
    printf("\n== (i) Table 8: best lspoly degree of CG per SPD matrix "
           "(degree:iterations/total s) ==\n");
    for (size_t f = 0; f < COUNT(spd_files); f++) {
        problem p;
        if (!shared(ctx, dir, spd_files[f], &p)) continue;
        printf("%-14s n=%-7lld", p.name, (long long)p.n);
        int degree = 0;
        outcome none = run(&p, (knobs){KRYL_METHOD_CG, KRYL_PRECOND_NONE, 0, 1, 0});
        outcome best = best_lspoly(&p, KRYL_METHOD_CG, &degree, true);
        printf("  | cg alone %lld%s; best degree %d: %lld its, %.3f s\n", (long long)none.its,
               none.converged ? "" : "*", degree, (long long)best.its, best.total);
        problem_free(&p);
    }
}

/* Generated convection-diffusion and the nonsymmetric shared matrices, each
 * handed to row(). */
static void each_nonsymmetric(kryl_context ctx, const char *dir, int64_t n2, int64_t n3,
                              void (*row)(kryl_context ctx, problem *p))
{
    problem p = generated(ctx, KRYL_GEN_CONVDIFF2D, n2);
    row(ctx, &p);
    problem_free(&p);
    p = generated(ctx, KRYL_GEN_CONVDIFF3D, n3);
    row(ctx, &p);
    problem_free(&p);
    for (size_t f = 0; f < COUNT(nonsym_files); f++) {
        if (!shared(ctx, dir, nonsym_files[f], &p)) continue;
        row(ctx, &p);
        problem_free(&p);
    }
}

static void ilut_row(kryl_context ctx, problem *p)
{
    (void)ctx;
    printf("%-18s %9lld |", p->name, (long long)p->n);
    outcome o = run(p, (knobs){KRYL_METHOD_GMRES, KRYL_PRECOND_ILUT, 0, 1, 0});
    print_cells(&o);
    printf(" |");
    o = run(p, (knobs){KRYL_METHOD_GMRES, KRYL_PRECOND_NONE, 0, 1, 0});
    print_cells(&o);
    printf("\n");
    fflush(stdout);
}

static void mcilu_row(kryl_context ctx, problem *p)
{
    (void)ctx;
    printf("%-18s %9lld |", p->name, (long long)p->n);
    outcome o = run(p, (knobs){KRYL_METHOD_GMRES, KRYL_PRECOND_MCILU0, 0, 1, 0});
    print_cells(&o);
    printf(" |");
    o = run(p, (knobs){KRYL_METHOD_GMRES, KRYL_PRECOND_ILU0, 0, 1, 0});
    print_cells(&o);
    printf("\n");
    fflush(stdout);
}

/* "before -> after (rounds)" colors from the captured log line, or "-". */
static void print_colors(const log_capture *cap)
{
    int now = 0, before = 0, after = 0, rounds = 0;
    char cell[64] = "-";
    const char *s = strchr(cap->colors, ':');
    if (s != NULL && sscanf(s + 1, " %d colors; sparsification: %d colors before, %d after %d",
                            &now, &before, &after, &rounds) == 4)
        snprintf(cell, sizeof cell, "%d -> %d (%d rounds)", before, after, rounds);
    printf(" %-22s |", cell);
}

/* The log of the main context (its INFO lines, captured rather than printed). */
static log_capture main_log;

static void colors_row(problem *p, kryl_method method)
{
    printf("%-18s %9lld %-8s|", p->name, (long long)p->n, kryl_method_name(method));
    for (int k = 0; k < 2; k++) {
        kryl_precond_kind kind = k == 0 ? KRYL_PRECOND_MCSSOR : KRYL_PRECOND_MCILU0;
        main_log.colors[0] = '\0';
        outcome o = run(p, (knobs){method, kind, 0, 1, 0});
        print_colors(&main_log);
        print_cells(&o);
        printf(" |");
    }
    printf("\n");
    fflush(stdout);
}

static void colors_row_gmres(kryl_context ctx, problem *p)
{
    (void)ctx;
    colors_row(p, KRYL_METHOD_GMRES);
}

static void table_colors(kryl_context ctx, const char *dir, int64_t n2, int64_t n3)
{
    printf("\n== (iv) Table 11: colors before -> after sparsification, MC-SSOR(1) and "
           "MC-ILU(0) ==\n");
    printf("%-18s %9s %-8s| %-22s | %6s  %9s %9s %9s | %-22s | %6s  %9s %9s %9s |\n", "matrix", "n",
           "method", "mcssor colors", "its", "setup", "solve", "total", "mcilu0 colors", "its",
           "setup", "solve", "total");
    for (size_t f = 0; f < COUNT(spd_files); f++) {
        problem p;
        if (!shared(ctx, dir, spd_files[f], &p)) continue;
        colors_row(&p, KRYL_METHOD_CG);
        problem_free(&p);
    }
    each_nonsymmetric(ctx, dir, n2, n3, colors_row_gmres);
}

/* Block counts 1, 4, 16, ..., 4096 on the 2-D Poisson matrix. */
static void table_bjacobi(kryl_context ctx, int64_t n2)
{
    problem p = generated(ctx, KRYL_GEN_POISSON2D5, n2);
    printf("\n== (v) Figure 11: block Jacobi PCG on %s: blocks against iterations ==\n", p.name);
    printf("%8s | %6s  %9s %9s %9s\n", "blocks", "its", "setup", "solve", "total");
    for (int blocks = 1; blocks <= 4096; blocks *= 4) {
        printf("%8d |", blocks);
        outcome o = run(&p, (knobs){KRYL_METHOD_CG, KRYL_PRECOND_BJACOBI, 0, 1, blocks});
        print_cells(&o);
        printf("\n");
        fflush(stdout);
    }
    problem_free(&p);
}

/* A positive integer argument, or exit with a message. */
static int64_t parse_size(const char *text, const char *what)
{
    char *end;
    long long v = strtoll(text, &end, 10);
    if (*end != '\0' || v <= 0) {
        fprintf(stderr, "bench_precond: %s '%s' is not a positive integer\n", what, text);
        exit(2);
    }
    return (int64_t)v;
}

static kryl_context context(kryl_backend_kind kind, log_capture *log)
{
    kryl_context_options o;
    kryl_context_options_init(&o);
    o.backend = kind;
    if (log != NULL) {
        o.log = capture_log;
        o.log_user = log;
        o.log_level = KRYL_LOG_INFO;
    }
    kryl_context ctx = NULL;
    kryl_status st = kryl_context_create(&ctx, &o);
    if (st != KRYL_SUCCESS) die("kryl_context_create", st);
    return ctx;
}

/* Whether BENCH_PRECOND_TABLES (unset: every table) names `table`. */
static int wanted(const char *table)
{
    const char *list = getenv("BENCH_PRECOND_TABLES");
    if (list == NULL || list[0] == '\0') return 1;
    size_t len = strlen(table);
    for (const char *p = strstr(list, table); p != NULL; p = strstr(p + 1, table))
        if ((p == list || p[-1] == ',') && (p[len] == ',' || p[len] == '\0')) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    int64_t n2 = argc > 1 ? parse_size(argv[1], "2-D grid size") : 1000;
    int64_t n3 = argc > 2 ? parse_size(argv[2], "3-D grid size") : 100;
    const char *env = getenv("KRYL_MATRICES");
    const char *dir = argc > 3 ? argv[3] : env != NULL ? env : "../shared/matrices";
    kryl_backend_kind kind = KRYL_BACKEND_AUTO;
    if (argc > 4) {
        kryl_status st = kryl_backend_from_name(argv[4], &kind);
        if (st != KRYL_SUCCESS) die("backend", st);
    } else {
        kind = kryl_backend_available(KRYL_BACKEND_CUDA) ? KRYL_BACKEND_CUDA : KRYL_BACKEND_OMP;
    }
    kryl_context ctx = context(kind, &main_log);
    kryl_context cpu = context(KRYL_BACKEND_OMP, NULL);
    printf("bench_precond: main backend %s (%s); CPU baseline omp (%s); matrices from %s\n",
           kryl_backend_name(kryl_context_backend(ctx)), kryl_context_device_name(ctx),
           kryl_context_device_name(cpu), dir);
    if (wanted("12")) table12(ctx, cpu, n2, n3);
    if (wanted("8")) table_lspoly(ctx, dir);
    if (wanted("9")) {
        printf("\n== (ii) Table 9: ILUT(1e-3, 20)-GMRES(40) against GMRES(40) alone ==\n");
        printf("%-18s %9s | %6s  %9s %9s %9s | %6s  %9s %9s %9s\n", "matrix", "n", "its", "setup",
               "solve", "total", "its", "setup", "solve", "total");
        each_nonsymmetric(ctx, dir, n2, n3, ilut_row);
    }
    if (wanted("10")) {
        printf("\n== (iii) Table 10: MC-ILU(0)-GMRES(40) against ILU(0)-GMRES(40) ==\n");
        printf("%-18s %9s | %6s  %9s %9s %9s | %6s  %9s %9s %9s\n", "matrix", "n", "mcilu0",
               "setup", "solve", "total", "ilu0", "setup", "solve", "total");
        each_nonsymmetric(ctx, dir, n2, n3, mcilu_row);
    }
    if (wanted("11")) {
        table_colors(ctx, dir, n2, n3);
        table_bjacobi(ctx, n2);
    }
    kryl_context_destroy(&cpu);
    kryl_context_destroy(&ctx);
    return 0;
}
