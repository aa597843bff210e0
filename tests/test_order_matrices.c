/* Orderings of generated and real matrices: every ordering valid, RCM
 * never widens a shuffled matrix, and a table of bandwidth, profile,
 * levels and colors (docs/ORDERINGS.md). */
#include "test_order_util.h"

static void report(const kryl_csr *A, const char *name)
{
    kryl_order_report r;
    CHECK_OK(kryl_order_report_compute(A, 0.1, &r));
    printf("| %-14s | %7lld |", name, (long long)A->nrows);
    for (int k = 0; k < KRYL_ORDER_COUNT; k++) {
        if (r.have[k])
            printf(" %lld / %d |", (long long)r.quality[k].bandwidth, r.quality[k].nlevels_lower);
        else
            printf(" - |");
    }
    printf(" %d / %d |\n", r.ncolors, r.ncolors_sparsified);
    CHECK(r.have[KRYL_ORDER_RCM] && r.have[KRYL_ORDER_COLOR], "%s: rcm and color measured", name);
    CHECK(r.have[KRYL_ORDER_AMD] == kryl_order_have_amd(), "%s: amd measured iff built", name);
    CHECK(r.ncolors_sparsified <= r.ncolors, "%s: %d colors sparsified, %d not", name,
          r.ncolors_sparsified, r.ncolors);
    CHECK(r.quality[KRYL_ORDER_COLOR].nlevels_lower <= r.ncolors, "%s: %d levels, %d colors", name,
          r.quality[KRYL_ORDER_COLOR].nlevels_lower, r.ncolors);
    /* RCM of a shuffled copy is no wider than the shuffle */
    int32_t *shuffle = malloc((size_t)(A->nrows + 1) * sizeof *shuffle);
    order_random_perm(shuffle, A->nrows, 3);
    kryl_csr B;
    order_permute(&B, A, shuffle);
    kryl_order_quality qs, qr;
    CHECK_OK(kryl_order_quality_of(&B, NULL, &qs));
    CHECK_OK(kryl_order_compute(&B, KRYL_ORDER_RCM, shuffle));
    CHECK_OK(kryl_order_quality_of(&B, shuffle, &qr));
    CHECK(qr.profile <= qs.profile, "%s: rcm profile %lld, shuffled %lld", name,
          (long long)qr.profile, (long long)qs.profile);
    kryl_coloring c;
    CHECK_OK(kryl_order_color(&B, 0.1, &c));
    CHECK(kryl_order_color_check(&B, 0.1, &c) == KRYL_SUCCESS, "%s: %s", name, kryl_last_error());
    kryl_coloring_free(&c);
    kryl_csr_free(&B);
    free(shuffle);
}

int main(void)
{
    printf("| matrix | n | none bw / levels | rcm | amd | color | colors / tau=0.1 |\n");
    const struct {
        kryl_generator_kind kind;
        int64_t n;
    } gens[] = {{KRYL_GEN_POISSON2D5, 100},
                {KRYL_GEN_POISSON3D7, 20},
                {KRYL_GEN_POISSON3D27, 16},
                {KRYL_GEN_RANDOM_SPD, 5000}};
    for (size_t k = 0; k < sizeof gens / sizeof gens[0]; k++) {
        kryl_csr A;
        if (!order_gen(&A, gens[k].kind, gens[k].n)) continue;
        report(&A, kryl_generator_name(gens[k].kind));
        gen_csr_free(&A);
    }
    const char *files[] = {"bcsstk06.mtx", "1138_bus.mtx", "sherman1.mtx",
                           "west0479.mtx", "saylr3.mtx",   "dw8192.mtx"};
    int found = 0;
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        kryl_csr A;
        if (!order_read_real(&A, files[k])) continue;
        found++;
        report(&A, files[k]);
        kryl_csr_free(&A);
    }
    if (found == 0) printf("no real matrices found; generated ones only\n");
    return test_summary("test_order_matrices");
}
