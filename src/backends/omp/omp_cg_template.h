/* Fused conjugate-gradient kernels in one precision: REAL and SUFFIX are
 * defined by the including file (see omp_real.h).  Included once per
 * precision by omp_cg.c, so it has no include guard.  The vectors are
 * distinct (omp_cg.c checks), hence restrict. */

/* x += alpha p;  r -= alpha q;  z = dinv .* r (when dinv);
 * *rz = r'z (r'r without dinv) and *rr = r'r, in double: one pass over the
 * vectors, per-part partials summed in part order. */
static void OMP_FN(cg_update_xr)(kryl_omp_state *s, int64_t n, double alpha, const REAL *restrict p,
                                 const REAL *restrict q, REAL *restrict x, REAL *restrict r,
                                 const REAL *restrict dinv, REAL *restrict z, double *rz,
                                 double *rr)
{
    const REAL a = (REAL)alpha;
    const int parts = kryl_omp_parts(n);
#pragma omp parallel for schedule(static) num_threads(s->threads) if (n >= KRYL_OMP_MIN_PARALLEL)
    for (int part = 0; part < parts; part++) {
        int64_t lo, hi;
        kryl_omp_block(n, part, parts, &lo, &hi);
        double sum_rz = 0.0, sum_rr = 0.0;
        if (dinv != NULL) {
            /* x += a p;  r -= a q;  z = dinv .* r;  rz += r z;  rr += r r */
#pragma omp simd reduction(+ : sum_rz, sum_rr)
            for (int64_t i = lo; i < hi; i++) {
                x[i] += a * p[i];
                REAL ri = r[i] - a * q[i];
                REAL zi = dinv[i] * ri;
                r[i] = ri;
                z[i] = zi;
                sum_rz += (double)ri * (double)zi;
                sum_rr += (double)ri * (double)ri;
            }
        } else {
            /* x += a p;  r -= a q;  rr += r r */
#pragma omp simd reduction(+ : sum_rr)
            for (int64_t i = lo; i < hi; i++) {
                x[i] += a * p[i];
                REAL ri = r[i] - a * q[i];
                r[i] = ri;
                sum_rr += (double)ri * (double)ri;
            }
            sum_rz = sum_rr;
        }
        double *sums = kryl_omp_part_sums(s, part);
        sums[0] = sum_rz;
        sums[1] = sum_rr;
    }
    *rz = kryl_omp_sum_partials(s, parts, 0);
    *rr = kryl_omp_sum_partials(s, parts, 1);
}

/* p = z + beta p */
static void OMP_FN(cg_update_p)(int nt, int64_t n, double beta, const REAL *restrict z,
                                REAL *restrict p)
{
    const REAL b = (REAL)beta;
#pragma omp parallel for schedule(static) num_threads(nt) if (n >= KRYL_OMP_MIN_PARALLEL)
    for (int64_t i = 0; i < n; i++) p[i] = z[i] + b * p[i];
}

/* t = {p'q, r'r, r'q, q'q} and with dinv also {r'Dr, r'Dq, q'Dq} (D =
 * diag(dinv)), in double: one pass, per-part partials summed in part
 * order. */
static void OMP_FN(cg1_terms)(kryl_omp_state *s, int64_t n, const REAL *restrict p,
                              const REAL *restrict q, const REAL *restrict r,
                              const REAL *restrict dinv, double *t)
{
    const int parts = kryl_omp_parts(n);
#pragma omp parallel for schedule(static) num_threads(s->threads) if (n >= KRYL_OMP_MIN_PARALLEL)
    for (int part = 0; part < parts; part++) {
        int64_t lo, hi;
        kryl_omp_block(n, part, parts, &lo, &hi);
        double pq = 0.0, rr = 0.0, rq = 0.0, qq = 0.0, rdr = 0.0, rdq = 0.0, qdq = 0.0;
#pragma omp simd reduction(+ : pq, rr, rq, qq, rdr, rdq, qdq)
        for (int64_t i = lo; i < hi; i++) {
            double pi = (double)p[i], qi = (double)q[i], ri = (double)r[i];
            pq += pi * qi;
            rr += ri * ri;
            rq += ri * qi;
            qq += qi * qi;
            if (dinv != NULL) {
                double di = (double)dinv[i];
                rdr += ri * di * ri;
                rdq += ri * di * qi;
                qdq += qi * di * qi;
            }
        }
        double *mine = kryl_omp_part_sums(s, part);
        mine[KRYL_CG1_PQ] = pq;
        mine[KRYL_CG1_RR] = rr;
        mine[KRYL_CG1_RQ] = rq;
        mine[KRYL_CG1_QQ] = qq;
        mine[KRYL_CG1_RDR] = rdr;
        mine[KRYL_CG1_RDQ] = rdq;
        mine[KRYL_CG1_QDQ] = qdq;
    }
    for (int k = 0; k < (dinv != NULL ? KRYL_CG1_TERMS : KRYL_CG1_RDR); k++)
        t[k] = kryl_omp_sum_partials(s, parts, k);
}

/* x += alpha p;  r -= alpha q;  p = dinv .* r + beta p (r + beta p without dinv) */
static void OMP_FN(cg1_update)(int nt, int64_t n, double alpha, double beta, REAL *restrict p,
                               const REAL *restrict q, REAL *restrict x, REAL *restrict r,
                               const REAL *restrict dinv)
{
    const REAL a = (REAL)alpha, b = (REAL)beta;
#pragma omp parallel for schedule(static) num_threads(nt) if (n >= KRYL_OMP_MIN_PARALLEL)
    for (int64_t i = 0; i < n; i++) {
        x[i] += a * p[i];
        REAL ri = r[i] - a * q[i];
        r[i] = ri;
        p[i] = (dinv != NULL ? dinv[i] * ri : ri) + b * p[i];
    }
}
