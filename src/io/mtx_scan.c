/* The slow paths of number scanning (signs, long tokens, strtod) and the
 * quoting of tokens in error messages. */
#include "io/mtx_scan.h"

#include "io/mtx_pow5.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const double kryl_mtx_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

const uint64_t kryl_mtx_pow10_u64[20] = {1ULL,
                                         10ULL,
                                         100ULL,
                                         1000ULL,
                                         10000ULL,
                                         100000ULL,
                                         1000000ULL,
                                         10000000ULL,
                                         100000000ULL,
                                         1000000000ULL,
                                         10000000000ULL,
                                         100000000000ULL,
                                         1000000000000ULL,
                                         10000000000000ULL,
                                         100000000000000ULL,
                                         1000000000000000ULL,
                                         10000000000000000ULL,
                                         100000000000000000ULL,
                                         1000000000000000000ULL,
                                         10000000000000000000ULL};

/* The high word of a*b, *low its low word. */
static uint64_t multiply_128(uint64_t a, uint64_t b, uint64_t *low)
{
    __extension__ typedef unsigned __int128 u128;
    u128 p = (u128)a * b;
    *low = (uint64_t)p;
    return (uint64_t)(p >> 64);
}

/* Lemire's algorithm (after M. Eisel) as in "Number parsing at a gigabyte
 * per second" (Softw. Pract. Exper. 51(8), 2021), limited to normal
 * results: w * 5^q * 2^q from the leading bits of w times a 128-bit
 * truncation of 5^q, which decide the rounding except where the check of
 * the paper's fallback says they may not. */
bool kryl_mtx_eisel_lemire(uint64_t w, int q, double *x)
{
    if (w == 0 || q < KRYL_MTX_POW5_MIN || q > KRYL_MTX_POW5_MAX) return false;
    const int lz = __builtin_clzll(w);
    w <<= lz;
    const uint64_t *five = kryl_mtx_pow5_128[q - KRYL_MTX_POW5_MIN];
    uint64_t low, high = multiply_128(w, five[0], &low);
    /* the bits below the 55 kept are all ones: the low word of 5^q may carry into them */
    if ((high & 0x1FF) == 0x1FF) {
        uint64_t low2, high2 = multiply_128(w, five[1], &low2);
        low += high2;
        high += low < high2;
    }
    /* beyond -27..55, where the table's 5^q is inexact, the product may be too low by one unit */
    if (low == UINT64_MAX && (q < -27 || q > 55)) return false;
    const int upper = (int)(high >> 63);
    uint64_t mantissa = high >> (upper + 9); /* 54 bits: 53 and one to round */
    /* floor(q log2(10)) as floor(217706 q / 2^16) (exact for |q| <= 342, non-negative shift) */
    const int log2_ten_q = ((217706 * q + (1200 << 16)) >> 16) - 1200;
    int power2 = log2_ten_q + 63 + upper - lz + 1023; /* the biased binary exponent */
    if (power2 <= 0) return false;                    /* subnormal or zero */
    /* halfway between two doubles (only where 5^q is exact): to even, down */
    if (low <= 1 && q >= -4 && q <= 23 && (mantissa & 3) == 1 && (mantissa << (upper + 9)) == high)
        mantissa &= ~(uint64_t)1;
    mantissa = (mantissa + (mantissa & 1)) >> 1;
    if (mantissa == (uint64_t)1 << 53) { /* rounded up to the next binade */
        mantissa = (uint64_t)1 << 52;
        power2++;
    }
    if (power2 >= 0x7FF) return false; /* overflow */
    uint64_t bits = (mantissa & (((uint64_t)1 << 52) - 1)) | ((uint64_t)power2 << 52);
    memcpy(x, &bits, sizeof *x);
    return true;
}

kryl_mtx_scan kryl_mtx_scan_int_slow(char *p, int64_t *value, char **end)
{
    char *q = p;
    bool negative = *q == '-';
    if (*q == '-' || *q == '+') q++;
    if (!kryl_mtx_is_digit(*q)) return KRYL_MTX_SCAN_SYNTAX;
    bool overflow = false;
    uint64_t v = 0;
    /* v = the decimal digits' value, saturating past INT64_MAX */
    for (; kryl_mtx_is_digit(*q); q++) {
        uint64_t d = (uint64_t)(*q - '0');
        if (v > ((uint64_t)INT64_MAX - d) / 10)
            overflow = true;
        else
            v = 10 * v + d;
    }
    if (!kryl_mtx_is_token_end(*q)) return KRYL_MTX_SCAN_SYNTAX;
    *end = q;
    if (overflow) return KRYL_MTX_SCAN_OVERFLOW;
    *value = negative ? -(int64_t)v : (int64_t)v;
    return KRYL_MTX_SCAN_OK;
}

