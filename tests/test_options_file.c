/* Options files through the C API: "--name value" lines and JSON
 * configurations read into kryl_solver_options, the strict JSON reader's
 * refusals, and errors that name the line, column or key. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_support.h"

/* Write text to a temporary file; its path in path[size]. */
static void write_file(char *path, size_t size, const char *name, const char *text)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, size, "%s/kryl-options-%d-%s", dir && dir[0] ? dir : "/tmp", (int)getpid(),
             name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s", path);
    if (f == NULL) return;
    fputs(text, f);
    fclose(f);
}

/* kryl_solver_options_from_file on `text` fails with a message holding each word. */
static void expect_refusal(const char *what, const char *text, const char *word1, const char *word2)
{
    char path[512];
    write_file(path, sizeof path, "bad", text);
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    kryl_status st = kryl_solver_options_from_file(path, &o);
    const char *message = kryl_last_error();
    CHECK(st != KRYL_SUCCESS, "%s: accepted", what);
    CHECK(strstr(message, word1) != NULL && (word2 == NULL || strstr(message, word2) != NULL),
          "%s: message '%s' lacks '%s' / '%s'", what, message, word1, word2 ? word2 : "");
    remove(path);
}

static void test_lines(void)
{
    char path[512];
    write_file(path, sizeof path, "lines",
               "# solver\n"
               "--method gmres\n"
               "  --restart 25   # Krylov vectors\n"
               "--precond=ilut\n"
               "--droptol 1e-4\n"
               "--tune\n"
               "--format auto\n"
               "--backend omp\n"
               "--out x.mtx\n"
               "\n");
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    CHECK_OK(kryl_solver_options_from_file(path, &o));
    CHECK(o.method == KRYL_METHOD_GMRES && o.restart == 25 && o.precond == KRYL_PRECOND_ILUT &&
              o.droptol == 1e-4 && o.tune && o.format == KRYL_FORMAT_AUTO,
          "lines: method %d restart %d precond %d droptol %g tune %d", (int)o.method, o.restart,
          (int)o.precond, o.droptol, (int)o.tune);
    kryl_option_setting *s;
    int64_t count;
    CHECK_OK(kryl_options_file_read(path, &s, &count));
    CHECK(count == 8 && strcmp(s[1].name, "restart") == 0 && strcmp(s[1].value, "25") == 0 &&
              s[4].value == NULL && strstr(s[1].origin, ":3") != NULL,
          "settings: %lld, %s = %s at %s", (long long)count, count > 1 ? s[1].name : "",
          count > 1 ? s[1].value : "", count > 1 ? s[1].origin : "");
    kryl_options_file_free(s, count);
    remove(path);
}

static void test_json(void)
{
    char path[512];
    write_file(
        path, sizeof path, "config.json",
        "{\n"
        "  \"method\": \"gmres\",\n"
        "  \"rtol\": 1e-10,\n"
        "  \"maxit\": 500,\n"
        "  \"mixed\": {\"type\": \"inner-outer\", \"inner_rtol\": 1e-4, \"inner-its\": 30},\n"
        "  \"precision\": \"mixed\",\n"
        "  \"precond\": {\"type\": \"bjacobi\", \"blocks\": 8, \"partition\": \"contiguous\",\n"
        "              \"block-factor\": {\"type\": \"ilut\", \"droptol\": 1e-5, \"maxfill\": "
        "40}},\n"
        "  \"order\": \"rcm\",\n"
        "  \"tune\": false,\n"
        "  \"backend\": \"omp\", \"monitor\": 10, \"view\": true,\n"
        "  \"note\\u00e9\\ud83d\\ude00\": \"\\t\"\n"
        "}\n");
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    /* the made-up key at the end is refused, naming it; everything before it applied */
    CHECK_STATUS(kryl_solver_options_from_file(path, &o), KRYL_ERR_INVALID_ARGUMENT);
    CHECK(strstr(kryl_last_error(), "key note\xc3\xa9\xf0\x9f\x98\x80") != NULL,
          "the unknown key named (UTF-8 of the escapes): %s", kryl_last_error());
    CHECK(o.method == KRYL_METHOD_GMRES && o.rtol == 1e-10 && o.max_iterations == 500 &&
              o.mixed == KRYL_MIXED_INNER_OUTER && o.inner_rtol == 1e-4 &&
              o.inner_iterations == 30 && o.precision == KRYL_MIXED &&
              o.precond == KRYL_PRECOND_BJACOBI && o.blocks == 8 &&
              o.partition == KRYL_PARTITION_CONTIGUOUS && o.block_factor == KRYL_PRECOND_ILUT &&
              o.droptol == 1e-5 && o.maxfill == 40 && o.order == KRYL_ORDER_RCM && !o.tune,
          "json: the nested stack was not applied");
    kryl_option_setting *s;
    int64_t count;
    CHECK_OK(kryl_options_file_read(path, &s, &count));
    bool found = false;
    for (int64_t k = 0; k < count; k++)
        if (strcmp(s[k].name, "maxfill") == 0)
            found = strstr(s[k].origin, "key precond.block-factor.maxfill") != NULL;
    CHECK(found, "the origin of maxfill names its key path");
    kryl_options_file_free(s, count);
    remove(path);
}

