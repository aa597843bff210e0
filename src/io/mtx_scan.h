/* Scanning of the numbers of a Matrix Market line: decimal integers and
 * correctly rounded decimal reals.  Every token ends at a blank (' ',
 * '\t', '\r') or at the '\n' that ends its line. */
#ifndef KRYL_IO_MTX_SCAN_H
#define KRYL_IO_MTX_SCAN_H

#include <float.h>
#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

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

/* The fast path is Clinger's: when the significand m <= 2^53 and the
 * decimal exponent |e| <= 22, both m and 10^|e| are exact doubles and one
 * IEEE multiplication or division rounds m*10^e correctly.  (W. D. Clinger,
 * "How to read floating point numbers accurately", PLDI 1990.)  Anything
 * else goes to strtod.  Needs double arithmetic without excess precision. */
static inline kryl_mtx_scan kryl_mtx_scan_real(char *p, double *value, char **end)
{
#if FLT_EVAL_METHOD == 0
    char *q = p;
    bool negative = *q == '-';
    if (*q == '-' || *q == '+') q++;
    char *digits = q;
    uint64_t m = 0;
    /* m = the digits before the point (at most 19: no overflow) */
    while (kryl_mtx_is_digit(*q) && q - digits < 19) m = 10 * m + (uint64_t)(*q++ - '0');
    int exponent = 0;
    if (*q == '.') {
        char *fraction = ++q;
        /* m = m*10 + d for the digits after the point, e = -(their count) */
        while (kryl_mtx_is_digit(*q) && (q - digits) < 20) m = 10 * m + (uint64_t)(*q++ - '0');
        exponent = -(int)(q - fraction);
        if (q - digits == 1) return kryl_mtx_scan_real_slow(p, value, end); /* a lone '.' */
    } else if (q == digits) {
        return kryl_mtx_scan_real_slow(p, value, end);
    }
    if (*q == 'e' || *q == 'E') {
        char *e = q + 1;
        bool e_negative = *e == '-';
        if (*e == '-' || *e == '+') e++;
        if (!kryl_mtx_is_digit(*e)) return kryl_mtx_scan_real_slow(p, value, end);
        /* t = the exponent's digits (two at most on this path) */
        int t = *e++ - '0';
        if (kryl_mtx_is_digit(*e)) t = 10 * t + (*e++ - '0');
        q = e;
        exponent += e_negative ? -t : t;
    }
    if (!kryl_mtx_is_token_end(*q) || m > ((uint64_t)1 << 53) || exponent < -22 || exponent > 22)
        return kryl_mtx_scan_real_slow(p, value, end);
    /* x = m * 10^e, one correctly rounded operation */
    double x =
        exponent < 0 ? (double)m / kryl_mtx_pow10[-exponent] : (double)m * kryl_mtx_pow10[exponent];
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
