/* Scanning of the numbers of a Matrix Market line: decimal integers and
 * correctly rounded decimal reals.  Every token ends at a blank (' ',
 * '\t', '\r') or at the '\n' that ends its line.  A real's fraction is
 * read 8 bytes at a time: the text must stay readable KRYL_MTX_SCAN_PAD
 * bytes past that '\n' (the stream's buffer does). */
#ifndef KRYL_IO_MTX_SCAN_H
#define KRYL_IO_MTX_SCAN_H

#include <float.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Readable bytes a scanner may need past the end of a line. */
#define KRYL_MTX_SCAN_PAD 8

typedef enum kryl_mtx_scan {
    KRYL_MTX_SCAN_OK = 0,
    KRYL_MTX_SCAN_SYNTAX,    /* not a number of the expected form */
    KRYL_MTX_SCAN_OVERFLOW,  /* an integer beyond int64 */
    KRYL_MTX_SCAN_NONFINITE, /* a real beyond the range of double, or nan/inf */
    KRYL_MTX_SCAN_UNDERFLOW  /* a nonzero real too small for double: it would read as 0 */
} kryl_mtx_scan;

static inline bool kryl_mtx_is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

static inline bool kryl_mtx_is_token_end(char c) { return kryl_mtx_is_blank(c) || c == '\n'; }

static inline bool kryl_mtx_is_digit(char c) { return (unsigned char)(c - '0') < 10; }

static inline char *kryl_mtx_skip_blanks(char *p)
{
    while (kryl_mtx_is_blank(*p)) p++;
    return p;
}

/* The 8 bytes at p as an integer whose lowest byte is p[0]. */
static inline uint64_t kryl_mtx_load8(const char *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof w);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return w;
}

/* How many of w's bytes (lowest first) are decimal digits before the first
 * that is not one. */
static inline int kryl_mtx_digit_run(uint64_t w)
{
    const uint64_t high = 0xF0F0F0F0F0F0F0F0ULL, threes = 0x3030303030303030ULL;
    /* a byte is a digit when its high nibble is 3 and stays 3 after adding 6;
     * a carry only moves up, past the first non-digit, so the first nonzero
     * byte of `other` is exactly the first non-digit */
    uint64_t other = ((w & high) ^ threes) | (((w + 0x0606060606060606ULL) & high) ^ threes);
    return other == 0 ? 8 : __builtin_ctzll(other) / 8;
}

/* The number whose 8 decimal digits are d's bytes, most significant lowest
 * (byte values 0..9).  Three multiplications (D. Lemire, "Number parsing at
 * a gigabyte per second", Softw. Pract. Exper. 51(8), 2021). */
