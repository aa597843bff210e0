/* Vector loops of the single-reduction CG, pipelined CG, BiCGSTAB, GMRES
 * and flexible CG operations, for REAL = double (S = d) and float (S = s); included twice by
 * ref_krylov.c, so no include guard.  Plain serial loops: the oracle.  Every
 * value is computed in double, rounded once when stored, and dot products
 * use the stored (rounded) values. */
#define REFK_NAME2(a, b) a##_##b
#define REFK_NAME(a, b)  REFK_NAME2(a, b)
#define RD(v)            ((double)(v))
#define DATA(vec)        ((vec) ? (REAL *)(vec)->data : NULL)

/* Pipelined CG vector part (Ghysels & Vanroose 2014, Alg. 2 of Tiwari &
 * Vadhiyar lines 10-21); u, q, m NULL mean u = r, q = s, m = w (M = I).
 * out = {r'u, w'u, r'r}. */
static void REFK_NAME(pipecg_loop, S)(int64_t n, int restart, double alpha, double beta,
                                      const kryl_pipecg_vectors *v, kryl_vector dinv_v,
                                      double out[3])
{
    REAL *x = DATA(v->x), *r = DATA(v->r), *u = DATA(v->u), *w = DATA(v->w), *m = DATA(v->m),
         *p = DATA(v->p), *s = DATA(v->s), *q = DATA(v->q), *z = DATA(v->z);
    const REAL *nv = DATA(v->n), *dinv = DATA(dinv_v);
    double gamma = 0.0, delta = 0.0, rr = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double ui = u ? RD(u[i]) : RD(r[i]);
        double mi = m ? RD(m[i]) : RD(w[i]);
        /* z = n + beta z;  s = w + beta s;  p = u + beta p;  q = m + beta q */
        z[i] = (REAL)(restart ? RD(nv[i]) : RD(nv[i]) + beta * RD(z[i]));
        s[i] = (REAL)(restart ? RD(w[i]) : RD(w[i]) + beta * RD(s[i]));
        p[i] = (REAL)(restart ? ui : ui + beta * RD(p[i]));
        if (q) q[i] = (REAL)(restart ? mi : mi + beta * RD(q[i]));
        double qi = q ? RD(q[i]) : RD(s[i]);
        /* x += alpha p;  r -= alpha s;  u -= alpha q;  w -= alpha z */
        x[i] = (REAL)(RD(x[i]) + alpha * RD(p[i]));
        r[i] = (REAL)(RD(r[i]) - alpha * RD(s[i]));
        if (u) u[i] = (REAL)(ui - alpha * qi);
        w[i] = (REAL)(RD(w[i]) - alpha * RD(z[i]));
        /* m = dinv .* w */
        if (dinv) m[i] = (REAL)(RD(dinv[i]) * RD(w[i]));
        double ri = RD(r[i]), un = u ? RD(u[i]) : ri;
        /* gamma = r'u;  delta = w'u;  rr = r'r */
        gamma += ri * un;
        delta += RD(w[i]) * un;
        rr += ri * ri;
    }
    out[0] = gamma;
    out[1] = delta;
    out[2] = rr;
}

/* out[0] = x'z;  out[1] = y'z */
static void REFK_NAME(dot2_loop, S)(int64_t n, const REAL *x, const REAL *y, const REAL *z,
                                    double out[2])
{
    double xz = 0.0, yz = 0.0;
    for (int64_t i = 0; i < n; i++) {
        xz += RD(x[i]) * RD(z[i]);
        yz += RD(y[i]) * RD(z[i]);
    }
    out[0] = xz;
    out[1] = yz;
}

/* r -= alpha v;  s_hat = dinv .* r */
static void REFK_NAME(bicgstab_s_loop, S)(int64_t n, double alpha, REAL *r, const REAL *v,
                                          const REAL *dinv, REAL *s_hat)
{
    for (int64_t i = 0; i < n; i++) {
        r[i] = (REAL)(RD(r[i]) - alpha * RD(v[i]));
        if (dinv) s_hat[i] = (REAL)(RD(dinv[i]) * RD(r[i]));
    }
}

