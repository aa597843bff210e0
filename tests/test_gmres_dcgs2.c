/* GMRES's low-synchronisation orthogonalisation (DCGS2, backend.h's
 * gmres_dcgs2_* operations) against CGS2:
 *   - the three operations on every backend against ref, step by step
 *     through an Arnoldi cycle (k = 0..m, then the completing dot and
 *     column), double and single (flexible: with T), n = 1 (invariant
 *     after one step), 33, 1000: each backend starts
 *     each call from ref's state and must match ref's result;
 *   - the loss of orthogonality ||I - Q'Q||_F and the Arnoldi relation
 *     ||A Q - Q H|| of a 40-step cycle on hard nonsymmetric matrices;
 *   - GMRES and FGMRES with each orthogonalisation on every backend:
 *     converged by the true residual, iteration counts of DCGS2 within a
 *     small margin of CGS2's on well-conditioned problems. */
#include "backends/backend.h"
#include "test_krylov_support.h"

enum { OPS_M = 8 };

/* kryl_gmres_ls over one backend block, laid out as gmres.c lays it out. */
typedef struct ls_block {
    kryl_gmres_ls ls;
    double *block;
    size_t doubles;
} ls_block;

static ls_block ls_new(kryl_context ctx, int m, bool flexible)
{
    ls_block b;
    memset(&b, 0, sizeof b);
    size_t mm = (size_t)m;
    b.doubles = (mm + 1) * mm + 2 * mm + (mm + 1) + mm + (mm + 1) + 3 + (mm + 1) * mm +
                2 * (mm + 1) + 1 + 3 + 2 + (flexible ? mm * mm : 0);
    CHECK_OK(ctx->ops->alloc(ctx, (void **)&b.block, b.doubles * sizeof(double)));
    double *p = b.block;
    b.ls.m = m;
    b.ls.R = p, p += (mm + 1) * mm;
    b.ls.cs = p, p += mm;
    b.ls.sn = p, p += mm;
    b.ls.g = p, p += mm + 1;
    b.ls.y = p, p += mm;
    b.ls.h2 = p, p += mm + 1;
    b.ls.ww = p++;
    b.ls.rr = p++;
    b.ls.count = (int64_t *)p++;
    b.ls.H = p, p += (mm + 1) * mm;
    b.ls.d = p, p += 2 * (mm + 1) + 1;
    b.ls.f = p, p += 3;
    b.ls.eta = p++;
    b.ls.gk = p++;
    b.ls.T = flexible ? p : NULL;
    return b;
}

/* A backend copy of `count` doubles; the host copy returned by get. */
static void get(kryl_context ctx, double *host, const void *dev, size_t count)
{
    CHECK_OK(ctx->ops->download(ctx, host, dev, count * sizeof(double)));
}

static void put(kryl_context ctx, void *dev, const double *host, size_t count)
{
    CHECK_OK(ctx->ops->upload(ctx, dev, host, count * sizeof(double)));
}

/* Basis of m+2 vectors of n in `p`: V_0..V_m and w at V_{m+1}; values as doubles. */
typedef struct basis {
    kryl_context ctx;
    void *data;
    struct kryl_vector_s V, w;
    int64_t n;
    int columns;
} basis;

static basis basis_new(kryl_context ctx, kryl_precision p, int64_t n, int columns)
{
    basis b;
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    b.n = n;
    b.columns = columns;
    size_t es = kryl_precision_size(p);
    CHECK_OK(ctx->ops->alloc(ctx, &b.data, (size_t)(columns + 1) * (size_t)n * es));
    b.V.ctx = ctx;
    b.V.n = n;
    b.V.precision = p;
    b.V.data = b.data;
    b.w = b.V;
    b.w.data = (char *)b.data + (size_t)columns * (size_t)n * es;
    return b;
}

/* Columns j0.. of the basis (w is column `columns`) as doubles. */
static void basis_get(const basis *b, double *out, int count)
{
    size_t es = kryl_precision_size(b->V.precision), len = (size_t)count * (size_t)b->n;
    void *tmp = malloc(len * es + 1);
    CHECK_OK(b->ctx->ops->download(b->ctx, tmp, b->data, len * es));
    for (size_t i = 0; i < len; i++)
        out[i] = es == 8 ? ((double *)tmp)[i] : (double)((float *)tmp)[i];
    free(tmp);
}