static inline uint64_t kryl_mtx_eight_digits(uint64_t d)
{
    /* byte 2k = 10 d[2k] + d[2k+1]: the four 2-digit pairs */
    d = 10 * d + (d >> 8);
    /* high half = pair0 10^6 + pair1 10^4 + pair2 10^2 + pair3 */
    return (((d & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
            (((d >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >>
           32;
}

/* 10^k for k = 0..19. */
extern const uint64_t kryl_mtx_pow10_u64[20];

/* Append the decimal digits at *q to *m (m = 10^count m + their value), 8
 * at a time, and move *q past them; false (nothing moved) when m would
 * reach 10^19, which a uint64_t may not hold. */
static inline bool kryl_mtx_scan_digits(char **q, uint64_t *m)
{
    char *p = *q;
    uint64_t v = *m;
    for (;;) {
        uint64_t w = kryl_mtx_load8(p);
        int n = kryl_mtx_digit_run(w);
        if (n == 0) break;
        if (v >= kryl_mtx_pow10_u64[19 - n]) return false;
        /* the n digits' values in the top bytes, zeros (leading zeros) below */
        uint64_t d = (w - 0x3030303030303030ULL) << (8 * (8 - n));
        v = v * kryl_mtx_pow10_u64[n] + kryl_mtx_eight_digits(d);
        p += n;
        if (n < 8) break;
    }
    *q = p;
    *m = v;
    return true;
}

/* Scan [+-]digits at p into *value; *end is set past the token. */
kryl_mtx_scan kryl_mtx_scan_int_slow(char *p, int64_t *value, char **end);

static inline kryl_mtx_scan kryl_mtx_scan_int(char *p, int64_t *value, char **end)
{
    char *q = p;
    uint64_t v = 0;
    /* v = the value of the decimal digits, at most 18 of them (no overflow) */
    while (kryl_mtx_is_digit(*q) && q - p < 18) v = 10 * v + (uint64_t)(*q++ - '0');
    if (q == p || !kryl_mtx_is_token_end(*q)) return kryl_mtx_scan_int_slow(p, value, end);
    *value = (int64_t)v;
    *end = q;
    return KRYL_MTX_SCAN_OK;
}

/* The exact powers of ten representable in a double (5^22 < 2^53). */
extern const double kryl_mtx_pow10[23];

/* Scan a decimal real [+-](digits[.digits]|.digits)[(e|E)[+-]digits] at p
 * with strtod's correct rounding; nan and inf are NONFINITE, a nonzero value
 * that rounds to 0 (1e-400) UNDERFLOW. */
kryl_mtx_scan kryl_mtx_scan_real_slow(char *p, double *value, char **end);

/* m 10^q correctly rounded into *x (m < 10^19, all the decimal's digits)
 * when the result is a normal double; false otherwise, or in the rare case
 * the 128-bit product cannot decide the rounding. */
bool kryl_mtx_eisel_lemire(uint64_t m, int q, double *x);

/* The fast paths, for up to 19 significant digits: Clinger's when the
 * significand m <= 2^53 and the decimal exponent |e| <= 22, so both m and
 * 10^|e| are exact doubles and one IEEE multiplication or division rounds
 * m*10^e correctly (W. D. Clinger, "How to read floating point numbers
 * accurately", PLDI 1990); else Eisel-Lemire's (D. Lemire, "Number parsing
 * at a gigabyte per second", 2021) for a normal result.  Anything else goes
 * to strtod.  Needs double arithmetic without excess precision. */
static inline kryl_mtx_scan kryl_mtx_scan_real(char *p, double *value, char **end)
{
#if FLT_EVAL_METHOD == 0
    char *q = p;
    bool negative = *q == '-';
    q += *q == '-' || *q == '+';
    char *digits = q;
    uint64_t m = 0;
    /* m = all the digits, before the point (at most 19) and after it; e = -(digits after it).
     * Digits before the point are few: one at a time, a predicted loop beats a word's chain */
    while (kryl_mtx_is_digit(*q) && q - digits < 19) m = 10 * m + (uint64_t)(*q++ - '0');
    int exponent = 0;
    if (*q == '.') {
        char *fraction = ++q;
        if (!kryl_mtx_scan_digits(&q, &m)) return kryl_mtx_scan_real_slow(p, value, end);
        if (q - digits == 1) return kryl_mtx_scan_real_slow(p, value, end); /* a lone '.' */
        exponent = -(int)(q - fraction);
    } else if (q == digits) {
        return kryl_mtx_scan_real_slow(p, value, end);
    }
    if ((*q | 0x20) == 'e') {
        char *e = q + 1;
        bool e_negative = *e == '-';
        e += *e == '-' || *e == '+';
        if (!kryl_mtx_is_digit(*e)) return kryl_mtx_scan_real_slow(p, value, end);
        /* t = the exponent's digits (three at most on this path) */
        int t = *e++ - '0';
        if (kryl_mtx_is_digit(*e)) t = 10 * t + (*e++ - '0');
        if (kryl_mtx_is_digit(*e)) t = 10 * t + (*e++ - '0');
        q = e;
        exponent += e_negative ? -t : t;
    }
    if (!kryl_mtx_is_token_end(*q)) return kryl_mtx_scan_real_slow(p, value, end);
    double x;
    if (m <= ((uint64_t)1 << 53) && exponent >= -22 && exponent <= 22)
        /* x = m * 10^e, one correctly rounded operation */
        x = exponent < 0 ? (double)m / kryl_mtx_pow10[-exponent]
                         : (double)m * kryl_mtx_pow10[exponent];
    else if (!kryl_mtx_eisel_lemire(m, exponent, &x))
        return kryl_mtx_scan_real_slow(p, value, end);
    *value = negative ? -x : x;
    *end = q;
    return KRYL_MTX_SCAN_OK;
#else
    return kryl_mtx_scan_real_slow(p, value, end);
#endif
}

/* Scan an integer-valued real: [+-]digits, rounded to the nearest double. */
kryl_mtx_scan kryl_mtx_scan_integer_value(char *p, double *value, char **end);

/* Copy the token at p into buf for messages: unprintable bytes as '?',
 * shortened to size - 1 characters ending in "..." when longer. */
const char *kryl_mtx_token_text(const char *p, char *buf, int size);

/* The line at p up to its '\n' (shortened like kryl_mtx_token_text). */
const char *kryl_mtx_line_text(const char *p, char *buf, int size);

#ifdef __cplusplus
}
#endif

#endif
