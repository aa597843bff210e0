"""CuPy inputs on the GPU (skipped without CuPy or a GPU): a cupyx CSR
matrix and CuPy right-hand sides, x returned as a CuPy array."""

import numpy as np
import pytest
from test_inputs import A0, B0, convection

import kryl

cp = pytest.importorskip("cupy")
cpsp = pytest.importorskip("cupyx.scipy.sparse")
try:
    if cp.cuda.runtime.getDeviceCount() < 1:
        pytest.skip("no GPU", allow_module_level=True)
except Exception as e:  # no driver
    pytest.skip(f"no GPU: {e}", allow_module_level=True)


def test_cupy_matrix_and_rhs():
    A = cpsp.csr_matrix(A0)
    b = cp.asarray(B0)
    x, info = kryl.solve(A, b, method="pcg", backend="cuda")
    assert isinstance(x, cp.ndarray)
    assert info.backend == "cuda" and info.converged
    r = cp.linalg.norm(b - A @ x) / cp.linalg.norm(b)
    assert float(r) <= 1e-8


def test_cupy_several_rhs_and_solver():
    A = cpsp.csr_matrix(A0)
    B = cp.stack([cp.asarray(B0), cp.ones(A.shape[0])], axis=1)
    with kryl.Solver(A, method="pcg", precond="ic0", backend="cuda") as s:
        X, infos = s.solve(B)
        assert isinstance(X, cp.ndarray) and X.shape == B.shape
        assert all(i.converged for i in infos)
        z = s.apply_preconditioner(cp.asarray(B0))
        assert isinstance(z, cp.ndarray) and bool(cp.isfinite(z).all())


def test_numpy_on_cuda_matches_cpu():
    x_gpu, i_gpu = kryl.solve(A0, B0, method="cg", backend="cuda")
    x_cpu, i_cpu = kryl.solve(A0, B0, method="cg", backend="ref")
    assert np.allclose(x_gpu, x_cpu, rtol=1e-6, atol=1e-8)


def test_cupy_stays_on_device_and_checks_values():
    A = cpsp.csr_matrix(A0)
    with kryl.Solver(A, method="pcg", backend="cuda") as s:
        b = cp.asarray(B0)
        x, info = s.solve(b, x0=cp.zeros_like(b))
        assert isinstance(x, cp.ndarray) and x.device.id == b.device.id and info.converged
        x2, _ = s.solve(B0)
        assert np.allclose(cp.asnumpy(x), x2, rtol=0, atol=0)
        z_device = s.apply_preconditioner(b)
        z_host = s.apply_preconditioner(B0)
        assert np.array_equal(cp.asnumpy(z_device), z_host)
        bad = b.copy()
        bad[7] = cp.nan
        with pytest.raises(kryl.InvalidValueError, match="b: .*entry 7"):
            s.solve(bad)
        with pytest.raises(kryl.DimensionMismatchError):
            s.solve(b[:-1])
        x3, _ = s.solve(b[::-1][::-1])  # a strided view
        assert cp.allclose(x3, x)


def test_cupy_matrix_stays_on_the_device():
    A = cpsp.csr_matrix(A0)
    b = cp.asarray(B0)
    with kryl.Solver(A, method="gmres", precond="none", backend="cuda") as s:
        assert s.matrix.name == "cupy" and s.matrix.host_copy == "none"
        x, info = s.solve(b)
        assert info.converged and info.host_copy == "none" and isinstance(x, cp.ndarray)
        r = cp.linalg.norm(b - A @ x) / cp.linalg.norm(b)
        assert float(r) <= 1e-8
    # the CG methods check symmetry and the diagonal on the device, and Jacobi
    # inverts the diagonal there: no host copy either
    for method, precond in [("cg", "none"), ("pcg", "jacobi"), ("pipecg", "jacobi"),
                            ("bicgstab", "jacobi"), ("gmres", "jacobi")]:
        with kryl.Solver(A, method=method, precond=precond, backend="cuda") as s:
            x, info = s.solve(b)
            assert info.converged and info.host_copy == "none", (method, info.host_copy)
            assert info.asymmetry == 0.0
            assert s.matrix.host_copy == "none"
    # a preconditioner factored on the host makes the copy, and says so
    x, info = kryl.solve(A, b, method="pcg", precond="ic0", backend="cuda")
    assert info.converged and "ic0" in info.host_copy


def test_cupy_matrix_refused_on_the_device():
    """A nonsymmetric matrix for CG, a zero diagonal for Jacobi: refused by the
    checks on the device, naming what they found, with no host copy made."""
    A = cpsp.csr_matrix(convection())
    M = kryl.Matrix.from_scipy(A, backend="cuda")
    assert M.asymmetry > 0 and not M.is_symmetric() and M.host_copy == "none"
    with pytest.raises(kryl.NotSymmetricError, match="not symmetric"):
        kryl.Solver(M, method="cg")
    zero = A0.tolil()
    zero[3, 3] = 0.0
    Z = cpsp.csr_matrix(zero.tocsr())
    with pytest.raises(kryl.ZeroDiagonalError, match="row 3"):
        kryl.Solver(Z, method="gmres", precond="jacobi", backend="cuda")
    assert M.host_copy == "none"


def test_cupy_matrix_checked_on_the_device():
    coo = cpsp.coo_matrix(A0)  # unsorted and repeated entries are summed on the device
    twice = cpsp.coo_matrix((cp.concatenate([coo.data, coo.data]),
                             (cp.concatenate([coo.row, coo.row]), cp.concatenate([coo.col, coo.col]))),
                            shape=coo.shape)
    M = kryl.Matrix.from_scipy(twice, backend="cuda")
    assert M.nnz == A0.nnz and M.host_copy == "none"
    assert np.allclose(M.to_scipy().toarray(), 2 * A0.toarray())  # to_scipy makes the copy
    bad = cpsp.csr_matrix(A0)
    bad.data[bad.indptr[3]] = cp.nan
    with pytest.raises(kryl.InvalidValueError, match="row 3"):
        kryl.Matrix.from_scipy(bad, backend="cuda")


def test_cupy_new_values_stay_on_the_device():
    A = cpsp.csr_matrix(A0)
    with kryl.Solver(A, method="pcg", precond="jacobi", backend="cuda") as s:
        s.matrix.update_values(2.0 * A.data)
        s.update_values(2.0 * A)  # the same values through the host path
        x_host, _ = s.solve(B0)
        s.matrix.update_values(cp.asarray(2.0 * A.data))
        x_device, info = s.solve(B0)
        assert info.converged and np.array_equal(x_device, x_host)
        assert np.allclose(s.matrix.to_scipy().data, 2.0 * cp.asnumpy(A.data), rtol=0, atol=0)