static void basis_put(const basis *b, const double *in, int count)
{
    size_t es = kryl_precision_size(b->V.precision), len = (size_t)count * (size_t)b->n;
    void *tmp = malloc(len * es + 1);
    for (size_t i = 0; i < len; i++) {
        if (es == 8)
            ((double *)tmp)[i] = in[i];
        else
            ((float *)tmp)[i] = (float)in[i];
    }
    CHECK_OK(b->ctx->ops->upload(b->ctx, b->data, tmp, len * es));
    free(tmp);
}

/* max |a - b| / (max |a| + 1e-300) over count values */
static double rel_err(const double *a, const double *b, size_t count)
{
    double diff = 0.0, scale = 1e-300;
    for (size_t i = 0; i < count; i++) {
        diff = fmax(diff, fabs(a[i] - b[i]));
        scale = fmax(scale, fabs(a[i]));
    }
    return diff / scale;
}

/* One Arnoldi cycle by DCGS2 of A = I + random/4 on ref; before each of the
 * three operations ctx gets ref's inputs, and its outputs must match. */
static void check_ops_case(kryl_context ref, kryl_context ctx, const char *name, kryl_precision p,
                           int64_t n)
{
    const int m = OPS_M;
    const double tol = p == KRYL_DOUBLE ? 1e-11 : 2e-5;
    kryl_matrix A = test_random_matrix(ref, TEST_SHAPE_RANDOM, n, 7 + (uint64_t)n, p, true);
    basis br = basis_new(ref, p, n, m + 1), bc = basis_new(ctx, p, n, m + 1);
    ls_block lr = ls_new(ref, m, p == KRYL_SINGLE), lc = ls_new(ctx, m, p == KRYL_SINGLE);
    size_t all = (size_t)(m + 2) * (size_t)n;
    double *hv = calloc(all, sizeof *hv), *cv = calloc(all, sizeof *cv);
    double *hl = calloc(lr.doubles, sizeof *hl), *cl = calloc(lr.doubles, sizeof *cl);
    /* v_0 = random / ||random||;  g = ||r|| e1 */
    test_random_values(hv, n, 99);
    double nn = 0.0;
    for (int64_t i = 0; i < n; i++) nn += hv[i] * hv[i];
    for (int64_t i = 0; i < n; i++) hv[i] /= sqrt(nn);
    basis_put(&br, hv, m + 2);
    hl[lr.ls.g - lr.block] = 1.0;
    put(ref, lr.block, hl, lr.doubles);
    char what[200];
    for (int k = 0; k <= m; k++) {
        struct kryl_vector_s vk = br.V, next = br.V;
        size_t es = kryl_precision_size(p);
        vk.data = (char *)br.data + (size_t)k * (size_t)n * es;
        next.data = (char *)br.data + (size_t)(k + 1) * (size_t)n * es;
        if (k < m) CHECK_OK(ref->ops->spmv(ref, A, 1.0, &vk, 0.0, NULL, &next, NULL));
        kryl_vector w = k < m ? &next : NULL;
        struct kryl_vector_s wc = bc.V;
        wc.data = (char *)bc.data + (size_t)(k + 1) * (size_t)n * es;
        size_t nd = k < m ? (size_t)(2 * k + 3) : (size_t)(k + 1);
        /* the fused dot */
        basis_get(&br, hv, m + 2);
        basis_put(&bc, hv, m + 2);
        CHECK_OK(ref->ops->gmres_dcgs2_dot(ref, &br.V, k, w, (kryl_scalar){lr.ls.d}, NULL));
        CHECK_OK(
            ctx->ops->gmres_dcgs2_dot(ctx, &bc.V, k, w ? &wc : NULL, (kryl_scalar){lc.ls.d}, NULL));
        get(ref, hl, lr.block, lr.doubles);
        get(ctx, cl, lc.block, lc.doubles);
        size_t off = (size_t)(lr.ls.d - lr.block);
        snprintf(what, sizeof what, "%s %s n=%lld k=%d", name, kryl_precision_name(p), (long long)n,
                 k);
        CHECK(rel_err(hl + off, cl + off, nd) <= tol, "%s: gmres_dcgs2_dot differs by %.2e", what,
              rel_err(hl + off, cl + off, nd));
        /* the least-squares column, from ref's state */
        put(ctx, lc.block, hl, lr.doubles);
        kryl_monitor *mr = NULL, *mc = NULL;
        CHECK_OK(ref->ops->alloc(ref, (void **)&mr, sizeof *mr));
        CHECK_OK(ctx->ops->alloc(ctx, (void **)&mc, sizeof *mc));
        CHECK_OK(ref->ops->gmres_dcgs2_column(ref, &lr.ls, k, mr));
        CHECK_OK(ctx->ops->gmres_dcgs2_column(ctx, &lc.ls, k, mc));
        kryl_monitor hm, cm;
        CHECK_OK(ref->ops->download(ref, &hm, mr, sizeof hm));
        CHECK_OK(ctx->ops->download(ctx, &cm, mc, sizeof cm));
        CHECK(cm.stop == hm.stop, "%s: column stop %d, ref %d", what, cm.stop, hm.stop);
        ref->ops->release(ref, mr);
        ctx->ops->release(ctx, mc);
        get(ref, hl, lr.block, lr.doubles);
        get(ctx, cl, lc.block, lc.doubles);
        size_t cnt = (size_t)(lr.ls.count - (int64_t *)lr.block);
        CHECK(memcmp(&hl[cnt], &cl[cnt], sizeof(double)) == 0, "%s: count differs", what);
        hl[cnt] = cl[cnt] = 0.0;
        CHECK(rel_err(hl, cl, lr.doubles) <= tol, "%s: gmres_dcgs2_column differs by %.2e", what,
              rel_err(hl, cl, lr.doubles));
        /* n = 1: the space is invariant after one step (then a zero pivot) */
        if (k == m || hm.stop != KRYL_STOP_RUNNING) break;
        /* the fused update, from ref's state */
        basis_put(&bc, hv, m + 2);
        get(ref, hl, lr.block, lr.doubles);
        put(ctx, lc.block, hl, lr.doubles);
        CHECK_OK(ref->ops->gmres_dcgs2_update(ref, &br.V, k, &next, (kryl_scalar){lr.ls.d},
                                              (kryl_scalar){lr.ls.f}, NULL));
        CHECK_OK(ctx->ops->gmres_dcgs2_update(ctx, &bc.V, k, &wc, (kryl_scalar){lc.ls.d},
                                              (kryl_scalar){lc.ls.f}, NULL));
        basis_get(&br, hv, m + 2);
        basis_get(&bc, cv, m + 2);
        CHECK(rel_err(hv, cv, all) <= tol, "%s: gmres_dcgs2_update differs by %.2e", what,
              rel_err(hv, cv, all));
    }
    free(hv);
    free(cv);
    free(hl);
    free(cl);
    ref->ops->release(ref, br.data);
    ctx->ops->release(ctx, bc.data);
    ref->ops->release(ref, lr.block);
    ctx->ops->release(ctx, lc.block);
    kryl_matrix_destroy(&A);
}

