/* The bandwidth model: alpha in range and responsive to the row order, the
 * two sanity cases (a stencil whose x fits the cache reuses it fully, a
 * power-law graph whose x does not reuses little), the model's identities,
 * kryl_fmt_choose, the sorted formats' sizes from row lengths; then a
 * footprint table of generated matrices. */
#include "core/error.h"
#include "test_formats_util.h"

/* Every format's prediction obeys the model's identities; returns CSR's alpha. */
static double check_identities(const kryl_csr *A, const kryl_device_model *dev, const char *what)
{
    const double n = (double)A->nrows, nnz = (double)kryl_csr_nnz(A);
    double csr_alpha = 0.0;
    for (int k = 0; k < TF_NFORMATS; k++) {
        kryl_fmt_model m;
        kryl_fmt_cost c;
        CHECK_OK(kryl_fmt_predict(A, tf_formats[k], NULL, dev, &m));
        CHECK_OK(kryl_fmt_cost_of(A, tf_formats[k], NULL, &c));
        if (k == 0) csr_alpha = m.alpha;
        /* cost counts x once (8n bytes); the model 8 alpha nnz */
        CHECK_CLOSE(m.bytes, (double)c.spmv_bytes - 8.0 * n + 8.0 * m.alpha * nnz, 1e-9);
        CHECK_CLOSE(m.code_balance, m.bytes / (2.0 * nnz), 1e-12);
        CHECK_CLOSE(m.seconds * dev->bandwidth, m.bytes, 1e-12);
        CHECK(m.kind == tf_formats[k] && m.alpha >= n / nnz * (1.0 - 1e-9) && m.alpha <= 1.0,
              "%s %s: alpha %g outside [1/Nnzr = %g, 1]", what, kryl_format_name(tf_formats[k]),
              m.alpha, n / nnz);
    }
    return csr_alpha;
}

static double alpha_of(const kryl_csr *A, kryl_format kind, kryl_device_model dev)
{
    kryl_fmt_model m;
    CHECK_OK(kryl_fmt_predict(A, kind, NULL, &dev, &m));
    return m.alpha;
}

static void check_sanity_cases(void)
{
    kryl_csr A;
    /* 7-point 40^3: x is 512 KB in a 775 KB cache (as 33 MB of 160^3 in a 50 MB L2) */
    if (tf_generate(&A, KRYL_GEN_POISSON3D7, 40)) {
        const double reuse = (double)A.nrows / (double)kryl_csr_nnz(&A);
        const kryl_device_model dev = tf_device(775000);
        const double a = check_identities(&A, &dev, "poisson3d7 40^3");
        printf("poisson3d7 40^3, x 0.66x the cache: alpha %.4f, 1/Nnzr %.4f\n", a, reuse);
        CHECK(a <= 1.02 * reuse, "stencil whose x fits: alpha %g, expected ~1/Nnzr = %g", a, reuse);
        /* a cache far larger than the tag store is set-sampled, same answer */
        const double big = alpha_of(&A, KRYL_FORMAT_CSR, tf_device((int64_t)1 << 30));
        CHECK(big <= 1.02 * reuse, "sampled 1 GB cache: alpha %g vs %g", big, reuse);
        /* no cache: every access loads */
        CHECK(alpha_of(&A, KRYL_FORMAT_SELL, tf_device(0)) == 1.0, "no cache: alpha 1");
        gen_csr_free(&A);
    }
    /* power law, 512 k random columns: x is 4 MB in a 6.5 MB cache, as 4 M in 50 MB */
    kryl_generator_options o;
    kryl_generator g;
    kryl_generator_options_init(&o, KRYL_GEN_POWERLAW, (int64_t)1 << 19);
    if (gen_whole(&A, &g, &o)) {
        const double a = alpha_of(&A, KRYL_FORMAT_CSR, tf_device(6553600));
        printf("powerlaw 512k rows, x 0.64x the cache: alpha %.4f, 1/Nnzr %.4f\n", a,
               (double)A.nrows / (double)kryl_csr_nnz(&A));
        CHECK(a >= 0.6, "power law with random columns: alpha %g, expected near 1", a);
        gen_csr_free(&A);
    }
}

