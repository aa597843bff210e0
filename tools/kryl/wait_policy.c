/* The OpenMP wait policy of the kryl command.  libgomp's default spins at
 * every barrier for milliseconds: on a machine where other programs hold
 * the cores a solve of thousands of parallel regions then runs tens to
 * hundreds of times slower than with sleeping waits, while on idle cores
 * sleeping waits make a small solve up to twice slower than spinning
 * (docs/BENCHMARKS.md, "OpenMP next to busy programs").  libgomp reads its
 * policy once, when it is loaded, so when the user set neither
 * OMP_WAIT_POLICY nor GOMP_SPINCOUNT the command starts itself again with
 * passive waits after a short spin, and with KRYL_OMP_ADAPT=1, so that
 * the library still sizes its team to the free cores: the spin then runs
 * only on free cores, and with at most one free there is one thread and
 * no barrier.  A user
 * who binds the threads to places (OMP_PROC_BIND, OMP_PLACES,
 * GOMP_CPU_AFFINITY) has given the program its cores: libgomp's own
 * policy then, and the team is not resized (a resized bound team ran
 * 4-6x slower on a 16-core host; docs/BENCHMARKS.md). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"

/* The spin before a thread sleeps, in libgomp's turns (some 100 a
 * microsecond): about 100 us up to 16 cores, 10 us above, the fastest of
 * the counts measured on idle 16- and 64-core hosts (docs/BENCHMARKS.md,
 * "the spin count by cores"); short against a scheduler's time slice. */
static const char *spin_count(void)
{
    cpu_set_t set;
    int cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
    return cores > 16 ? "1000" : "10000";
}

void cli_wait_policy(char **argv, bool restart)
{
    /* a user who placed the threads (rank_cores.c) keeps libgomp's own policy */
    const bool chosen = getenv("OMP_WAIT_POLICY") != NULL || getenv("GOMP_SPINCOUNT") != NULL ||
                        cli_threads_placed();
    if (!chosen && setenv("OMP_WAIT_POLICY", "passive", 1) == 0 &&
        setenv("GOMP_SPINCOUNT", spin_count(), 1) == 0 && setenv("KRYL_OMP_ADAPT", "1", 1) == 0)
        execv("/proc/self/exe", argv);
    if (!chosen) {
        /* no /proc (or exec refused): go on with libgomp's default policy, the
         * library then keeps its team to the free cores */
        unsetenv("OMP_WAIT_POLICY");
        unsetenv("GOMP_SPINCOUNT");
        unsetenv("KRYL_OMP_ADAPT");
    }
    /* the OpenMP runtime counted its cores when it was loaded */
    if (restart) execv("/proc/self/exe", argv);
}