/* x += alpha p_hat + omega s_hat;  r -= omega t;  out = {r'r, r_hat'r} */
static void REFK_NAME(bicgstab_xr_loop, S)(int64_t n, double alpha, double omega, REAL *x, REAL *r,
                                           const REAL *p_hat, const REAL *s_hat, const REAL *t,
                                           const REAL *r_hat, double out[2])
{
    double rr = 0.0, rho = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double si = RD(s_hat[i]); /* read before r[i] is written: s_hat may be r */
        x[i] = (REAL)(RD(x[i]) + alpha * RD(p_hat[i]) + omega * si);
        r[i] = (REAL)(RD(r[i]) - omega * RD(t[i]));
        rr += RD(r[i]) * RD(r[i]);
        rho += RD(r_hat[i]) * RD(r[i]);
    }
    out[0] = rr;
    out[1] = rho;
}

/* p = r + beta (p - omega v);  p_hat = dinv .* p */
static void REFK_NAME(bicgstab_p_loop, S)(int64_t n, double beta, double omega, REAL *p,
                                          const REAL *r, const REAL *v, const REAL *dinv,
                                          REAL *p_hat)
{
    for (int64_t i = 0; i < n; i++) {
        p[i] = (REAL)(RD(r[i]) + beta * (RD(p[i]) - omega * RD(v[i])));
        if (dinv) p_hat[i] = (REAL)(RD(dinv[i]) * RD(p[i]));
    }
}

/* h_j = V_j'w, V_j = V + j*n */
static void REFK_NAME(multi_dot_loop, S)(int64_t n, const REAL *V, int k, const REAL *w, double *h)
{
    for (int j = 0; j < k; j++) {
        const REAL *v = V + (int64_t)j * n;
        double sum = 0.0;
        for (int64_t i = 0; i < n; i++) sum += RD(v[i]) * RD(w[i]);
        h[j] = sum;
    }
}

/* w += alpha sum_j h_j V_j (h_j = 0 skipped);  returns w'w */
static double REFK_NAME(multi_axpy_loop, S)(int64_t n, const REAL *V, int k, double alpha,
                                            const double *h, REAL *w)
{
    double ww = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double sum = 0.0;
        for (int j = 0; j < k; j++)
            if (h[j] != 0.0) sum += h[j] * RD(V[(int64_t)j * n + i]);
        w[i] = (REAL)(RD(w[i]) + alpha * sum);
        ww += RD(w[i]) * RD(w[i]);
    }
    return ww;
}

/* v = v / norm */
static void REFK_NAME(scale_loop, S)(int64_t n, double norm, REAL *v)
{
    for (int64_t i = 0; i < n; i++) v[i] = (REAL)(RD(v[i]) / norm);
}

/* p = z - c p */
static void REFK_NAME(fcg_p_loop, S)(int64_t n, double c, const REAL *z, REAL *p)
{
    for (int64_t i = 0; i < n; i++) p[i] = (REAL)(RD(z[i]) - c * RD(p[i]));
}

/* t = {p'q, r'r, r'q, q'q} and with dinv {r'Dr, r'Dq, q'Dq} (D = diag(dinv)) */
static void REFK_NAME(cg1_terms_loop, S)(int64_t n, const REAL *p, const REAL *q, const REAL *r,
                                         const REAL *dinv, double t[KRYL_CG1_TERMS])
{
    for (int k = 0; k < KRYL_CG1_TERMS; k++) t[k] = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double pi = RD(p[i]), qi = RD(q[i]), ri = RD(r[i]);
        t[KRYL_CG1_PQ] += pi * qi;
        t[KRYL_CG1_RR] += ri * ri;
        t[KRYL_CG1_RQ] += ri * qi;
        t[KRYL_CG1_QQ] += qi * qi;
        if (dinv) {
            double di = RD(dinv[i]);
            t[KRYL_CG1_RDR] += ri * di * ri;
            t[KRYL_CG1_RDQ] += ri * di * qi;
            t[KRYL_CG1_QDQ] += qi * di * qi;
        }
    }
}

/* x += alpha p;  r -= alpha q;  p = dinv .* r + beta p (r + beta p without dinv) */
static void REFK_NAME(cg1_update_loop, S)(int64_t n, double alpha, double beta, REAL *p,
                                          const REAL *q, REAL *x, REAL *r, const REAL *dinv)
{
    for (int64_t i = 0; i < n; i++) {
        x[i] = (REAL)(RD(x[i]) + alpha * RD(p[i]));
        r[i] = (REAL)(RD(r[i]) - alpha * RD(q[i]));
        double zi = dinv ? RD(dinv[i]) * RD(r[i]) : RD(r[i]);
        p[i] = (REAL)(zi + beta * RD(p[i]));
    }
}

#undef RD
#undef DATA
#undef REFK_NAME
#undef REFK_NAME2