static void check_ops(kryl_context ref, kryl_context ctx, kryl_backend_kind kind, const char *name)
{
    (void)kind;
    const int64_t sizes[] = {1, 33, 1000};
    for (int s = 0; s < 3; s++)
        for (int p = 0; p < 2; p++)
            check_ops_case(ref, ctx, name, p ? KRYL_SINGLE : KRYL_DOUBLE, sizes[s]);
}

/* One Arnoldi cycle of m steps from v_0 = b/||b|| on ref by the solver's
 * sequence of operations (DCGS2, or CGS2); returns ||I - Q'Q||_F over
 * V_0..V_{m-1} and (DCGS2) the relation's ||A Q_{m-1} - Q_m H||_F / ||A Q||_F. */
static double arnoldi(kryl_matrix A, bool dcgs2, int m, double *relation)
{
    kryl_context ctx = A->ctx;
    const kryl_backend_ops *ops = ctx->ops;
    int64_t n = kt_rows(A);
    basis b = basis_new(ctx, KRYL_DOUBLE, n, m + 1);
    ls_block l = ls_new(ctx, m, false);
    double *hv = calloc((size_t)(m + 2) * (size_t)n, sizeof *hv);
    double *hl = calloc(l.doubles, sizeof *hl);
    test_random_values(hv, n, 5);
    double nn = 0.0;
    for (int64_t i = 0; i < n; i++) nn += hv[i] * hv[i];
    for (int64_t i = 0; i < n; i++) hv[i] /= sqrt(nn);
    basis_put(&b, hv, m + 2);
    hl[l.ls.g - l.block] = 1.0;
    put(ctx, l.block, hl, l.doubles);
    kryl_monitor *mon = NULL;
    CHECK_OK(ops->alloc(ctx, (void **)&mon, sizeof *mon));
    for (int k = 0; k < m; k++) {
        struct kryl_vector_s vk = b.V, next = b.V;
        vk.data = (double *)b.data + (size_t)k * (size_t)n;
        next.data = (double *)b.data + (size_t)(k + 1) * (size_t)n;
        /* w = A v_k */
        CHECK_OK(ops->spmv(ctx, A, 1.0, &vk, 0.0, NULL, &next, mon));
        if (dcgs2) {
            CHECK_OK(ops->gmres_dcgs2_dot(ctx, &b.V, k, &next, (kryl_scalar){l.ls.d}, mon));
            CHECK_OK(ops->gmres_dcgs2_column(ctx, &l.ls, k, mon));
            CHECK_OK(ops->gmres_dcgs2_update(ctx, &b.V, k, &next, (kryl_scalar){l.ls.d},
                                             (kryl_scalar){l.ls.f}, mon));
        } else {
            kryl_scalar h = {l.ls.R + (size_t)k * (size_t)(m + 1)}, h2 = {l.ls.h2};
            CHECK_OK(ops->multi_dot(ctx, &b.V, k + 1, &next, h, mon));
            CHECK_OK(ops->multi_axpy(ctx, &b.V, k + 1, -1.0, h, &next, (kryl_scalar){NULL}, mon));
            CHECK_OK(ops->multi_dot(ctx, &b.V, k + 1, &next, h2, mon));
            CHECK_OK(
                ops->multi_axpy(ctx, &b.V, k + 1, -1.0, h2, &next, (kryl_scalar){l.ls.ww}, mon));
            CHECK_OK(ops->gmres_givens(ctx, &l.ls, k, mon));
            CHECK_OK(ops->normalize(ctx, &next, (kryl_scalar){l.ls.ww}, mon));
        }
    }
    if (dcgs2) {
        /* complete the last column */
        CHECK_OK(ops->gmres_dcgs2_dot(ctx, &b.V, m, NULL, (kryl_scalar){l.ls.d}, mon));
        CHECK_OK(ops->gmres_dcgs2_column(ctx, &l.ls, m, mon));
    }
    kryl_monitor hm;
    CHECK_OK(ops->download(ctx, &hm, mon, sizeof hm));
    CHECK(hm.stop == KRYL_STOP_RUNNING, "arnoldi: stopped (%d)", hm.stop);
    basis_get(&b, hv, m + 2);
    get(ctx, hl, l.block, l.doubles);
    double loss = 0.0;
    /* ||I - Q'Q||_F */
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++) {
            double dot = 0.0;
            for (int64_t r = 0; r < n; r++) dot += hv[(size_t)i * n + r] * hv[(size_t)j * n + r];
            loss += (dot - (i == j)) * (dot - (i == j));
        }
    *relation = 0.0;
    if (dcgs2) {
        /* A q_j - sum_{i <= j+1} H_ij q_i for j < m-1 */
        double *aq = malloc((size_t)n * sizeof *aq), num = 0.0, den = 0.0;
        struct kryl_vector_s x = b.V, y = b.V;
        y.data = (double *)b.data + (size_t)(m + 1) * (size_t)n;
        const double *H = hl + (l.ls.H - l.block);
        for (int j = 0; j + 1 < m; j++) {
            x.data = (double *)b.data + (size_t)j * (size_t)n;
            CHECK_OK(ops->spmv(ctx, A, 1.0, &x, 0.0, NULL, &y, NULL));
            CHECK_OK(ops->download(ctx, aq, y.data, (size_t)n * sizeof *aq));
            for (int64_t r = 0; r < n; r++) {
                double e = aq[r];
                for (int i = 0; i <= j + 1; i++)
                    e -= H[(size_t)j * (m + 1) + i] * hv[(size_t)i * n + r];
                num += e * e;
                den += aq[r] * aq[r];
            }
        }
        *relation = sqrt(num / den);
        free(aq);
    }
    ops->release(ctx, mon);
    ops->release(ctx, b.data);
    ops->release(ctx, l.block);
    free(hv);
    free(hl);
    return sqrt(loss);
}

