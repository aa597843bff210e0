/* Number scanning: every decimal string reads as strtod reads it (bit for
 * bit) on the fast paths and off them: random digits, points and exponents,
 * Clinger's fast-path range, printed doubles and 19-digit significands
 * (Eisel-Lemire), halfway cases, digit runs across 8-byte words,
 * subnormals and the edges of
 * double's range; integers with overflow; rejected syntax; a locale whose
 * decimal point is ','; and the same strings read back from a file. */
#define _POSIX_C_SOURCE 200809L

#include <locale.h>
#include <math.h>

#include "test_mtx_util.h"

#include "io/mtx.h"
#include "io/mtx_scan.h"

static uint64_t state = 12345;

static uint64_t next_random(void)
{
    /* splitmix64 */
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int random_below(int n) { return (int)(next_random() % (uint64_t)n); }

/* A random decimal: sign, 1..25 digits with a point somewhere (or none,
 * or leading), an exponent in max_exp..-max_exp (or none); ends in '\n'. */
static void random_decimal(char *buf, int max_exp)
{
    char *p = buf;
    int r = random_below(4);
    if (r == 0)
        *p++ = '-';
    else if (r == 1)
        *p++ = '+';
    int digits = 1 + random_below(random_below(2) ? 17 : 25);
    int point = random_below(digits + 2) - 1; /* -1: no point */
    for (int k = 0; k < digits; k++) {
        if (k == point) *p++ = '.';
        *p++ = (char)('0' + random_below(10));
    }
    if (point == digits) *p++ = '.';
    if (random_below(4) != 0) {
        *p++ = random_below(2) ? 'e' : 'E';
        p += sprintf(p, "%d", random_below(2 * max_exp + 1) - max_exp);
    }
    *p++ = '\n';
    *p = '\0';
}

/* Whether the significand of the decimal s has a digit other than 0. */
static bool nonzero_significand(const char *s)
{
    for (; *s != '\0' && *s != '\n' && *s != 'e' && *s != 'E'; s++)
        if (*s >= '1' && *s <= '9') return true;
    return false;
}

/* scan_real agrees with strtod on s (finite: same bits; else NONFINITE;
 * a nonzero decimal that strtod rounds to 0: UNDERFLOW). */
static bool agrees(char *s)
{
    double expect = strtod(s, NULL), got = 0.0;
    char *end = NULL;
    kryl_mtx_scan st = kryl_mtx_scan_real(s, &got, &end);
    if (!isfinite(expect)) return st == KRYL_MTX_SCAN_NONFINITE;
    if (expect == 0.0 && nonzero_significand(s)) return st == KRYL_MTX_SCAN_UNDERFLOW;
    return st == KRYL_MTX_SCAN_OK && same_double(got, expect) && *end == '\n';
}

static void test_random_decimals(void)
{
    char s[64];
    int bad = 0;
    /* wide exponents: mostly the strtod path */
    for (int i = 0; i < 300000; i++) {
        random_decimal(s, 340);
        if (!agrees(s) && bad++ < 10) CHECK(false, "disagrees with strtod on %s", s);
    }
    /* small exponents: mostly the fast path */
    for (int i = 0; i < 300000; i++) {
        random_decimal(s, 25);
        if (!agrees(s) && bad++ < 10) CHECK(false, "disagrees with strtod on %s", s);
    }
    CHECK(bad == 0, "%d random decimals read differently from strtod", bad);
}

/* m * 10^e for m near 2^53 and |e| <= 22: the fast path's edges. */
static void test_fast_path_range(void)
{
    char s[64];
    int bad = 0;
    for (int i = 0; i < 200000; i++) {
        uint64_t m = ((uint64_t)1 << 53) - 1000 + (next_random() % 2000);
        if (i % 2) m = next_random() >> (11 + random_below(50));
        int e = random_below(45) - 22;
        snprintf(s, sizeof s, "%llue%d\n", (unsigned long long)m, e);
        if (!agrees(s) && bad++ < 10) CHECK(false, "disagrees with strtod on %s", s);
    }
    CHECK(bad == 0, "%d fast-path decimals read differently from strtod", bad);
}

/* A random finite double: any bit pattern, one in four with a subnormal or
 * smallest-normal exponent. */
static double random_double(void)
{
    uint64_t bits = next_random();
    if (random_below(4) == 0) bits &= ~((uint64_t)0x7FE << 52); /* biased exponent 0 or 1 */
    double x;
    memcpy(&x, &bits, sizeof x);
    return isfinite(x) ? x : 1.0;
}

/* Doubles as printf writes them, 6 to 20 significant digits, and 19-digit
 * significands with every decimal exponent: the Eisel-Lemire path and the
 * edges where it hands over to strtod (subnormals, overflow, 20 digits). */
static void test_printed_doubles(void)
{
    static const char *const formats[] = {"%.17g\n", "%.16e\n", "%.15g\n", "%.13e\n",
                                          "%.6g\n",  "%.19g\n", "%.20g\n", "%.18E\n"};
    char s[64];
    int bad = 0;
    for (int i = 0; i < 100000; i++) {
        double x = random_double();
        for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
            snprintf(s, sizeof s, formats[f], x);
            if (!agrees(s) && bad++ < 10) CHECK(false, "disagrees with strtod on %s", s);
        }
    }
    for (int i = 0; i < 200000; i++) {
        /* m in [10^18, 10^19), the most digits a uint64_t takes whole */
        uint64_t m = 1000000000000000000ULL + next_random() % 9000000000000000000ULL;
        snprintf(s, sizeof s, "%llue%d\n", (unsigned long long)m, random_below(660) - 345);
        if (!agrees(s) && bad++ < 10) CHECK(false, "disagrees with strtod on %s", s);
    }
    CHECK(bad == 0, "%d printed doubles read differently from strtod", bad);
}

