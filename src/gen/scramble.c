/* The scrambled numbering: a keyed four-round Feistel network with cycle
 * walking (scramble.h). */
#include "gen/scramble.h"

#include "gen/hash.h"

#define ROUNDS 4

void kryl_gen_scramble_init(kryl_gen_scramble *p, int64_t n, uint64_t seed)
{
    /* the smallest h >= 1 with 4^h >= n: the walk takes under 4 steps on average */
    int h = 1;
    while (h < 31 && (INT64_C(1) << (2 * h)) < n) h++;
    p->n = n;
    p->half_bits = h;
    p->seed = seed;
}

/* Round function F_k(v) = hash(seed, k, v) mod 2^h. */
static uint64_t round_function(const kryl_gen_scramble *p, int k, uint64_t v)
{
    const uint64_t mask = (UINT64_C(1) << p->half_bits) - 1;
    return kryl_gen_hash(p->seed, KRYL_GEN_STREAM_SCRAMBLE, (uint64_t)k, v) & mask;
}

/* One pass of the network over [0, 4^h): (L, R) -> (R, L ^ F_k(R)), k = 0..3. */
static uint64_t feistel(const kryl_gen_scramble *p, uint64_t x)
{
    const int h = p->half_bits;
    const uint64_t mask = (UINT64_C(1) << h) - 1;
    uint64_t left = x >> h, right = x & mask;
    for (int k = 0; k < ROUNDS; k++) {
        const uint64_t t = left ^ round_function(p, k, right);
        left = right;
        right = t;
    }
    return left << h | right;
}

/* Its inverse: (L, R) -> (R ^ F_k(L), L), k = 3..0. */
static uint64_t feistel_inverse(const kryl_gen_scramble *p, uint64_t y)
{
    const int h = p->half_bits;
    const uint64_t mask = (UINT64_C(1) << h) - 1;
    uint64_t left = y >> h, right = y & mask;
    for (int k = ROUNDS - 1; k >= 0; k--) {
        const uint64_t t = right ^ round_function(p, k, left);
        right = left;
        left = t;
    }
    return left << h | right;
}

int64_t kryl_gen_scramble_forward(const kryl_gen_scramble *p, int64_t x)
{
    /* cycle walking: x's cycle under the network returns to [0, n) */
    uint64_t y = feistel(p, (uint64_t)x);
    while (y >= (uint64_t)p->n) y = feistel(p, y);
    return (int64_t)y;
}

int64_t kryl_gen_scramble_inverse(const kryl_gen_scramble *p, int64_t y)
{
    uint64_t x = feistel_inverse(p, (uint64_t)y);
    while (x >= (uint64_t)p->n) x = feistel_inverse(p, x);
    return (int64_t)x;
}
