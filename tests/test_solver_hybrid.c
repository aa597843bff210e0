/* Hybrid pipelined CG with the ref backend standing in for the device and
 * the host's cores (omp, else ref) as the host side (test_hybrid_support.h);
 * and auto without a GPU: one backend, saying so. */
#include "solvers/hybrid.h"
#include "test_hybrid_support.h"

static void test_auto_without_gpu(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 16);
    double *b = kt_rhs(A, 11);
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_PCG, KRYL_PRECOND_JACOBI, 1e-8, 1000);
    o.hybrid = KRYL_HYBRID_AUTO;
    run r = solve(A, &o, b);
    CHECK(r.r.converged && r.info.method == KRYL_HYBRID_NONE &&
              strstr(r.info.reason, "no GPU") != NULL,
          "auto without a GPU: %s, %s", kryl_hybrid_name(r.info.method), r.info.reason);
    run_free(&r);
    free(b);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

/* A deterministic context: no split by timing (auto runs on one backend,
 * 3 wants its rows given); a given split runs. */
static void test_deterministic(void)
{
    kryl_context_options co;
    kryl_context_options_init(&co);
    co.backend = KRYL_BACKEND_REF;
    co.deterministic = true;
    kryl_context ctx = NULL;
    CHECK_OK(kryl_context_create(&ctx, &co));
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 16);
    double *b = kt_rhs(A, 23);
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_PIPECG, KRYL_PRECOND_JACOBI, 1e-8, 1000);
    o.hybrid = KRYL_HYBRID_SPLIT;
    kryl_solver s = NULL;
    CHECK(kryl_solver_create(&s, A, &o) == KRYL_ERR_INVALID_ARGUMENT &&
              strstr(kryl_last_error(), "hybrid_host_rows") != NULL,
          "hybrid 3 by the model on a deterministic context: %s", kryl_last_error());
    o.hybrid_host_rows = 100;
    run r = solve(A, &o, b);
    CHECK(r.r.converged && r.info.host_rows == 100, "a given split, deterministic");
    run_free(&r);
    free(b);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

/* The device's rows shrink until its part fits the bytes it has. */
static void test_rows_to_fit(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 30);
    const kryl_csr *csr = &A->host->csr;
    const int64_t n = csr->nrows;
    CHECK(kryl_hybrid_rows_to_fit(csr, 10, INT64_MAX) == 10, "no limit: the rows asked");
    CHECK(kryl_hybrid_rows_to_fit(csr, 0, 0) == n, "no memory: every row on the host");
    /* about half of A's bytes: about half of the rows stay on the device */
    int64_t half = kryl_hybrid_rows_to_fit(csr, 0, 6 * kryl_csr_nnz(csr) + 48 * n);
    CHECK(half > n / 3 && half < 2 * n / 3, "half the bytes: %lld host rows of %lld",
          (long long)half, (long long)n);
    CHECK(kryl_hybrid_rows_to_fit(csr, half + 5, 6 * kryl_csr_nnz(csr) + 48 * n) == half + 5,
          "more host rows than needed are kept");
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

/* The bandwidth model's prediction: a GPU an order of magnitude faster
 * than the host behind a PCIe link gives the host nothing; a device no
 * faster than the host, on a large matrix, gives it its share. */
static void test_predict(void)
{
    kryl_hybrid_prediction p;
    /* 27-point 200^3, an H200's copy bandwidth against 16 cores' */
    const int64_t n = 8000000, nnz = 27 * n;
    kryl_hybrid_predict(n, n, nnz, 4e12, 1.5e11, &p);
    CHECK(!p.split && p.share > 0.03 && p.share < 0.04 && p.split_s > p.device_s,
          "a fast GPU: r_cpu %.3f, split %.3g s against %.3g s, split %d", p.share, p.split_s,
          p.device_s, p.split);
    kryl_hybrid_predict(n, n, nnz, 1e11, 1e11, &p);
    CHECK(p.split && fabs(p.share - 0.5) < 1e-12 && p.split_s < 0.8 * p.device_s,
          "a device as fast as the host: r_cpu %.3f, split %.3g s against %.3g s", p.share,
          p.split_s, p.device_s);
    /* a small matrix: the synchronisation of a step outweighs any share */
    kryl_hybrid_predict(1600, 1600, 8000, 1e11, 1e11, &p);
    CHECK(!p.split, "a small matrix: split %.3g s against %.3g s", p.split_s, p.device_s);
}

/* Log messages that announce a new context ("kryl: backend ..."). */
static void count_contexts(kryl_log_level level, const char *message, void *user)
{
    (void)level;
    if (strstr(message, "kryl: backend") != NULL) (*(int *)user)++;
}

/* Auto with ref standing in for the device (a cap recorded): on a matrix
 * the cap holds, the bandwidth model decides before any host context
 * exists and runs one backend; on one past the cap it splits, making the
 * host side. */
