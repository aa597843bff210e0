/* Algebraic multigrid (src/amg/, src/precond/amg.c): every level's P and
 * A_c of each backend against ref's, the convergence factor of the two-grid
 * and multigrid iterations on Poisson, iteration counts that do not grow
 * with the grid, every Krylov method and precision preconditioned by it,
 * the smoothers, cycles, coarsenings and near-nullspaces, each backend's
 * tentative prolongator against the host's QR, its products against the
 * host's (also on awkward shapes), a resetup against a fresh setup, and
 * refusals (test_amg_support.h). */
#include "test_amg_support.h"

/* One hierarchy built on ctx and on ref: the same levels up to rounding. */
static void compare_hierarchies(kryl_context ref, kryl_context ctx, kryl_generator_kind kind,
                                int64_t n, const kryl_solver_options *o, const char *label)
{
    kryl_matrix Ar = kt_generate(ref, kind, n), Ac = kt_generate(ctx, kind, n);
    kryl_solver sr = NULL, sc = NULL;
    CHECK_OK(kryl_solver_create(&sr, Ar, o));
    CHECK_OK(kryl_solver_create(&sc, Ac, o));
    if (sr != NULL && sc != NULL) {
        const amg_hierarchy *hr = hierarchy_of(sr), *hc = hierarchy_of(sc);
        CHECK(hr->nlevels == hc->nlevels && hr->nlevels >= 3, "%s: %d levels, ref %d", label,
              hc->nlevels, hr->nlevels);
        compare_levels(hr, hc, label);
    }
    kryl_solver_destroy(&sr);
    kryl_solver_destroy(&sc);
    kryl_matrix_destroy(&Ar);
    kryl_matrix_destroy(&Ac);
}

static void check_levels_against_ref(kryl_context ref, kryl_context ctx, kryl_backend_kind kind,
                                     const char *name)
{
    (void)kind;
    kryl_solver_options o;
    amg_options(&o, KRYL_METHOD_PCG);
    char label[256];
    for (int v = 0; v < 4; v++) {
        o.amg.aggregation = v & 1 ? KRYL_AMG_PLAIN : KRYL_AMG_SMOOTHED;
        /* greedy, mis2, and parallel (the backend's amg_aggregate) without and with theta */
        o.amg.coarsening = v == 0 ? KRYL_AMG_GREEDY : v == 1 ? KRYL_AMG_MIS2 : KRYL_AMG_PARALLEL;
        o.amg.theta = v == 3 ? 0.1 : 0.0;
        snprintf(label, sizeof label, "%s %s %s on %s",
                 kryl_amg_aggregation_name(o.amg.aggregation),
                 kryl_amg_coarsening_name(o.amg.coarsening), "poisson3d 14", name);
        compare_hierarchies(ref, ctx, KRYL_GEN_POISSON3D7, 14, &o, label);
        snprintf(label, sizeof label, "%s %s %s on %s",
                 kryl_amg_aggregation_name(o.amg.aggregation),
                 kryl_amg_coarsening_name(o.amg.coarsening), "random-spd 3000", name);
        compare_hierarchies(ref, ctx, KRYL_GEN_RANDOM_SPD, 3000, &o, label);
    }
    /* a nonsymmetric matrix: the strength graph made symmetric, no Lanczos */
    amg_options(&o, KRYL_METHOD_GMRES);
    o.amg.aggregation = KRYL_AMG_PLAIN;
    snprintf(label, sizeof label, "plain convdiff2d 40 on %s", name);
    compare_hierarchies(ref, ctx, KRYL_GEN_CONVDIFF2D, 40, &o, label);
}

/* In single precision, and in a mixed scheme's inner solver, the finest
 * level's double matrix is the solver's own (on a device its aggregation
 * then runs there, not on the host copy). */
