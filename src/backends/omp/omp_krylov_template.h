/* Fused vector loops of pipelined CG, BiCGSTAB and flexible CG in one
 * precision: REAL and SUFFIX are defined by the including file (see
 * omp_real.h).  Included once per precision by omp_krylov.c, so it has no
 * include guard.  As in the ref backend (the specification), every entry
 * is computed in double and rounded once when stored, and the dot products
 * read the stored values: the vectors equal ref's bit for bit, and the
 * sums differ from ref's only in their order (per-part partials summed in
 * part order: the same bits for any team size). */

#define RD(v) ((double)(v))

/* The vectors of one pipelined CG step in this precision; u, m and q are
 * NULL without a preconditioner, dinv NULL unless it is Jacobi. */
typedef struct OMP_FN(pipecg_ptrs) {
    REAL *x, *r, *u, *w, *m, *p, *s, *q, *z;
    const REAL *n, *dinv;
} OMP_FN(pipecg_ptrs);

/* Entries lo <= i < hi of a pipelined CG step (Ghysels & Vanroose 2014;
 * Alg. 2 of Tiwari & Vadhiyar, lines 10-21), returning {r'u, w'u, r'r}
 * over them in sums.  Each call passes restart and pc (0: M = I, 1: the
 * caller applies M, 2: Jacobi m = dinv .* w) as constants and the body is
 * inlined, so the compiler builds one branch-free loop per case. */
static KRYL_OMP_INLINE void OMP_FN(pipecg_block)(const OMP_FN(pipecg_ptrs) * v, int64_t lo,
                                                 int64_t hi, double alpha, double beta, int restart,
                                                 int pc, double *sums)
{
    REAL *restrict x = v->x, *restrict r = v->r, *restrict u = v->u, *restrict w = v->w;
    REAL *restrict m = v->m, *restrict p = v->p, *restrict s = v->s, *restrict q = v->q;
    REAL *restrict z = v->z;
    const REAL *restrict nv = v->n, *restrict dinv = v->dinv;
    double gamma = 0.0, delta = 0.0, rr = 0.0;
#pragma omp simd reduction(+ : gamma, delta, rr)
    for (int64_t i = lo; i < hi; i++) {
        double ui = pc ? RD(u[i]) : RD(r[i]);
        double mi = pc ? RD(m[i]) : RD(w[i]);
        /* z = n + beta z;  s = w + beta s;  p = u + beta p;  q = m + beta q */
        REAL zi = (REAL)(restart ? RD(nv[i]) : RD(nv[i]) + beta * RD(z[i]));
        REAL si = (REAL)(restart ? RD(w[i]) : RD(w[i]) + beta * RD(s[i]));
        REAL pi = (REAL)(restart ? ui : ui + beta * RD(p[i]));
        REAL qi = pc ? (REAL)(restart ? mi : mi + beta * RD(q[i])) : si;
        /* x += alpha p;  r -= alpha s;  u -= alpha q;  w -= alpha z */
        REAL xi = (REAL)(RD(x[i]) + alpha * RD(pi));
        REAL ri = (REAL)(RD(r[i]) - alpha * RD(si));
        REAL un = pc ? (REAL)(ui - alpha * RD(qi)) : ri;
        REAL wi = (REAL)(RD(w[i]) - alpha * RD(zi));
        z[i] = zi;
        s[i] = si;
        p[i] = pi;
        x[i] = xi;
        r[i] = ri;
        w[i] = wi;
        if (pc) {
            q[i] = qi;
            u[i] = un;
        }
        /* m = dinv .* w */
        if (pc == 2) m[i] = (REAL)(RD(dinv[i]) * RD(wi));
        /* gamma += r u;  delta += w u;  rr += r r */
        gamma += RD(ri) * RD(un);
        delta += RD(wi) * RD(un);
        rr += RD(ri) * RD(ri);
    }
    sums[0] = gamma;
    sums[1] = delta;
    sums[2] = rr;
}

/* The pipelined CG step over all n entries, out = {r'u, w'u, r'r}: one
 * parallel pass, per-part partials in st->partials summed in part order. */
static void OMP_FN(pipecg_update)(kryl_omp_state *st, int64_t n, int restart, int pc, double alpha,
                                  double beta, const OMP_FN(pipecg_ptrs) * v, double out[3])
{
    const int parts = kryl_omp_parts(n);
#pragma omp parallel for schedule(static) num_threads(st->threads) if (n >= KRYL_OMP_MIN_PARALLEL)
    for (int part = 0; part < parts; part++) {
        int64_t lo, hi;
        kryl_omp_block(n, part, parts, &lo, &hi);
        double *sums = kryl_omp_part_sums(st, part);
        /* the flags as constants: one specialised loop per case */
        if (restart) {
            if (pc == 0)
                OMP_FN(pipecg_block)(v, lo, hi, alpha, beta, 1, 0, sums);
            else if (pc == 1)
                OMP_FN(pipecg_block)(v, lo, hi, alpha, beta, 1, 1, sums);
            else
                OMP_FN(pipecg_block)(v, lo, hi, alpha, beta, 1, 2, sums);
        } else {
            if (pc == 0)
                OMP_FN(pipecg_block)(v, lo, hi, alpha, beta, 0, 0, sums);
            else if (pc == 1)
                OMP_FN(pipecg_block)(v, lo, hi, alpha, beta, 0, 1, sums);
            else
                OMP_FN(pipecg_block)(v, lo, hi, alpha, beta, 0, 2, sums);
        }
    }
    for (int k = 0; k < 3; k++) out[k] = kryl_omp_sum_partials(st, parts, k);
}

