/* Options files: "--name value" lines, or a JSON configuration whose keys
 * are the same names (objects {"type": V, ...} give an option its value V
 * and its parameters), read into a flat list of settings in file order. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "io/json_read.h"

/* Options files are a few lines; anything larger is not one. */
#define OPTIONS_FILE_MAX_BYTES (16 << 20)

typedef struct settings {
    kryl_option_setting *items;
    int64_t count, capacity;
} settings;

/* A copy of s[0..n) (n < 0: all of s). */
static char *copy_text(const char *s, long n)
{
    size_t length = n < 0 ? strlen(s) : (size_t)n;
    char *c = malloc(length + 1);
    if (c == NULL) return NULL;
    memcpy(c, s, length);
    c[length] = '\0';
    return c;
}

/* Append name (its leading dashes dropped, '_' read as '-'), value (NULL:
 * a flag) and origin, each copied. */
static kryl_status add(settings *list, const char *name, long name_length, const char *value,
                       const char *origin)
{
    if (list->count == list->capacity) {
        int64_t capacity = list->capacity > 0 ? 2 * list->capacity : 16;
        kryl_option_setting *items = realloc(list->items, (size_t)capacity * sizeof *items);
        if (items == NULL)
            return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "%s: cannot allocate a list of %lld options",
                              origin, (long long)capacity);
        list->items = items;
        list->capacity = capacity;
    }
    while (name_length != 0 && *name == '-') {
        name++;
        if (name_length > 0) name_length--;
    }
    char *n = copy_text(name, name_length), *v = value ? copy_text(value, -1) : NULL;
    char *o = copy_text(origin, -1);
    if (n == NULL || o == NULL || (value != NULL && v == NULL)) {
        free(n);
        free(v);
        free(o);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "%s: cannot allocate a copy of the option",
                          origin);
    }
    for (char *c = n; *c; c++)
        if (*c == '_') *c = '-';
    list->items[list->count++] = (kryl_option_setting){n, v, o};
    return KRYL_SUCCESS;
}

/* One option per line: "--name value", "--name=value" or "--name"; blank
 * lines and '#' comments (at the start or after a blank) are skipped. */
static kryl_status read_lines(const char *path, char *text, settings *list)
{
    int line = 0;
    for (char *next = text; next != NULL;) {
        char *s = next;
        char *eol = strchr(s, '\n');
        next = eol ? eol + 1 : NULL;
        if (eol) *eol = '\0';
        line++;
        for (char *c = s; *c; c++)
            if (*c == '#' && (c == s || isspace((unsigned char)c[-1]))) *c = '\0';
        while (isspace((unsigned char)*s)) s++;
        char *end = s + strlen(s);
        while (end > s && isspace((unsigned char)end[-1])) *--end = '\0';
        if (*s == '\0') continue;
        char origin[512];
        snprintf(origin, sizeof origin, "%s:%d", path, line);
        if (*s != '-')
            return KRYL_ERROR(KRYL_ERR_PARSE, "%s: expected an option (--name [value]), found '%s'",
                              origin, s);
        char *name_end = s + strcspn(s, " \t=");
        char *value = NULL;
        if (*name_end != '\0') {
            value = name_end + 1;
            while (isspace((unsigned char)*value)) value++;
        }
        KRYL_TRY(add(list, s, (long)(name_end - s), value, origin));
    }
    return KRYL_SUCCESS;
}

/* The members of a JSON object under `path` ("" at the top); in an option's
 * object (`parameters`) its "type" is skipped, having given the value. */
