/* The OpenMP wait policy of the kryl command.  libgomp's default spins at
 * every barrier for milliseconds: on a machine where other programs hold
 * the cores a solve of thousands of parallel regions then runs tens to
 * hundreds of times slower than with sleeping waits, while on idle cores
 * sleeping waits make a small solve up to twice slower than spinning
 * (docs/BENCHMARKS.md, "OpenMP next to busy programs").  libgomp reads its
 * policy once, when it is loaded, so when the user set neither
 * OMP_WAIT_POLICY nor GOMP_SPINCOUNT the command starts itself again with
 * passive waits after a short spin, which libgomp uses only while its
 * threads fit the cores (with more threads than cores it spins 0 turns
 * under the passive policy), and with KRYL_OMP_ADAPT=1, so that the
 * library still sizes its team to the free cores: one thread more than
 * the cores when at most one is free, which turns the spin off. */
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"

/* About 10 microseconds (libgomp counts some 100 turns a microsecond):
 * long enough to cross a barrier of a solve on idle cores without
 * sleeping, short against a scheduler's time slice. */
#define KRYL_CLI_SPINCOUNT "1000"

void cli_wait_policy(char **argv)
{
    if (getenv("OMP_WAIT_POLICY") != NULL || getenv("GOMP_SPINCOUNT") != NULL) return;
    if (setenv("OMP_WAIT_POLICY", "passive", 1) == 0 &&
        setenv("GOMP_SPINCOUNT", KRYL_CLI_SPINCOUNT, 1) == 0 &&
        setenv("KRYL_OMP_ADAPT", "1", 1) == 0)
        execv("/proc/self/exe", argv);
    /* no /proc (or exec refused): go on with libgomp's default policy, the
     * library then keeps its team to the free cores */
    unsetenv("OMP_WAIT_POLICY");
    unsetenv("GOMP_SPINCOUNT");
    unsetenv("KRYL_OMP_ADAPT");
}