static void test_auto_prediction(void)
{
    /* the bound that spares the copy loop where no host could take rows
     * holds on this host */
    kryl_context omp = kt_context_with(KRYL_BACKEND_OMP, 0, false);
    if (omp) {
        const double bound = kryl_hybrid_host_bandwidth_bound(omp);
        double timed = 0.0;
        CHECK_OK(kryl_hybrid_host_bandwidth(omp, &timed));
        CHECK(timed > 0.0 && timed <= bound, "host copy %.3g GB/s within the bound %.3g GB/s",
              1e-9 * timed, 1e-9 * bound);
        kryl_context_destroy(&omp);
    }

    int contexts = 0;
    kryl_context ctx = kt_context_logging(KRYL_BACKEND_REF, 0, false, count_contexts, &contexts);
    CHECK_OK(kryl_context_defer_matrix_storage(ctx, true));
    CHECK_OK(kryl_context_set_gpu_memory(ctx, (int64_t)1 << 30));
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 40);
    double *b = kt_rhs(A, 31);
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_PIPECG, KRYL_PRECOND_JACOBI, 1e-8, 1000);
    o.hybrid = KRYL_HYBRID_AUTO;
    contexts = 0;
    run r = solve(A, &o, b);
    const kryl_hybrid_info *in = &r.info;
    CHECK(r.r.converged && in->method == KRYL_HYBRID_NONE && in->model_predicted &&
              in->model_host_share > 0.0 && in->model_host_share < 1.0 && in->host_rows == 0 &&
              in->model_rows == 0 && in->device_model_rows == 0 &&
              strstr(in->reason, "bandwidth model") != NULL &&
              strstr(in->reason, "one backend") != NULL,
          "auto on a matrix that fits: %s, %s", kryl_hybrid_name(in->method), in->reason);
    CHECK(contexts == 0, "auto on a matrix that fits made %d host contexts", contexts);
    CHECK(!A->storage_deferred, "one backend builds A's storage");
    run_free(&r);
    /* past a cap of 40% of what the device would need for all of A (12
     * bytes an entry, 96 a row): the measured split, with its host context */
    const int64_t n = kt_rows(A);
    int64_t nnz = 0;
    CHECK_OK(kryl_matrix_size(A, NULL, NULL, &nnz));
    kryl_matrix_destroy(&A);
    CHECK_OK(kryl_context_set_gpu_memory(ctx, (12 * nnz + 96 * n) * 2 / 5));
    A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 40);
    contexts = 0;
    r = solve(A, &o, b);
    CHECK(r.r.converged && in->method == KRYL_HYBRID_SPLIT && !in->model_predicted &&
              in->host_rows > 0 && in->device_rows > 0 && strstr(in->reason, "does not fit"),
          "auto past the cap: %s, %lld host rows: %s", kryl_hybrid_name(in->method),
          (long long)in->host_rows, in->reason);
    CHECK(contexts == 1 && A->storage_deferred, "auto past the cap: %d host contexts, A %s",
          contexts, A->storage_deferred ? "deferred" : "built");
    run_free(&r);
    free(b);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

/* A context like kt_context's that defers the storage of the matrices
 * created on it and caps its (stand-in) device at `cap` bytes. */
static kryl_context deferring_context(bool deterministic, int64_t cap)
{
    kryl_context ctx = kt_context_with(KRYL_BACKEND_REF, 0, deterministic);
    CHECK_OK(kryl_context_defer_matrix_storage(ctx, true));
    CHECK_OK(kryl_context_set_gpu_memory(ctx, cap));
    return ctx;
}

/* A matrix whose storage is deferred, under a device cap of 40% of what
 * the device would need for all of it (12 bytes an entry, 96 a row): the
 * split by the model (3, auto) and by memory alone (deterministic) gives
 * the device only what fits, the iterates are pipecg's on one backend, the
 * solve converges by the true residual, and A's whole storage is never
 * built; a given split that does not fit is refused; pipecg on one backend
 * builds it. */