/* The same stencil in a random order reuses x far less. */
static void check_order_matters(void)
{
    kryl_csr A;
    if (!tf_generate(&A, KRYL_GEN_POISSON2D5, 256)) return;
    const kryl_device_model dev = tf_device(65536); /* x is 512 KB */
    int32_t *order = tf_random_order(A.nrows, 4);
    kryl_fmt f;
    CHECK_OK(kryl_fmt_build(&A, KRYL_FORMAT_CSR, order, NULL, &f));
    kryl_csr P = A;
    P.row_ptr = f.u.csr.row_ptr;
    P.col_idx = f.u.csr.col;
    P.values = f.u.csr.val;
    const double natural = check_identities(&A, &dev, "poisson2d5 256^2");
    const double shuffled = check_identities(&P, &dev, "poisson2d5 256^2 shuffled");
    printf("poisson2d5 256^2, 64 KB cache: alpha natural %.4f, random order %.4f\n", natural,
           shuffled);
    CHECK(shuffled > 3.0 * natural, "random order alpha %g vs natural %g", shuffled, natural);
    kryl_fmt_free(&f);
    free(order);
    gen_csr_free(&A);
}

/* choose picks a suitable format within 2% of the fastest prediction when
 * the SpMV is bandwidth-bound (a 64 KB cache: nothing here fits in half). */
static kryl_format check_choice(const kryl_csr *A, const char *what, const char *must_say)
{
    const kryl_device_model dev = tf_device(64 << 10);
    kryl_format choice;
    char why[512];
    CHECK_OK(kryl_fmt_choose(A, NULL, &dev, &choice, why, sizeof why));
    printf("%-24s -> %s\n", what, why);
    double best = INFINITY, chosen = INFINITY;
    for (int k = 0; k < TF_NFORMATS; k++) {
        kryl_fmt_cost c;
        kryl_fmt_model m;
        CHECK_OK(kryl_fmt_cost_of(A, tf_formats[k], NULL, &c));
        CHECK_OK(kryl_fmt_predict(A, tf_formats[k], NULL, &dev, &m));
        if (c.suitable && m.seconds < best) best = m.seconds;
        if (tf_formats[k] == choice) {
            CHECK(c.suitable, "%s: chose unsuitable %s", what, kryl_format_name(choice));
            chosen = m.seconds;
        }
    }
    CHECK(chosen <= 1.02 * best, "%s: chose %s at %g s, fastest %g s", what,
          kryl_format_name(choice), chosen, best);
    CHECK(strncmp(why, kryl_format_name(choice), strlen(kryl_format_name(choice))) == 0 &&
              strstr(why, must_say) != NULL,
          "%s: why '%s' lacks '%s'", what, why, must_say);
    return choice;
}

/* An SpMV that fits in half the cache is latency-bound: choose says CSR. */
static void check_choose_latency_bound(void)
{
    kryl_csr A;
    if (!tf_generate(&A, KRYL_GEN_POISSON2D5, 128)) return;
    const kryl_device_model dev = tf_device(50 << 20);
    kryl_format choice;
    char why[512];
    CHECK_OK(kryl_fmt_choose(&A, NULL, &dev, &choice, why, sizeof why));
    CHECK(choice == KRYL_FORMAT_CSR && strstr(why, "latency-bound") != NULL,
          "poisson2d5 128^2 in a 50 MB cache: %s (%s)", kryl_format_name(choice), why);
    gen_csr_free(&A);
}

static void check_choose(void)
{
    check_choose_latency_bound();
    kryl_csr A;
    if (tf_generate(&A, KRYL_GEN_POISSON2D5, 128)) {
        CHECK(check_choice(&A, "poisson2d5 128^2", "CSR's bytes") == KRYL_FORMAT_DIA,
              "poisson: dia expected");
        gen_csr_free(&A);
    }
    tf_dense_blocks(&A, 1000, 4, 5);
    CHECK(check_choice(&A, "dense 4x4 blocks", "alpha") == KRYL_FORMAT_BCSR4,
          "4x4 blocks: bcsr4 expected");
    kryl_csr_free(&A);
    test_random_csr(&A, TEST_SHAPE_DENSE_ROW, 4099, 4099, 6);
    check_choice(&A, "dense row", "refused: ");
    kryl_csr_free(&A);
    test_random_csr(&A, TEST_SHAPE_RANDOM, 4099, 4099, 7);
    check_choice(&A, "random rows", "predicted");
    kryl_csr_free(&A);
    test_random_csr(&A, TEST_SHAPE_SINGLE, 1, 1, 8);
    kryl_format one;
    const kryl_device_model small = tf_device(64 << 10);
    CHECK_OK(kryl_fmt_choose(&A, NULL, &small, &one, NULL, 0));
    CHECK(one == KRYL_FORMAT_CSR, "n = 1: %s, expected csr (latency-bound)", kryl_format_name(one));
    kryl_csr_free(&A);
}

