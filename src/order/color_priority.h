/* The priority rule of the parallel colorings (the distributed one,
 * src/dist/dist_color.c, and Jones-Plassmann on every backend,
 * src/order/color_jp.c): splitmix64 of the global row index, a bijection,
 * so distinct rows never tie and every process and device ranks rows alike. */
#ifndef KRYL_ORDER_COLOR_PRIORITY_H
#define KRYL_ORDER_COLOR_PRIORITY_H

#include <stdbool.h>

#include "gen/hash.h"

/* Row a's priority: of two rows the lower yields (the higher is colored first). */
KRYL_GEN_MIX_FN uint64_t kryl_color_priority(int64_t a) { return kryl_gen_mix64((uint64_t)a); }

/* Whether row a yields to row b (b is colored first). */
KRYL_GEN_MIX_FN bool kryl_color_yields(int64_t a, int64_t b)
{
    return kryl_color_priority(a) < kryl_color_priority(b);
}

#endif
