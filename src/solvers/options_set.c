/* Solver options by name: kryl_solver_options_set ("rtol", "1e-8") and
 * kryl_solver_options_from_file.  The names are the kryl command's (kryl
 * solve --rtol ...), so one options file serves both. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

typedef enum value_kind {
    VALUE_NAME,     /* an enum by name: the member's parse function */
    VALUE_DOUBLE,   /* finite, >= 0 */
    VALUE_COUNT,    /* int64, >= 0 */
    VALUE_POSITIVE, /* int, >= 1 */
    VALUE_INT,      /* int, >= 0 */
    VALUE_FLAG      /* bool: no value, or true/false */
} value_kind;

typedef kryl_status (*name_parser)(const char *name, kryl_solver_options *o);

static kryl_status set_method(const char *v, kryl_solver_options *o)
{
    return kryl_method_from_name(v, &o->method);
}
static kryl_status set_precond(const char *v, kryl_solver_options *o)
{
    return kryl_precond_from_name(v, &o->precond);
}
static kryl_status set_block_factor(const char *v, kryl_solver_options *o)
{
    return kryl_precond_from_name(v, &o->block_factor);
}
static kryl_status set_precision(const char *v, kryl_solver_options *o)
{
    return kryl_precision_from_name(v, &o->precision);
}
static kryl_status set_mixed(const char *v, kryl_solver_options *o)
{
    return kryl_mixed_scheme_from_name(v, &o->mixed);
}
static kryl_status set_hybrid(const char *v, kryl_solver_options *o)
{
    return kryl_hybrid_from_name(v, &o->hybrid);
}
static kryl_status set_format(const char *v, kryl_solver_options *o)
{
    return kryl_format_from_name(v, &o->format);
}
static kryl_status set_order(const char *v, kryl_solver_options *o)
{
    return kryl_order_from_name(v, &o->order);
}
static kryl_status set_partition(const char *v, kryl_solver_options *o)
{
    return kryl_partition_from_name(v, &o->partition);
}
static kryl_status set_amg_smoother(const char *v, kryl_solver_options *o)
{
    return kryl_amg_smoother_from_name(v, &o->amg.smoother);
}
static kryl_status set_amg_cycle(const char *v, kryl_solver_options *o)
{
    return kryl_amg_cycle_from_name(v, &o->amg.cycle);
}
static kryl_status set_amg_aggregation(const char *v, kryl_solver_options *o)
{
    return kryl_amg_aggregation_from_name(v, &o->amg.aggregation);
}
static kryl_status set_amg_coarsening(const char *v, kryl_solver_options *o)
{
    return kryl_amg_coarsening_from_name(v, &o->amg.coarsening);
}
static kryl_status set_orthog(const char *v, kryl_solver_options *o)
{
    if (strcmp(v, "cgs2") == 0)
        o->gmres_orthog = KRYL_ORTHOG_CGS2;
    else if (strcmp(v, "dcgs2") == 0)
        o->gmres_orthog = KRYL_ORTHOG_DCGS2;
    else
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "'%s': expected cgs2 or dcgs2", v);
    return KRYL_SUCCESS;
}

/* One option: its name and where its value goes.  Every solver option of the
 * library and of the kryl command is defined here, once: a new one is a row
 * of this table (and a line of help.c's and docs/OPTIONS.md's lists). */
typedef struct option_name {
    const char *name;
    value_kind kind;
    size_t offset;     /* of the member in kryl_solver_options */
    name_parser parse; /* VALUE_NAME */
} option_name;

