/*
 * One multigrid cycle from z = 0 (V: one coarse correction a level, W:
 * two), written once over backend operations, so it runs wherever the
 * levels' matrices live:
 *   x = S(b) from 0;  r = b - A x;  b_c = R r;  x_c = cycle(b_c)
 *   [W: x_c += cycle(b_c - A_c x_c)];  x += P x_c;  x = S(b) from x
 * and on the coarsest level x = A^-1 b (a product with the dense inverse),
 * or smoothing alone where it was too large to invert.
 */
#include "amg/amg.h"

static kryl_status cycle(amg_hierarchy *h, int l, kryl_vector b, kryl_vector x)
{
    const kryl_backend_ops *ops = h->ctx->ops;
    kryl_context ctx = h->ctx;
    amg_level *L = &h->levels[l];
    if (l == h->nlevels - 1) {
        /* x = A^-1 b */
        if (L->Ainv) return ops->spmv(ctx, L->Ainv, 1.0, b, 0.0, NULL, x, NULL);
        KRYL_TRY(amg_smooth(h, l, b, x, true));
        return amg_smooth(h, l, b, x, false);
    }
    amg_level *C = &h->levels[l + 1];
    KRYL_TRY(amg_smooth(h, l, b, x, true));
    /* r = b - A x;  b_c = R r */
    KRYL_TRY(ops->spmv(ctx, L->Ab, -1.0, x, 1.0, b, L->r, NULL));
    KRYL_TRY(ops->spmv(ctx, L->R, 1.0, L->r, 0.0, NULL, C->b, NULL));
    KRYL_TRY(cycle(h, l + 1, C->b, C->x));
    if (h->opts.cycle == KRYL_AMG_W_CYCLE && l + 1 < h->nlevels - 1) {
        /* bw = b_c - A_c x_c;  e = cycle(bw);  x_c += e */
        KRYL_TRY(ops->spmv(ctx, C->Ab, -1.0, C->x, 1.0, C->b, C->bw, NULL));
        KRYL_TRY(cycle(h, l + 1, C->bw, C->e));
        KRYL_TRY(ops->axpby(ctx, 1.0, C->e, 1.0, C->x));
    }
    /* x += P x_c */
    KRYL_TRY(ops->spmv(ctx, L->P, 1.0, C->x, 1.0, x, x, NULL));
    return amg_smooth(h, l, b, x, false);
}

kryl_status amg_cycle(amg_hierarchy *h, kryl_vector r, kryl_vector z) { return cycle(h, 0, r, z); }
