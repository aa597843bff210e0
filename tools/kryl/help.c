/* Usage lines and help texts of kryl and its subcommands. */
#include <string.h>

#include "cli.h"

typedef struct command_help {
    const char *name;
    const char *usage; /* one line */
    const char *text;  /* the options, after the usage line */
    const char *more;  /* the rest of text (a literal may hold 4095 characters), or NULL */
    const char *rest;  /* what follows more, or NULL */
} command_help;

static const command_help commands[] = {
    {"solve",
     "kryl solve A.mtx [--rhs b.mtx] [--x0 x0.mtx] [--method M] [--format F] [--backend B]\n"
     "                  [options]",
     "Solve A x = b for the square matrix in the Matrix Market file A.mtx (.mtx or .mtx.gz).\n"
     "\n"
     "Problem:\n"
     "  --rhs FILE            right-hand side b (n x 1 Matrix Market); default b = A*1\n"
     "  --x0 FILE             initial guess; default 0\n"
     "  --gen KIND --n N      instead of A.mtx: a generated matrix (kinds of kryl gen, e.g.\n"
     "                        poisson3d or rgg, with their default options)\n"
     "Method:\n"
     "  --method M            auto     the default: pcg + ic0 (mic0, jacobi) for A symmetric\n"
     "                                 with a positive diagonal, else gmres + ilu0 (...),\n"
     "                                 falling back (docs/SOLVERS.md); the summary says why\n"
     "                        cg       conjugate gradients (symmetric positive definite A)\n"
     "                        pcg      preconditioned CG\n"
     "                        pipecg   pipelined (P)CG: one fused reduction per iteration\n"
     "                        gmres    restarted GMRES(m), right-preconditioned (any square A)\n"
     "                        bicgstab BiCGSTAB, right-preconditioned (any square A)\n"
     "  --precond P           none; jacobi (diag(A)); lspoly (least-squares polynomial,\n"
     "                        SPD A); ic0, mic0 (IC(0), shifted IC(0): symmetric A);\n"
     "                        ilu0, iluk, ilut (incomplete LU), ilutp (ilut with column\n"
     "                        pivoting: no zero pivot); bjacobi (IC(0)/ILU(0)\n"
     "                        blocks); mcssor, mcilu0 (multicolor SSOR, ILU(0)); amg\n"
     "                        (smoothed-aggregation algebraic multigrid).  Default\n"
     "                        jacobi for pcg and pipecg, none for cg, gmres, bicgstab\n"
     "                        (pcg with none runs cg).  See docs/PRECONDITIONERS.md\n"
     "  --degree K            lspoly: polynomial degree, K SpMVs per apply (default 8)\n"
     "  --fill K              iluk: fill level (default 1)\n"
     "  --match               ilu0, iluk, ilut, ilutp: factor P A, P a maximum-transversal\n"
     "                        row permutation putting nonzeros on the diagonal (BTF)\n"
     "  --droptol T           ilut: drop entries below T times the row's norm (default 1e-3)\n"
     "  --maxfill P           ilut: at most P entries per row of L and of U (default 20)\n"
     "  --blocks N            bjacobi: row blocks (default 0: one per 4096 rows)\n"
     "  --partition P         bjacobi: auto (metis when built with METIS, the default),\n"
     "                        contiguous (row ranges), metis (graph parts: fewer dropped)\n"
     "  --block-factor F      bjacobi: ic0, mic0, ilu0 or ilut per block (default: ic0 for\n"
     "                        a symmetric matrix with cg/pcg/pipecg, else ilu0)\n"
     "  --sweeps K            mcssor: symmetric sweeps per apply (default 1)\n"
     "  --omega W             mcssor: relaxation factor, 0 < W < 2 (default 1)\n"
     "  --restart M           GMRES: Krylov vectors per cycle (default 40)\n"
     "  --orthog O            GMRES: dcgs2 (Gram-Schmidt with delayed reorthogonalisation, one\n"
     "                        reduction a step; the default) or cgs2 (reorthogonalised\n"
     "                        classical Gram-Schmidt, three reductions a step)\n"
     "  --rtol R              stop when ||b - Ax|| <= R ||b|| (default 1e-8)\n"
     "  --atol A              or when ||b - Ax|| <= A (default 0)\n"
     "  --dtol D              stop as diverged when the method's ||r|| > D ||b - Ax0||\n"
     "                        (default 1e8; inf: never).  Whatever the outcome, x is the\n"
     "                        iterate with the smallest true residual computed, x0 included\n"
     "  --maxit N             iteration limit (default 10000)\n"
     "  --symmetry-tol T      A counts as symmetric (for cg, pcg, pipecg, ic0, mic0, lspoly)\n"
     "                        when max |a_ij - a_ji| <= T max |a_ij| (default 1e-12: a\n"
     "                        matrix assembled in floating point; 0: exactly)\n"
     "  --check-interval K    iterations between convergence checks, of the inner solves too\n"
     "                        (default: the backend's)\n",
     "Algebraic multigrid (--precond amg, docs/PRECONDITIONERS.md):\n"
     "  --amg-theta T         amg: strong couplings |a_ij| >= T sqrt(|a_ii a_jj|) (default 0;\n"
     "                        0.25 for anisotropic problems)\n"
     "  --amg-coarse-theta T  amg: the coarse levels' threshold, max(T, --amg-theta) (default\n"
     "                        0.02; 0: --amg-theta on every level)\n"
     "  --amg-smoother S      amg: auto (the default: ilu0 for a nonsymmetric A on omp and\n"
     "                        ref, and on cuda up to 65536 rows; else chebyshev),\n"
     "                        chebyshev (degree 2), jacobi (damped), l1jacobi, mcgs\n"
     "                        (multicolor symmetric Gauss-Seidel), ilu0 (multicolor ILU(0):\n"
     "                        for convection-dominated A)\n"
     "  --amg-sweeps K        amg: smoothing sweeps before and after the coarse correction\n"
     "                        (chebyshev: the degree; default 2 for ilu0 and for chebyshev,\n"
     "                        which on cuda under smoothed aggregation takes 1; else 1)\n"
     "  --amg-cycle C         amg: v (the default) or w\n"
     "  --amg-aggregation A   amg: sa (smoothed prolongator), plain (the tentative one: for\n"
     "                        nonsymmetric A under gmres/bicgstab) or auto (the default: sa\n"
     "                        for a symmetric A, else plain)\n"
     "  --amg-coarsening C    amg: greedy (standard aggregation in row order, serial),\n"
     "                        mis2 (distance-2 maximal independent set), parallel (that\n"
     "                        set plus aggregates between its roots, built where the\n"
     "                        solve runs: the GPU on cuda) or auto (the default: parallel\n"
     "                        on cuda, greedy on the host's cores and over ranks)\n"
     "  --amg-coarse-size N   amg: stop coarsening at N rows, inverted densely (default 256)\n"
     "  --amg-max-levels L    amg: at most L levels (default 20)\n"
     "  --nullspace FILE      amg: the near-nullspace, an n x k Matrix Market array (default:\n"
     "                        the constant)\n"
     "  --coordinates FILE    amg: node coordinates (an n/3 x 3 array, a row per node, or\n"
     "                        n x 3, a row per unknown; unknowns node by node) whose six\n"
     "                        rigid-body modes are the near-nullspace (3-D elasticity)\n"
     "\n"
     "Precision:\n"
     "  --precision double|single|mixed  arithmetic of the iteration (default double);\n"
     "                        mixed: double accuracy from single-precision inner solves\n"
     "  --mixed ir|inner-outer|reliable  the mixed scheme (implies --precision mixed;\n"
     "                        default inner-outer): ir = iterative refinement, x += A^-1 r\n"
     "                        solved in single; inner-outer = flexible CG (symmetric\n"
     "                        methods) or FGMRES around single-precision inner solves;\n"
     "                        reliable = one single-precision CG (--method cg|pcg) whose\n"
     "                        residual is refreshed in double, x kept in double\n"
     "  --inner-rtol T        an inner solve stops once it reduced its residual by T, or\n"
     "                        reached half the outer tolerance (default 1e-6; reliable:\n"
     "                        the drop between refreshes, default 1e-2)\n"
     "  --inner-its K         and after at most K iterations (default: no limit)\n",
     "Storage format of the iteration's SpMV (see kryl info A.mtx for their costs):\n"
     "  --format F            csr (default), ell, ellr, jds, pjds, sell, bcsr2, bcsr4, dia,\n"
     "                        or auto: the format the bandwidth model predicts fastest\n"
     "                        (the summary says why).  A format that would store too much\n"
     "                        padding for A is refused, saying what it would cost\n"
     "  --tune                time a few SpMVs of each candidate of --format auto (implied)\n"
     "  --order O             none (default), rcm, amd (SuiteSparse builds) or color: rows\n"
     "                        and columns reordered before the format's own row sort;\n"
     "                        b and x stay in the caller's order\n"
     "Where it runs:\n"
     "  --backend auto|ref|omp|cuda  (default auto: cuda if a GPU is usable, else omp, else ref)\n"
     "  --threads T           OpenMP threads for omp (default: OpenMP's)\n"
     "  --device D            CUDA device ordinal (default 0)\n"
     "  --deterministic       the same bits from run to run: no choice by timing (no --tune)\n"
     "  --hybrid 1|2|3|auto   pipecg/pcg on the host's cores and the GPU together\n"
     "                        (docs/HYBRID.md): 1 = the dot products on the host, 2 = only\n"
     "                        n = A m crosses the link, 3 = rows split by SpMV speeds\n"
     "                        measured at setup; auto = the GPU alone unless the\n"
     "                        bandwidth model predicts 3 pays, or 3 where the matrix\n"
     "                        does not fit the GPU\n"
     "                        (default none; 2, 3: jacobi or none); 3 and auto keep on\n"
     "                        the GPU only the rows that fit there\n"
     "  --hybrid-host-rows N  --hybrid 3: the first N rows on the host (default: the model's)\n"
     "  mpirun -np P kryl solve ...  over P ranks (docs/DISTRIBUTED.md): rank 0 reads A,\n"
     "                        --partition splits its rows (contiguous by nonzeros, the\n"
     "                        default there, or metis); --gen: each rank generates its rows\n"
     "  --overlap M           over ranks: vector (exchange, then SpMV), naive (default:\n"
     "                        non-blocking exchange during the local SpMV) or task (a\n"
     "                        communication thread exchanges during the local SpMV)\n"
     "Output:\n"
     "  --out, -o FILE        write the solution x (n x 1 Matrix Market)\n"
     "  --history FILE        write the residual history as CSV\n"
     "                        (iteration,residual_norm,relative_residual)\n"
     "  --json                print one JSON object instead of the summary (on errors too:\n"
     "                        {\"error\": ..., \"status\": ...})\n"
     "  --monitor [K]         a line on stderr every K iterations (default 1): iteration,\n"
     "                        ||r||, ||r||/||b||, seconds; then the true residual\n"
     "  --view                print the solver stack as set up (method, mixed scheme,\n"
     "                        preconditioner as built, format, ordering, precision, backend)\n"
     "  --options-file FILE   read options from FILE here: --name value lines, or a JSON\n"
     "                        configuration (docs/OPTIONS.md); KRYL_OPTIONS in the\n"
     "                        environment holds options read before the command line\n"
     "  --profile             time each phase (spmv, precond, vector, reduction, transfer)\n"
     "                        and print the setup's phases (conversion, factorization, ...;\n"
     "                        always in --json as setup_phases)\n"
     "  --quiet, -q           no summary and no progress line\n"
     "  --max-memory SIZE     refuse a matrix whose size line (or generator size) needs\n"
     "                        more host memory than SIZE (64G; 0: no check; default the\n"
     "                        memory available, or KRYL_MAX_MEMORY)\n"
     "  --gpu-memory SIZE     cap the device memory the solve may hold (2G, 512M; 0: none;\n"
     "                        default KRYL_GPU_MEMORY, else none): beyond it kryl stops\n"
     "                        with an out-of-device-memory error, as on a smaller GPU\n"
     "\n"
     "Exit status: 0 converged, 2 not converged (the summary is still printed), 1 error.\n"},
    {"gen",
     "kryl gen KIND --n N -o A.mtx [--nx X --ny Y --nz Z] [--epsilon E] [--peclet P]\n"
     "                [--row-length L] [--exponent X] [--seed S] [--coordinates XYZ.mtx]",
     "Generate a test matrix and write it as a Matrix Market coordinate file.\n"
     "\n"
     "  --n N                 grid points per direction (random kinds: rows)\n"
     "  --out, -o FILE        the file to write\n"
     "  --nx, --ny, --nz N    grid points in one direction (override --n)\n"
     "  --epsilon E           anisotropy ratio (default 1e-3)\n"
     "  --peclet P            convection strength, the cell Peclet number (default 10)\n"
     "  --row-length L        random kinds: mean entries per row (default 8)\n"
     "  --exponent X          powerlaw: P(length) ~ length^-X (default 2.1)\n"
     "  --seed S              random kinds and finite-element meshes: the seed (default 1)\n"
     "  --coordinates FILE    finite-element kinds: also write the unknowns' node\n"
     "                        coordinates (Matrix Market array, a row per node)\n"
     "  --max-memory SIZE     refuse a matrix whose size line (or generator size) needs\n"
     "                        more host memory than SIZE (64G; 0: no check; default the\n"
     "                        memory available, or KRYL_MAX_MEMORY)\n"
     "\n"
     "Random kinds (--n N rows): random-spd (symmetric, diagonally dominant, entries near\n"
     "the diagonal), powerlaw (nonsymmetric, a few very long rows), rgg (SPD random\n"
     "geometric graph: N points in the unit cube coupled within a radius, rows numbered\n"
     "in a scrambled order, no locality), rgg-spatial (the same graph numbered cell by\n"
     "cell: contiguous rows are slabs of the cube).\n"
     "\n"
     "Finite-element kinds (--n N elements a direction): stiffness matrices assembled\n"
     "element by element in a shuffled order on a mesh with jittered interior vertices,\n"
     "boundary conditions eliminated, so symmetric positive definite up to rounding:\n"
     "fem-p1-2d and fem-p2-2d (-lap u, linear or quadratic triangles on the unit square:\n"
     "(N-1)^2 or (2N-1)^2 rows), fem-p1-3d (linear tetrahedra on the unit cube: (N-1)^3\n"
     "rows), elasticity3d (linear elasticity, E = 1, nu = 0.3, linear tetrahedra on a\n"
     "cantilever beam of 4N x N x N cubes clamped at x = 0: 12 N (N+1)^2 rows, node k's\n"
     "x, y, z displacements at rows 3k..3k+2; --n 12 gives 24336 rows).  They are\n"
     "assembled whole: with --gen under MPI every rank assembles all and keeps its rows.\n"
     "\n"
     "KIND is one of:",
     NULL, NULL},
    {"info",
     "kryl info A.mtx [--json] [--backend B] [--spectrum [--steps K] [--precond P]] [--amg]",
     "Print the structure of a matrix: size, symmetry, row lengths, diagonal and\n"
     "dominance, bandwidth and envelope, norms, and the bytes one SpMV moves.  Then, for\n"
     "each storage format (csr ell ellr jds pjds sell bcsr2 bcsr4 dia): whether it is\n"
     "suitable or why it is refused, the value slots and bytes it stores, their ratio to\n"
     "CSR's bytes and to the nonzeros' own 12 bytes (value + column index), and one\n"
     "double SpMV as the bandwidth model predicts it (Kreutzer et al. 2012): alpha (x\n"
     "traffic per nonzero, 1/Nnzr..1), code balance (bytes per flop), time, effective\n"
     "GB/s (the CSR minimum over the time) and GFLOP/s; and the format --format auto\n"
     "would choose, and why.\n"
     "\n"
     "  --json                print one JSON object\n"
     "  --backend auto|ref|omp|cuda  whose device numbers the model uses (default auto;\n"
     "                        the cuda model needs a usable GPU)\n"
     "  --spectrum            estimate lambda_min, lambda_max and the condition number by\n"
     "                        Lanczos (symmetric matrices only)\n"
     "  --steps K             Lanczos steps (default 50; at most n)\n"
     "  --precond none|jacobi the spectrum of A or of D^-1 A (default none)\n"
     "  --amg                 build the default algebraic multigrid hierarchy (kryl solve\n"
     "                        --precond amg; plain aggregation for a nonsymmetric A) and\n"
     "                        show its levels, complexities and setup phases\n"
     "  --max-memory SIZE     refuse a matrix whose size line (or generator size) needs\n"
     "                        more host memory than SIZE (64G; 0: no check; default the\n"
     "                        memory available, or KRYL_MAX_MEMORY)\n",
     NULL, NULL},
    {"demo", "kryl demo [--n N] [--backend B]",
     "Generate the 3-D Poisson equation (7-point stencil on an N x N x N grid) and\n"
     "solve it with Jacobi-preconditioned CG on the best backend available.\n"
     "\n"
     "  --n N                 grid points per direction (default 64: 262144 rows)\n"
     "  --backend auto|ref|omp|cuda  (default auto)\n",
     NULL, NULL},
    {"plot", "kryl plot HISTORY.csv [MORE.csv ...] -o FILE.svg [--title T]",
     "Draw residual histories (kryl solve --history FILE) in one SVG picture:\n"
     "||r||/||b|| on a log scale against the iteration, a colored curve per file\n"
     "(up to 8), named in the legend with its iteration count.\n"
     "\n"
     "  --out, -o FILE        the SVG file to write\n"
     "  --title T             the picture's title (default Residual history)\n",
     NULL, NULL},
    {"spy", "kryl spy A.mtx -o FILE.svg [--order none|rcm|amd|color] [--title T]",
     "Draw the sparsity pattern of a square matrix as an SVG picture, titled with n\n"
     "and nnz.  A matrix of more than 400 rows is binned to 400 x 400 pixels, each\n"
     "as dark as the share of its entries that are stored.  With --order, the\n"
     "pattern as stored and after the ordering side by side, each with its\n"
     "bandwidth and profile (docs/ORDERINGS.md).\n"
     "\n"
     "  --out, -o FILE        the SVG file to write\n"
     "  --order K             also draw P A P^T for the ordering K (rcm, amd, color)\n"
     "  --title T             the picture's title (default the file's name)\n"
     "  --max-memory SIZE     refuse a matrix whose size line needs more host memory\n"
     "                        than SIZE (as kryl solve)\n",
     NULL, NULL},
};

