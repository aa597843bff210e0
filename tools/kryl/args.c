/* Command-line option parsing: table lookup, strict number parsing. */
#include "args.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Where the option being parsed came from, when not the command line
 * ("run.json:4: key precond.blocks", "KRYL_OPTIONS"); errors name it. */
static const char *option_origin = NULL;

args_result args_usage_error(const char *command, const char *fmt, ...)
{
    char message[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    fprintf(stderr, "kryl %s: %s%s%s", command, option_origin ? option_origin : "",
            option_origin ? ": " : "", message);
    char full[1200];
    snprintf(full, sizeof full, "%s%s%s", option_origin ? option_origin : "",
             option_origin ? ": " : "", message);
    cli_json_error(KRYL_ERR_INVALID_ARGUMENT, full);
    fprintf(stderr, "\nusage: %s\nRun 'kryl help %s' for the options.\n", help_usage(command),
            command);
    return ARGS_ERROR;
}

/* The spec whose name or alias is `name` (the part before any '='), else an
 * ARG_SOLVER spec when the library's table has the name. */
static const arg_spec *find_spec(const arg_spec *specs, int nspecs, const char *name, size_t length)
{
    for (int i = 0; i < nspecs; i++) {
        const char *names[2] = {specs[i].name, specs[i].alias};
        for (int k = 0; k < 2; k++)
            if (names[k] != NULL && strlen(names[k]) == length &&
                strncmp(names[k], name, length) == 0)
                return &specs[i];
    }
    char solver_name[64];
    if (length < 3 || length >= sizeof solver_name || strncmp(name, "--", 2) != 0) return NULL;
    memcpy(solver_name, name, length);
    solver_name[length] = '\0';
    for (int i = 0; i < nspecs; i++)
        if (specs[i].type == ARG_SOLVER && kryl_solver_option_exists(solver_name, NULL))
            return &specs[i];
    return NULL;
}

/* Whether option `opt`, given as `name`, is a flag (takes no value). */
static bool is_flag(const arg_spec *opt, const char *name)
{
    bool flag = opt->type == ARG_FLAG;
    if (opt->type == ARG_SOLVER) kryl_solver_option_exists(name, &flag);
    return flag;
}

bool args_solver_given(const args_solver *solver, const char *name)
{
    for (int k = 0; k < solver->ngiven; k++)
        if (strcmp(solver->given[k], name) == 0) return true;
    return false;
}

/* Set the library's solver option `name` (with its dashes) and note it given. */
static args_result set_solver_option(const char *command, args_solver *solver, const char *name,
                                     const char *value)
{
    if (kryl_solver_options_set(solver->options, name, value) != KRYL_SUCCESS)
        return args_usage_error(command, "--%s", kryl_last_error());
    while (*name == '-') name++;
    if (!args_solver_given(solver, name) && solver->ngiven < ARGS_SOLVER_MAX_GIVEN)
        snprintf(solver->given[solver->ngiven++], sizeof solver->given[0], "%s", name);
    return ARGS_OK;
}

/* Parse the whole of `text` as a finite double. */
static bool parse_double(const char *text, double *value)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v)) return false;
    *value = v;
    return true;
}

/* Parse the whole of `text` as a decimal int64. */
static bool parse_int64(const char *text, int64_t *value)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE) return false;
    *value = (int64_t)v;
    return true;
}

/* Store `value` of option `opt`, given as `name`, into its target. */
static args_result set_value(const char *command, const arg_spec *opt, const char *name,
                             const char *value)
{
    double d;
    int64_t n;
    switch (opt->type) {
    case ARG_SOLVER: return set_solver_option(command, opt->target, name, value);
    case ARG_FLAG: *(bool *)opt->target = true; break;
    case ARG_STRING:
        if (value[0] == '\0') return args_usage_error(command, "%s needs a value", opt->name);
        *(const char **)opt->target = value;
        break;
    case ARG_DOUBLE:
    case ARG_REAL:
        if (!parse_double(value, &d))
            return args_usage_error(command, "%s: '%s' is not a finite number", opt->name, value);
        if (opt->type == ARG_DOUBLE && d < 0.0)
            return args_usage_error(command, "%s: '%s' is negative", opt->name, value);
        *(double *)opt->target = d;
        break;
    case ARG_COUNT:
    case ARG_POSITIVE:
    case ARG_EVERY:
        if (!parse_int64(value, &n))
            return args_usage_error(command, "%s: '%s' is not an integer", opt->name, value);
        if (n < (opt->type == ARG_COUNT ? 0 : 1))
            return args_usage_error(command, "%s: '%s' must be %s", opt->name, value,
                                    opt->type == ARG_COUNT ? "0 or more" : "at least 1");
        *(int64_t *)opt->target = n;
        break;
    case ARG_MEMORY:
        if (kryl_parse_bytes(value, &n) != KRYL_SUCCESS)
            return args_usage_error(command, "%s: %s", opt->name, kryl_last_error());
        kryl_set_max_memory(n > 0 ? n : -1);
        break;
    case ARG_BYTES:
        if (kryl_parse_bytes(value, (int64_t *)opt->target) != KRYL_SUCCESS)
            return args_usage_error(command, "%s: %s", opt->name, kryl_last_error());
        break;
    }
    if (opt->given != NULL) *opt->given = true;
    return ARGS_OK;
}

/* Options files read so far: string options point into them until exit. */
typedef struct kept_file {
    kryl_option_setting *settings;
    int64_t count;
    struct kept_file *next;
} kept_file;
static kept_file *kept_files = NULL;