static void check_finest_from_double(kryl_context ref, kryl_context ctx, kryl_backend_kind kind,
                                     const char *name)
{
    (void)ref;
    (void)kind;
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 40);
    const kryl_precision precisions[] = {KRYL_SINGLE, KRYL_MIXED};
    for (size_t p = 0; p < sizeof precisions / sizeof precisions[0]; p++) {
        kryl_solver_options o;
        amg_options(&o, KRYL_METHOD_PCG);
        o.precision = precisions[p];
        if (o.precision == KRYL_MIXED) o.mixed = KRYL_MIXED_INNER_OUTER;
        kryl_solver s = NULL;
        CHECK_OK(kryl_solver_create(&s, A, &o));
        if (s != NULL)
            CHECK(hierarchy_of(s)->levels[0].A == A,
                  "amg in %s precision on %s: the finest level is not the solver's double matrix",
                  kryl_precision_name(o.precision), name);
        kryl_solver_destroy(&s);
    }
    kryl_matrix_destroy(&A);
}

/* The setup's sums and float levels as the host made them (the same bits),
 * and the iterations they gave, on the host's backends (cuda's:
 * test_cuda_amg, whose float transfers keep no double copy). */
static void check_setup_sums(kryl_context ref, kryl_context ctx, kryl_backend_kind kind,
                             const char *name)
{
    (void)ref;
    if (kind == KRYL_BACKEND_CUDA) return;
    for (size_t c = 0; c < sizeof amg_sums_cases / sizeof amg_sums_cases[0]; c++) {
        const struct amg_sums_case *k = &amg_sums_cases[c];
        kryl_solver_options o;
        char label[256];
        amg_sums_options(k, &o, label, sizeof label, name);
        kryl_matrix A = kt_generate(ctx, k->kind, k->n);
        kryl_solver s = NULL;
        CHECK_OK(kryl_solver_create(&s, A, &o));
        if (s != NULL) check_setup_as_host(hierarchy_of(s), NULL, label);
        kryl_solver_destroy(&s);
        double *b = kt_rhs(A, 5);
        kt_solve r = kt_run(A, &o, b, NULL, NULL);
        kt_check_converged(&r, label);
        /* a mixed scheme's inner iterations, where the float hierarchy acts */
        const int64_t its = k->mixed ? r.r.inner_iterations : r.r.iterations;
        printf("%s: %lld iterations\n", label, (long long)its);
        CHECK(k->iterations == 0 || its == k->iterations, "%s: %lld iterations, %lld before", label,
              (long long)its, (long long)k->iterations);
        free(b);
        kryl_matrix_destroy(&A);
    }
}

/* The stationary iteration's factor (measured 0.17 / 0.30 two-grid on 2-D / 3-D
 * Poisson, 0.23 / 0.29 with all levels; CG then needs 8-9 iterations):
 * max over 5 steps of ||e_{k+1}|| / ||e_k|| for e <- (I - M A) e from a random e. */