#define AT(member) offsetof(kryl_solver_options, member)
static const option_name solver_names[] = {
    {"method", VALUE_NAME, 0, set_method},
    {"precond", VALUE_NAME, 0, set_precond},
    {"precision", VALUE_NAME, 0, set_precision},
    {"mixed", VALUE_NAME, 0, set_mixed},
    {"hybrid", VALUE_NAME, 0, set_hybrid},
    {"hybrid-host-rows", VALUE_COUNT, AT(hybrid_host_rows), NULL},
    {"format", VALUE_NAME, 0, set_format},
    {"order", VALUE_NAME, 0, set_order},
    {"partition", VALUE_NAME, 0, set_partition},
    {"block-factor", VALUE_NAME, 0, set_block_factor},
    {"orthog", VALUE_NAME, 0, set_orthog},
    {"amg-smoother", VALUE_NAME, 0, set_amg_smoother},
    {"amg-cycle", VALUE_NAME, 0, set_amg_cycle},
    {"amg-aggregation", VALUE_NAME, 0, set_amg_aggregation},
    {"amg-coarsening", VALUE_NAME, 0, set_amg_coarsening},
    {"amg-theta", VALUE_DOUBLE, AT(amg.theta), NULL},
    {"amg-coarse-theta", VALUE_DOUBLE, AT(amg.coarse_theta), NULL},
    {"amg-sweeps", VALUE_POSITIVE, AT(amg.sweeps), NULL},
    {"amg-coarse-size", VALUE_POSITIVE, AT(amg.coarse_size), NULL},
    {"amg-max-levels", VALUE_POSITIVE, AT(amg.max_levels), NULL},
    {"dtol", VALUE_DOUBLE, AT(dtol), NULL},
    {"match", VALUE_FLAG, AT(match), NULL},
    {"rtol", VALUE_DOUBLE, AT(rtol), NULL},
    {"atol", VALUE_DOUBLE, AT(atol), NULL},
    {"droptol", VALUE_DOUBLE, AT(droptol), NULL},
    {"omega", VALUE_DOUBLE, AT(omega), NULL},
    {"inner-rtol", VALUE_DOUBLE, AT(inner_rtol), NULL},
    {"symmetry-tol", VALUE_DOUBLE, AT(symmetry_tol), NULL},
    {"maxit", VALUE_COUNT, AT(max_iterations), NULL},
    {"restart", VALUE_POSITIVE, AT(restart), NULL},
    {"degree", VALUE_POSITIVE, AT(degree), NULL},
    {"sweeps", VALUE_POSITIVE, AT(sweeps), NULL},
    {"inner-its", VALUE_POSITIVE, AT(inner_iterations), NULL},
    {"fill", VALUE_INT, AT(fill), NULL},
    {"maxfill", VALUE_INT, AT(maxfill), NULL},
    {"blocks", VALUE_INT, AT(blocks), NULL},
    {"check-interval", VALUE_INT, AT(check_interval), NULL},
    {"tune", VALUE_FLAG, AT(tune), NULL},
    {"profile", VALUE_FLAG, AT(profile), NULL},
};

/* The kryl command's options that choose the run rather than the solver:
 * kryl_solver_options_from_file passes over them. */
static const char *const command_names[] = {
    "rhs",        "x0",           "gen",          "n",    "overlap", "backend", "threads",
    "device",     "out",          "history",      "json", "quiet",   "monitor", "view",
    "max-memory", "options-file", "deterministic"};

/* The numbers with a bound below the kind's own limit: the largest accepted. */
static const struct {
    const char *name;
    double most;
} upper_bounds[] = {{"amg-theta", 1.0},
                    {"amg-coarse-theta", 1.0},
                    {"amg-sweeps", 64},
                    {"amg-coarse-size", 4000},
                    {"amg-max-levels", 32}};

static double upper_bound(const char *name)
{
    for (size_t k = 0; k < sizeof upper_bounds / sizeof upper_bounds[0]; k++)
        if (strcmp(upper_bounds[k].name, name) == 0) return upper_bounds[k].most;
    return 0.0;
}