/* Decimals exactly halfway between two doubles (round to even) and one unit
 * of their last digit beside them: m odd in (2^53, 2^54) lies halfway
 * between neighbours 2 apart, and so do m 2^i (written as an integer) and
 * m 2^-j = m 5^j 10^-j, also with trailing zeros. */
static void test_halfway(void)
{
    char s[64];
    int bad = 0;
    for (int i = 0; i < 100000; i++) {
        uint64_t m = (((uint64_t)1 << 53) + next_random() % ((uint64_t)1 << 53)) | 1;
        uint64_t d = m;
        int e = 0;
        if (random_below(2))
            d <<= random_below(10); /* < 2^63 */
        else
            for (int j = random_below(5); j > 0; j--) d *= 5, e--; /* < 2^54 5^4 < 2^64 */
        for (int t = random_below(3); t > 0 && d < 1000000000000000000ULL; t--) d *= 10, e--;
        for (int side = -1; side <= 1; side++) {
            if (side == 0)
                snprintf(s, sizeof s, "%llue%d\n", (unsigned long long)d, e);
            else if (d < 1000000000000000000ULL)
                snprintf(s, sizeof s, "%llue%d\n", (unsigned long long)(10 * d) + side, e - 1);
            else
                continue;
            if (!agrees(s) && bad++ < 10) CHECK(false, "disagrees with strtod on %s", s);
        }
    }
    CHECK(bad == 0, "%d halfway decimals read differently from strtod", bad);
}

/* Runs of digits across the 8-byte words the scanner reads, ended by the
 * bytes next to '0' and '9' in ASCII and by bytes >= 0xfa. */
static void test_digit_runs(void)
{
    char s[64];
    int bad = 0;
    for (int before = 0; before <= 20; before++) {
        for (int after = -1; after <= 20; after++) {
            char *p = s;
            for (int k = 0; k < before; k++) *p++ = (char)('1' + (k * 7 + after) % 9);
            if (after >= 0) *p++ = '.';
            for (int k = 0; k < after; k++) *p++ = (char)('0' + (k * 3 + before) % 10);
            if (before + (after > 0 ? after : 0) == 0) continue;
            *p++ = '\n';
            memset(p, 0xff, 9); /* what lies past the line must not matter */
            p[9] = '\0';
            if (!agrees(s) && bad++ < 10) CHECK(false, "disagrees with strtod on %s", s);
        }
    }
    static const char *const ends[] = {"/", ":", "\xfa", "\xff", "x", "\x7f"};
    for (int n = 1; n <= 20; n++) {
        for (size_t t = 0; t < sizeof ends / sizeof ends[0]; t++) {
            memset(s, 0, sizeof s);
            for (int k = 0; k < n; k++) s[k] = (char)('0' + (k + 1) % 10);
            strcat(s, ends[t]);
            strcat(s, "5\n");
            double v;
            int64_t i;
            char *end = NULL;
            bad += kryl_mtx_scan_real(s, &v, &end) != KRYL_MTX_SCAN_SYNTAX;
            bad += kryl_mtx_scan_int(s, &i, &end) != KRYL_MTX_SCAN_SYNTAX;
        }
    }
    CHECK(bad == 0, "%d digit runs scanned wrongly", bad);
}

