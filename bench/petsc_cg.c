/* PETSc baseline for bench_cg_cpu: KSPCG + PCJACOBI on the 3-D 7-point
 * Poisson matrix (Dirichlet: diagonal 6, neighbours -1), b = A*1, x0 = 0,
 * rtol 1e-8 on the unpreconditioned residual ||b - Ax|| / ||b|| (the test
 * kryl uses), reported as milliseconds per iteration.  Built and run by
 * bench/cpu-vs-petsc; not part of the CMake build (PETSc is optional).
 *
 * usage: mpirun -np 2 petsc_cg [-n 100] [-solves 3] [PETSc options] */
#include <petscksp.h>

/* Rows [lo, hi) of the 7-point Laplacian on an n^3 grid, row = i + n(j + n k). */
static PetscErrorCode assemble_poisson(Mat A, PetscInt n)
{
    PetscInt lo, hi;
    PetscFunctionBeginUser;
    PetscCall(MatGetOwnershipRange(A, &lo, &hi));
    for (PetscInt row = lo; row < hi; row++) {
        PetscInt i = row % n, j = (row / n) % n, k = row / (n * n);
        PetscInt cols[7], m = 0;
        PetscScalar vals[7];
        /* a_row,row = 6; a_row,neighbour = -1 for each neighbour inside the grid */
        if (k > 0) cols[m] = row - n * n, vals[m++] = -1.0;
        if (j > 0) cols[m] = row - n, vals[m++] = -1.0;
        if (i > 0) cols[m] = row - 1, vals[m++] = -1.0;
        cols[m] = row, vals[m++] = 6.0;
        if (i < n - 1) cols[m] = row + 1, vals[m++] = -1.0;
        if (j < n - 1) cols[m] = row + n, vals[m++] = -1.0;
        if (k < n - 1) cols[m] = row + n * n, vals[m++] = -1.0;
        PetscCall(MatSetValues(A, 1, &row, m, cols, vals, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
    PetscInt n = 100, solves = 3;
    PetscMPIInt size;
    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-solves", &solves, NULL));
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    PetscInt N = n * n * n;

    Mat A;
    PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
    PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, N, N));
    PetscCall(MatSetFromOptions(A));
    PetscCall(MatSeqAIJSetPreallocation(A, 7, NULL));
    PetscCall(MatMPIAIJSetPreallocation(A, 7, NULL, 2, NULL));
    PetscCall(assemble_poisson(A, n));

    /* b = A*1, x0 = 0 */
    Vec x, b, ones;
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecDuplicate(x, &ones));
    PetscCall(VecSet(ones, 1.0));
    PetscCall(MatMult(A, ones, b));

    KSP ksp;
    PC pc;
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
    PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
    PetscCall(KSPSetTolerances(ksp, 1e-8, 0.0, PETSC_DEFAULT, 10000));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSetUp(ksp));

    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "petsc: Poisson 3-D 7-point %" PetscInt_FMT "^3: %" PetscInt_FMT
                          " rows, %d MPI ranks, PETSc KSPCG + PCJACOBI\n",
                          n, N, (int)size));
    double best = -1.0;
    for (PetscInt s = 0; s < solves; s++) {
        PetscInt its;
        KSPConvergedReason reason;
        PetscCall(VecSet(x, 0.0));
        PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
        double t0 = MPI_Wtime();
        PetscCall(KSPSolve(ksp, b, x));
        double t = MPI_Wtime() - t0;
        PetscCall(KSPGetIterationNumber(ksp, &its));
        PetscCall(KSPGetConvergedReason(ksp, &reason));
        double ms = its > 0 ? 1e3 * t / (double)its : 0.0;
        PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                              "  solve %" PetscInt_FMT ": %" PetscInt_FMT
                              " iterations (%s), %.3f s, %.3f ms/iteration\n",
                              s + 1, its, KSPConvergedReasons[reason], t, ms));
        if (best < 0.0 || ms < best) best = ms;
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "petsc: best %.3f ms/iteration\n", best));

    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&ones));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscFinalize());
    return 0;
}
