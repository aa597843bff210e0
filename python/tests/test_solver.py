"""kryl.Solver across solves, SolveInfo's fields, and the interop objects
inside scipy.sparse.linalg."""

import json

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from conftest import read_matrix, true_relres
from test_inputs import A0, B0, N, convection

import kryl

# kryl solve --json's fields (tools/kryl/solve_report.c), all in SolveInfo
CLI_JSON_FIELDS = """matrix n ncols nnz asymmetry symmetry_tol method precond precond_info restart orthog degree fill
droptol maxfill blocks partition block_factor sweeps omega backend device deterministic precision mixed
inner_its inner_rtol format format_requested format_reason order tune rtol atol dtol maxit
iterations relres relres_recursive relres_last best_iteration orthog_fallback resnorm bnorm
residual_replacements inner_iterations reason converged
time_s read_s setup_s solve_s context_s time_per_iteration_s setup_phases""".split()


def test_info_has_every_cli_field():
    x, info = kryl.solve(A0, B0, method="pcg", profile=True)
    d = json.loads(info.to_json())
    for field in CLI_JSON_FIELDS:
        assert field in d, field
    assert set(d["profile"]) == {"spmv_s", "precond_s", "vector_s", "reduction_s", "transfer_s",
                                 "iteration_s"}
    assert d["precond"] == "jacobi" and d["method"] == "pcg" and d["backend"] in ("omp", "ref",
                                                                                  "cuda")
    assert len(d["history"]) == info.iterations + 1
    assert info.history[0] == pytest.approx(np.linalg.norm(B0))
    assert str(info).startswith("pcg")


def test_solver_reuse():
    with kryl.Solver(A0, method="pcg", precond="ic0") as s:
        x1, i1 = s.solve(B0)
        x2, i2 = s.solve(2 * B0)
        assert i1.converged and i2.converged
        assert np.allclose(x2, 2 * x1, rtol=1e-7)
        assert i1.setup_s == i2.setup_s
        assert i1.precond == "ic0" and "ic0" in i1.precond_info
    with pytest.raises(kryl.InvalidArgumentError, match="closed"):
        s.solve(B0)


@pytest.mark.parametrize("method, precond", [("pcg", "jacobi"), ("pcg", "ic0"), ("gmres", "ilut"),
                                             ("pcg", "bjacobi"), ("pcg", "lspoly")])
def test_update_values(method, precond):
    """New values on the same pattern: the solve equals a fresh solver's."""
    A2 = A0 * 1.5 + sp.diags(np.linspace(0.1, 1.0, N))
    fresh_x, fresh = kryl.solve(A2, B0, method=method, precond=precond, rtol=1e-10)
    with kryl.Solver(A0, method=method, precond=precond, rtol=1e-10) as s:
        s.solve(B0)
        s.update_values(A2)
        x, info = s.solve(B0)
        assert info.converged and info.iterations == fresh.iterations
        assert np.allclose(x, fresh_x, rtol=1e-12, atol=1e-14)
        assert true_relres(A2, x, B0) <= 1e-10
        s.update_values(sp.csr_matrix(A0).data)  # back, as a value array
        x0, info0 = s.solve(B0)
        assert true_relres(A0, x0, B0) <= 1e-10


def test_update_values_refusals():
    with kryl.Solver(A0, method="cg") as s:
        with pytest.raises(kryl.DimensionMismatchError):
            s.update_values(np.ones(A0.nnz - 1))
        bad = A0.data.copy()
        bad[3] = np.nan
        with pytest.raises(kryl.InvalidValueError, match="values"):
            s.update_values(bad)
        with pytest.raises(kryl.InvalidArgumentError, match="pattern"):
            s.update_values(A0 + sp.eye(N, k=5))
        with pytest.raises(kryl.NotPositiveDefiniteError):
            s.update_values(-A0)


def test_method_default():
    x, info = kryl.solve(A0, B0)
    assert info.converged
    assert info.method_requested == ("auto" if kryl.method_auto_available() else "cg")
    if kryl.method_auto_available():
        # A0 is symmetric with a positive diagonal: auto runs PCG
        assert info.method == "pcg" and info.precond != "none"
        assert "symmetric" in info.choice


def test_apply_preconditioner_jacobi():
    with kryl.Solver(A0, method="pcg", precond="jacobi") as s:
        r = np.linspace(1, 2, N)
        assert np.allclose(s.apply_preconditioner(r), r / A0.diagonal(), rtol=1e-15)


