"""Every method and preconditioner on real matrices of the SuiteSparse
collection, checked in NumPy: the true residual of a converged solve meets
rtol, the forward error against scipy.sparse.linalg.spsolve is within
cond(A) times it, and a solve that does not converge never returns an x
worse than x0 = 0."""

import functools

import numpy as np
import pytest
import scipy.sparse.linalg as spla
from conftest import read_matrix, true_relres

import kryl

METHODS = ["cg", "pcg", "pipecg", "gmres", "bicgstab"]
PRECONDS = ["none", "jacobi", "lspoly", "ic0", "mic0", "ilu0", "iluk", "ilut", "bjacobi",
            "mcssor", "mcilu0", "amg"]
SPD = ["nos4.mtx", "494_bus.mtx", "bcsstk06.mtx"]
NONSYMMETRIC = ["sherman4.mtx", "cage4.mtx"]
RTOL = 1e-8
# Combinations that must converge (the rest may stop, but never worse than x0).
SPD_MUST = {("pcg", "jacobi"), ("pcg", "mic0"), ("pipecg", "mic0"), ("pcg", "amg")}
NONSYMMETRIC_MUST = {("gmres", "ilu0"), ("bicgstab", "ilu0")}


@functools.lru_cache(maxsize=None)
def problem(name):
    A = read_matrix(name)
    rng = np.random.default_rng(1)
    b = A @ rng.uniform(-1, 1, A.shape[0])
    x_ref = spla.spsolve(A.tocsc(), b)
    cond = np.linalg.cond(A.toarray())
    return A, b, x_ref, cond


def check_solve(name, method, precond, must):
    A, b, x_ref, cond = problem(name)
    try:
        x, info = kryl.solve(A, b, method=method, precond=precond, rtol=RTOL, maxit=2000)
    except (kryl.NotSymmetricError, kryl.NotPositiveDefiniteError, kryl.ZeroDiagonalError,
            kryl.UnsupportedError) as e:
        # refusals of what the method or preconditioner needs, with the library's reason
        assert str(e)
        assert (method, precond) not in must, f"{name} {method} {precond}: {e}"
        return
    assert info.n == A.shape[0] and info.nnz == A.nnz
    assert info.method == method and info.iterations >= 0
    assert np.all(np.isfinite(x))
    relres = true_relres(A, x, b)
    assert relres == pytest.approx(info.relres, rel=1e-6, abs=1e-14)
    assert len(info.history) == info.iterations + 1
    if info.converged:
        assert relres <= RTOL * (1 + 1e-6)
        forward = np.linalg.norm(x - x_ref) / np.linalg.norm(x_ref)
        assert forward <= cond * max(relres, 1e-15) * 10 + 1e-12
    else:
        assert (method, precond) not in must, f"{name} {method} {precond}: {info}"
        assert info.reason in ("max_iterations", "breakdown", "nan", "stagnation", "diverged_dtol",
                               "indefinite_pc")
        assert relres <= 1.0 + 1e-12  # never worse than x0 = 0


@pytest.mark.parametrize("precond", PRECONDS)
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", SPD)
def test_spd(name, method, precond):
    check_solve(name, method, precond, SPD_MUST)


@pytest.mark.parametrize("precond", PRECONDS)
@pytest.mark.parametrize("method", ["gmres", "bicgstab"])
@pytest.mark.parametrize("name", NONSYMMETRIC)
def test_nonsymmetric(name, method, precond):
    check_solve(name, method, precond, NONSYMMETRIC_MUST)


@pytest.mark.parametrize("name", NONSYMMETRIC)
def test_cg_refuses_nonsymmetric(name):
    A, b, _, _ = problem(name)
    with pytest.raises(kryl.NotSymmetricError, match="symmetric"):
        kryl.solve(A, b, method="cg")


@pytest.mark.parametrize("name", SPD)
def test_matches_scipy_cg(name):
    """kryl's CG and SciPy's reach the same solution (within cond(A) rtol)."""
    A, b, x_ref, cond = problem(name)
    x, info = kryl.solve(A, b, method="cg", rtol=1e-10, maxit=20000)
    xs, flag = spla.cg(A, b, rtol=1e-10, maxiter=20000)
    assert info.converged
    for sol in (x, xs):
        if flag == 0 or sol is x:
            assert np.linalg.norm(sol - x_ref) <= cond * 1e-9 * np.linalg.norm(x_ref) + 1e-12


@pytest.mark.parametrize("precision,mixed", [("single", None), ("mixed", "ir"),
                                             ("mixed", "inner-outer"), ("mixed", "reliable")])
def test_precisions(precision, mixed):
    A, b, _, _ = problem("nos4.mtx")
    x, info = kryl.solve(A, b, method="pcg", precond="jacobi", precision=precision, mixed=mixed,
                         rtol=1e-5 if precision == "single" else 1e-10, maxit=5000)
    assert info.precision == precision
    if mixed:
        assert info.mixed == mixed
    if info.converged:
        assert true_relres(A, x, b) <= info.rtol * (1 + 1e-6)


@pytest.mark.parametrize("fmt", ["csr", "ell", "ellr", "jds", "pjds", "sell", "bcsr2", "bcsr4",
                                 "dia", "auto"])
def test_formats(fmt):
    A, b, _, _ = problem("494_bus.mtx")
    try:
        x, info = kryl.solve(A, b, method="pcg", precond="jacobi", format=fmt, maxit=5000)
    except kryl.FormatUnsuitableError as e:
        assert str(e).startswith(fmt)
        return
    assert info.converged and true_relres(A, x, b) <= 1e-8 * (1 + 1e-6)
    assert info.format_requested == fmt
    assert info.format != "auto"