/* The choice of weighing every candidate (the model's definition, which
 * kryl_fmt_choose reaches by pruning): CSR where one SpMV fits half the
 * cache, else the first candidate in tie order within 2% of the fastest
 * suitable prediction. */
static kryl_format choice_weighing_all(const kryl_csr *A, const kryl_device_model *dev)
{
    static const kryl_format order[] = {KRYL_FORMAT_CSR,   KRYL_FORMAT_SELL,  KRYL_FORMAT_PJDS,
                                        KRYL_FORMAT_ELLR,  KRYL_FORMAT_JDS,   KRYL_FORMAT_ELL,
                                        KRYL_FORMAT_BCSR2, KRYL_FORMAT_BCSR4, KRYL_FORMAT_DIA};
    enum { N = (int)(sizeof order / sizeof order[0]) };
    double seconds[N], fastest = INFINITY, csr_bytes = 0.0;
    for (int k = 0; k < N; k++) {
        kryl_fmt_cost c;
        kryl_fmt_model m;
        CHECK_OK(kryl_fmt_cost_of(A, order[k], NULL, &c));
        CHECK_OK(kryl_fmt_predict(A, order[k], NULL, dev, &m));
        if (k == 0) csr_bytes = m.bytes;
        seconds[k] = c.suitable ? m.seconds : INFINITY;
        fastest = fmin(fastest, seconds[k]);
    }
    if (csr_bytes < 0.5 * (double)dev->cache_bytes) return KRYL_FORMAT_CSR;
    int pick = 0;
    while (!(seconds[pick] <= 1.02 * fastest)) pick++;
    return order[pick];
}

/* A counter of the plain counts (tf_far_entries, tf_diagonals, tf_blocks), as a
 * backend reading A where it is stored gives them; it counts its calls. */
typedef struct plain_counter {
    const kryl_csr *A;
    int calls;
} plain_counter;

static kryl_status plain_far(void *arg, int64_t window, int64_t near, int64_t *far)
{
    plain_counter *c = arg;
    c->calls++;
    *far = tf_far_entries(c->A, window, near);
    return KRYL_SUCCESS;
}

static kryl_status plain_diagonals(void *arg, int64_t *ndiag)
{
    plain_counter *c = arg;
    c->calls++;
    *ndiag = tf_diagonals(c->A);
    return KRYL_SUCCESS;
}

static kryl_status plain_blocks(void *arg, int64_t b, int64_t *nblocks)
{
    plain_counter *c = arg;
    c->calls++;
    *nblocks = tf_blocks(c->A, b);
    return KRYL_SUCCESS;
}

/* kryl_fmt_choose (on 1 and 3 threads) against weighing every candidate,
 * under caches from 64 KB to 64 MB (x's reuse from 1/Nnzr to 1). */
static kryl_status failing_far(void *arg, int64_t window, int64_t near, int64_t *far)
{
    (void)arg, (void)window, (void)near;
    *far = -1;
    return KRYL_ERROR(KRYL_ERR_DEVICE_OUT_OF_MEMORY, "test: no room for the count");
}

static kryl_status failing_diagonals(void *arg, int64_t *ndiag)
{
    return failing_far(arg, 0, 0, ndiag);
}

static kryl_status failing_blocks(void *arg, int64_t b, int64_t *nblocks)
{
    return failing_far(arg, b, 0, nblocks);
}

static int counts_given;

