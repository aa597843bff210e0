/* Vector loops of DCGS2 (gmres_dcgs2_dot, gmres_dcgs2_update) for REAL =
 * double (S = d) and float (S = s); included twice by ref_dcgs2.c, so no
 * include guard.  Plain serial loops: the oracle.  Values are computed in
 * double and rounded once when stored; later terms use the stored value. */
#define DCGS2_NAME2(a, b) a##_##b
#define DCGS2_NAME(a, b)  DCGS2_NAME2(a, b)
#define RD(v)             ((double)(v))

/* d[j] = V_j'V_k (j <= k);  with w: d[k+1+j] = V_j'w, d[2k+2] = w'w */
static void DCGS2_NAME(dcgs2_dot_loop, S)(int64_t n, const REAL *V, int k, const REAL *w, double *d)
{
    const REAL *u = V + (int64_t)k * n;
    for (int j = 0; j <= k; j++) {
        const REAL *v = V + (int64_t)j * n;
        double vu = 0.0, vw = 0.0;
        for (int64_t i = 0; i < n; i++) {
            vu += RD(v[i]) * RD(u[i]);
            if (w) vw += RD(v[i]) * RD(w[i]);
        }
        d[j] = vu;
        if (w) d[k + 1 + j] = vw;
    }
    if (w) {
        double ww = 0.0;
        for (int64_t i = 0; i < n; i++) ww += RD(w[i]) * RD(w[i]);
        d[2 * k + 2] = ww;
    }
}

/* V_k = (V_k - sum_{j<k} s_j V_j) f0;  w = (w - sum_{j<k} t_j V_j - f1 V_k) f2,
 * with s = d[0..k-1], t = d[k+1..2k] */
static void DCGS2_NAME(dcgs2_update_loop, S)(int64_t n, REAL *V, int k, REAL *w, const double *d,
                                             const double *f)
{
    REAL *u = V + (int64_t)k * n;
    for (int64_t i = 0; i < n; i++) {
        double vs = 0.0, vt = 0.0;
        for (int j = 0; j < k; j++) {
            double vj = RD(V[(int64_t)j * n + i]);
            vs += d[j] * vj;
            vt += d[k + 1 + j] * vj;
        }
        u[i] = (REAL)((RD(u[i]) - vs) * f[0]);
        w[i] = (REAL)((RD(w[i]) - vt - f[1] * RD(u[i])) * f[2]);
    }
}

#undef DCGS2_NAME2
#undef DCGS2_NAME
#undef RD
