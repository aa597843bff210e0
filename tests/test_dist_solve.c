/* Distributed solves (run under mpirun with 1 to 4 ranks): every method,
 * both mixed-precision schemes and the preconditioners that work over
 * ranks give the single-process solution, on ref, omp and cuda (where a
 * GPU answers; ranks may share it), in every
 * overlap mode and with formats that permute rows. */
#include <stdlib.h>

#include "dist_support.h"

/* A generated matrix on the distributed context and on a serial one. */
static void generate(kryl_context dctx, kryl_context sctx, kryl_generator_kind kind, int64_t n,
                     kryl_matrix *dA, kryl_matrix *sA)
{
    kryl_generator_options g;
    kryl_generator_options_init(&g, kind, n);
    int64_t rows = 0, estimate;
    kryl_generator_size(&g, &rows, &estimate);
    CHECK_OK(kryl_matrix_generate(dA, dctx, &g, 0, rows));
    CHECK_OK(kryl_matrix_generate(sA, sctx, &g, 0, rows));
}

static void check_methods(kryl_context dctx, kryl_context sctx, const char *backend)
{
    kryl_matrix dA = NULL, sA = NULL, dN = NULL, sN = NULL;
    generate(dctx, sctx, KRYL_GEN_POISSON2D5, 16, &dA, &sA);
    generate(dctx, sctx, KRYL_GEN_CONVDIFF2D, 14, &dN, &sN);
    char label[160];
    struct {
        kryl_method method;
        kryl_precond_kind precond;
        kryl_mixed_scheme mixed;
        bool symmetric;
    } cases[] = {
        {KRYL_METHOD_CG, KRYL_PRECOND_NONE, KRYL_MIXED_NONE, true},
        {KRYL_METHOD_PCG, KRYL_PRECOND_JACOBI, KRYL_MIXED_NONE, true},
        {KRYL_METHOD_PIPECG, KRYL_PRECOND_JACOBI, KRYL_MIXED_NONE, true},
        {KRYL_METHOD_CG, KRYL_PRECOND_LSPOLY, KRYL_MIXED_NONE, true},
        {KRYL_METHOD_CG, KRYL_PRECOND_BJACOBI, KRYL_MIXED_NONE, true},
        {KRYL_METHOD_CG, KRYL_PRECOND_JACOBI, KRYL_MIXED_IR, true},
        {KRYL_METHOD_CG, KRYL_PRECOND_JACOBI, KRYL_MIXED_INNER_OUTER, true},
        {KRYL_METHOD_GMRES, KRYL_PRECOND_JACOBI, KRYL_MIXED_NONE, false},
        {KRYL_METHOD_BICGSTAB, KRYL_PRECOND_NONE, KRYL_MIXED_NONE, false},
        {KRYL_METHOD_GMRES, KRYL_PRECOND_BJACOBI, KRYL_MIXED_INNER_OUTER, false},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        kryl_solver_options o;
        kryl_solver_options_init(&o);
        o.method = cases[c].method;
        o.precond = cases[c].precond;
        o.mixed = cases[c].mixed;
        if (o.mixed != KRYL_MIXED_NONE) o.precision = KRYL_MIXED;
        o.rtol = 1e-10;
        o.restart = 20;
        o.blocks = 2;
        snprintf(label, sizeof label, "%s %s+%s mixed=%s", backend, kryl_method_name(o.method),
                 kryl_precond_name(o.precond), kryl_mixed_scheme_name(o.mixed));
        test_dist_compare(cases[c].symmetric ? dA : dN, cases[c].symmetric ? sA : sN, &o, 1e-6,
                          label);
    }
    kryl_matrix_destroy(&dA);
    kryl_matrix_destroy(&sA);
    kryl_matrix_destroy(&dN);
    kryl_matrix_destroy(&sN);
}

/* CG in every overlap mode, with formats and an ordering that permute rows. */
static void check_modes_formats(kryl_context dctx, kryl_context sctx, const char *backend)
{
    kryl_matrix dA = NULL, sA = NULL;
    generate(dctx, sctx, KRYL_GEN_POISSON3D7, 7, &dA, &sA);
    char label[160];
    kryl_solver_options cg;
    kryl_solver_options_init(&cg);
    cg.rtol = 1e-10;
    snprintf(label, sizeof label, "%s cg", backend);
    test_dist_compare_modes(dctx, dA, sA, &cg, 1e-7, label);
    const kryl_format formats[] = {KRYL_FORMAT_SELL, KRYL_FORMAT_JDS, KRYL_FORMAT_ELL,
                                   KRYL_FORMAT_AUTO};
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        kryl_solver_options o;
        kryl_solver_options_init(&o);
        o.method = KRYL_METHOD_PCG;
        o.format = formats[f];
        o.order = f == 0 ? KRYL_ORDER_RCM : KRYL_ORDER_NONE;
        o.precision = f == 1 ? KRYL_SINGLE : KRYL_DOUBLE;
        o.rtol = f == 1 ? 1e-5 : 1e-10;
        snprintf(label, sizeof label, "%s pcg format=%s order=%s %s", backend,
                 kryl_format_name(o.format), kryl_order_name(o.order),
                 kryl_precision_name(o.precision));
        test_dist_compare(dA, sA, &o, f == 1 ? 1e-3 : 1e-7, label);
    }
    kryl_dist_info info;
    CHECK_OK(kryl_matrix_dist_info(dA, &info));
    CHECK(info.size == 1 || info.spmvs > 0, "%s: no distributed SpMV counted", backend);
    kryl_matrix_destroy(&dA);
    kryl_matrix_destroy(&sA);
}

static void check_backend(kryl_context dctx, kryl_context sctx, const char *name)
{
    check_methods(dctx, sctx, name);
    check_modes_formats(dctx, sctx, name);
}

int main(int argc, char **argv)
{
    return test_dist_run(&argc, &argv, "test_dist_solve", 0, NULL, NULL, check_backend);
}