static void check_same_as_weighing_all(const kryl_csr *A, const char *what)
{
    const int64_t caches[] = {0, 64 << 10, 1 << 20, 8 << 20, 64 << 20};
    for (size_t c = 0; c < sizeof caches / sizeof caches[0]; c++) {
        const kryl_device_model dev = tf_device(caches[c]);
        kryl_fmt_params p;
        kryl_fmt_params_init(&p);
        const kryl_format all = choice_weighing_all(A, &dev);
        for (p.threads = 1; p.threads <= 3; p.threads += 2) {
            kryl_format chosen;
            CHECK_OK(kryl_fmt_choose(A, &p, &dev, &chosen, NULL, 0));
            CHECK(chosen == all, "%s, cache %lld, %d threads: chose %s, weighing all gives %s",
                  what, (long long)caches[c], p.threads, kryl_format_name(chosen),
                  kryl_format_name(all));
        }
        /* the counts given by a counter, as a backend gives them */
        plain_counter plain = {A, 0};
        const kryl_fmt_counter counter = {plain_far, plain_diagonals, plain_blocks, &plain};
        kryl_format counted;
        CHECK_OK(kryl_fmt_choose_counted(A, NULL, &dev, &counter, &counted, NULL, 0));
        CHECK(counted == all, "%s, cache %lld: chose %s with counts given, weighing all gives %s",
              what, (long long)caches[c], kryl_format_name(counted), kryl_format_name(all));
        counts_given += plain.calls;
        /* a counter that fails every count: the host counts instead */
        const kryl_fmt_counter failing = {failing_far, failing_diagonals, failing_blocks, NULL};
        CHECK_OK(kryl_fmt_choose_counted(A, NULL, &dev, &failing, &counted, NULL, 0));
        CHECK(counted == all, "%s, cache %lld: chose %s with the counter failing, %s", what,
              (long long)caches[c], kryl_format_name(counted), kryl_format_name(all));
    }
}

/* check(A, what) on the generated families, awkward shapes, dense blocks
 * and the real matrices present. */
static void each_matrix(void (*check)(const kryl_csr *A, const char *what))
{
    for (int kind = KRYL_GEN_POISSON2D5; kind <= KRYL_GEN_ELASTICITY3D; kind++) {
        kryl_generator_options o;
        kryl_generator g;
        kryl_generator_options_init(&o, (kryl_generator_kind)kind, 12);
        kryl_csr A;
        if (!gen_whole(&A, &g, &o)) continue;
        check(&A, kryl_generator_name((kryl_generator_kind)kind));
        gen_csr_free(&A);
    }
    kryl_csr A;
    if (tf_generate(&A, KRYL_GEN_POISSON3D27, 24)) { /* planes 576 rows apart */
        check(&A, "poisson3d27 24^3");
        gen_csr_free(&A);
    }
    CHECK_OK(kryl_csr_alloc(&A, 0, 0, 0));
    check(&A, "empty");
    kryl_csr_free(&A);
    for (int shape = 0; shape < TEST_SHAPE_COUNT; shape++) {
        test_random_csr(&A, (test_shape)shape, 3001, 3001, 40 + (uint64_t)shape);
        check(&A, "random shape");
        kryl_csr_free(&A);
    }
    tf_dense_blocks(&A, 900, 4, 3);
    check(&A, "dense 4x4 blocks");
    kryl_csr_free(&A);
    const char *files[] = {"494_bus.mtx",   "bcsstk08.mtx", "cage4.mtx",    "dw8192.mtx",
                           "fidap_ex6.mtx", "lund_a.mtx",   "rdb2048.mtx",  "sherman3.mtx",
                           "west0479.mtx",  "rajat11.mtx",  "cryg2500.mtx", "zenios.mtx"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        if (!tf_read(&A, files[f])) continue;
        check(&A, files[f]);
        kryl_csr_free(&A);
    }
}

/* The pruned choice is the choice of weighing all. */
static void check_pruning_keeps_choice(void)
{
    each_matrix(check_same_as_weighing_all);
    CHECK(counts_given > 0, "no count was taken from the counter");
}

/* The sorted formats' sizes from A's row lengths (what the model weighs
 * without sorting) are their measures on the sorted rows: JDS, and SELL's
 * slots for windows of whole slices or one window of all rows. */