static void test_refusals(void)
{
    expect_refusal("trailing comma", "{\"rtol\": 1e-8,}", ":1:", "comma");
    expect_refusal("comment", "{\"rtol\": 1e-8 // tight\n}", ":1:", "expected");
    expect_refusal("single quotes", "{'rtol': 1e-8}", ":1:2", "double quotes");
    expect_refusal("duplicate key", "{\"rtol\": 1e-8, \"rtol\": 1e-6}", "twice", NULL);
    expect_refusal("bad escape", "{\"method\": \"c\\g\"}", "escape", NULL);
    expect_refusal("lone surrogate", "{\"method\": \"\\udc00\"}", "surrogate", NULL);
    expect_refusal("leading zero", "{\"maxit\": 012}", "expected", NULL);
    expect_refusal("NaN", "{\"rtol\": NaN}", "expected a value", NULL);
    expect_refusal("text after", "{\"rtol\": 1e-8} x", "after the JSON value", NULL);
    expect_refusal("unterminated", "{\"rtol\": \"1e-8", "unterminated", NULL);
    expect_refusal("array", "{\"rtol\": [1e-8]}", "key rtol", "array");
    expect_refusal("object without type", "{\"precond\": {\"blocks\": 4}}", "key precond",
                   "\"type\"");
    expect_refusal("bad value", "{\"precond\": {\"type\": \"bjacobi\", \"blocks\": -2}}",
                   "key precond.blocks", "blocks");
    expect_refusal("unknown precond", "{\"precond\": \"ilu9\"}", "key precond", "ilu9");
    expect_refusal("unknown option line", "--method cg\n--rtoll 1e-8\n", ":2", "rtoll");
    expect_refusal("not an option line", "--method cg\nrtol 1e-8\n", ":2", "expected an option");
    expect_refusal("flag with a value", "--tune maybe\n", ":1", "tune");
    char deep[512] = "";
    for (int k = 0; k < 80; k++) strcat(deep, "{\"a\":");
    expect_refusal("deep nesting", deep, "nested too deeply", NULL);
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    CHECK_STATUS(kryl_solver_options_from_file("/nonexistent/kryl.json", &o), KRYL_ERR_IO);
    CHECK(strstr(kryl_last_error(), "/nonexistent/kryl.json") != NULL, "missing file named");
    CHECK_STATUS(kryl_solver_options_set(&o, "rtol", "-1"), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_OK(kryl_solver_options_set(&o, "--inner-its", "7"));
    CHECK(o.inner_iterations == 7, "kryl_solver_options_set --inner-its");
    /* the AMG parameters, the divergence bound and the matching, as the kryl command names them */
    CHECK_OK(kryl_solver_options_set(&o, "amg-theta", "0.08"));
    CHECK_OK(kryl_solver_options_set(&o, "amg-cycle", "w"));
    CHECK_OK(kryl_solver_options_set(&o, "amg-coarse-size", "100"));
    CHECK_OK(kryl_solver_options_set(&o, "dtol", "1e6"));
    CHECK_OK(kryl_solver_options_set(&o, "match", "true"));
    CHECK(o.amg.theta == 0.08 && o.amg.cycle == KRYL_AMG_W_CYCLE && o.amg.coarse_size == 100 &&
              o.dtol == 1e6 && o.match,
          "kryl_solver_options_set: amg-theta, amg-cycle, amg-coarse-size, dtol, match");
    /* the bounds of the table, and what it knows by name (the kryl command's parser asks) */
    CHECK_STATUS(kryl_solver_options_set(&o, "amg-theta", "1.5"), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_OK(kryl_solver_options_set(&o, "amg-coarse-theta", "0"));
    CHECK(o.amg.coarse_theta == 0.0, "kryl_solver_options_set: amg-coarse-theta 0");
    CHECK_STATUS(kryl_solver_options_set(&o, "amg-coarse-theta", "-0.1"),
                 KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_solver_options_set(&o, "amg-sweeps", "65"), KRYL_ERR_INVALID_ARGUMENT);
    CHECK(strstr(kryl_last_error(), "amg-sweeps") != NULL, "the bound's refusal names the option");
    bool flag = false;
    CHECK(kryl_solver_option_exists("--tune", &flag) && flag, "tune: a flag");
    CHECK(kryl_solver_option_exists("rtol", &flag) && !flag, "rtol: takes a value");
    CHECK(!kryl_solver_option_exists("--out", NULL) && !kryl_solver_option_exists("rtoll", NULL),
          "the command's own options and misspellings are not solver options");
}

int main(void)
{
    test_lines();
    test_json();
    test_refusals();
    return test_summary("test_options_file");
}