static double convergence_factor(kryl_matrix A, const kryl_solver_options *o)
{
    kryl_solver s = NULL;
    CHECK_OK(kryl_solver_create(&s, A, o));
    if (s == NULL) return 1.0;
    int64_t n = kt_rows(A);
    double *e0 = kt_rhs(A, 5), *eh = malloc((size_t)n * sizeof *eh);
    kryl_vector e = NULL, r = NULL, z = NULL;
    CHECK_OK(kryl_vector_create(&e, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&r, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&z, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_set(e, e0, n));
    double worst = 0.0, previous = 0.0;
    for (int k = 0; k < 12; k++) {
        /* r = A e;  z = M r;  e -= z */
        CHECK_OK(kryl_matrix_spmv(A, 1.0, e, 0.0, r));
        CHECK_OK(s->pc->apply(s->pc, r, z));
        CHECK_OK(s->ops->axpby(s->ctx, -1.0, z, 1.0, e));
        CHECK_OK(kryl_vector_get(e, eh, n));
        double norm = 0.0;
        for (int64_t i = 0; i < n; i++) norm += eh[i] * eh[i];
        norm = sqrt(norm);
        /* the asymptotic factor: the first steps remove the smooth start's easy part */
        if (k >= 7 && previous > 0.0 && norm / previous > worst) worst = norm / previous;
        previous = norm;
    }
    free(e0);
    free(eh);
    kryl_vector_destroy(&e);
    kryl_vector_destroy(&r);
    kryl_vector_destroy(&z);
    kryl_solver_destroy(&s);
    return worst;
}

static void check_convergence_factors(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_OMP);
    const struct {
        kryl_generator_kind kind;
        int64_t n;
        int levels;
        double bound;
    } cases[] = {{KRYL_GEN_POISSON2D5, 64, 2, 0.22},
                 {KRYL_GEN_POISSON3D7, 16, 2, 0.36},
                 {KRYL_GEN_POISSON2D5, 128, 20, 0.28},
                 {KRYL_GEN_POISSON3D7, 24, 20, 0.36}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        kryl_matrix A = kt_generate(ctx, cases[c].kind, cases[c].n);
        kryl_solver_options o;
        amg_options(&o, KRYL_METHOD_PCG);
        o.amg.max_levels = cases[c].levels;
        double factor = convergence_factor(A, &o);
        printf("%s %lld, %s: convergence factor %.3f\n", kryl_generator_name(cases[c].kind),
               (long long)cases[c].n, cases[c].levels == 2 ? "two-grid" : "V-cycle", factor);
        CHECK(factor < cases[c].bound, "%s %lld with %d levels: convergence factor %.3f >= %.2f",
              kryl_generator_name(cases[c].kind), (long long)cases[c].n, cases[c].levels, factor,
              cases[c].bound);
        kryl_matrix_destroy(&A);
    }
    kryl_context_destroy(&ctx);
}

/* The PCG iterations of AMG with `coarsening` on the grids of `kind`, sizes
 * sizes[0..) up to the first 0: at most 15, within +20% (rounded up) when
 * the grid doubles. */
static void check_doublings(kryl_context ctx, kryl_generator_kind kind, const int64_t *sizes,
                            kryl_amg_coarsening coarsening)
{
    int64_t previous = -1;
    for (int s = 0; s < 4 && sizes[s] > 0; s++) {
        kryl_matrix A = kt_generate(ctx, kind, sizes[s]);
        double *b = kt_rhs(A, 9);
        kryl_solver_options o;
        kt_options(&o, KRYL_METHOD_PCG, KRYL_PRECOND_AMG, 1e-8, 200);
        o.amg.coarsening = coarsening;
        char label[128];
        snprintf(label, sizeof label, "amg-pcg %s %lld, %s coarsening", kryl_generator_name(kind),
                 (long long)sizes[s], kryl_amg_coarsening_name(coarsening));
        kt_solve r = kt_run(A, &o, b, NULL, NULL);
        kt_check_converged(&r, label);
        printf("%s: %lld iterations\n", label, (long long)r.r.iterations);
        CHECK(previous < 0 || r.r.iterations * 5 <= previous * 6 + 4,
              "%s: %lld iterations after %lld on the coarser grid", label,
              (long long)r.r.iterations, (long long)previous);
        CHECK(r.r.iterations <= 15, "%s: %lld iterations", label, (long long)r.r.iterations);
        previous = r.r.iterations;
        free(b);
        kryl_matrix_destroy(&A);
    }
}

/* PCG iterations within +20% (rounded up) when the grid doubles, by the
 * host's default (greedy) aggregation and the device's (parallel). */