/* Loss of orthogonality on hard nonsymmetric matrices: both orthogonalisations
 * keep Q orthonormal to working accuracy, and DCGS2's H satisfies the
 * Arnoldi relation. */
static void test_orthogonality(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    const char *files[] = {"fidap_ex6.mtx", "sherman2.mtx", "west0479.mtx", "rdb2048.mtx"};
    for (int f = 0; f < 4; f++) {
        kryl_matrix A = kt_read(ctx, files[f]);
        if (A == NULL) continue;
        double rel_c = 0.0, rel_d = 0.0;
        double loss_c = arnoldi(A, false, 40, &rel_c), loss_d = arnoldi(A, true, 40, &rel_d);
        printf("%-14s m=40 ||I - Q'Q||: cgs2 %.2e  dcgs2 %.2e;  dcgs2 ||AQ - QH||/||AQ|| %.2e\n",
               files[f], loss_c, loss_d, rel_d);
        CHECK(loss_c <= 1e-12, "%s: cgs2 loss of orthogonality %.2e", files[f], loss_c);
        CHECK(loss_d <= 1e-12, "%s: dcgs2 loss of orthogonality %.2e", files[f], loss_d);
        CHECK(rel_d <= 1e-12, "%s: dcgs2 Arnoldi relation %.2e", files[f], rel_d);
        kryl_matrix_destroy(&A);
    }
    kryl_context_destroy(&ctx);
}

