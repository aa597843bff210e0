"""kryl: preconditioned Krylov solvers for large sparse linear systems A x = b,
on NVIDIA GPUs (cuda), the cores of a CPU (omp) and a serial reference (ref).

    x, info = kryl.solve(A, b, method="pcg", precond="ic0", rtol=1e-10)

A is any scipy.sparse matrix (or a cupyx.scipy.sparse one, or a
kryl.Matrix); info carries what ``kryl solve --json`` prints.  See
help(kryl.solve) for the options, kryl.Solver to keep the setup across
solves, kryl.Preconditioner / kryl.aslinearoperator to use kryl inside
scipy.sparse.linalg, and docs/PYTHON.md.
"""

from ._lib import LIBRARY_PATH
from .errors import (
    BackendUnavailableError,
    ContextMismatchError,
    DeviceError,
    DeviceMemoryError,
    DimensionMismatchError,
    FormatUnsuitableError,
    IndexOutOfRangeError,
    IndexOverflowError,
    InternalError,
    InvalidArgumentError,
    InvalidValueError,
    KrylError,
    KrylIOError,
    KrylMemoryError,
    NotPositiveDefiniteError,
    NotSquareError,
    NotSymmetricError,
    ParseError,
    UnsupportedError,
    ZeroDiagonalError,
)
from .info import SolveInfo
from .interop import KrylOperator, Preconditioner, aslinearoperator, spy
from .matrix import Matrix, backend_available
from .options import method_auto_available
from .solver import Solver, solve

__version__ = "0.1.0"

__all__ = [
    "solve",
    "Solver",
    "Matrix",
    "SolveInfo",
    "Preconditioner",
    "KrylOperator",
    "aslinearoperator",
    "spy",
    "backend_available",
    "method_auto_available",
    "LIBRARY_PATH",
    "KrylError",
    "InvalidArgumentError",
    "DimensionMismatchError",
    "ContextMismatchError",
    "UnsupportedError",
    "BackendUnavailableError",
    "KrylIOError",
    "ParseError",
    "NotSquareError",
    "NotSymmetricError",
    "ZeroDiagonalError",
    "NotPositiveDefiniteError",
    "IndexOverflowError",
    "InvalidValueError",
    "IndexOutOfRangeError",
    "FormatUnsuitableError",
    "KrylMemoryError",
    "DeviceMemoryError",
    "DeviceError",
    "InternalError",
]