static void check_h_independence(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_OMP);
    const struct {
        kryl_generator_kind kind;
        int64_t sizes[4];
    } grids[] = {{KRYL_GEN_POISSON2D5, {32, 64, 128, 256}},
                 {KRYL_GEN_POISSON3D7, {8, 16, 32, 0}},
                 {KRYL_GEN_POISSON3D27, {8, 16, 32, 0}}};
    const kryl_amg_coarsening coarsenings[] = {KRYL_AMG_AUTO_COARSENING, KRYL_AMG_PARALLEL};
    for (size_t c = 0; c < sizeof coarsenings / sizeof coarsenings[0]; c++)
        for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++)
            check_doublings(ctx, grids[g].kind, grids[g].sizes, coarsenings[c]);
    kryl_context_destroy(&ctx);
}

/* The coarse levels' threshold (coarse_theta, 0.02 by default) drops the
 * Galerkin operators' weakest couplings, so the levels below the first
 * coarsen less than with every coupling strong (coarse_theta 0); the first
 * level's aggregates depend on theta alone. */
static void check_coarse_theta(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_OMP);
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 256);
    kryl_amg_info info[2];
    for (int k = 0; k < 2; k++) {
        kryl_solver_options o;
        kt_options(&o, KRYL_METHOD_PCG, KRYL_PRECOND_AMG, 1e-8, 200);
        o.amg.coarsening = KRYL_AMG_PARALLEL;
        CHECK(o.amg.coarse_theta == 0.02, "the default coarse_theta is %g", o.amg.coarse_theta);
        if (k == 1) o.amg.coarse_theta = 0.0;
        kryl_solver s = NULL;
        memset(&info[k], 0, sizeof info[k]);
        CHECK_OK(kryl_solver_create(&s, A, &o));
        if (s != NULL) CHECK_OK(kryl_solver_amg_info(s, &info[k]));
        kryl_solver_destroy(&s);
    }
    CHECK(info[0].levels >= 3 && info[1].levels >= 3 && info[0].rows[1] == info[1].rows[1] &&
              info[0].rows[2] > info[1].rows[2],
          "coarse_theta 0.02 against 0: %d and %d levels, level 1 %lld and %lld rows, level 2 "
          "%lld and %lld",
          info[0].levels, info[1].levels, (long long)info[0].rows[1], (long long)info[1].rows[1],
          (long long)info[0].rows[2], (long long)info[1].rows[2]);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