static void check_sizes_of_lengths(const kryl_csr *A, const char *what)
{
    const int32_t heights[] = {1, 7, 32};
    for (int threads = 1; threads <= 3; threads += 2) {
        fmt_lengths lengths;
        CHECK_OK(fmt_lengths_of(A, fmt_longest_row(A, threads), threads, &lengths));
        kryl_fmt_params p;
        kryl_fmt_params_init(&p);
        p.threads = threads;
        fmt_size jds;
        memset(&jds, 0, sizeof jds);
        kryl_fmt_cost cost;
        CHECK_OK(fmt_jds_measure_lengths(&lengths, A->nrows, kryl_csr_nnz(A), &p, &jds));
        CHECK_OK(kryl_fmt_cost_of(A, KRYL_FORMAT_JDS, &p, &cost));
        CHECK(jds.stored == cost.stored && jds.suitable == cost.suitable &&
                  strcmp(jds.why, cost.why) == 0,
              "%s jds: %lld slots from the lengths, %lld measured", what, (long long)jds.stored,
              (long long)cost.stored);
        for (size_t h = 0; h < sizeof heights / sizeof heights[0]; h++) {
            p.slice_height = heights[h];
            const int64_t windows[] = {p.slice_height, 5 * (int64_t)p.slice_height,
                                       32 * (int64_t)p.slice_height, A->nrows + 3};
            for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++) {
                p.sort_window = windows[w];
                int64_t slots;
                CHECK_OK(
                    fmt_window_slots(A, &lengths, windows[w], p.slice_height, threads, &slots));
                CHECK_OK(kryl_fmt_cost_of(A, KRYL_FORMAT_SELL, &p, &cost));
                CHECK(slots == cost.stored,
                      "%s sell C = %d, window %lld, %d threads: %lld slots from the lengths, "
                      "%lld measured",
                      what, (int)p.slice_height, (long long)windows[w], threads, (long long)slots,
                      (long long)cost.stored);
            }
            p.sort_window = 0;
        }
        fmt_lengths_free(&lengths);
    }
}

static void check_bad_device(void)
{
    kryl_csr A;
    test_random_csr(&A, TEST_SHAPE_RANDOM, 10, 10, 9);
    kryl_fmt_model m;
    kryl_format choice;
    kryl_device_model dev = tf_device(1 << 20);
    dev.bandwidth = 0.0;
    CHECK_STATUS(kryl_fmt_predict(&A, KRYL_FORMAT_CSR, NULL, &dev, &m), KRYL_ERR_INVALID_ARGUMENT);
    dev = tf_device(1 << 20);
    dev.line_bytes = 4;
    CHECK_STATUS(kryl_fmt_choose(&A, NULL, &dev, &choice, NULL, 0), KRYL_ERR_INVALID_ARGUMENT);
    CHECK(strstr(kryl_last_error(), "line_bytes = 4") != NULL, "%s", kryl_last_error());
    CHECK_STATUS(kryl_fmt_predict(&A, KRYL_FORMAT_CSR, NULL, NULL, &m), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_fmt_predict(&A, KRYL_FORMAT_AUTO, NULL, &dev, &m), KRYL_ERR_INVALID_ARGUMENT);
    kryl_csr_free(&A);
}

/* The footprint table of docs/FORMATS.md: stored slots per nonzero (or
 * "-" where refused), SpMV bytes relative to CSR, and the choice, for a
 * device like one H100 (3 TB/s, 50 MB L2, 32-byte sectors). */
static void print_table(void)
{
    const struct {
        const char *name;
        kryl_generator_kind kind;
        int64_t n;
    } gens[] = {{"poisson2d5 512^2", KRYL_GEN_POISSON2D5, 512},
                {"poisson3d7 64^3", KRYL_GEN_POISSON3D7, 64},
                {"poisson3d27 48^3", KRYL_GEN_POISSON3D27, 48},
                {"convdiff3d 64^3", KRYL_GEN_CONVDIFF3D, 64},
                {"random-spd 256k", KRYL_GEN_RANDOM_SPD, 262144},
                {"powerlaw 256k", KRYL_GEN_POWERLAW, 262144}};
    const kryl_device_model dev = tf_device(50 << 20);
    printf("\n| matrix | n | nnz |");
    for (int k = 0; k < TF_NFORMATS; k++) printf(" %s |", kryl_format_name(tf_formats[k]));
    printf(" alpha | choice |\n|---|---|---|");
    for (int k = 0; k < TF_NFORMATS + 2; k++) printf("---|");
    printf("\n");
    for (size_t gi = 0; gi < sizeof gens / sizeof gens[0] + 1; gi++) {
        kryl_csr A;
        const char *name = gi < sizeof gens / sizeof gens[0] ? gens[gi].name : "dense 5x5 blocks";
        if (gi < sizeof gens / sizeof gens[0]) {
            if (!tf_generate(&A, gens[gi].kind, gens[gi].n)) continue;
        } else {
            tf_dense_blocks(&A, 20000, 5, 1);
        }
        printf("| %s | %lld | %lld |", name, (long long)A.nrows, (long long)kryl_csr_nnz(&A));
        double csr_bytes = 0.0, csr_alpha = 0.0;
        for (int k = 0; k < TF_NFORMATS; k++) {
            kryl_fmt_cost c;
            kryl_fmt_model m;
            CHECK_OK(kryl_fmt_cost_of(&A, tf_formats[k], NULL, &c));
            CHECK_OK(kryl_fmt_predict(&A, tf_formats[k], NULL, &dev, &m));
            if (k == 0) csr_bytes = m.bytes, csr_alpha = m.alpha;
            if (c.suitable)
                printf(" %.2f / %.2f |", (double)c.stored / (double)kryl_csr_nnz(&A),
                       m.bytes / csr_bytes);
            else
                printf(" - |");
        }
        kryl_format choice;
        CHECK_OK(kryl_fmt_choose(&A, NULL, &dev, &choice, NULL, 0));
        printf(" %.3f | %s |\n", csr_alpha, kryl_format_name(choice));
        kryl_csr_free(&A);
    }
}