static bool is_word(const char *p, const char *word)
{
    size_t n = strlen(word);
    for (size_t i = 0; i < n; i++)
        if (p[i] != word[i] && p[i] != word[i] - 'a' + 'A') return false;
    return kryl_mtx_is_token_end(p[n]);
}

/* strtod on a copy of [p, p + n) whose '.' is the locale's decimal point. */
static double strtod_in_locale(const char *p, size_t n, bool *complete)
{
    const char *point = localeconv()->decimal_point;
    size_t point_len = strlen(point);
    char local[128];
    size_t size = n * point_len + 1;
    char *copy = size <= sizeof local ? local : malloc(size);
    if (copy == NULL) {
        *complete = false;
        return 0.0;
    }
    size_t k = 0;
    /* copy, with '.' replaced by the locale's point */
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '.') {
            memcpy(copy + k, point, point_len);
            k += point_len;
        } else {
            copy[k++] = p[i];
        }
    }
    copy[k] = '\0';
    char *stop = NULL;
    double x = strtod(copy, &stop);
    *complete = stop == copy + k;
    if (copy != local) free(copy);
    return x;
}

kryl_mtx_scan kryl_mtx_scan_real_slow(char *p, double *value, char **end)
{
    char *q = p;
    if (*q == '-' || *q == '+') q++;
    if (is_word(q, "nan") || is_word(q, "inf") || is_word(q, "infinity")) {
        while (!kryl_mtx_is_token_end(*q)) q++;
        *end = q;
        return KRYL_MTX_SCAN_NONFINITE;
    }
    int digits = 0;
    bool nonzero = false; /* a significant digit other than 0 */
    for (; kryl_mtx_is_digit(*q); q++) digits++, nonzero |= *q != '0';
    if (*q == '.')
        for (q++; kryl_mtx_is_digit(*q); q++) digits++, nonzero |= *q != '0';
    if (digits == 0) return KRYL_MTX_SCAN_SYNTAX;
    if (*q == 'e' || *q == 'E') {
        q++;
        if (*q == '-' || *q == '+') q++;
        if (!kryl_mtx_is_digit(*q)) return KRYL_MTX_SCAN_SYNTAX;
        while (kryl_mtx_is_digit(*q)) q++;
    }
    if (!kryl_mtx_is_token_end(*q)) return KRYL_MTX_SCAN_SYNTAX;
    /* The token is plain decimal, which strtod reads whole in the C
     * locale; where it stops early the locale's decimal point differs. */
    char *stop = NULL;
    double x = strtod(p, &stop);
    bool complete = stop == q;
    if (!complete) x = strtod_in_locale(p, (size_t)(q - p), &complete);
    if (!complete) return KRYL_MTX_SCAN_SYNTAX;
    *end = q;
    if (!isfinite(x)) return KRYL_MTX_SCAN_NONFINITE;
    if (x == 0.0 && nonzero) return KRYL_MTX_SCAN_UNDERFLOW;
    *value = x;
    return KRYL_MTX_SCAN_OK;
}

kryl_mtx_scan kryl_mtx_scan_integer_value(char *p, double *value, char **end)
{
    char *q = p;
    if (*q == '-' || *q == '+') q++;
    if (!kryl_mtx_is_digit(*q)) return KRYL_MTX_SCAN_SYNTAX;
    while (kryl_mtx_is_digit(*q)) q++;
    if (!kryl_mtx_is_token_end(*q)) return KRYL_MTX_SCAN_SYNTAX;
    return kryl_mtx_scan_real(p, value, end);
}

/* Copy [p, stop) into buf; a text longer than size - 1 characters keeps
 * its first size - 4 and ends in "...". */
static const char *quote(const char *p, const char *stop, char *buf, int size)
{
    bool cut = stop - p > size - 1;
    int n = cut ? size - 4 : (int)(stop - p);
    for (int i = 0; i < n; i++) buf[i] = (p[i] >= 0x20 && p[i] < 0x7f) ? p[i] : '?';
    if (cut) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}

const char *kryl_mtx_token_text(const char *p, char *buf, int size)
{
    const char *stop = p;
    while (!kryl_mtx_is_token_end(*stop)) stop++;
    return quote(p, stop, buf, size);
}

const char *kryl_mtx_line_text(const char *p, char *buf, int size)
{
    const char *stop = strchr(p, '\n');
    if (stop == NULL) stop = p + strlen(p);
    while (stop > p && kryl_mtx_is_blank(stop[-1])) stop--;
    return quote(p, stop, buf, size);
}