/* out = {x'z, y'z} in one pass over z (x, y and z may coincide) */
static void OMP_FN(dot2)(kryl_omp_state *st, int64_t n, const REAL *x, const REAL *y, const REAL *z,
                         double out[2])
{
    const int parts = kryl_omp_parts(n);
#pragma omp parallel for schedule(static) num_threads(st->threads) if (n >= KRYL_OMP_MIN_PARALLEL)
    for (int part = 0; part < parts; part++) {
        int64_t lo, hi;
        kryl_omp_block(n, part, parts, &lo, &hi);
        double xz = 0.0, yz = 0.0;
        /* xz += x z;  yz += y z */
#pragma omp simd reduction(+ : xz, yz)
        for (int64_t i = lo; i < hi; i++) {
            xz += RD(x[i]) * RD(z[i]);
            yz += RD(y[i]) * RD(z[i]);
        }
        double *sums = kryl_omp_part_sums(st, part);
        sums[0] = xz;
        sums[1] = yz;
    }
    out[0] = kryl_omp_sum_partials(st, parts, 0);
    out[1] = kryl_omp_sum_partials(st, parts, 1);
}

/* r -= alpha v;  s_hat = dinv .* r when dinv (BiCGSTAB's s) */
static void OMP_FN(bicgstab_s)(int threads, int64_t n, double alpha, REAL *restrict r,
                               const REAL *restrict v, const REAL *restrict dinv,
                               REAL *restrict s_hat)
{
#pragma omp parallel for schedule(static) num_threads(threads) if (n >= KRYL_OMP_MIN_PARALLEL)
    for (int64_t i = 0; i < n; i++) {
        REAL ri = (REAL)(RD(r[i]) - alpha * RD(v[i]));
        r[i] = ri;
        if (dinv != NULL) s_hat[i] = (REAL)(RD(dinv[i]) * RD(ri));
    }
}

/* x += alpha p_hat + omega s_hat;  r -= omega t;  out = {r'r, r_hat'r}.
 * s_hat may be r: each s_hat_i is read before r_i is written. */
static void OMP_FN(bicgstab_xr)(kryl_omp_state *st, int64_t n, double alpha, double omega,
                                REAL *restrict x, REAL *r, const REAL *restrict p_hat,
                                const REAL *s_hat, const REAL *restrict t_vec,
                                const REAL *restrict r_hat, double out[2])
{
    const int parts = kryl_omp_parts(n);
#pragma omp parallel for schedule(static) num_threads(st->threads) if (n >= KRYL_OMP_MIN_PARALLEL)
    for (int part = 0; part < parts; part++) {
        int64_t lo, hi;
        kryl_omp_block(n, part, parts, &lo, &hi);
        double rr = 0.0, rho = 0.0;
#pragma omp simd reduction(+ : rr, rho)
        for (int64_t i = lo; i < hi; i++) {
            double si = RD(s_hat[i]);
            x[i] = (REAL)(RD(x[i]) + alpha * RD(p_hat[i]) + omega * si);
            REAL ri = (REAL)(RD(r[i]) - omega * RD(t_vec[i]));
            r[i] = ri;
            /* rr += r r;  rho += r_hat r */
            rr += RD(ri) * RD(ri);
            rho += RD(r_hat[i]) * RD(ri);
        }
        double *sums = kryl_omp_part_sums(st, part);
        sums[0] = rr;
        sums[1] = rho;
    }
    out[0] = kryl_omp_sum_partials(st, parts, 0);
    out[1] = kryl_omp_sum_partials(st, parts, 1);
}

/* p = r + beta (p - omega v);  p_hat = dinv .* p when dinv */
static void OMP_FN(bicgstab_p)(int threads, int64_t n, double beta, double omega, REAL *restrict p,
                               const REAL *restrict r, const REAL *restrict v,
                               const REAL *restrict dinv, REAL *restrict p_hat)
{
#pragma omp parallel for schedule(static) num_threads(threads) if (n >= KRYL_OMP_MIN_PARALLEL)
    for (int64_t i = 0; i < n; i++) {
        REAL pi = (REAL)(RD(r[i]) + beta * (RD(p[i]) - omega * RD(v[i])));
        p[i] = pi;
        if (dinv != NULL) p_hat[i] = (REAL)(RD(dinv[i]) * RD(pi));
    }
}

/* p = z - c p (flexible CG's direction) */
static void OMP_FN(fcg_p)(int threads, int64_t n, double c, const REAL *restrict z,
                          REAL *restrict p)
{
#pragma omp parallel for schedule(static) num_threads(threads) if (n >= KRYL_OMP_MIN_PARALLEL)
    for (int64_t i = 0; i < n; i++) p[i] = (REAL)(RD(z[i]) - c * RD(p[i]));
}

#undef RD