/* GMRES on one matrix with both orthogonalisations: converged by the true
 * residual; returns the iteration counts. */
static void solve_both(kryl_matrix A, kryl_precond_kind pc, kryl_precision prec, double rtol,
                       const char *label, int64_t its[2])
{
    double *b = kt_rhs(A, 11);
    const kryl_orthog orthogs[2] = {KRYL_ORTHOG_CGS2, KRYL_ORTHOG_DCGS2};
    for (int o = 0; o < 2; o++) {
        kryl_solver_options opt;
        kt_options(&opt, KRYL_METHOD_GMRES, pc, rtol, 6000);
        opt.restart = 30;
        opt.precision = prec;
        opt.gmres_orthog = orthogs[o];
        kt_solve s = kt_run(A, &opt, b, NULL, NULL);
        char what[260];
        snprintf(what, sizeof what, "%s %s %s", label, o ? "dcgs2" : "cgs2",
                 kryl_precision_name(prec));
        its[o] = s.r.iterations;
        if (!kt_supported(A->ctx, &s, what)) continue;
        kt_check_converged(&s, what);
    }
    free(b);
}

static void test_solves(void)
{
    kryl_backend_kind kinds[8];
    int count = test_backends(kinds, 8);
    for (int k = 0; k < count; k++) {
        kryl_context ctx = kt_context(kinds[k]);
        const char *bn = kryl_backend_name(kinds[k]);
        char label[200];
        /* well-conditioned generated problems: counts within 2 (or 3%) */
        const int64_t grids[] = {30, 50};
        for (int g = 0; g < 2; g++)
            for (int pc = 0; pc < 2; pc++) {
                kryl_matrix A = kt_generate(ctx, KRYL_GEN_CONVDIFF2D, grids[g]);
                int64_t its[2];
                snprintf(label, sizeof label, "%s convdiff2d-%lld %s", bn, (long long)grids[g],
                         pc ? "jacobi" : "none");
                solve_both(A, pc ? KRYL_PRECOND_JACOBI : KRYL_PRECOND_NONE, KRYL_DOUBLE, 1e-10,
                           label, its);
                CHECK(llabs(its[1] - its[0]) <= 2 + its[0] / 33,
                      "%s: dcgs2 %lld iterations, cgs2 %lld", label, (long long)its[1],
                      (long long)its[0]);
                kryl_matrix_destroy(&A);
            }
        /* FGMRES (mixed precision inner-outer) with each */
        kryl_matrix A = kt_generate(ctx, KRYL_GEN_CONVDIFF2D, 40);
        int64_t its[2];
        snprintf(label, sizeof label, "%s convdiff2d-40 fgmres", bn);
        solve_both(A, KRYL_PRECOND_NONE, KRYL_MIXED, 1e-10, label, its);
        kryl_matrix_destroy(&A);
        /* shared nonsymmetric matrices */
        const char *files[] = {"sherman1.mtx", "sherman4.mtx", "pores_1.mtx",
                               "rdb2048.mtx",  "cage4.mtx",    "sherman5.mtx"};
        const kryl_precond_kind pcs[] = {KRYL_PRECOND_JACOBI, KRYL_PRECOND_NONE,
                                         KRYL_PRECOND_JACOBI, KRYL_PRECOND_NONE,
                                         KRYL_PRECOND_NONE,   KRYL_PRECOND_JACOBI};
        for (int f = 0; f < 6; f++) {
            A = kt_read(ctx, files[f]);
            if (A == NULL) continue;
            snprintf(label, sizeof label, "%s %s", bn, files[f]);
            solve_both(A, pcs[f], KRYL_DOUBLE, 1e-8, label, its);
            printf("%-40s iterations: cgs2 %lld, dcgs2 %lld\n", label, (long long)its[0],
                   (long long)its[1]);
            kryl_matrix_destroy(&A);
        }
        kryl_context_destroy(&ctx);
    }
}

int main(void)
{
    test_each_config(false, check_ops);
    test_orthogonality();
    test_solves();
    return test_summary("test_gmres_dcgs2");
}
