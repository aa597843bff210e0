/* The slow paths of number scanning (signs, long tokens, strtod) and the
 * quoting of tokens in error messages. */
#include "io/mtx_scan.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const double kryl_mtx_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

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
