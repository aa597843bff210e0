/* Algebraic multigrid set up on the device (src/amg/ through the cuda
 * backend): the transfer matrices P and R of every level are made from
 * device arrays without a host copy; every level equals ref's up to
 * rounding (test_amg_support.h), smoothed and plain, symmetric and not;
 * the backend's tentative prolongator and products against the host's; a
 * resetup against a fresh setup; level 0 in the sorted formats' row
 * orders, in single precision and created from device arrays.  With
 * l1-Jacobi, on a nonsymmetric matrix and in single and mixed precision,
 * no coarse level but the coarsest has a host copy, and the l1 diagonal,
 * Gershgorin's bound and the float levels made on the device are the
 * host's computation to the bit.  Every smoother on 3-D levels built on
 * the device, the multicolor ones' colorings sparsified on the host, and
 * those set up again for new values.  The
 * products both by cuSPARSE's SpGEMM and by the backend's hash SpGEMM
 * (KRYL_AMG_SPGEMM), also on awkward shapes and with the six rigid-body
 * modes of elasticity as the near-nullspace.  Skipped without a GPU. */
#define _POSIX_C_SOURCE 200809L /* setenv */

#include "test_amg_support.h"

/* Whether M has a host copy. */
static bool has_host_copy(kryl_matrix M)
{
    bool has = true;
    CHECK_OK(kryl_matrix_host_copy(M, &has, NULL));
    return has;
}

/* No host copy of any level's P and R (taken before a comparison makes one). */
static void check_no_host_copies(const amg_hierarchy *h, const char *label)
{
    for (int l = 0; l + 1 < h->nlevels; l++)
        CHECK(!has_host_copy(h->levels[l].P) && !has_host_copy(h->levels[l].R),
              "%s: level %d's P or R has a host copy", label, l);
}

/* Hierarchies on the device and on ref, the device's without host copies of P and R. */
static void check_levels(kryl_context ref, kryl_context gpu)
{
    const struct {
        kryl_generator_kind kind;
        int64_t n;
        kryl_method method;
        kryl_amg_aggregation aggregation;
    } cases[] = {
        {KRYL_GEN_POISSON3D7, 20, KRYL_METHOD_PCG, KRYL_AMG_SMOOTHED},
        {KRYL_GEN_POISSON3D7, 20, KRYL_METHOD_PCG, KRYL_AMG_PLAIN},
        {KRYL_GEN_RANDOM_SPD, 3000, KRYL_METHOD_PCG, KRYL_AMG_SMOOTHED},
        {KRYL_GEN_CONVDIFF2D, 40, KRYL_METHOD_GMRES, KRYL_AMG_PLAIN},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        kryl_solver_options o;
        amg_options(&o, cases[c].method);
        o.amg.aggregation = cases[c].aggregation;
        char label[128];
        snprintf(label, sizeof label, "%s %s %lld on cuda",
                 kryl_amg_aggregation_name(cases[c].aggregation),
                 kryl_generator_name(cases[c].kind), (long long)cases[c].n);
        kryl_matrix Ar = kt_generate(ref, cases[c].kind, cases[c].n);
        kryl_matrix Ag = kt_generate(gpu, cases[c].kind, cases[c].n);
        kryl_solver sr = NULL, sg = NULL;
        CHECK_OK(kryl_solver_create(&sr, Ar, &o));
        CHECK_OK(kryl_solver_create(&sg, Ag, &o));
        if (sr != NULL && sg != NULL) {
            const amg_hierarchy *hr = hierarchy_of(sr), *hg = hierarchy_of(sg);
            check_no_host_copies(hg, label);
            CHECK(hr->nlevels == hg->nlevels && hg->nlevels >= 3, "%s: %d levels, ref %d", label,
                  hg->nlevels, hr->nlevels);
            compare_levels(hr, hg, label);
        }
        kryl_solver_destroy(&sr);
        kryl_solver_destroy(&sg);
        kryl_matrix_destroy(&Ar);
        kryl_matrix_destroy(&Ag);
    }
}

