/* Counter-based random numbers for the random generators: every number is a
 * pure function of its key (seed, stream, a, b), so any row can be built
 * without building the others. */
#ifndef KRYL_GEN_HASH_H
#define KRYL_GEN_HASH_H

#include <stdint.h>

/* The mix and the random entry below are also device functions in CUDA
 * code (a coloring's row priorities, src/order/color_priority.h; fill_random). */
#ifdef __CUDACC__
#define KRYL_GEN_MIX_FN static inline __host__ __device__
#else
#define KRYL_GEN_MIX_FN static inline
#endif

/* The streams that keep the random numbers of different purposes apart. */
enum {
    KRYL_GEN_STREAM_KEEP = 1,     /* random-spd: is (i, j) an entry? */
    KRYL_GEN_STREAM_VALUE = 2,    /* off-diagonal values */
    KRYL_GEN_STREAM_LENGTH = 3,   /* powerlaw: row lengths */
    KRYL_GEN_STREAM_COLUMN = 4,   /* powerlaw: column draws */
    KRYL_GEN_STREAM_POSITION = 5, /* rgg: a point's place in its cell */
    KRYL_GEN_STREAM_SCRAMBLE = 6, /* rgg: the round functions of the scrambled numbering */
    KRYL_GEN_STREAM_SHIFT = 7,    /* rgg: a point's diagonal shift */
    KRYL_GEN_STREAM_JITTER = 8,   /* finite-element kinds: a vertex's move */
    KRYL_GEN_STREAM_SHUFFLE = 9   /* finite-element kinds: the element order */
};

/* The splitmix64 finaliser (G. Steele, D. Lea, C. Flood, "Fast splittable
 * pseudorandom number generators", OOPSLA 2014): a bijective 64-bit mix. */
KRYL_GEN_MIX_FN uint64_t kryl_gen_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Entry `index` of the pseudo-random vector of `seed` (the backends'
 * fill_random, a Lanczos start): |value| in [0.5, 1.5), the sign the
 * hash's low bit; any thread makes any entry. */
KRYL_GEN_MIX_FN double kryl_random_entry(uint64_t seed, int64_t index)
{
    const uint64_t h = kryl_gen_mix64(seed + ((uint64_t)index + 1u) * 0x9e3779b97f4a7c15ULL);
    const double magnitude = 0.5 + (double)(h >> 11) * 0x1.0p-53;
    return (h & 1u) ? magnitude : -magnitude;
}

/* h = mix(mix(mix(seed, stream) ^ a) ^ b), each input offset by a golden-ratio step. */
static inline uint64_t kryl_gen_hash(uint64_t seed, uint64_t stream, uint64_t a, uint64_t b)
{
    const uint64_t golden = 0x9e3779b97f4a7c15ULL;
    uint64_t h = kryl_gen_mix64(seed + golden * (stream + 1));
    h = kryl_gen_mix64(h ^ (a + golden));
    return kryl_gen_mix64(h ^ (b + 2 * golden));
}

/* u = (top 53 bits of h) / 2^53, uniform in [0, 1). */
static inline double kryl_gen_uniform(uint64_t h) { return (double)(h >> 11) * 0x1.0p-53; }

/* u = (top 53 bits of h + 1) / 2^53, uniform in (0, 1]. */
static inline double kryl_gen_uniform_open(uint64_t h)
{
    return (double)((h >> 11) + 1) * 0x1.0p-53;
}

#endif
