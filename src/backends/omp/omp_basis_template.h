/* Loops over a basis of vectors (GMRES's Arnoldi process) in one
 * precision: REAL and SUFFIX are defined by the including file (see
 * omp_real.h).  Included once per precision by omp_basis.c, so it has no
 * include guard.  The basis holds k vectors of n entries one after another
 * (V_j = V + j n).  As in the ref backend, entries are computed in double
 * and rounded once when stored. */

#define RD(v) ((double)(v))

/* h_j = V_j'w for j < k.  Each thread sweeps its static block of rows in
 * chunks of KRYL_OMP_BASIS_CHUNK: the chunk of w stays in L1 while the
 * chunk of every V_j streams past it, so V and w are each read from memory
 * once (w once per group of KRYL_OMP_BASIS_GROUP vectors).  A thread's
 * partial sums live on its stack; an ordered loop adds them to h in thread
 * order, so h is deterministic for a team size and no workspace sized by k
 * is needed. */
static void OMP_FN(multi_dot)(int threads, int64_t n, const REAL *V, int k, const REAL *w,
                              double *h)
{
#pragma omp parallel num_threads(threads) if (n * (k + 1) >= KRYL_OMP_MIN_PARALLEL)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        int64_t lo, hi;
        kryl_omp_block(n, t, nt, &lo, &hi);
        double acc[KRYL_OMP_BASIS_GROUP];
        for (int j0 = 0; j0 < k; j0 += KRYL_OMP_BASIS_GROUP) {
            int g = k - j0 < KRYL_OMP_BASIS_GROUP ? k - j0 : KRYL_OMP_BASIS_GROUP;
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
            /* h_j = sum of the threads' partials, in thread order (iteration
             * r of a static schedule with chunk 1 runs on thread r) */
#pragma omp for ordered schedule(static, 1)
            for (int r = 0; r < nt; r++) {
#pragma omp ordered
                for (int j = 0; j < g; j++) h[j0 + j] = r == 0 ? acc[j] : h[j0 + j] + acc[j];
            }
        }
    }
}

/* w += alpha sum_{j<k} h_j V_j, terms with h_j = 0 skipped; returns w'w.
 * Each thread sweeps its block in chunks: the chunk's combination is
 * accumulated on the stack over j in order (as ref sums it, so w equals
 * ref's bit for bit), every V_j streamed once, then w updated and its
 * partial w'w summed; the partials are added in thread order. */
static double OMP_FN(multi_axpy)(kryl_omp_state *st, int64_t n, const REAL *V, int k, double alpha,
                                 const double *h, REAL *w)
{
    int team = 1;
#pragma omp parallel num_threads(st->threads) if (n * (k + 1) >= KRYL_OMP_MIN_PARALLEL)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        if (t == 0) team = nt;
        int64_t lo, hi;
        kryl_omp_block(n, t, nt, &lo, &hi);
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
        st->partials[t * KRYL_OMP_LINE_DOUBLES] = ww;
    }
    return kryl_omp_sum_partials(st, team, 0);
}

/* v = v / norm */
static void OMP_FN(scale_down)(int threads, int64_t n, double norm, REAL *v)
{
#pragma omp parallel for schedule(static) num_threads(threads) if (n >= KRYL_OMP_MIN_PARALLEL)
    for (int64_t i = 0; i < n; i++) v[i] = (REAL)(RD(v[i]) / norm);
}

#undef RD