/* No host copy of any level's matrices, double or single, but the
 * coarsest's (its dense inverse is made on the host). */
static void check_no_level_copies(const amg_hierarchy *h, const char *label)
{
    check_no_host_copies(h, label);
    for (int l = 1; l + 1 < h->nlevels; l++)
        CHECK(!has_host_copy(h->levels[l].A) && !has_host_copy(h->levels[l].Ab),
              "%s: level %d's matrix has a host copy", label, l);
}

/* The setup's row sums and float levels on the device (test_amg_support.h's
 * cases, aggregated by the device's parallel coarsening): no host copies,
 * the host's bits, ref's levels and iterations (within 2; in single and
 * mixed precision within a fifth more). */
static void check_setup_sums(kryl_context ref, kryl_context gpu)
{
    for (size_t c = 0; c < sizeof amg_sums_cases / sizeof amg_sums_cases[0]; c++) {
        const struct amg_sums_case *k = &amg_sums_cases[c];
        kryl_solver_options o;
        char label[256];
        amg_sums_options(k, &o, label, sizeof label, "cuda");
        o.amg.coarsening = KRYL_AMG_PARALLEL;
        kryl_matrix Ar = kt_generate(ref, k->kind, k->n), Ag = kt_generate(gpu, k->kind, k->n);
        kryl_solver sr = NULL, sg = NULL;
        CHECK_OK(kryl_solver_create(&sr, Ar, &o));
        CHECK_OK(kryl_solver_create(&sg, Ag, &o));
        if (sr != NULL && sg != NULL) {
            const amg_hierarchy *hr = hierarchy_of(sr), *hg = hierarchy_of(sg);
            check_no_level_copies(hg, label);
            CHECK(hr->nlevels == hg->nlevels && hg->nlevels >= 3, "%s: %d levels, ref %d", label,
                  hg->nlevels, hr->nlevels);
            compare_levels(hr, hg, label);
            check_setup_as_host(hg, hr, label);
        }
        kryl_solver_destroy(&sr);
        kryl_solver_destroy(&sg);
        double *b = kt_rhs(Ar, 5);
        kt_solve on_ref = kt_run(Ar, &o, b, NULL, NULL), on_gpu = kt_run(Ag, &o, b, NULL, NULL);
        kt_check_converged(&on_gpu, label);
        const int64_t its = k->mixed ? on_gpu.r.inner_iterations : on_gpu.r.iterations;
        const int64_t ref_its = k->mixed ? on_ref.r.inner_iterations : on_ref.r.iterations;
        printf("%s: %lld iterations, ref %lld\n", label, (long long)its, (long long)ref_its);
        /* float rounding differs between the backends' kernels: a fifth more slack */
        const int64_t slack = k->precision == KRYL_DOUBLE ? 2 : 2 + ref_its / 5;
        CHECK(llabs(its - ref_its) <= slack, "%s: %lld iterations, ref %lld", label, (long long)its,
              (long long)ref_its);
        free(b);
        kryl_matrix_destroy(&Ar);
        kryl_matrix_destroy(&Ag);
    }
}

/* The elasticity cantilever with its rigid-body modes as the near-nullspace
 * (six vectors: T by the host's QR, six columns per aggregate): the
 * device's levels against ref's. */