/* Every method, precision and mixed scheme with AMG, on every backend. */
static void check_methods(void)
{
    kryl_backend_kind kinds[3];
    int nk = test_backends(kinds, 3);
    const struct {
        kryl_method method;
        kryl_precision precision;
        kryl_mixed_scheme mixed;
        kryl_generator_kind kind;
        kryl_amg_aggregation aggregation;
        int64_t maxit;
    } cases[] = {
        {KRYL_METHOD_CG, KRYL_DOUBLE, KRYL_MIXED_NONE, KRYL_GEN_POISSON2D5, KRYL_AMG_SMOOTHED, 20},
        {KRYL_METHOD_PCG, KRYL_DOUBLE, KRYL_MIXED_NONE, KRYL_GEN_POISSON3D7, KRYL_AMG_SMOOTHED, 20},
        {KRYL_METHOD_PIPECG, KRYL_DOUBLE, KRYL_MIXED_NONE, KRYL_GEN_POISSON2D5, KRYL_AMG_SMOOTHED,
         25},
        {KRYL_METHOD_GMRES, KRYL_DOUBLE, KRYL_MIXED_NONE, KRYL_GEN_CONVDIFF2D, KRYL_AMG_PLAIN, 60},
        /* the default aggregation: plain for the nonsymmetric matrix */
        {KRYL_METHOD_BICGSTAB, KRYL_DOUBLE, KRYL_MIXED_NONE, KRYL_GEN_CONVDIFF2D,
         KRYL_AMG_AUTO_AGGREGATION, 60},
        {KRYL_METHOD_GMRES, KRYL_DOUBLE, KRYL_MIXED_NONE, KRYL_GEN_POISSON2D5, KRYL_AMG_SMOOTHED,
         20},
        {KRYL_METHOD_PCG, KRYL_SINGLE, KRYL_MIXED_NONE, KRYL_GEN_POISSON2D5, KRYL_AMG_SMOOTHED, 20},
        {KRYL_METHOD_PCG, KRYL_MIXED, KRYL_MIXED_INNER_OUTER, KRYL_GEN_POISSON3D7,
         KRYL_AMG_SMOOTHED, 60},
        {KRYL_METHOD_PCG, KRYL_MIXED, KRYL_MIXED_IR, KRYL_GEN_POISSON2D5, KRYL_AMG_SMOOTHED, 60},
        {KRYL_METHOD_GMRES, KRYL_MIXED, KRYL_MIXED_INNER_OUTER, KRYL_GEN_CONVDIFF2D, KRYL_AMG_PLAIN,
         120},
    };
    for (int k = 0; k < nk; k++) {
        kryl_context ctx = kt_context(kinds[k]);
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            int64_t n = cases[c].kind == KRYL_GEN_POISSON3D7 ? 20 : 60;
            kryl_matrix A = kt_generate(ctx, cases[c].kind, n);
            double *b = kt_rhs(A, 4), *x0 = kt_rhs(A, 6);
            kryl_solver_options o;
            amg_options(&o, cases[c].method);
            o.precision = cases[c].precision;
            o.mixed = cases[c].mixed;
            o.amg.aggregation = cases[c].aggregation;
            o.rtol = cases[c].precision == KRYL_SINGLE ? 1e-5 : 1e-9;
            o.max_iterations = cases[c].maxit;
            char label[160];
            snprintf(label, sizeof label, "%s %s%s%s %s on %s", kryl_method_name(cases[c].method),
                     kryl_precision_name(cases[c].precision), cases[c].mixed ? " " : "",
                     cases[c].mixed ? kryl_mixed_scheme_name(cases[c].mixed) : "",
                     kryl_generator_name(cases[c].kind), kryl_backend_name(kinds[k]));
            kt_solve s = kt_run(A, &o, b, x0, NULL);
            if (kt_supported(ctx, &s, label)) {
                kt_check_converged(&s, label);
                printf("%s: %lld iterations\n", label, (long long)s.r.iterations);
            }
            free(b);
            free(x0);
            kryl_matrix_destroy(&A);
        }
        kryl_context_destroy(&ctx);
    }
}

/* On a nonsymmetric matrix GMRES takes fewer iterations with ILU(0) (two
 * sweeps) than with Chebyshev, on every backend; the default is ILU(0) on
 * the host's backends, and on a device's up to KRYL_AMG_DEVICE_ILU0_ROWS
 * rows, Chebyshev above. */
static void check_convection_smoother(kryl_context ref, kryl_context ctx, kryl_backend_kind kind,
                                      const char *name)
{
    (void)ref;
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_CONVDIFF2D, 80);
    double *b = kt_rhs(A, 3);
    int64_t its[2] = {0, 0};
    const kryl_amg_smoother smoothers[2] = {KRYL_AMG_ILU0, KRYL_AMG_CHEBYSHEV};
    for (int s = 0; s < 2; s++) {
        kryl_solver_options o;
        amg_options(&o, KRYL_METHOD_GMRES);
        o.amg.smoother = smoothers[s];
        char label[256];
        snprintf(label, sizeof label, "convdiff2d 80 gmres amg %s on %s",
                 kryl_amg_smoother_name(smoothers[s]), name);
        kt_solve r = kt_run(A, &o, b, NULL, NULL);
        if (!kt_supported(ctx, &r, label)) continue;
        kt_check_converged(&r, label);
        its[s] = r.r.iterations;
        printf("%s: %lld iterations\n", label, (long long)its[s]);
    }
    CHECK(its[0] < its[1], "%s: ILU(0) smoothing took %lld iterations, Chebyshev %lld", name,
          (long long)its[0], (long long)its[1]);
    free(b);
    kryl_matrix_destroy(&A);
    /* 80^2 and, just past the device's bound, 257^2 rows */
    const int64_t sides[2] = {80, 257};
    for (int i = 0; i < 2; i++) {
        A = kt_generate(ctx, KRYL_GEN_CONVDIFF2D, sides[i]);
        kryl_solver_options o;
        amg_options(&o, KRYL_METHOD_GMRES);
        kryl_solver s = NULL;
        CHECK_OK(kryl_solver_create(&s, A, &o));
        const kryl_amg_smoother expected =
            kind == KRYL_BACKEND_CUDA && i == 1 ? KRYL_AMG_CHEBYSHEV : KRYL_AMG_ILU0;
        if (s != NULL)
            CHECK(hierarchy_of(s)->opts.smoother == expected,
                  "%s: the default smoother of %lld^2 rows is %s", name, (long long)sides[i],
                  kryl_amg_smoother_name(hierarchy_of(s)->opts.smoother));
        kryl_solver_destroy(&s);
        kryl_matrix_destroy(&A);
    }
}

