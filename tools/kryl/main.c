/* kryl: the command-line front end of the library.  Dispatches to one
 * subcommand per file (cmd_*.c). */
#include <string.h>

#include "cli.h"
#include "cli_mpi.h"

const char *cli_program = "kryl";

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
} command;

static const command table[] = {
    {"solve", cmd_solve}, {"gen", cmd_gen},   {"info", cmd_info},
    {"demo", cmd_demo},   {"plot", cmd_plot}, {"spy", cmd_spy},
};

/* "kryl 0.1.0 (backends: ref omp; not usable here: cuda)" */
static int print_version(void)
{
    const kryl_backend_kind kinds[] = {KRYL_BACKEND_REF, KRYL_BACKEND_OMP, KRYL_BACKEND_CUDA};
    bool usable[3];
    for (int i = 0; i < 3; i++) usable[i] = kryl_backend_available(kinds[i]);
    printf("kryl %d.%d.%d (backends:", KRYL_VERSION_MAJOR, KRYL_VERSION_MINOR, KRYL_VERSION_PATCH);
    for (int i = 0; i < 3; i++)
        if (usable[i]) printf(" %s", kryl_backend_name(kinds[i]));
    bool missing = false;
    for (int i = 0; i < 3; i++)
        if (!usable[i]) {
            printf("%s %s", missing ? "" : "; not usable here:", kryl_backend_name(kinds[i]));
            missing = true;
        }
    printf(")\n");
    return CLI_EXIT_OK;
}

/* kryl help [COMMAND] */
static int help(int argc, char **argv)
{
    if (argc < 2) {
        help_print(NULL, stdout);
        return CLI_EXIT_OK;
    }
    if (help_print(argv[1], stdout)) return CLI_EXIT_OK;
    fprintf(stderr, "kryl help: unknown command '%s' (commands: solve gen info demo)\n", argv[1]);
    return CLI_EXIT_ERROR;
}

/* The command named by argv[1]. */
static int run_command(int argc, char **argv)
{
    if (argc < 2) {
        help_print(NULL, stderr);
        return CLI_EXIT_ERROR;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) return help(1, argv + 1);
    if (strcmp(name, "help") == 0) return help(argc - 1, argv + 1);
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) return print_version();
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].name, name) == 0) return table[i].run(argc - 1, argv + 1);
    fprintf(stderr, "kryl: unknown command '%s'\nRun 'kryl --help' for the commands.\n", name);
    return CLI_EXIT_ERROR;
}

int main(int argc, char **argv)
{
    /* a rank bound to one core takes its share of the host (rank_cores.c) */
    const bool new_cores = cli_rank_cores();
    /* passive OpenMP waits unless the user chose (wait_policy.c): may start kryl again */
    cli_wait_policy(argv, new_cores);
    /* under mpirun every rank runs the command; otherwise MPI is never touched */
    cli_mpi_start(&argc, &argv);
    if (argc > 0 && strchr(argv[0], '/') != NULL) cli_program = argv[0];
    /* --json anywhere before "--": errors are JSON too, usage errors included */
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--json") == 0) cli_json_errors(true);
    int status = run_command(argc, argv);
    cli_mpi_finish();
    return status;
}
