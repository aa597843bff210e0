/* A pseudo-random bijection of [0, n), computable both ways in expected
 * O(1) without any table: a balanced Feistel network on 2h bits (M. Luby,
 * C. Rackoff, "How to construct pseudorandom permutations from pseudorandom
 * functions", SIAM J. Comput. 17(2), 1988: four rounds) over the smallest
 * domain 4^h >= n, restricted to [0, n) by cycle walking (J. Black,
 * P. Rogaway, "Ciphers with arbitrary finite domains", CT-RSA 2002,
 * section 4): apply the network again until the value falls below n. */
#ifndef KRYL_GEN_SCRAMBLE_H
#define KRYL_GEN_SCRAMBLE_H

#include <stdint.h>

typedef struct kryl_gen_scramble {
    int64_t n;     /* the domain [0, n), 1 <= n <= 2^62 */
    int half_bits; /* h: each half of a Feistel block */
    uint64_t seed; /* keys the round functions */
} kryl_gen_scramble;

/* The bijection of [0, n) keyed by seed. */
void kryl_gen_scramble_init(kryl_gen_scramble *p, int64_t n, uint64_t seed);

/* pi(x) for 0 <= x < n. */
int64_t kryl_gen_scramble_forward(const kryl_gen_scramble *p, int64_t x);

/* pi^-1(y) for 0 <= y < n. */
int64_t kryl_gen_scramble_inverse(const kryl_gen_scramble *p, int64_t y);

#endif