/* Each smoother with V- and W-cycles, and the formats that reorder rows. */
static void check_smoothers(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_OMP);
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON3D7, 16);
    double *b = kt_rhs(A, 8);
    for (int sm = KRYL_AMG_CHEBYSHEV; sm <= KRYL_AMG_ILU0; sm++)
        for (int cy = KRYL_AMG_V_CYCLE; cy <= KRYL_AMG_W_CYCLE; cy++)
            for (int sweeps = 0; sweeps <= 3; sweeps += 3) {
                kryl_solver_options o;
                amg_options(&o, KRYL_METHOD_PCG);
                o.amg.smoother = (kryl_amg_smoother)sm;
                o.amg.cycle = (kryl_amg_cycle)cy;
                o.amg.sweeps = sweeps;
                o.max_iterations = 30;
                char label[128];
                snprintf(label, sizeof label, "%s(%d) %s-cycle",
                         kryl_amg_smoother_name(o.amg.smoother), sweeps,
                         kryl_amg_cycle_name(o.amg.cycle));
                kt_solve s = kt_run(A, &o, b, NULL, NULL);
                CHECK(s.create == KRYL_SUCCESS, "%s: %s", label, kryl_last_error());
                if (s.create != KRYL_SUCCESS) continue;
                kt_check_converged(&s, label);
                printf("%s: %lld iterations\n", label, (long long)s.r.iterations);
            }
    kryl_solver_options o;
    amg_options(&o, KRYL_METHOD_PCG);
    free(b);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
    /* ref has every format: P_0's rows follow a sorted format's order */
    ctx = kt_context(KRYL_BACKEND_REF);
    A = kt_generate(ctx, KRYL_GEN_RGG, 3000);
    b = kt_rhs(A, 2);
    kt_check_formats(A, &o, b, "amg-pcg rgg 3000");
    free(b);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

