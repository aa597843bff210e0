/* The Givens step of GMRES's least-squares problem on the device, shared by
 * the CGS2 (cuda_gmres.cu) and DCGS2 (cuda_dcgs2.cu) paths: one warp applies
 * the earlier rotations to a new Hessenberg column and makes the rotation
 * that zeroes its subdiagonal (Saad & Schultz 1986). */
#ifndef KRYL_BACKENDS_CUDA_GIVENS_CUH
#define KRYL_BACKENDS_CUDA_GIVENS_CUH

#include <math.h>

#include "backends/backend.h"

/* Rotations staged through shared memory per round. */
constexpr int KRYL_GIVENS_CHUNK = 128;

/* One warp, col = R's column j (rows 0..j+1 filled):  rotations 0..j-1
 * applied (lane 0, KRYL_GIVENS_CHUNK at a time from shared memory), then
 * rotation j zeroes col[j+1], applied to gj = g[j] before it:  g[j] = cs gj,
 * g[j+1] = -sn gj, rr = g[j+1]^2, count = j+1.  Returns, in every lane,
 * KRYL_STOP_NAN (a non-finite entry) or KRYL_STOP_BREAKDOWN (a zero pivot),
 * having changed no rotation, g, rr or count, or KRYL_STOP_RUNNING. */
__device__ inline int kryl_cuda_givens_column(const kryl_gmres_ls &ls, double *col, int j,
                                              double gj)
{
    __shared__ double s_col[KRYL_GIVENS_CHUNK], s_cs[KRYL_GIVENS_CHUNK], s_sn[KRYL_GIVENS_CHUNK];
    const int lane = threadIdx.x;
    /* rotation i: (col_i, col_i+1) = (cs_i a + sn_i b, -sn_i a + cs_i b); `a` carries col_i */
    double a = col[0];
    for (int i0 = 0; i0 < j; i0 += KRYL_GIVENS_CHUNK) {
        const int cnt = min(KRYL_GIVENS_CHUNK, j - i0);
        for (int c = lane; c < cnt; c += 32) {
            s_cs[c] = ls.cs[i0 + c];
            s_sn[c] = ls.sn[i0 + c];
            s_col[c] = col[i0 + c + 1];
        }
        __syncwarp();
        if (lane == 0)
            for (int c = 0; c < cnt; c++) {
                const double b = s_col[c];
                s_col[c] = s_cs[c] * a + s_sn[c] * b;
                a = -s_sn[c] * a + s_cs[c] * b;
            }
        __syncwarp();
        for (int c = lane; c < cnt; c += 32) col[i0 + c] = s_col[c];
        __syncwarp();
    }
    if (lane == 0) col[j] = a;
    __syncwarp();
    bool finite = lane != 0 || isfinite(gj);
    for (int i = lane; i <= j + 1; i += 32) finite = finite && isfinite(col[i]);
    if (!__all_sync(0xffffffffu, finite)) return KRYL_STOP_NAN;
    int why = KRYL_STOP_RUNNING;
    if (lane == 0) {
        const double rho = hypot(col[j], col[j + 1]);
        if (rho == 0.0) {
            why = KRYL_STOP_BREAKDOWN;
        } else {
            const double cs = col[j] / rho, sn = col[j + 1] / rho;
            ls.cs[j] = cs;
            ls.sn[j] = sn;
            col[j] = rho;
            col[j + 1] = 0.0;
            /* g_{j+1} = -sn gj;  g_j = cs gj:  |g_{j+1}| = ||b - A x_j|| */
            ls.g[j + 1] = -sn * gj;
            ls.g[j] = cs * gj;
            *ls.rr = ls.g[j + 1] * ls.g[j + 1];
            *ls.count = j + 1;
        }
    }
    why = __shfl_sync(0xffffffffu, why, 0);
    __syncwarp();
    return why;
}

#endif