static void free_kept_files(void)
{
    while (kept_files != NULL) {
        kept_file *k = kept_files;
        kept_files = k->next;
        kryl_options_file_free(k->settings, k->count);
        free(k);
    }
}

/* Keep `settings` until exit; false when out of memory (then freed). */
static bool keep(kryl_option_setting *settings, int64_t count)
{
    kept_file *k = malloc(sizeof *k);
    if (k == NULL) {
        kryl_options_file_free(settings, count);
        return false;
    }
    if (kept_files == NULL) atexit(free_kept_files);
    *k = (kept_file){settings, count, kept_files};
    kept_files = k;
    return true;
}

/* One setting of an options file, as if given on the command line. */
static args_result apply_setting(const char *command, const kryl_option_setting *s,
                                 const arg_spec *specs, int nspecs)
{
    char name[128];
    snprintf(name, sizeof name, "--%s", s->name);
    if (strcmp(s->name, "options-file") == 0)
        return args_usage_error(command, "an options file cannot name another");
    const arg_spec *opt = find_spec(specs, nspecs, name, strlen(name));
    if (opt == NULL) return args_usage_error(command, "unknown option '%s'", name);
    const char *value = s->value;
    if (opt->type == ARG_SOLVER) return set_value(command, opt, name, value);
    if (opt->type == ARG_FLAG) {
        if (value != NULL && strcmp(value, "true") != 0)
            return args_usage_error(command, "%s takes no value (or true)", opt->name);
    } else if (value == NULL) {
        if (opt->type != ARG_EVERY) return args_usage_error(command, "%s needs a value", opt->name);
        value = "1";
    }
    return set_value(command, opt, name, value);
}

static args_result parse_options_file(const char *command, const char *path, const arg_spec *specs,
                                      int nspecs)
{
    kryl_option_setting *settings;
    int64_t count;
    if (kryl_options_file_read(path, &settings, &count) != KRYL_SUCCESS)
        return args_usage_error(command, "--options-file: %s", kryl_last_error());
    if (!keep(settings, count))
        return args_usage_error(command, "--options-file %s: out of memory", path);
    const char *outer = option_origin;
    args_result r = ARGS_OK;
    for (int64_t k = 0; k < count && r == ARGS_OK; k++) {
        option_origin = settings[k].origin;
        r = apply_setting(command, &settings[k], specs, nspecs);
    }
    option_origin = outer;
    return r;
}

args_result args_parse_environment(const char *command, const char *variable, const arg_spec *specs,
                                   int nspecs)
{
    const char *value = getenv(variable);
    if (value == NULL || value[0] == '\0') return ARGS_OK;
    /* its words, as the shell would split them without quotes */
    size_t length = strlen(value);
    char *words = malloc(length + 1);
    char **argv = malloc((length / 2 + 2) * sizeof *argv);
    kryl_option_setting *held = calloc(1, sizeof *held);
    if (words == NULL || argv == NULL || held == NULL) {
        free(words);
        free(argv);
        free(held);
        return args_usage_error(command, "%s: out of memory", variable);
    }
    memcpy(words, value, length + 1);
    int argc = 0;
    argv[argc++] = (char *)command;
    for (char *w = strtok(words, " \t\n"); w != NULL; w = strtok(NULL, " \t\n")) argv[argc++] = w;
    /* the words stay until exit, as an options file's settings do */
    held->origin = words;
    if (!keep(held, 1)) {
        free(argv);
        return args_usage_error(command, "%s: out of memory", variable);
    }
    const char *outer = option_origin;
    option_origin = variable;
    int npositional;
    args_result r = args_parse(command, argc, argv, specs, nspecs, NULL, 0, &npositional);
    option_origin = outer;
    free(argv);
    return r;
}

args_result args_parse(const char *command, int argc, char **argv, const arg_spec *specs,
                       int nspecs, const char **positional, int max_positional, int *npositional)
{
    bool options_done = false;
    *npositional = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (options_done || arg[0] != '-' || arg[1] == '\0') {
            if (*npositional >= max_positional)
                return args_usage_error(command, "unexpected argument '%s'", arg);
            positional[(*npositional)++] = arg;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            options_done = true;
            continue;
        }
        if (strcmp(arg, "--options-file") == 0 || strncmp(arg, "--options-file=", 15) == 0) {
            const char *path = arg[14] == '=' ? arg + 15 : i + 1 < argc ? argv[++i] : NULL;
            if (path == NULL || path[0] == '\0')
                return args_usage_error(command, "--options-file needs a file");
            args_result r = parse_options_file(command, path, specs, nspecs);
            if (r != ARGS_OK) return r;
            continue;
        }
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            help_print(command, stdout);
            return ARGS_HELP;
        }
        const char *eq = strchr(arg, '=');
        size_t length = eq != NULL ? (size_t)(eq - arg) : strlen(arg);
        const arg_spec *opt = find_spec(specs, nspecs, arg, length);
        if (opt == NULL)
            return args_usage_error(command, "unknown option '%.*s'", (int)length, arg);
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)length, arg);
        const char *value = NULL;
        if (is_flag(opt, name)) {
            if (eq != NULL) return args_usage_error(command, "%s takes no value", name);
        } else if (eq != NULL) {
            value = eq + 1;
        } else if (opt->type == ARG_EVERY) {
            /* the count is optional: take the next argument only if it is one */
            int64_t n;
            value = i + 1 < argc && parse_int64(argv[i + 1], &n) ? argv[++i] : "1";
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            return args_usage_error(command, "%s needs a value", name);
        }
        args_result r = set_value(command, opt, name, value);
        if (r != ARGS_OK) return r;
    }
    return ARGS_OK;
}