/* Threads change how the measures and the estimate of alpha run, not what
 * they find: stored slots, alpha and the choice agree bitwise. */
static void check_threads_agree(void)
{
    const kryl_device_model dev = tf_device(1 << 18); /* x is 1.7 MB and 400 KB */
    kryl_fmt_params one, many;
    kryl_fmt_params_init(&one);
    kryl_fmt_params_init(&many);
    many.threads = 4;
    for (int g = 0; g < 3; g++) {
        kryl_csr A;
        if (g == 2)
            tf_dense_blocks(&A, 3001, 3, 7);
        else if (!tf_generate(&A, g == 0 ? KRYL_GEN_POISSON3D7 : KRYL_GEN_POWERLAW,
                              g == 0 ? 60 : 50000))
            continue;
        for (int k = 0; k < TF_NFORMATS; k++) {
            kryl_fmt_cost c1, c4;
            kryl_fmt_model m1, m4;
            CHECK_OK(kryl_fmt_cost_of(&A, tf_formats[k], &one, &c1));
            CHECK_OK(kryl_fmt_cost_of(&A, tf_formats[k], &many, &c4));
            CHECK_OK(kryl_fmt_predict(&A, tf_formats[k], &one, &dev, &m1));
            CHECK_OK(kryl_fmt_predict(&A, tf_formats[k], &many, &dev, &m4));
            CHECK(c1.stored == c4.stored && c1.suitable == c4.suitable && m1.alpha == m4.alpha,
                  "generator %d %s: 1 thread stores %lld (alpha %.17g), 4 threads %lld (%.17g)", g,
                  kryl_format_name(tf_formats[k]), (long long)c1.stored, m1.alpha,
                  (long long)c4.stored, m4.alpha);
        }
        kryl_format f1, f4;
        CHECK_OK(kryl_fmt_choose(&A, &one, &dev, &f1, NULL, 0));
        CHECK_OK(kryl_fmt_choose(&A, &many, &dev, &f4, NULL, 0));
        CHECK(f1 == f4, "generator %d: 1 thread chooses %s, 4 threads %s", g, kryl_format_name(f1),
              kryl_format_name(f4));
        kryl_csr_free(&A);
    }
}

/* The reach of reuse: the 5-point stencil on 256^2 reuses x across its
 * +-256 band while 256 rows of traffic fit half the cache (64 KB: alpha =
 * 1/Nnzr exactly), not in a cache half that size (the band misses: alpha
 * 1); a whole product that fits the cache loads x once in any order. */
static void check_reach(void)
{
    kryl_csr A;
    if (!tf_generate(&A, KRYL_GEN_POISSON2D5, 256)) return;
    const double reuse = (double)A.nrows / (double)kryl_csr_nnz(&A);
    const double fits = alpha_of(&A, KRYL_FORMAT_CSR, tf_device(1 << 16));
    const double spills = alpha_of(&A, KRYL_FORMAT_CSR, tf_device(1 << 15));
    const double whole = alpha_of(&A, KRYL_FORMAT_PJDS, tf_device(1 << 23));
    CHECK(fabs(fits - reuse) <= 1e-12 * reuse && spills == 1.0 && fabs(whole - reuse) <= 1e-12,
          "5-point 256^2: alpha %g in 64 KB, %g in 32 KB, %g sorted in 8 MB; 1/Nnzr %g", fits,
          spills, whole, reuse);
    kryl_csr_free(&A);
}

int main(void)
{
    check_sanity_cases();
    check_threads_agree();
    check_reach();
    check_order_matters();
    check_choose();
    check_pruning_keeps_choice();
    each_matrix(check_sizes_of_lengths);
    check_bad_device();
    print_table();
    return test_summary("test_formats_model");
}