static const char *overview =
    "usage: kryl COMMAND [ARGS...]\n"
    "\n"
    "Commands:\n"
    "  demo     solve a generated 3-D Poisson problem on the best backend\n"
    "  solve    solve A x = b for a Matrix Market matrix\n"
    "  gen      generate a test matrix and write it as Matrix Market\n"
    "  info     print the structure, storage-format costs and spectrum of a matrix\n"
    "  plot     draw residual histories (--history files) as an SVG picture\n"
    "  spy      draw the sparsity pattern of a matrix, before and after an ordering\n"
    "  help     print the help of a command: kryl help solve\n"
    "\n"
    "Options:\n"
    "  --help, -h    this help\n"
    "  --version     the version and the backends usable here\n"
    "\n"
    "Environment:\n"
    "  KRYL_LOG=error|warning|info|debug  library messages shown on stderr (default\n"
    "                warning; info adds what setup chose: formats, orderings, factor\n"
    "                fill and levels, inner iterations)\n"
    "  KRYL_OPTIONS  options for kryl solve, read before its command line\n"
    "\n"
    "Start with: kryl demo\n";

static const command_help *find_command(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, name) == 0) return &commands[i];
    return NULL;
}

const char *help_usage(const char *command)
{
    const command_help *c = find_command(command);
    return c != NULL ? c->usage : "kryl COMMAND [ARGS...]";
}

bool help_print(const char *command, FILE *out)
{
    if (command == NULL) {
        fprintf(out, "kryl %d.%d.%d - preconditioned Krylov solvers for sparse linear systems\n\n",
                KRYL_VERSION_MAJOR, KRYL_VERSION_MINOR, KRYL_VERSION_PATCH);
        fputs(overview, out);
        return true;
    }
    const command_help *c = find_command(command);
    if (c == NULL) return false;
    fprintf(out, "usage: %s\n\n%s%s%s", c->usage, c->text, c->more != NULL ? c->more : "",
            c->rest != NULL ? c->rest : "");
    if (strcmp(command, "gen") == 0) {
        /* the generator kinds, as kryl_generator_from_name accepts them */
        for (int k = KRYL_GEN_POISSON2D5; k <= KRYL_GEN_ELASTICITY3D; k++)
            fprintf(out, " %s", kryl_generator_name((kryl_generator_kind)k));
        fputc('\n', out);
    }
    return true;
}
