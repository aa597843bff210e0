/* A strict JSON reader (RFC 8259): the whole text into a tree, or an error
 * that names the line and column and what was expected.  No extensions: no
 * comments, no trailing commas, no NaN. */
#ifndef KRYL_JSON_READ_H
#define KRYL_JSON_READ_H

#include <stddef.h>

#include "kryl.h"

typedef enum json_kind {
    JSON_NULL,
    JSON_FALSE,
    JSON_TRUE,
    JSON_NUMBER, /* text keeps the number as written */
    JSON_STRING, /* text, UTF-8, escapes resolved (no NUL inside) */
    JSON_ARRAY,
    JSON_OBJECT /* members in the order written */
} json_kind;

typedef struct json_value {
    json_kind kind;
    char *text;               /* NUMBER, STRING */
    int line;                 /* where the value starts (1-based) */
    size_t count;             /* ARRAY, OBJECT: items */
    char **keys;              /* OBJECT: the members' keys */
    struct json_value *items; /* ARRAY, OBJECT: the items */
} json_value;

/* Parse text[0..length) (`name` names it in errors) into *root; on failure
 * KRYL_ERR_PARSE with "name:line:column: ..." as the last error. */
kryl_status json_parse(const char *name, const char *text, size_t length, json_value *root);

void json_value_free(json_value *v);

#endif