static void check_elasticity_levels(kryl_context ref, kryl_context gpu)
{
    kryl_generator_options g;
    kryl_generator_options_init(&g, KRYL_GEN_ELASTICITY3D, 6);
    kryl_matrix Ar = kt_generate(ref, KRYL_GEN_ELASTICITY3D, 6);
    kryl_matrix Ag = kt_generate(gpu, KRYL_GEN_ELASTICITY3D, 6);
    int64_t rows = kt_rows(Ar), nodes = 0;
    int dim = 0;
    double *xyz = NULL, *B = malloc((size_t)(6 * rows) * sizeof *B);
    CHECK_OK(kryl_generator_coordinates(&g, &nodes, &dim, &xyz));
    CHECK_OK(kryl_amg_rigid_body_modes(nodes, xyz, B));
    kryl_solver_options o;
    amg_options(&o, KRYL_METHOD_PCG);
    o.amg.nullspace = B;
    o.amg.nullspace_vectors = 6;
    kryl_solver sr = NULL, sg = NULL;
    CHECK_OK(kryl_solver_create(&sr, Ar, &o));
    CHECK_OK(kryl_solver_create(&sg, Ag, &o));
    if (sr != NULL && sg != NULL) {
        const amg_hierarchy *hr = hierarchy_of(sr), *hg = hierarchy_of(sg);
        CHECK(hr->nlevels == hg->nlevels && hg->nlevels >= 2, "elasticity: %d levels, ref %d",
              hg->nlevels, hr->nlevels);
        compare_levels(hr, hg, "elasticity3d 6 with its rigid-body modes on cuda");
    }
    kryl_solver_destroy(&sr);
    kryl_solver_destroy(&sg);
    kryl_matrix_destroy(&Ar);
    kryl_matrix_destroy(&Ag);
    free(xyz);
    free(B);
}

/* Level 0 in the row order of JDS and SELL, in single precision, and
 * created from device arrays: AMG-PCG converges as with CSR. */
static void check_level_zero(kryl_context gpu)
{
    kryl_solver_options o;
    amg_options(&o, KRYL_METHOD_PCG);
    kryl_matrix A = kt_generate(gpu, KRYL_GEN_RGG, 3000);
    double *b = kt_rhs(A, 2);
    kt_check_formats(A, &o, b, "amg-pcg rgg 3000 on cuda");
    kryl_solver_options os = o;
    os.precision = KRYL_SINGLE;
    os.rtol = 1e-5;
    kt_solve single = kt_run(A, &os, b, NULL, NULL);
    kt_check_converged(&single, "amg-pcg rgg 3000 on cuda in single precision");
    /* the same matrix from device arrays */
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    int64_t n = 0, nnz = 0;
    CHECK_OK(kryl_matrix_size(A, &n, NULL, &nnz));
    CHECK_OK(kryl_matrix_csr_view(A, &rp, &ci, &v));
    const kryl_backend_ops *ops = gpu->ops;
    void *drp = NULL, *dci = NULL, *dv = NULL;
    CHECK_OK(ops->alloc(gpu, &drp, (size_t)(n + 1) * sizeof *rp));
    CHECK_OK(ops->alloc(gpu, &dci, (size_t)nnz * sizeof *ci));
    CHECK_OK(ops->alloc(gpu, &dv, (size_t)nnz * sizeof *v));
    CHECK_OK(ops->upload(gpu, drp, rp, (size_t)(n + 1) * sizeof *rp));
    CHECK_OK(ops->upload(gpu, dci, ci, (size_t)nnz * sizeof *ci));
    CHECK_OK(ops->upload(gpu, dv, v, (size_t)nnz * sizeof *v));
    kryl_matrix D = NULL;
    CHECK_OK(kryl_matrix_create_csr_device(&D, gpu, n, n, nnz, drp, dci, dv));
    ops->release(gpu, drp);
    ops->release(gpu, dci);
    ops->release(gpu, dv);
    if (D != NULL) {
        kryl_solver s = NULL;
        CHECK_OK(kryl_solver_create(&s, D, &o));
        if (s != NULL) check_no_host_copies(hierarchy_of(s), "rgg 3000 from device arrays");
        kryl_solver_destroy(&s);
        kt_solve from_device = kt_run(D, &o, b, NULL, NULL);
        kt_check_converged(&from_device, "amg-pcg rgg 3000 from device arrays");
    }
    free(b);
    kryl_matrix_destroy(&D);
    kryl_matrix_destroy(&A);
}

/* Every smoother on levels the device built (the parallel coarsening: no
 * host copies), on 3-D problems whose coarse levels need more than
 * KRYL_MCOLOR_FEW_COLORS colors, so that the multicolor smoothers'
 * colorings are sparsified on the host: AMG converges by the true
 * residual, symmetric under PCG and not under GMRES. */
