"""Conversions of A, b and x0 (formats, index and value types, shapes), and
bad input raising the right exception with the library's message."""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import true_relres

import kryl


def laplacian(n=12):
    """The 2-D 5-point Laplacian on n x n points (SPD), as CSR."""
    t = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
    return sp.csr_matrix(sp.kronsum(t, t))


def convection(n=40):
    """A nonsymmetric tridiagonal matrix."""
    return sp.csr_matrix(sp.diags([-1.3, 2.5, -0.7], [-1, 0, 1], shape=(n, n)))


A0 = laplacian()
N = A0.shape[0]
B0 = A0 @ np.linspace(-1, 1, N)


@pytest.mark.parametrize("convert", [
    lambda A: A.tocoo(), lambda A: A.tocsc(), lambda A: A.tolil(), lambda A: A.todok(),
    lambda A: A.tobsr(), lambda A: sp.csr_array(A), lambda A: sp.coo_array(A),
    lambda A: A.astype(np.float32), lambda A: A.astype(np.int64) * 1,
], ids=["coo", "csc", "lil", "dok", "bsr", "csr_array", "coo_array", "float32", "int64 values"])
def test_matrix_kinds(convert):
    A = convert(A0)
    x, info = kryl.solve(A, B0, method="cg")
    assert info.converged and true_relres(A0, x, B0) <= 1e-8