static void test_special_decimals(void)
{
    static const char *const cases[] = {"0\n",
                                        "-0\n",
                                        "0.0\n",
                                        "-0.0e-400\n",
                                        "0e999999999999\n",
                                        "1\n",
                                        "1.\n",
                                        ".5\n",
                                        "-.5e1\n",
                                        "0.1\n",
                                        "0.3\n",
                                        "1e22\n",
                                        "1e23\n",
                                        "9007199254740993\n",
                                        "9007199254740992.5\n",
                                        "9007199254740993e-22\n",
                                        "8.988465674311579e307\n",
                                        "1.7976931348623157e308\n",
                                        "1.7976931348623158e308\n",
                                        "1.7976931348623159e308\n",
                                        "2.2250738585072014e-308\n",
                                        "2.2250738585072011e-308\n",
                                        "4.9406564584124654e-324\n",
                                        "2.4703282292062327e-324\n",
                                        "2.4703282292062328e-324\n",
                                        "1e-400\n",
                                        "1e400\n",
                                        "123456789012345678901234567890e-10\n",
                                        "0.000000000000000000000000000001\n",
                                        "3.14159265358979323846264338327950288\n",
                                        "00000000000000000000000000001.5\n",
                                        "1.00000000000000011102230246251565404236316680908203125\n",
                                        "1.00000000000000011102230246251565404236316680908203124\n",
                                        "1.00000000000000011102230246251565404236316680908203126\n",
                                        "+.5E+1\n",
                                        "5.E-3\n",
                                        "+5.\n",
                                        "-.125E2\n",
                                        "1E0\n",
                                        "+0.0E-0\n",
                                        "9.999999999999999e307\n",
                                        "1e308\n",
                                        "1.0000000000000001e308\n",
                                        "1.797693134862315807e308\n",
                                        "1.7976931348623158079e308\n",
                                        "-1e400\n",
                                        "2.225073858507201e-308\n",
                                        "2.2250738585072012e-308\n",
                                        "2.22507385850720138e-308\n",
                                        "1e-323\n",
                                        "-1.5e-323\n",
                                        "3e-324\n",
                                        "1e-342\n",
                                        "1e-343\n",
                                        "9999999999999999999e-361\n",
                                        "12345678901234567e-5\n",
                                        "1234567890123456789\n",
                                        "0.1234567890123456789\n",
                                        "0.00000000000000000000000000001234567890123456789\n",
                                        "1e23\n",
                                        "8.98846567431158e307\n"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char s[128];
        snprintf(s, sizeof s, "%s", cases[i]);
        CHECK(agrees(s), "disagrees with strtod on %s", cases[i]);
    }
    double v = 0.0;
    char *end = NULL;
    char minus_zero[16] = "-0\n"; /* with the scanners' padding */
    CHECK(kryl_mtx_scan_real(minus_zero, &v, &end) == KRYL_MTX_SCAN_OK && signbit(v) && v == 0.0,
          "-0 reads as %g", v);
}

static void test_rejected(void)
{
    static const char *const syntax[] = {"\n",     "-\n",   "+\n",     ".\n",   "e5\n",
                                         "1e\n",   "1e+\n", "1.2.3\n", "1,5\n", "0x10\n",
                                         "1e5x\n", "--1\n", "1-\n",    "1d5\n", "+-1\n",
                                         ".e1\n",  "-.\n",  "1e1.5\n", "1..\n", "infinite\n"};
    for (size_t i = 0; i < sizeof syntax / sizeof syntax[0]; i++) {
        char s[64];
        double v;
        char *end = NULL;
        snprintf(s, sizeof s, "%s", syntax[i]);
        CHECK(kryl_mtx_scan_real(s, &v, &end) == KRYL_MTX_SCAN_SYNTAX, "accepted '%s'", s);
    }
    static const char *const nonfinite[] = {"nan\n",       "-NaN\n",  "inf\n",   "+Inf\n",
                                            "-infinity\n", "1e309\n", "-2e308\n"};
    for (size_t i = 0; i < sizeof nonfinite / sizeof nonfinite[0]; i++) {
        char s[64];
        double v;
        char *end = NULL;
        snprintf(s, sizeof s, "%s", nonfinite[i]);
        CHECK(kryl_mtx_scan_real(s, &v, &end) == KRYL_MTX_SCAN_NONFINITE, "'%s' not nonfinite", s);
    }
}