static kryl_status set_number(const option_name *opt, const char *value, kryl_solver_options *o)
{
    double bound = upper_bound(opt->name);
    char *end;
    errno = 0;
    char *target = (char *)o + opt->offset;
    if (opt->kind == VALUE_DOUBLE) {
        double d = strtod(value, &end);
        if (end == value || *end != '\0' || errno == ERANGE || !isfinite(d) || d < 0.0)
            return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "'%s' is not a finite number of 0 or more",
                              value);
        if (bound > 0.0 && d > bound)
            return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "'%s': expected 0 <= %s <= %g", value,
                              opt->name, bound);
        memcpy(target, &d, sizeof d);
        return KRYL_SUCCESS;
    }
    long long n = strtoll(value, &end, 10);
    long long least = opt->kind == VALUE_POSITIVE ? 1 : 0;
    long long most = bound > 0.0                ? (long long)bound
                     : opt->kind == VALUE_COUNT ? LLONG_MAX
                                                : INT_MAX;
    if (end == value || *end != '\0' || errno == ERANGE || n < least || n > most) {
        if (most == LLONG_MAX)
            return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "'%s' is not an integer of %lld or more",
                              value, least);
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "'%s' is not an integer from %lld to %lld",
                          value, least, most);
    }
    if (opt->kind == VALUE_COUNT) {
        int64_t v = (int64_t)n;
        memcpy(target, &v, sizeof v);
    } else {
        int v = (int)n;
        memcpy(target, &v, sizeof v);
    }
    return KRYL_SUCCESS;
}

/* The table's row of `name` (leading dashes allowed), or NULL. */
static const option_name *find_option(const char *name)
{
    while (*name == '-') name++;
    for (size_t k = 0; k < sizeof solver_names / sizeof solver_names[0]; k++)
        if (strcmp(solver_names[k].name, name) == 0) return &solver_names[k];
    return NULL;
}

bool kryl_solver_option_exists(const char *name, bool *is_flag)
{
    const option_name *opt = name != NULL ? find_option(name) : NULL;
    if (opt != NULL && is_flag != NULL) *is_flag = opt->kind == VALUE_FLAG;
    return opt != NULL;
}

kryl_status kryl_solver_options_set(kryl_solver_options *options, const char *name,
                                    const char *value)
{
    KRYL_REQUIRE_ARG(options);
    KRYL_REQUIRE_ARG(name);
    while (*name == '-') name++;
    const option_name *opt = find_option(name);
    if (opt == NULL)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "unknown solver option '%s'", name);
    if (opt->kind == VALUE_FLAG) {
        bool on = value == NULL || strcmp(value, "true") == 0;
        if (!on && strcmp(value, "false") != 0)
            return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                              "%s: '%s': expected no value, true or false", name, value);
        memcpy((char *)options + opt->offset, &on, sizeof on);
        return KRYL_SUCCESS;
    }
    if (value == NULL || value[0] == '\0')
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "%s needs a value", name);
    kryl_status st =
        opt->kind == VALUE_NAME ? opt->parse(value, options) : set_number(opt, value, options);
    if (st != KRYL_SUCCESS) {
        /* "rtol: 'x' is not ..." */
        char message[768];
        snprintf(message, sizeof message, "%s", kryl_last_error());
        return KRYL_ERROR(st, "%s: %s", name, message);
    }
    return KRYL_SUCCESS;
}

static bool command_option(const char *name)
{
    for (size_t k = 0; k < sizeof command_names / sizeof command_names[0]; k++)
        if (strcmp(command_names[k], name) == 0) return true;
    return false;
}

kryl_status kryl_solver_options_from_file(const char *path, kryl_solver_options *options)
{
    KRYL_REQUIRE_ARG(options);
    kryl_option_setting *settings;
    int64_t count;
    KRYL_TRY(kryl_options_file_read(path, &settings, &count));
    kryl_status st = KRYL_SUCCESS;
    for (int64_t k = 0; k < count && st == KRYL_SUCCESS; k++) {
        if (command_option(settings[k].name)) continue;
        st = kryl_solver_options_set(options, settings[k].name, settings[k].value);
        if (st != KRYL_SUCCESS) {
            char message[768];
            snprintf(message, sizeof message, "%s", kryl_last_error());
            st = KRYL_ERROR(st, "%s: %s", settings[k].origin, message);
        }
    }
    kryl_options_file_free(settings, count);
    return st;
}
