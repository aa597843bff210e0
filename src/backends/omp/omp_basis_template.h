/* Loops over a basis of vectors (GMRES's Arnoldi process) in one
 * precision: REAL and SUFFIX are defined by the including file (see
 * omp_real.h).  Included once per precision by omp_basis.c, so it has no
 * include guard.  The basis holds k vectors of n entries one after another
 * (V_j = V + j n).  As in the ref backend, entries are computed in double
 * and rounded once when stored. */

#define RD(v) ((double)(v))

/* h_j = V_j'w for j < k, a group of KRYL_OMP_PART_SLOTS columns at a time.
 * Each part (kryl_omp_parts) is swept in chunks of KRYL_OMP_BASIS_CHUNK:
 * the chunk of w stays in L1 while the chunk of every V_j of the group
 * streams past it, so V is read from memory once and w once per group.
 * The parts' sums are then added in part order, each h_j by one thread:
 * the same bits for any team size. */
static void OMP_FN(multi_dot)(kryl_omp_state *st, int64_t n, const REAL *V, int k, const REAL *w,
                              double *h)
{
    const int parts = kryl_omp_parts(n);
#pragma omp parallel num_threads(st->threads) if (n * (k + 1) >= KRYL_OMP_MIN_PARALLEL)
    for (int j0 = 0; j0 < k; j0 += KRYL_OMP_PART_SLOTS) {
        int g = k - j0 < KRYL_OMP_PART_SLOTS ? k - j0 : KRYL_OMP_PART_SLOTS;
#pragma omp for schedule(static)
        for (int part = 0; part < parts; part++) {
            int64_t lo, hi;
            kryl_omp_block(n, part, parts, &lo, &hi);
            double *acc = kryl_omp_part_sums(st, part);
            for (int j = 0; j < g; j++) acc[j] = 0.0;
            for (int64_t c0 = lo; c0 < hi; c0 += KRYL_OMP_BASIS_CHUNK) {
                int64_t c1 = hi - c0 < KRYL_OMP_BASIS_CHUNK ? hi : c0 + KRYL_OMP_BASIS_CHUNK;
                for (int j = 0; j < g; j++) {
                    const REAL *restrict v = V + (int64_t)(j0 + j) * n;
                    double sum = 0.0;
                    /* sum = V_j'w over the chunk */
#pragma omp simd reduction(+ : sum)
                    for (int64_t i = c0; i < c1; i++) sum += RD(v[i]) * RD(w[i]);
                    acc[j] += sum;
                }
            }
        }
        /* h_j = the parts' sums in part order (the barriers of the two
         * loops keep the next group from overwriting them early) */
#pragma omp for schedule(static)
        for (int j = 0; j < g; j++) h[j0 + j] = kryl_omp_sum_partials(st, parts, j);
    }
}

/* w += alpha sum_{j<k} h_j V_j, terms with h_j = 0 skipped; returns w'w.
 * Each thread sweeps its block in chunks: the chunk's combination is
 * accumulated on the stack over j in order (as ref sums it, so w equals
 * ref's bit for bit), every V_j streamed once, then w updated and its
 * part's w'w summed; the parts' sums are added in part order. */
static double OMP_FN(multi_axpy)(kryl_omp_state *st, int64_t n, const REAL *V, int k, double alpha,
                                 const double *h, REAL *w)
{
    const int parts = kryl_omp_parts(n);
#pragma omp parallel for schedule(static)                                                          \
    num_threads(st->threads) if (n * (k + 1) >= KRYL_OMP_MIN_PARALLEL)
    for (int part = 0; part < parts; part++) {
        int64_t lo, hi;
        kryl_omp_block(n, part, parts, &lo, &hi);
        double comb[KRYL_OMP_BASIS_CHUNK];
        double ww = 0.0;
        for (int64_t c0 = lo; c0 < hi; c0 += KRYL_OMP_BASIS_CHUNK) {
            int64_t len = hi - c0 < KRYL_OMP_BASIS_CHUNK ? hi - c0 : KRYL_OMP_BASIS_CHUNK;
            for (int64_t i = 0; i < len; i++) comb[i] = 0.0;
            for (int j = 0; j < k; j++) {
                double hj = h[j];
                if (hj == 0.0) continue;
                const REAL *restrict v = V + (int64_t)j * n + c0;
                /* comb += h_j V_j over the chunk */
#pragma omp simd
                for (int64_t i = 0; i < len; i++) comb[i] += hj * RD(v[i]);
            }
            REAL *restrict wc = w + c0;
            /* w += alpha comb;  ww += w w */
#pragma omp simd reduction(+ : ww)
            for (int64_t i = 0; i < len; i++) {
                REAL wi = (REAL)(RD(wc[i]) + alpha * comb[i]);
                wc[i] = wi;
                ww += RD(wi) * RD(wi);
            }
        }
        kryl_omp_part_sums(st, part)[0] = ww;
    }
    return kryl_omp_sum_partials(st, parts, 0);
}

/* v = v / norm */
static void OMP_FN(scale_down)(int threads, int64_t n, double norm, REAL *v)
{
#pragma omp parallel for schedule(static) num_threads(threads) if (n >= KRYL_OMP_MIN_PARALLEL)
    for (int64_t i = 0; i < n; i++) v[i] = (REAL)(RD(v[i]) / norm);
}

#undef RD