static void test_integers(void)
{
    static const struct {
        const char *text;
        kryl_mtx_scan status;
        int64_t value;
    } cases[] = {{"0 ", KRYL_MTX_SCAN_OK, 0},
                 {"7\t", KRYL_MTX_SCAN_OK, 7},
                 {"000000000000000000000000042\n", KRYL_MTX_SCAN_OK, 42},
                 {"123456789012345678\n", KRYL_MTX_SCAN_OK, 123456789012345678},
                 {"9223372036854775807\n", KRYL_MTX_SCAN_OK, INT64_MAX},
                 {"-9223372036854775807\n", KRYL_MTX_SCAN_OK, -INT64_MAX},
                 {"+5\n", KRYL_MTX_SCAN_OK, 5},
                 {"-3\n", KRYL_MTX_SCAN_OK, -3},
                 {"9223372036854775808\n", KRYL_MTX_SCAN_OVERFLOW, 0},
                 {"99999999999999999999999\n", KRYL_MTX_SCAN_OVERFLOW, 0},
                 {"12a\n", KRYL_MTX_SCAN_SYNTAX, 0},
                 {"1.0\n", KRYL_MTX_SCAN_SYNTAX, 0},
                 {"-\n", KRYL_MTX_SCAN_SYNTAX, 0},
                 {"\n", KRYL_MTX_SCAN_SYNTAX, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char s[64];
        int64_t v = -1;
        char *end = NULL;
        snprintf(s, sizeof s, "%s", cases[i].text);
        kryl_mtx_scan st = kryl_mtx_scan_int(s, &v, &end);
        CHECK(st == cases[i].status && (st != KRYL_MTX_SCAN_OK || v == cases[i].value),
              "'%s' scans as status %d value %lld", s, (int)st, (long long)v);
    }
}

/* With ',' as the locale's decimal point, '.' still is the file's. */
static void test_comma_locale(void)
{
    static const char *const locales[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8",
                                          "C.UTF-8"};
    const char *set = NULL;
    for (size_t i = 0; i < sizeof locales / sizeof locales[0] && set == NULL; i++)
        set = setlocale(LC_NUMERIC, locales[i]);
    if (set == NULL || strcmp(localeconv()->decimal_point, ",") != 0) {
        printf("test_comma_locale: no locale with a decimal comma here, skipped\n");
        setlocale(LC_NUMERIC, "C");
        return;
    }
    char fast[32] = "1.5\n", slow[32] = "0.10000000000000001\n",
         tiny[32] = "4.9406564584124654e-324\n";
    double a = 0.0, b = 0.0, c = 0.0;
    char *end = NULL;
    CHECK(kryl_mtx_scan_real(fast, &a, &end) == KRYL_MTX_SCAN_OK && a == 1.5, "1.5 -> %g", a);
    CHECK(kryl_mtx_scan_real(slow, &b, &end) == KRYL_MTX_SCAN_OK && b == 0.1, "0.1 -> %.17g", b);
    CHECK(kryl_mtx_scan_real(tiny, &c, &end) == KRYL_MTX_SCAN_OK && c == 0x1p-1074, "-> %g", c);
    setlocale(LC_NUMERIC, "C");
}

/* Random decimals as the values of a file read back as strtod reads them. */
static void test_through_file(void)
{
    enum { N = 20000 };
    static char text[N][64];
    char path[512];
    scratch_path(path, sizeof path, "values.mtx");
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s", path);
    if (f == NULL) return;
    fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%d 1 %d\n", N, N);
    for (int k = 0; k < N; k++) {
        /* finite values only (strtod of the string is finite) */
        do random_decimal(text[k], k % 2 ? 300 : 20);
        while (!isfinite(strtod(text[k], NULL)));
        fprintf(f, "%d 1 %s", k + 1, text[k]);
    }
    fclose(f);
    kryl_coo coo;
    kryl_status st = kryl_mtx_read(path, NULL, &coo);
    CHECK(st == KRYL_SUCCESS, "%s", kryl_last_error());
    if (st != KRYL_SUCCESS) return;
    int bad = 0;
    for (int k = 0; k < N && k < coo.count; k++)
        bad += !same_double(coo.values[k], strtod(text[coo.rows[k]], NULL));
    CHECK(coo.count == N && bad == 0, "%d of %lld values differ from strtod", bad,
          (long long)coo.count);
    kryl_coo_free(&coo);
}

int main(void)
{
    scratch_init();
    test_random_decimals();
    test_fast_path_range();
    test_special_decimals();
    test_printed_doubles();
    test_halfway();
    test_digit_runs();
    test_rejected();
    test_integers();
    test_comma_locale();
    test_through_file();
    scratch_cleanup();
    return test_summary("test_mtx_number");
}