static void check_smoothers(kryl_context gpu)
{
    /* each smoother in double, and the multicolor one on single-precision
     * levels too (colored from the host's copy) */
    const struct {
        kryl_amg_smoother smoother;
        kryl_precision precision;
        double rtol;
    } smoothers[] = {{KRYL_AMG_CHEBYSHEV, KRYL_DOUBLE, 1e-8}, {KRYL_AMG_JACOBI, KRYL_DOUBLE, 1e-8},
                     {KRYL_AMG_L1JACOBI, KRYL_DOUBLE, 1e-8},  {KRYL_AMG_MCGS, KRYL_DOUBLE, 1e-8},
                     {KRYL_AMG_ILU0, KRYL_DOUBLE, 1e-8},      {KRYL_AMG_MCGS, KRYL_SINGLE, 1e-5}};
    const struct {
        kryl_generator_kind kind;
        int64_t n;
        kryl_method method;
    } cases[] = {
        {KRYL_GEN_POISSON3D27, 16, KRYL_METHOD_PCG},
        {KRYL_GEN_CONVDIFF3D, 20, KRYL_METHOD_GMRES},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        kryl_matrix A = kt_generate(gpu, cases[c].kind, cases[c].n);
        double *b = kt_rhs(A, 1);
        for (size_t m = 0; m < sizeof smoothers / sizeof smoothers[0]; m++) {
            kryl_solver_options o;
            amg_options(&o, cases[c].method);
            o.amg.coarsening = KRYL_AMG_PARALLEL;
            o.amg.smoother = smoothers[m].smoother;
            o.precision = smoothers[m].precision;
            o.rtol = smoothers[m].rtol;
            char label[160];
            snprintf(label, sizeof label, "%s smoother (%s) on %s %lld (cuda, levels built there)",
                     kryl_amg_smoother_name(smoothers[m].smoother),
                     kryl_precision_name(smoothers[m].precision),
                     kryl_generator_name(cases[c].kind), (long long)cases[c].n);
            kt_solve r = kt_run(A, &o, b, NULL, NULL);
            CHECK(r.create == KRYL_SUCCESS, "%s: setup failed: %s", label, kryl_last_error());
            if (r.create == KRYL_SUCCESS) kt_check_converged(&r, label);
        }
        free(b);
        kryl_matrix_destroy(&A);
    }
}

int main(void)
{
    if (!test_cuda_device("test_cuda_amg")) return TEST_SKIP_CODE;
    kryl_context gpu = test_context(KRYL_BACKEND_CUDA), ref = test_context(KRYL_BACKEND_REF);
    /* the products by cuSPARSE's SpGEMM and by the backend's hash SpGEMM */
    const char *const spgemm[] = {"cusparse", "hash"};
    for (int p = 0; p < 2; p++) {
        setenv("KRYL_AMG_SPGEMM", spgemm[p], 1);
        char name[32];
        snprintf(name, sizeof name, "cuda (%s)", spgemm[p]);
        printf("KRYL_AMG_SPGEMM=%s\n", spgemm[p]);
        check_levels(ref, gpu);
        check_elasticity_levels(ref, gpu);
        check_products_against_host(ref, gpu, KRYL_BACKEND_CUDA, name);
        check_product_shapes(ref, gpu, KRYL_BACKEND_CUDA, name);
    }
    unsetenv("KRYL_AMG_SPGEMM");
    check_tentative_against_host(ref, gpu, KRYL_BACKEND_CUDA, "cuda");
    check_setup_sums(ref, gpu);
    check_level_zero(gpu);
    check_smoothers(gpu);
    check_smoother_resetup(gpu, KRYL_AMG_PARALLEL);
    kryl_context_destroy(&gpu);
    kryl_context_destroy(&ref);
    check_resetup_on(KRYL_BACKEND_CUDA);
    return test_summary("test_cuda_amg");
}