def test_preconditioner_in_scipy_cg():
    A = read_matrix("bcsstk06.mtx")
    b = A @ np.ones(A.shape[0])
    counts = {}
    for name in ("none", "mic0"):
        M = None if name == "none" else kryl.Preconditioner(A, precond=name)
        iterations = []
        x, flag = spla.cg(A, b, rtol=1e-8, maxiter=20000, M=M,
                          callback=lambda xk: iterations.append(1))
        assert flag == 0 and true_relres(A, x, b) <= 1e-7
        counts[name] = len(iterations)
    assert counts["mic0"] < counts["none"] / 2


def test_preconditioner_in_scipy_gmres():
    A = read_matrix("sherman4.mtx")
    b = A @ np.ones(A.shape[0])
    M = kryl.Preconditioner(A, precond="ilu0")
    x, flag = spla.gmres(A, b, rtol=1e-10, M=M, restart=40, maxiter=200)
    assert flag == 0 and true_relres(A, x, b) <= 1e-9
    M.close()


def test_solver_aspreconditioner_and_operator():
    with kryl.Solver(A0, method="pcg", precond="ic0") as s:
        M = s.aspreconditioner()
        op = kryl.aslinearoperator(A0)
        v = np.linspace(-1, 1, N)
        assert np.allclose(op @ v, A0 @ v, rtol=1e-14)
        x, flag = spla.cg(op, B0, M=M, rtol=1e-10)
        assert flag == 0 and true_relres(A0, x, B0) <= 1e-9


def test_operator_nonsymmetric_in_gmres():
    A = convection()
    b = A @ np.ones(A.shape[0])
    op = kryl.aslinearoperator(kryl.Matrix.from_scipy(A))
    x, flag = spla.gmres(op, b, rtol=1e-10, restart=50)
    assert flag == 0 and true_relres(A, x, b) <= 1e-9
    assert np.allclose(op.rmatvec(b), A.T @ b)


def test_plot_and_spy(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x, info = kryl.solve(A0, B0, method="pcg")
    fig, (a1, a2) = plt.subplots(1, 2)
    info.plot(ax=a1)
    kryl.spy(kryl.Matrix.from_scipy(A0), ax=a2)
    fig.savefig(tmp_path / "history.png")
    assert (tmp_path / "history.png").stat().st_size > 0
    plt.close(fig)


def test_help_reads_like_the_cli():
    doc = kryl.solve.__doc__
    for option in ("method", "precond", "rtol", "atol", "maxit", "restart", "format", "order",
                   "precision", "mixed", "backend", "threads", "inner_rtol", "block_factor"):
        assert f"\n  {option}" in doc, option
    for f in (kryl.solve, kryl.Solver.solve, kryl.Matrix.from_scipy, kryl.Matrix.to_scipy,
              kryl.aslinearoperator, kryl.spy, kryl.SolveInfo.plot):
        assert f.__doc__ and f.__annotations__, f


def test_deterministic_across_threads():
    """On omp, x and the history have the same bits on 1, 2 and 3 threads."""
    if not kryl.backend_available("omp"):
        pytest.skip("no omp backend")
    A = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(5000, 5000), format="csr")
    b = np.sin(np.arange(5000.0))
    runs = [kryl.solve(A, b, method="pcg", backend="omp", threads=t, deterministic=True,
                       maxit=200) for t in (1, 2, 3)]
    for x, info in runs[1:]:
        assert info.deterministic
        assert np.array_equal(x, runs[0][0])
        assert np.array_equal(np.asarray(info.history), np.asarray(runs[0][1].history))


def test_backends():
    for name in ("ref", "omp"):
        if not kryl.backend_available(name):
            continue
        x, info = kryl.solve(A0, B0, method="cg", backend=name)
        assert info.backend == name and info.converged


def test_amg_options_and_nullspace():
    """AMG through kryl.solve: its options reach the library and come back in info."""
    x, info = kryl.solve(A0, B0, method="pcg", precond="amg", amg_smoother="jacobi",
                         amg_cycle="w", amg_coarse_size=20, amg_sweeps=2,
                         nullspace=np.ones(N), rtol=1e-10)
    assert info.converged and true_relres(A0, x, B0) <= 1e-10
    assert (info.amg_smoother, info.amg_cycle, info.amg_coarse_size) == ("jacobi", "w", 20)
    assert info.amg_nullspace_vectors == 1 and "amg_cycle" in info.as_dict()
    _, plain = kryl.solve(A0, B0, method="pcg")
    assert plain.amg_cycle is None and "amg_cycle" not in plain.as_dict()
    with pytest.raises(kryl.InvalidArgumentError, match="chebyshev"):
        kryl.solve(A0, B0, method="pcg", precond="amg", amg_smoother="sor")
