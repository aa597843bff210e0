/* The OpenMP wait policy of the kryl command.  libgomp's default spins at
 * every barrier for milliseconds; on a machine where other programs hold
 * the cores, a solve of thousands of parallel regions then runs tens to
 * hundreds of times slower than with sleeping waits (docs/BENCHMARKS.md,
 * "OpenMP next to busy programs": even a short spin of 1,000 turns is
 * several times slower there than none).  libgomp reads its policy once,
 * when it is loaded, so when the user set neither OMP_WAIT_POLICY nor
 * GOMP_SPINCOUNT the command starts itself again with passive waits. */
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"

void cli_wait_policy(char **argv)
{
    if (getenv("OMP_WAIT_POLICY") != NULL || getenv("GOMP_SPINCOUNT") != NULL) return;
    if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
    execv("/proc/self/exe", argv);
    /* no /proc (or exec refused): go on with libgomp's default policy, the
     * library then keeps its team to the free cores */
    unsetenv("OMP_WAIT_POLICY");
}
