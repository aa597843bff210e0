/* A strict recursive-descent JSON reader (RFC 8259) for configuration
 * files: bounded depth, every error with its line and column. */
#include "json_read.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

/* Nesting beyond this is refused (a configuration needs a few levels). */
#define JSON_DEPTH_LIMIT 64

typedef struct reader {
    const char *name, *p, *end, *line_start;
    int line;
} reader;

static kryl_status fail(const reader *r, const char *what)
{
    return KRYL_ERROR(KRYL_ERR_PARSE, "%s:%d:%d: %s", r->name, r->line,
                      (int)(r->p - r->line_start) + 1, what);
}

static void skip_space(reader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')) {
        if (*r->p == '\n') {
            r->line++;
            r->line_start = r->p + 1;
        }
        r->p++;
    }
}

/* Append the UTF-8 encoding of code point c to out (room for 4 bytes). */
static size_t put_utf8(char *out, uint32_t c)
{
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (char)(0xC0 | (c >> 6));
        out[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (char)(0xE0 | (c >> 12));
        out[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        out[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (c >> 18));
    out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((c >> 6) & 0x3F));
    out[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* Four hex digits after "\u". */
static bool hex4(reader *r, uint32_t *c)
{
    if (r->end - r->p < 4) return false;
    *c = 0;
    for (int k = 0; k < 4; k++) {
        char h = r->p[k];
        int d = h >= '0' && h <= '9'   ? h - '0'
                : h >= 'a' && h <= 'f' ? h - 'a' + 10
                : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                       : -1;
        if (d < 0) return false;
        *c = *c * 16 + (uint32_t)d;
    }
    r->p += 4;
    return true;
}

/* A string at r->p (the opening quote) into a new buffer. */
static kryl_status read_string(reader *r, char **out)
{
    r->p++;
    /* the decoded text is never longer than the source */
    const char *close = r->p;
    while (close < r->end && *close != '"') close += *close == '\\' ? 2 : 1;
    char *s = malloc((size_t)(close - r->p) + 1);
    if (s == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "%s: out of memory", r->name);
    size_t n = 0;
    for (;;) {
        if (r->p >= r->end) {
            free(s);
            return fail(r, "unterminated string");
        }
        unsigned char ch = (unsigned char)*r->p;
        if (ch == '"') break;
        if (ch < 0x20) {
            free(s);
            return fail(r, "control character in a string (write it as \\n, \\t or \\u00XX)");
        }
        if (ch != '\\') {
            s[n++] = (char)ch;
            r->p++;
            continue;
        }
        r->p++;
        char e = r->p < r->end ? *r->p++ : '\0';
        const char *simple = strchr("\"\\/bfnrt", e);
        if (e != '\0' && simple != NULL) {
            s[n++] = "\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"];
            continue;
        }
        uint32_t c = 0, low = 0;
        if (e != 'u' || !hex4(r, &c)) {
            free(s);
            return fail(r, "bad escape in a string (expected \\\" \\\\ \\/ \\b \\f \\n \\r "
                           "\\t or \\uXXXX)");
        }
        if (c >= 0xD800 && c < 0xDC00) {
            /* a surrogate pair: \uD8xx\uDCxx */
            bool paired = r->end - r->p >= 2 && r->p[0] == '\\' && r->p[1] == 'u';
            if (paired) {
                r->p += 2;
                paired = hex4(r, &low) && low >= 0xDC00 && low <= 0xDFFF;
            }
            if (!paired) {
                free(s);
                return fail(r, "a high surrogate \\uD8xx-\\uDBxx must be followed by a low one");
            }
            c = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00);
        } else if (c >= 0xDC00 && c < 0xE000) {
            free(s);
            return fail(r, "a low surrogate \\uDCxx-\\uDFxx without a high one");
        }
        if (c == 0) {
            free(s);
            return fail(r, "\\u0000 in a string");
        }
        n += put_utf8(s + n, c);
    }
    r->p++;
    s[n] = '\0';
    *out = s;
    return KRYL_SUCCESS;
}

/* A number as the grammar writes it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static kryl_status read_number(reader *r, json_value *v)
{
    const char *start = r->p, *q = r->p;
#define DIGIT(x) ((x) < r->end && *(x) >= '0' && *(x) <= '9')
    if (q < r->end && *q == '-') q++;
    if (!DIGIT(q))
        return fail(r, "expected a value (a number, string, object, array, true, "
                       "false or null)");
    if (*q == '0')
        q++;
    else
        while (DIGIT(q)) q++;
    if (q < r->end && *q == '.') {
        q++;
        if (!DIGIT(q)) return fail(r, "expected digits after the decimal point");
        while (DIGIT(q)) q++;
    }
    if (q < r->end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < r->end && (*q == '+' || *q == '-')) q++;
        if (!DIGIT(q)) return fail(r, "expected digits in the exponent");
        while (DIGIT(q)) q++;
    }
#undef DIGIT
    v->kind = JSON_NUMBER;
    v->text = malloc((size_t)(q - start) + 1);
    if (v->text == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "%s: out of memory", r->name);
    memcpy(v->text, start, (size_t)(q - start));
    v->text[q - start] = '\0';
    r->p = q;
    return KRYL_SUCCESS;
}

static kryl_status read_value(reader *r, json_value *v, int depth);

/* Grow an array's or object's items by one (zeroed); its slot in *item. */
static kryl_status add_item(reader *r, json_value *v, json_value **item)
{
    json_value *items = realloc(v->items, (v->count + 1) * sizeof *items);
    if (items == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "%s: out of memory", r->name);
    v->items = items;
    if (v->kind == JSON_OBJECT) {
        char **keys = realloc(v->keys, (v->count + 1) * sizeof *keys);
        if (keys == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "%s: out of memory", r->name);
        v->keys = keys;
        v->keys[v->count] = NULL;
    }
    memset(&items[v->count], 0, sizeof items[v->count]);
    *item = &items[v->count++];
    return KRYL_SUCCESS;
}

/* An array or an object, r->p at its opening bracket. */
static kryl_status read_container(reader *r, json_value *v, int depth)
{
    bool object = *r->p == '{';
    char close = object ? '}' : ']';
    v->kind = object ? JSON_OBJECT : JSON_ARRAY;
    if (depth >= JSON_DEPTH_LIMIT) return fail(r, "nested too deeply");
    r->p++;
    skip_space(r);
    if (r->p < r->end && *r->p == close) {
        r->p++;
        return KRYL_SUCCESS;
    }
    for (;;) {
        json_value *item = NULL;
        KRYL_TRY(add_item(r, v, &item));
        if (object) {
            skip_space(r);
            if (r->p >= r->end || *r->p != '"') return fail(r, "expected a key in double quotes");
            KRYL_TRY(read_string(r, &v->keys[v->count - 1]));
            for (size_t k = 0; k + 1 < v->count; k++)
                if (strcmp(v->keys[k], v->keys[v->count - 1]) == 0)
                    return fail(r, "a key given twice in one object");
            skip_space(r);
            if (r->p >= r->end || *r->p != ':') return fail(r, "expected ':' after the key");
            r->p++;
        }
        KRYL_TRY(read_value(r, item, depth + 1));
        skip_space(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            skip_space(r);
            if (r->p < r->end && *r->p == close)
                return fail(r, "a comma before the closing bracket");
            continue;
        }
        if (r->p < r->end && *r->p == close) {
            r->p++;
            return KRYL_SUCCESS;
        }
        return fail(r, object ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

/* A literal word: true, false, null. */
static bool word(reader *r, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n) != 0) return false;
    r->p += n;
    return true;
}

static kryl_status read_value(reader *r, json_value *v, int depth)
{
    skip_space(r);
    v->line = r->line;
    if (r->p >= r->end) return fail(r, "expected a value, found the end of the text");
    switch (*r->p) {
    case '{':
    case '[': return read_container(r, v, depth);
    case '"': v->kind = JSON_STRING; return read_string(r, &v->text);
    case 't': v->kind = JSON_TRUE; return word(r, "true") ? KRYL_SUCCESS : fail(r, "expected true");
    case 'f':
        v->kind = JSON_FALSE;
        return word(r, "false") ? KRYL_SUCCESS : fail(r, "expected false");
    case 'n': v->kind = JSON_NULL; return word(r, "null") ? KRYL_SUCCESS : fail(r, "expected null");
    default: return read_number(r, v);
    }
}

kryl_status json_parse(const char *name, const char *text, size_t length, json_value *root)
{
    memset(root, 0, sizeof *root);
    reader r = {name, text, text + length, text, 1};
    if (memchr(text, '\0', length) != NULL)
        return KRYL_ERROR(KRYL_ERR_PARSE, "%s: a NUL byte in the text (not JSON)", name);
    kryl_status st = read_value(&r, root, 0);
    if (st == KRYL_SUCCESS) {
        skip_space(&r);
        if (r.p != r.end) st = fail(&r, "text after the JSON value");
    }
    if (st != KRYL_SUCCESS) json_value_free(root);
    return st;
}

void json_value_free(json_value *v)
{
    if (v == NULL) return;
    for (size_t k = 0; k < v->count; k++) {
        json_value_free(&v->items[k]);
        if (v->keys != NULL) free(v->keys[k]);
    }
    free(v->items);
    free(v->keys);
    free(v->text);
    memset(v, 0, sizeof *v);
}
