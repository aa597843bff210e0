/* The two passes of DCGS2 over GMRES's basis in one precision: REAL and
 * SUFFIX come from omp_instantiate.h (included once per precision by
 * omp_dcgs2.c, so no include guard).  V_j = V + j n.  As in the ref
 * backend, values are computed in double and rounded once when stored. */

#define RD(v) ((double)(v))

/* d[j] = V_j'V_k and d[k+1+j] = V_j'w (j <= k), d[2k+2] = w'w.  Each part
 * (kryl_omp_parts) is swept in chunks of KRYL_OMP_BASIS_CHUNK, so the chunk
 * of V_k and w stays in L1 while every V_j streams past it once (once per
 * group of DCGS2_OMP_GROUP columns).  A part keeps its sums of V_j'u in
 * slots 0.., of V_j'w in slots DCGS2_OMP_GROUP.. and of w'w in the slot
 * after them; the parts' sums are added in part order: the same bits for
 * any team size. */
static void OMP_FN(dcgs2_dot)(kryl_omp_state *st, int64_t n, const REAL *V, int k, const REAL *w,
                              double *d)
{
    const REAL *u = V + (int64_t)k * n;
    const int parts = kryl_omp_parts(n);
    enum { G = DCGS2_OMP_GROUP, WW = 2 * DCGS2_OMP_GROUP };
#pragma omp parallel num_threads(st->threads) if (n * (k + 2) >= KRYL_OMP_MIN_PARALLEL)
    for (int j0 = 0; j0 <= k; j0 += G) {
        int g = k + 1 - j0 < G ? k + 1 - j0 : G;
#pragma omp for schedule(static)
        for (int part = 0; part < parts; part++) {
            int64_t lo, hi;
            kryl_omp_block(n, part, parts, &lo, &hi);
            double *au = kryl_omp_part_sums(st, part), *aw = au + G;
            for (int j = 0; j < g; j++) au[j] = aw[j] = 0.0;
            if (j0 == 0) au[WW] = 0.0;
            for (int64_t c0 = lo; c0 < hi; c0 += KRYL_OMP_BASIS_CHUNK) {
                int64_t c1 = hi - c0 < KRYL_OMP_BASIS_CHUNK ? hi : c0 + KRYL_OMP_BASIS_CHUNK;
                for (int j = 0; j < g; j++) {
                    const REAL *restrict v = V + (int64_t)(j0 + j) * n;
                    double su = 0.0, sw = 0.0;
                    /* su = V_j'u, sw = V_j'w over the chunk */
                    if (w) {
#pragma omp simd reduction(+ : su, sw)
                        for (int64_t i = c0; i < c1; i++) {
                            su += RD(v[i]) * RD(u[i]);
                            sw += RD(v[i]) * RD(w[i]);
                        }
                    } else {
#pragma omp simd reduction(+ : su)
                        for (int64_t i = c0; i < c1; i++) su += RD(v[i]) * RD(u[i]);
                    }
                    au[j] += su;
                    aw[j] += sw;
                }
                if (w && j0 == 0) {
                    double sum = 0.0;
                    /* ww += w'w over the chunk */
#pragma omp simd reduction(+ : sum)
                    for (int64_t i = c0; i < c1; i++) sum += RD(w[i]) * RD(w[i]);
                    au[WW] += sum;
                }
            }
        }
        /* d = the parts' sums in part order (the barriers of the two loops
         * keep the next group from overwriting them early) */
#pragma omp for schedule(static)
        for (int j = 0; j < g; j++) {
            d[j0 + j] = kryl_omp_sum_partials(st, parts, j);
            if (w) d[k + 1 + j0 + j] = kryl_omp_sum_partials(st, parts, G + j);
            if (w && j0 == 0 && j == 0) d[2 * k + 2] = kryl_omp_sum_partials(st, parts, WW);
        }
    }
}

/* V_k = (V_k - sum_{j<k} s_j V_j) f0;  w = (w - sum_{j<k} t_j V_j - f1 V_k) f2
 * (s = d[0..k-1], t = d[k+1..2k]).  Each thread sweeps its block in
 * chunks, the two combinations accumulated over j in order (as ref sums
 * them, so the results equal ref's bit for bit). */
static void OMP_FN(dcgs2_update)(int threads, int64_t n, REAL *V, int k, REAL *w, const double *d,
                                 const double *f)
{
    REAL *u = V + (int64_t)k * n;
#pragma omp parallel num_threads(threads) if (n * (k + 2) >= KRYL_OMP_MIN_PARALLEL)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        int64_t lo, hi;
        kryl_omp_block(n, t, nt, &lo, &hi);
        double cs[KRYL_OMP_BASIS_CHUNK], ct[KRYL_OMP_BASIS_CHUNK];
        for (int64_t c0 = lo; c0 < hi; c0 += KRYL_OMP_BASIS_CHUNK) {
            int64_t len = hi - c0 < KRYL_OMP_BASIS_CHUNK ? hi - c0 : KRYL_OMP_BASIS_CHUNK;
            for (int64_t i = 0; i < len; i++) cs[i] = ct[i] = 0.0;
            for (int j = 0; j < k; j++) {
                const double sj = d[j], tj = d[k + 1 + j];
                const REAL *restrict v = V + (int64_t)j * n + c0;
                /* cs += s_j V_j;  ct += t_j V_j over the chunk */
#pragma omp simd
                for (int64_t i = 0; i < len; i++) {
                    cs[i] += sj * RD(v[i]);
                    ct[i] += tj * RD(v[i]);
                }
            }
            REAL *restrict uc = u + c0, *restrict wc = w + c0;
            /* q = (u - cs) f0;  w = (w - ct - f1 q) f2 */
#pragma omp simd
            for (int64_t i = 0; i < len; i++) {
                REAL q = (REAL)((RD(uc[i]) - cs[i]) * f[0]);
                uc[i] = q;
                wc[i] = (REAL)((RD(wc[i]) - ct[i] - f[1] * RD(q)) * f[2]);
            }
        }
    }
}

#undef RD
