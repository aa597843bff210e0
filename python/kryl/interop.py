"""kryl inside SciPy: the matrix as a LinearOperator (kryl's SpMV), kryl's
preconditioners as the ``M=`` of scipy.sparse.linalg solvers, and a
sparsity picture."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.sparse.linalg import LinearOperator

from ._lib import lib
from .errors import check
from .matrix import Matrix, Vector, as_matrix, host_vector
from .options import PLACEMENT
from .solver import Solver


class KrylOperator(LinearOperator):
    """y = A x by kryl's SpMV on its backend, as a scipy LinearOperator."""

    def __init__(self, A: Matrix) -> None:
        super().__init__(dtype=np.float64, shape=A.shape)
        if A.shape[0] != A.shape[1]:
            from .errors import NotSquareError

            raise NotSquareError(f"A is {A.shape[0]} x {A.shape[1]}; the operator needs it square")
        self.matrix = A
        self._x = Vector(A)
        self._y = Vector(A)

    def _matvec(self, x: np.ndarray) -> np.ndarray:
        n = self.shape[0]
        self._x.set(host_vector(np.ravel(x), n, "x"), "x")
        # y = 1 A x + 0 y
        check(lib.kryl_matrix_spmv(self.matrix.handle, 1.0, self._x.handle, 0.0, self._y.handle))
        return self._y.get(np.empty(n))

    def _rmatvec(self, x: np.ndarray) -> np.ndarray:
        return self.matrix.to_scipy().T @ x


def aslinearoperator(A: Any, backend: str = "auto", device: int = 0, threads: int = 0) -> LinearOperator:
    """A (scipy.sparse, cupyx.scipy.sparse, kryl.Matrix) as a scipy LinearOperator
    whose matvec is kryl's SpMV on `backend` (square A)."""
    return KrylOperator(as_matrix(A, backend, device, threads))


class Preconditioner(LinearOperator):
    """kryl's preconditioner M as a scipy LinearOperator computing M^{-1} r:
    pass it as ``M=`` to scipy.sparse.linalg.cg, gmres, bicgstab, minres...

    ``Preconditioner(A, precond="ilu0", **options)`` builds it for A (the
    options of :func:`kryl.solve`: degree, fill, droptol, blocks, sweeps,
    format, precision, backend...); ``Solver.aspreconditioner()`` wraps an
    existing solver's.  The method only decides what the library checks
    and builds (CG: symmetric A, IC(0) blocks for bjacobi); by default cg
    for a symmetric A and gmres otherwise.
    """

    def __init__(self, A: Any, precond: str = "jacobi", **options: Any) -> None:
        if isinstance(A, Solver):
            self.solver = A
            self._owns = False
        else:
            placement = {k: options[k] for k in PLACEMENT if k in options}
            matrix = as_matrix(A, **placement)
            if options.get("method") is None:
                tol = options.get("symmetry_tol")
                symmetric = matrix.is_symmetric(1e-12 if tol is None else tol)
                options["method"] = "cg" if symmetric else "gmres"
            # no iterations are run: the smallest workspace
            options.setdefault("restart", 1)
            options.setdefault("maxit", 1)
            options.setdefault("history", False)
            self.solver = Solver(matrix, precond=precond, **options)
            self.solver._owns_matrix = matrix is not A
            self._owns = True
        super().__init__(dtype=np.float64, shape=self.solver.shape)

    def _matvec(self, r: np.ndarray) -> np.ndarray:
        return self.solver.apply_preconditioner(np.ravel(r))

    def close(self) -> None:
        """Free the preconditioner (when it built its own solver)."""
        if self._owns:
            self.solver.close()


def spy(A: Any, ax: Any = None, **kwargs: Any) -> Any:
    """Draw A's sparsity pattern with matplotlib (scipy.sparse, cupyx or
    kryl.Matrix); returns the axes.  Keywords go to ``ax.spy``."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:  # an optional dependency
        raise ImportError("kryl.spy() needs matplotlib: pip install matplotlib") from e
    if isinstance(A, Matrix):
        A = A.to_scipy()
    elif type(A).__module__.startswith("cupyx"):
        A = A.get()
    if ax is None:
        ax = plt.gca()
    kwargs.setdefault("markersize", max(0.05, min(2.0, 300.0 / max(A.shape))))
    ax.spy(A, **kwargs)
    ax.set_title(f"{A.shape[0]} x {A.shape[1]}, {A.nnz} nonzeros")
    return ax


__all__ = ["aslinearoperator", "KrylOperator", "Preconditioner", "spy"]