def test_index_types_and_unsorted_duplicates():
    A = A0.copy()
    A.indices = A.indices.astype(np.int64)
    A.indptr = A.indptr.astype(np.int64)
    x, info = kryl.solve(A, B0, method="cg")
    assert info.converged
    # COO with every entry split in two halves, shuffled: duplicates are summed
    C = A0.tocoo()
    rng = np.random.default_rng(3)
    order = rng.permutation(2 * C.nnz)
    rows = np.concatenate([C.row, C.row])[order]
    cols = np.concatenate([C.col, C.col])[order]
    vals = np.concatenate([C.data / 2, C.data / 2])[order]
    D = sp.coo_matrix((vals, (rows, cols)), shape=C.shape)
    x2, info2 = kryl.solve(D, B0, method="cg")
    assert info2.nnz == A0.nnz
    assert np.allclose(x, x2, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("backend", ["ref", "omp"])
def test_arrays_in_place_and_unsorted_csr(backend):
    # int32 columns and float64 values are read where they are
    M = kryl.Matrix.from_scipy(A0, backend=backend)
    assert M.host_copy == "given" and 0 <= M.library_s <= M.read_s
    assert (abs(M.to_scipy() - A0)).max() == 0
    # a CSR matrix with unsorted columns and a repeated entry: sorted and summed
    U = A0.copy()
    U.indices[U.indptr[4]:U.indptr[5]] = U.indices[U.indptr[4]:U.indptr[5]][::-1].copy()
    U.data[U.indptr[4]:U.indptr[5]] = U.data[U.indptr[4]:U.indptr[5]][::-1].copy()
    U.has_sorted_indices = False
    end = A0.indptr[1]  # entry (0, 0) given a second time at the end of row 0
    R = sp.csr_matrix((np.insert(A0.data, end, 1.0), np.insert(A0.indices, end, 0),
                       np.r_[A0.indptr[:1], A0.indptr[1:] + 1]), shape=A0.shape)
    expected = A0.copy()
    expected[0, 0] += 1.0
    for A, want in ((U, A0), (R, expected)):
        back = kryl.Matrix.from_scipy(A, backend=backend).to_scipy()
        assert (abs(back - want)).max() == 0


def test_matrix_roundtrip():
    M = kryl.Matrix.from_scipy(A0.tocoo())
    assert M.shape == A0.shape and M.nnz == A0.nnz
    back = M.to_scipy()
    assert (abs(back - A0)).max() == 0
    assert M.is_symmetric()
    x, info = kryl.solve(M, B0, method="cg")
    assert info.converged
    M.close()


def test_rhs_kinds():
    for b in (B0.astype(np.float32), list(B0), B0[::-1].copy()[::-1], np.asfortranarray(B0)):
        x, info = kryl.solve(A0, b, method="cg")
        assert info.converged
        assert true_relres(A0, x, np.asarray(b, dtype=np.float64)) <= 1e-8
        assert x.dtype == np.float64 and x.shape == (N,)


def test_several_rhs_and_x0():
    B = np.stack([B0, 2 * B0, np.ones(N)], axis=1)
    X, infos = kryl.solve(A0, B, method="cg")
    assert X.shape == B.shape and len(infos) == 3
    for j in range(3):
        assert infos[j].converged and true_relres(A0, X[:, j], B[:, j]) <= 1e-8
    # the solution as x0: nothing left to do
    x, info = kryl.solve(A0, B0, method="cg", x0=X[:, 0])
    assert info.converged and info.iterations <= 1
    X2, infos2 = kryl.solve(A0, B, method="cg", x0=X)
    assert all(i.iterations <= 1 for i in infos2)


def test_zero_rhs():
    x, info = kryl.solve(A0, np.zeros(N), method="cg")
    assert info.converged and info.reason == "converged_zero_rhs" and not x.any()


def test_not_converged_is_a_result():
    x, info = kryl.solve(A0, B0, method="cg", maxit=3)
    assert not info.converged and info.reason == "max_iterations" and info.iterations == 3
    assert true_relres(A0, x, B0) < 1.0


def test_non_square():
    A = sp.random(10, 12, density=0.3, format="csr", random_state=1) + sp.eye(10, 12)
    with pytest.raises(kryl.NotSquareError, match="10 x 12") as e:
        kryl.solve(A, np.ones(10))
    assert isinstance(e.value, ValueError) and e.value.status == -22


def test_wrong_rhs_length():
    with pytest.raises(kryl.DimensionMismatchError, match=str(N)):
        kryl.solve(A0, np.ones(N + 1))
    with pytest.raises(kryl.DimensionMismatchError):
        kryl.solve(A0, np.ones((N, 2, 2)))
    with pytest.raises(kryl.DimensionMismatchError):
        kryl.solve(A0, B0, x0=np.ones(N - 1))


def test_nan_in_matrix():
    A = A0.copy()
    A.data[5] = np.nan
    with pytest.raises(kryl.InvalidValueError, match="A"):
        kryl.solve(A, B0)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_in_rhs(bad):
    b = B0.copy()
    b[7] = bad
    with pytest.raises(kryl.InvalidValueError, match="b: .*entry 7"):
        kryl.solve(A0, b)
    with pytest.raises(kryl.InvalidValueError, match="x0"):
        kryl.solve(A0, B0, x0=b)


def test_unknown_names_and_options():
    with pytest.raises(kryl.InvalidArgumentError, match="bicgstab") as e:
        kryl.solve(A0, B0, method="conjugate")
    assert isinstance(e.value, ValueError)
    with pytest.raises(kryl.InvalidArgumentError, match="jacobi"):
        kryl.solve(A0, B0, precond="multigrid")
    with pytest.raises(kryl.InvalidArgumentError):
        kryl.solve(A0, B0, backend="tpu")
    with pytest.raises(TypeError, match="tolerance"):
        kryl.solve(A0, B0, tolerance=1e-3)
    with pytest.raises(kryl.InvalidArgumentError, match="omega"):
        kryl.solve(A0, B0, precond="mcssor", omega=3.0)


def test_nonsymmetric_needs_gmres():
    A = convection()
    b = A @ np.ones(A.shape[0])
    with pytest.raises(kryl.NotSymmetricError, match="gmres"):
        kryl.solve(A, b, method="cg")
    x, info = kryl.solve(A, b, method="gmres", precond="ilu0")
    assert info.converged and true_relres(A, x, b) <= 1e-8


def test_not_a_matrix():
    with pytest.raises(kryl.InvalidArgumentError, match="scipy.sparse"):
        kryl.solve(A0.toarray(), B0)
    with pytest.raises(kryl.UnsupportedError, match="complex"):
        kryl.solve(A0.astype(np.complex128), B0)
    with pytest.raises(kryl.UnsupportedError, match="complex"):
        kryl.solve(A0, B0.astype(np.complex128))


def test_file_errors(tmp_path):
    with pytest.raises(kryl.KrylIOError) as e:
        kryl.Matrix.from_file(tmp_path / "missing.mtx")
    assert isinstance(e.value, OSError)
    bad = tmp_path / "bad.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1\n")
    with pytest.raises(kryl.ParseError, match="bad.mtx"):
        kryl.Matrix.from_file(bad)
