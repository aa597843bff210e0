/* A tiny JSON writer (RFC 8259): two-space indented objects of strings,
 * numbers and booleans. */
#include "json.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

void json_init(json_writer *w, FILE *out)
{
    w->out = out;
    w->depth = 0;
}

/* Write a JSON string literal, escaping quotes, backslashes and control
 * characters. */
static void write_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (*p < 0x20)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
        }
    }
    fputc('"', out);
}

/* Start a member: comma, newline, indentation and the key. */
static void member(json_writer *w, const char *key)
{
    if (w->depth == 0) return;
    if (w->has_member[w->depth - 1]) fputc(',', w->out);
    w->has_member[w->depth - 1] = true;
    fprintf(w->out, "\n%*s", 2 * w->depth, "");
    if (key != NULL) {
        write_string(w->out, key);
        fputs(": ", w->out);
    }
}

void json_begin(json_writer *w, const char *key)
{
    member(w, key);
    fputc('{', w->out);
    if (w->depth < JSON_MAX_DEPTH) w->has_member[w->depth] = false;
    w->depth++;
}

void json_end(json_writer *w)
{
    w->depth--;
    if (w->depth < JSON_MAX_DEPTH && w->has_member[w->depth])
        fprintf(w->out, "\n%*s", 2 * w->depth, "");
    fputc('}', w->out);
    if (w->depth == 0) fputc('\n', w->out);
}

void json_string(json_writer *w, const char *key, const char *value)
{
    member(w, key);
    if (value == NULL)
        fputs("null", w->out);
    else
        write_string(w->out, value);
}

void json_double(json_writer *w, const char *key, double value)
{
    member(w, key);
    if (!isfinite(value)) {
        fputs("null", w->out);
        return;
    }
    /* the shortest of %.15g..%.17g that reads back exactly (%.17g always does) */
    char text[40];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(text, sizeof text, "%.*g", digits, value);
        if (strtod(text, NULL) == value) break;
    }
    fputs(text, w->out);
}

void json_int(json_writer *w, const char *key, int64_t value)
{
    member(w, key);
    fprintf(w->out, "%" PRId64, value);
}

void json_bool(json_writer *w, const char *key, bool value)
{
    member(w, key);
    fputs(value ? "true" : "false", w->out);
}