/* The constant given as the near-nullspace is the default (up to rounding); more vectors work. */
static void check_nullspace(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_OMP);
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 50);
    int64_t n = kt_rows(A);
    double *b = kt_rhs(A, 3), *B = malloc((size_t)(2 * n) * sizeof *B);
    for (int64_t i = 0; i < n; i++) {
        B[i] = 1.0;
        B[n + i] = (double)(i % 50) / 50.0; /* x: a linear mode */
    }
    kryl_solver_options o;
    amg_options(&o, KRYL_METHOD_PCG);
    kt_solve plain = kt_run(A, &o, b, NULL, NULL);
    o.amg.nullspace = B;
    o.amg.nullspace_vectors = 1;
    kt_solve constant = kt_run(A, &o, b, NULL, NULL);
    /* the host's QR gives t_ij = 1 / sqrt(|a|), the backend sqrt(1 / |a|): equal to rounding */
    CHECK(constant.create == KRYL_SUCCESS && constant.r.iterations == plain.r.iterations &&
              fabs(constant.r.relres - plain.r.relres) <= 1e-6 * plain.r.relres,
          "the constant near-nullspace: %lld iterations, relres %g; default %lld, %g",
          (long long)constant.r.iterations, constant.r.relres, (long long)plain.r.iterations,
          plain.r.relres);
    o.amg.nullspace_vectors = 2;
    kt_solve two = kt_run(A, &o, b, NULL, NULL);
    kt_check_converged(&two, "two near-nullspace vectors");
    B[7] = NAN;
    kryl_solver s = NULL;
    CHECK_STATUS(kryl_solver_create(&s, A, &o), KRYL_ERR_INVALID_VALUE);
    o.amg.nullspace_vectors = 0;
    CHECK_STATUS(kryl_solver_create(&s, A, &o), KRYL_ERR_INVALID_ARGUMENT);
    free(b);
    free(B);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
    /* the rigid-body modes of two nodes */
    const double xyz[6] = {0.0, 0.0, 0.0, 1.0, 2.0, 3.0};
    double modes[36];
    CHECK_OK(kryl_amg_rigid_body_modes(2, xyz, modes));
    /* node 1 sits at (0.5, 1, 1.5) from the centroid: rotation about z is (-1, 0.5, 0) */
    CHECK(modes[0] == 1.0 && modes[6 + 1] == 1.0 && modes[12 + 2] == 1.0 && modes[18 + 3] == -1.0 &&
              modes[18 + 4] == 0.5 && modes[18 + 5] == 0.0,
          "rigid-body modes: unexpected values");
    CHECK_STATUS(kryl_amg_rigid_body_modes(0, xyz, modes), KRYL_ERR_INVALID_ARGUMENT);
}

/* PCG on the elasticity cantilever with the rigid-body modes of its nodes,
 * and with the constant alone. */
static int64_t elasticity_iterations(kryl_context ctx, int64_t n, bool modes)
{
    kryl_generator_options g;
    kryl_generator_options_init(&g, KRYL_GEN_ELASTICITY3D, n);
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_ELASTICITY3D, n);
    int64_t rows = kt_rows(A), nodes = 0;
    int dim = 0;
    double *xyz = NULL, *B = malloc((size_t)(6 * rows) * sizeof *B);
    CHECK_OK(kryl_generator_coordinates(&g, &nodes, &dim, &xyz));
    CHECK(dim == 3 && 3 * nodes == rows, "elasticity3d %lld: %lld nodes in %d dimensions",
          (long long)n, (long long)nodes, dim);
    CHECK_OK(kryl_amg_rigid_body_modes(nodes, xyz, B));
    double *b = kt_rhs(A, 12);
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_PCG, KRYL_PRECOND_AMG, 1e-8, 1000);
    if (modes) {
        o.amg.nullspace = B;
        o.amg.nullspace_vectors = 6;
    }
    char label[96];
    snprintf(label, sizeof label, "elasticity3d %lld %s rigid-body modes", (long long)n,
             modes ? "with" : "without");
    kt_solve s = kt_run(A, &o, b, NULL, NULL);
    kt_check_converged(&s, label);
    printf("%s: %lld iterations\n", label, (long long)s.r.iterations);
    free(b);
    free(B);
    free(xyz);
    kryl_matrix_destroy(&A);
    return s.r.iterations;
}

static void check_elasticity(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_OMP);
    int64_t with = elasticity_iterations(ctx, 6, true);
    int64_t without = elasticity_iterations(ctx, 6, false);
    CHECK(with * 3 <= without * 2,
          "elasticity: %lld iterations with the rigid-body modes, %lld "
          "without",
          (long long)with, (long long)without);
    kryl_context_destroy(&ctx);
}