static void test_larger_than_device(void)
{
    kryl_context plain = kt_context(KRYL_BACKEND_REF);
    kryl_matrix A1 = kt_generate(plain, KRYL_GEN_POISSON2D5, 40);
    const int64_t n = kt_rows(A1);
    int64_t nnz = 0;
    CHECK_OK(kryl_matrix_size(A1, NULL, NULL, &nnz));
    double *b = kt_rhs(A1, 29);
    const int64_t cap = (12 * nnz + 96 * n) * 2 / 5;
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_PIPECG, KRYL_PRECOND_JACOBI, 1e-30, 70);
    run ref = solve(A1, &o, b);
    for (int variant = 0; variant < 3; variant++) {
        kryl_context ctx = deferring_context(variant == 2, cap);
        kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 40);
        CHECK(A->storage_deferred, "created on a deferring context: no storage yet");
        kryl_solver_options oh = o;
        oh.hybrid = variant == 1 ? KRYL_HYBRID_AUTO : KRYL_HYBRID_SPLIT;
        oh.format = KRYL_FORMAT_AUTO; /* resolved to A's own CSR: no copy */
        char label[96];
        snprintf(label, sizeof label, "hybrid %s%s under a cap of %lld bytes",
                 kryl_hybrid_name(oh.hybrid), variant == 2 ? ", deterministic" : "",
                 (long long)cap);
        run h = solve(A, &oh, b);
        check_same_iterates(&h, &ref, label);
        const kryl_hybrid_info *in = &h.info;
        const int64_t device_entries = in->device_nnz + in->device_coupling_nnz;
        CHECK(in->method == KRYL_HYBRID_SPLIT && strstr(in->reason, "does not fit") != NULL,
              "%s: ran %s: %s", label, kryl_hybrid_name(in->method), in->reason);
        CHECK(in->host_rows + in->device_rows == n && in->device_rows > 0 &&
                  12 * device_entries + 96 * in->device_rows <= cap,
              "%s: the device holds %lld rows, %lld entries", label, (long long)in->device_rows,
              (long long)device_entries);
        CHECK(A->storage_deferred, "%s: the whole matrix was built on the device", label);
        run_free(&h);
        /* converged by the true residual */
        kryl_solver_options oc;
        kt_options(&oc, KRYL_METHOD_PCG, KRYL_PRECOND_JACOBI, 1e-8, 20000);
        oc.hybrid = oh.hybrid;
        kt_solve c = kt_run(A, &oc, b, NULL, NULL);
        CHECK(c.create == KRYL_SUCCESS, "%s: %s", label, kryl_last_error());
        if (c.create == KRYL_SUCCESS) kt_check_converged(&c, label);
        CHECK(A->storage_deferred, "%s, converged: the whole matrix was built", label);
        kryl_matrix_destroy(&A);
        kryl_context_destroy(&ctx);
    }
    run_free(&ref);
    kryl_context ctx = deferring_context(false, cap);
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 40);
    /* kryl_matrix_spmv multiplies on the host while the storage waits */
    kryl_vector x = NULL, y = NULL;
    CHECK_OK(kryl_vector_create(&x, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&y, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_set(x, b, n));
    CHECK_OK(kryl_vector_fill(y, 1.0));
    CHECK_OK(kryl_matrix_spmv(A, 2.0, x, -1.0, y));
    double *yh = malloc((size_t)n * sizeof *yh);
    CHECK_OK(kryl_vector_get(y, yh, n));
    const kryl_csr *c = &A1->host->csr;
    double worst = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double sum = 0.0;
        for (int64_t k = c->row_ptr[i]; k < c->row_ptr[i + 1]; k++)
            sum += c->values[k] * b[c->col_idx[k]];
        worst = fmax(worst, fabs(yh[i] - (2.0 * sum - 1.0)));
    }
    CHECK(worst < 1e-12 && A->storage_deferred, "spmv of a deferred matrix: off by %.2e", worst);
    free(yh);
    kryl_vector_destroy(&x);
    kryl_vector_destroy(&y);
    kryl_solver_options og;
    kt_options(&og, KRYL_METHOD_PIPECG, KRYL_PRECOND_JACOBI, 1e-8, 20000);
    og.hybrid = KRYL_HYBRID_SPLIT;
    og.hybrid_host_rows = 10;
    kryl_solver s = NULL;
    CHECK(kryl_solver_create(&s, A, &og) == KRYL_ERR_DEVICE_OUT_OF_MEMORY &&
              strstr(kryl_last_error(), "give at least") != NULL,
          "a given split the device cannot hold: %s", kryl_last_error());
    og.hybrid = KRYL_HYBRID_NONE;
    og.hybrid_host_rows = -1;
    kt_solve one = kt_run(A, &og, b, NULL, NULL);
    kt_check_converged(&one, "pipecg on one backend of a deferred matrix");
    CHECK(!A->storage_deferred, "pipecg on one backend builds the whole storage");
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
    free(b);
    kryl_matrix_destroy(&A1);
    kryl_context_destroy(&plain);
}

int main(void)
{
    hybrid_same_iterates(KRYL_BACKEND_REF);
    hybrid_converged(KRYL_BACKEND_REF);
    hybrid_never_worse(KRYL_BACKEND_REF);
    hybrid_options(KRYL_BACKEND_REF);
    hybrid_update(KRYL_BACKEND_REF);
    hybrid_preconditioners(KRYL_BACKEND_REF);
    test_auto_without_gpu();
    test_predict();
    test_auto_prediction();
    test_rows_to_fit();
    test_deterministic();
    test_larger_than_device();
    return test_summary("test_solver_hybrid");
}
