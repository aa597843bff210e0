/* A tiny JSON writer: nested objects, escaped strings, exact doubles
 * (NaN and Inf become null). */
#ifndef KRYL_TOOL_JSON_H
#define KRYL_TOOL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 8

typedef struct json_writer {
    FILE *out;
    int depth;                       /* open objects */
    bool has_member[JSON_MAX_DEPTH]; /* whether the object at each depth has a member yet */
} json_writer;

void json_init(json_writer *w, FILE *out);

/* Open an object: the top-level one with key NULL, a member one with its key. */
void json_begin(json_writer *w, const char *key);
/* Close the innermost object (and end the line after the top-level one). */
void json_end(json_writer *w);

void json_string(json_writer *w, const char *key, const char *value); /* NULL -> null */
void json_double(json_writer *w, const char *key, double value);
void json_int(json_writer *w, const char *key, int64_t value);
void json_bool(json_writer *w, const char *key, bool value);

#endif