/* Bad options and matrices AMG cannot take: a clear refusal, no solver. */
static void check_refusals(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 20);
    kryl_solver s = NULL;
    kryl_solver_options o;
    amg_options(&o, KRYL_METHOD_PCG);
    o.amg.theta = 1.5;
    CHECK_STATUS(kryl_solver_create(&s, A, &o), KRYL_ERR_INVALID_ARGUMENT);
    amg_options(&o, KRYL_METHOD_PCG);
    o.amg.coarse_size = 0;
    CHECK_STATUS(kryl_solver_create(&s, A, &o), KRYL_ERR_INVALID_ARGUMENT);
    amg_options(&o, KRYL_METHOD_PCG);
    o.amg.max_levels = KRYL_AMG_MAX_LEVELS + 1;
    CHECK_STATUS(kryl_solver_create(&s, A, &o), KRYL_ERR_INVALID_ARGUMENT);
    amg_options(&o, KRYL_METHOD_PCG);
    o.amg.smoother = (kryl_amg_smoother)9;
    CHECK_STATUS(kryl_solver_create(&s, A, &o), KRYL_ERR_INVALID_ARGUMENT);
    kryl_amg_info info;
    kryl_solver_options_init(&o);
    CHECK_OK(kryl_solver_create(&s, A, &o));
    CHECK_STATUS(kryl_solver_amg_info(s, &info), KRYL_ERR_INVALID_ARGUMENT);
    kryl_solver_destroy(&s);
    kryl_matrix_destroy(&A);
    /* a zero diagonal: smoothing the prolongator divides by it */
    double dense[64 * 64] = {0};
    for (int i = 0; i < 64; i++) {
        dense[i * 64 + i] = i == 5 ? 0.0 : 4.0;
        if (i > 0) dense[i * 64 + i - 1] = -1.0;
        if (i < 63) dense[i * 64 + i + 1] = -1.2;
    }
    A = kt_dense(ctx, 64, dense);
    kt_options(&o, KRYL_METHOD_GMRES, KRYL_PRECOND_AMG, 1e-8, 100);
    o.amg.coarse_size = 10;
    CHECK_STATUS(kryl_solver_create(&s, A, &o), KRYL_ERR_ZERO_DIAGONAL);
    printf("zero diagonal refused: %s\n", kryl_last_error());
    kryl_matrix_destroy(&A);
    /* a singular matrix (the Neumann Laplacian): the coarsest level says so */
    for (int i = 0; i < 64; i++) {
        dense[i * 64 + i] = (i > 0) + (i < 63);
        if (i > 0) dense[i * 64 + i - 1] = -1.0;
        if (i < 63) dense[i * 64 + i + 1] = -1.0;
    }
    A = kt_dense(ctx, 64, dense);
    kt_options(&o, KRYL_METHOD_GMRES, KRYL_PRECOND_AMG, 1e-8, 100);
    CHECK_STATUS(kryl_solver_create(&s, A, &o), KRYL_ERR_NOT_POSITIVE_DEFINITE);
    printf("singular matrix refused: %s\n", kryl_last_error());
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

int main(void)
{
    test_each_config(false, check_levels_against_ref);
    test_each_config(true, check_setup_sums);
    test_each_config(true, check_finest_from_double);
    test_each_config(false, check_products_against_host);
    test_each_config(false, check_product_shapes);
    test_each_config(true, check_tentative_against_host);
    check_convergence_factors();
    check_h_independence();
    check_coarse_theta();
    check_methods();
    check_smoothers();
    test_each_config(true, check_convection_smoother);
    check_nullspace();
    check_elasticity();
    check_resetup_on(KRYL_BACKEND_OMP);
    kryl_context omp = kt_context(KRYL_BACKEND_OMP);
    check_smoother_resetup(omp, KRYL_AMG_PARALLEL);
    kryl_context_destroy(&omp);
    check_refusals();
    return test_summary("test_amg");
}