static kryl_status read_members(const char *file, const json_value *object, const char *path,
                                bool parameters, settings *list)
{
    for (size_t k = 0; k < object->count; k++) {
        const char *key = object->keys[k];
        const json_value *v = &object->items[k];
        if (parameters && strcmp(key, "type") == 0) continue;
        char where[512], origin[640];
        snprintf(where, sizeof where, "%s%s%s", path, path[0] ? "." : "", key);
        snprintf(origin, sizeof origin, "%s:%d: key %s", file, v->line, where);
        if (key[0] == '\0' || strcmp(key, "type") == 0)
            return KRYL_ERROR(KRYL_ERR_PARSE, "%s: %s", origin,
                              key[0] ? "\"type\" belongs inside an option's object"
                                     : "an empty key");
        switch (v->kind) {
        case JSON_STRING:
        case JSON_NUMBER: KRYL_TRY(add(list, key, -1, v->text, origin)); break;
        case JSON_TRUE: KRYL_TRY(add(list, key, -1, NULL, origin)); break;
        case JSON_FALSE: break; /* a flag left unset */
        case JSON_OBJECT: {
            /* {"type": V, params...}: the option's value, then its parameters */
            const json_value *type = NULL;
            for (size_t m = 0; m < v->count; m++)
                if (strcmp(v->keys[m], "type") == 0) type = &v->items[m];
            if (type == NULL || type->kind != JSON_STRING)
                return KRYL_ERROR(KRYL_ERR_PARSE,
                                  "%s: an option given as an object needs \"type\" (a string): "
                                  "its value, e.g. {\"type\": \"ilut\", \"droptol\": 1e-4}",
                                  origin);
            KRYL_TRY(add(list, key, -1, type->text, origin));
            KRYL_TRY(read_members(file, v, where, true, list));
            break;
        }
        case JSON_ARRAY:
        case JSON_NULL:
            return KRYL_ERROR(KRYL_ERR_PARSE,
                              "%s: expected a string, number, true, false or an object "
                              "{\"type\": ...}, found %s",
                              origin, v->kind == JSON_ARRAY ? "an array" : "null");
        }
    }
    return KRYL_SUCCESS;
}

/* The whole file (NUL-terminated) into *text. */
static kryl_status slurp(const char *path, char **text, size_t *length)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) return KRYL_ERROR(KRYL_ERR_IO, "%s: cannot open the options file", path);
    size_t capacity = 4096, n = 0;
    char *buf = malloc(capacity);
    kryl_status st =
        buf ? KRYL_SUCCESS
            : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                         "%s: cannot allocate %zu bytes to read the options file", path, capacity);
    while (st == KRYL_SUCCESS) {
        if (n + 1 >= capacity) {
            char *bigger = capacity > OPTIONS_FILE_MAX_BYTES ? NULL : realloc(buf, 2 * capacity);
            if (bigger == NULL) {
                st = KRYL_ERROR(KRYL_ERR_PARSE, "%s: larger than an options file can be (%d MB)",
                                path, OPTIONS_FILE_MAX_BYTES >> 20);
                break;
            }
            buf = bigger;
            capacity *= 2;
        }
        size_t got = fread(buf + n, 1, capacity - 1 - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) st = KRYL_ERROR(KRYL_ERR_IO, "%s: read error", path);
            break;
        }
    }
    fclose(f);
    if (st != KRYL_SUCCESS) {
        free(buf);
        return st;
    }
    buf[n] = '\0';
    *text = buf;
    *length = n;
    return KRYL_SUCCESS;
}

kryl_status kryl_options_file_read(const char *path, kryl_option_setting **out, int64_t *count)
{
    KRYL_REQUIRE_ARG(path);
    KRYL_REQUIRE_ARG(out);
    KRYL_REQUIRE_ARG(count);
    *out = NULL;
    *count = 0;
    char *text = NULL;
    size_t length = 0;
    KRYL_TRY(slurp(path, &text, &length));
    settings list = {0};
    const char *first = text + strspn(text, " \t\r\n");
    kryl_status st;
    if (*first == '{') {
        json_value root;
        st = json_parse(path, text, length, &root);
        if (st == KRYL_SUCCESS) st = read_members(path, &root, "", false, &list);
        json_value_free(&root);
    } else if (memchr(text, '\0', length) != NULL) {
        st = KRYL_ERROR(KRYL_ERR_PARSE, "%s: a NUL byte (not an options file)", path);
    } else {
        st = read_lines(path, text, &list);
    }
    free(text);
    if (st != KRYL_SUCCESS) {
        kryl_options_file_free(list.items, list.count);
        return st;
    }
    *out = list.items;
    *count = list.count;
    return KRYL_SUCCESS;
}

void kryl_options_file_free(kryl_option_setting *settings_, int64_t count)
{
    if (settings_ == NULL) return;
    for (int64_t k = 0; k < count; k++) {
        free((char *)settings_[k].name);
        free((char *)settings_[k].value);
        free((char *)settings_[k].origin);
    }
    free(settings_);
}
