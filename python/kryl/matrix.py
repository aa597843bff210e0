"""Contexts (a backend and its device) and kryl matrices."""

from __future__ import annotations

import ctypes
import os
import time
from typing import Any

import numpy as np

from . import _lib
from ._lib import Handle, lib
from .errors import InvalidArgumentError, UnsupportedError, check, raise_error


def enum_from_name(kind: str, name: str) -> int:
    """The enum value of `name` for `kind` ("method", "precond", "format", ...).

    Raises InvalidArgumentError with the library's list of valid names.
    """
    value = ctypes.c_int()
    check(getattr(lib, f"kryl_{kind}_from_name")(str(name).encode(), ctypes.byref(value)), kind)
    return value.value


def enum_name(kind: str, value: int) -> str:
    """The name of an enum value ("cg", "jacobi", "csr", ...)."""
    return _lib.text(getattr(lib, f"kryl_{kind}_name")(value))


class Context:
    """A kryl context: the backend (ref, omp or cuda), its device and threads,
    and whether it is deterministic (the same bits from run to run; on omp
    for any thread count, flag or not: docs/RELIABILITY.md).

    Contexts are shared: :func:`get_context` returns one per (backend,
    device, threads, deterministic), created on first use.
    """

    def __init__(self, backend: str = "auto", device: int = 0, threads: int = 0,
                 deterministic: bool = False) -> None:
        options = _lib.ContextOptions()
        lib.kryl_context_options_init(ctypes.byref(options))
        options.backend = enum_from_name("backend", backend)
        options.device = int(device)
        options.threads = int(threads)
        options.deterministic = bool(deterministic)
        #: the CUDA device ordinal (cuda backend)
        self.device = int(device)
        #: whether setup makes no choice by timing (kryl_context_options.deterministic)
        self.deterministic = bool(deterministic)
        self._handle = Handle()
        t0 = time.perf_counter()
        check(lib.kryl_context_create(ctypes.byref(self._handle), ctypes.byref(options)), "backend")
        #: seconds the backend took to start
        self.create_s: float = time.perf_counter() - t0

    @property
    def handle(self) -> Handle:
        return self._handle

    @property
    def backend(self) -> str:
        """The backend the context resolved to ("ref", "omp" or "cuda")."""
        return enum_name("backend", lib.kryl_context_backend(self._handle))

    @property
    def device_name(self) -> str:
        """One line on the device ("NVIDIA H100 ..., 132 SMs" or "2 OpenMP threads")."""
        return _lib.text(lib.kryl_context_device_name(self._handle))

    def __del__(self) -> None:
        if getattr(self, "_handle", None) and lib is not None:
            lib.kryl_context_destroy(ctypes.byref(self._handle))


_contexts: dict[tuple[int, int, int, bool], Context] = {}


def get_context(backend: str = "auto", device: int = 0, threads: int = 0,
                deterministic: bool = False) -> Context:
    """The shared context of (backend, device, threads, deterministic), created on first use."""
    key = (enum_from_name("backend", backend), int(device), int(threads), bool(deterministic))
    ctx = _contexts.get(key)
    if ctx is None:
        ctx = Context(backend, device, threads, deterministic)
        _contexts[key] = ctx
    return ctx


def backend_available(backend: str) -> bool:
    """Whether `backend` ("ref", "omp", "cuda") is compiled in and usable here."""
    return bool(lib.kryl_backend_available(enum_from_name("backend", backend)))


def is_cupy(obj: Any) -> bool:
    """Whether obj is a CuPy array or a cupyx.scipy.sparse matrix."""
    return type(obj).__module__.split(".")[0] in ("cupy", "cupyx")


def _canonical_csr(A: Any) -> Any:
    """A SciPy or cupyx sparse matrix as a CSR one of the same library, with
    sorted columns and duplicates summed (the order kryl stores and
    update_values takes), converted where A is."""
    if A.ndim != 2:
        raise InvalidArgumentError(f"A: expected a 2-D matrix, got {A.ndim} dimensions")
    if A.dtype.kind == "c":
        raise UnsupportedError(f"A: kryl solves real systems; A has dtype {A.dtype}")
    csr = A.tocsr()
    if not csr.has_canonical_format:
        csr = csr.copy()
        csr.sum_duplicates()
    return csr


def _as_scipy_csr(A: Any) -> Any:
    """A as a SciPy CSR matrix, converted once (CuPy matrices copied to the host)."""
    import scipy.sparse as sp

    if is_cupy(A):
        A = A.get()
    if not sp.issparse(A):
        raise InvalidArgumentError(
            f"A: expected a scipy.sparse or cupyx.scipy.sparse matrix or a kryl.Matrix, "
            f"got {type(A).__name__}",
        )
    return _canonical_csr(A)


def _create_on_host(handle: Handle, ctx: Context, csr: Any) -> float:
    """kryl's matrix from a canonical SciPy CSR matrix; returns libkryl's seconds.

    Arrays already of the library's layout (int32 columns, float64 values,
    contiguous) are read where they are; only int32 row offsets are widened.
    """
    nrows, ncols = csr.shape
    indptr = np.ascontiguousarray(csr.indptr, dtype=np.int64)
    data = np.ascontiguousarray(csr.data, dtype=np.float64)
    with_32bit_columns = (csr.indices.dtype == np.int32 and ctx.backend != "cuda")
    indices = np.ascontiguousarray(csr.indices, dtype=np.int32 if with_32bit_columns else np.int64)
    t0 = time.perf_counter()
    if with_32bit_columns:
        # the backend addresses host memory: kryl_matrix_create_csr_device takes it as it is
        status = lib.kryl_matrix_create_csr_device(
            ctypes.byref(handle), ctx.handle, nrows, ncols, csr.nnz,
            indptr.ctypes.data, indices.ctypes.data, data.ctypes.data)
    else:
        status = lib.kryl_matrix_create_csr(
            ctypes.byref(handle), ctx.handle, nrows, ncols, 0, nrows,
            indptr.ctypes.data, indices.ctypes.data, data.ctypes.data)
    library_s = time.perf_counter() - t0
    check(status, "A")
    return library_s


def _create_on_device(handle: Handle, ctx: Context, A: Any) -> float:
    """kryl's matrix from a cupyx.scipy.sparse matrix on the cuda backend's GPU,
    without a pass through the host; returns libkryl's seconds."""
    import cupy

    with cupy.cuda.Device(ctx.device):
        csr = _canonical_csr(A)
        indptr = cupy.ascontiguousarray(csr.indptr, dtype=cupy.int64)
        indices = cupy.ascontiguousarray(csr.indices, dtype=cupy.int32)
        data = cupy.ascontiguousarray(csr.data, dtype=cupy.float64)
        cupy.cuda.get_current_stream().synchronize()  # the arrays are written
    nrows, ncols = csr.shape
    t0 = time.perf_counter()
    status = lib.kryl_matrix_create_csr_device(
        ctypes.byref(handle), ctx.handle, nrows, ncols, int(data.size),
        indptr.data.ptr, indices.data.ptr, data.data.ptr)
    library_s = time.perf_counter() - t0
    check(status, "A")
    return library_s


class Closeable:
    """close() when a with block is left and when the object is collected."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


class Matrix(Closeable):
    """A sparse matrix held by kryl (a host CSR copy, and the backend's copy).

    Make one with :meth:`from_scipy`, :meth:`from_file` or
    :meth:`generate`; it may be passed to :func:`kryl.solve`,
    :class:`kryl.Solver` and :func:`kryl.aslinearoperator` in place of a
    SciPy matrix, which saves the conversion on every call.
    """

    def __init__(self, handle: Handle, context: Context, read_s: float = 0.0, name: str = "") -> None:
        self._handle = handle
        #: the context the matrix lives in (kept alive as long as the matrix)
        self.context = context
        #: seconds spent reading or converting the matrix into kryl
        self.read_s = read_s
        #: where it came from (a file name, "scipy", "poisson3d n=100")
        self.name = name
        n, m, nnz = ctypes.c_int64(), ctypes.c_int64(), ctypes.c_int64()
        check(lib.kryl_matrix_size(handle, ctypes.byref(n), ctypes.byref(m), ctypes.byref(nnz)))
        self.shape: tuple[int, int] = (n.value, m.value)
        self.nnz: int = nnz.value
        self.dtype = np.dtype(np.float64)
        self.ndim = 2
        #: of read_s, the seconds libkryl took (from_scipy; read_s otherwise)
        self.library_s = read_s

    @classmethod
    def from_scipy(cls, A: Any, backend: str = "auto", device: int = 0, threads: int = 0,
                   deterministic: bool = False) -> "Matrix":
        """A kryl matrix from any scipy.sparse matrix or array (or a cupyx one).

        A is converted to CSR once (sorted columns, duplicates summed), its
        values to float64 (the library's input precision:
        ``precision="single"`` chooses the iteration's); int32 columns and
        float64 values already contiguous are read where they are.  A
        cupyx.scipy.sparse matrix on the cuda backend stays on the GPU: it is
        checked and copied there, and kryl makes a host copy only for a
        host-side step (see :attr:`host_copy`).  Raises InvalidValueError for
        NaN or Inf values.
        """
        ctx = get_context(backend, device, threads, deterministic)
        t0 = time.perf_counter()
        handle = Handle()
        if is_cupy(A) and ctx.backend == "cuda":
            library_s = _create_on_device(handle, ctx, A)
            name = "cupy"
        else:
            library_s = _create_on_host(handle, ctx, _as_scipy_csr(A))
            name = "scipy"
        M = cls(handle, ctx, time.perf_counter() - t0, name)
        #: of read_s, the seconds libkryl took (the rest is Python's conversion)
        M.library_s = library_s
        return M

    @classmethod
    def from_file(cls, path: str | os.PathLike, backend: str = "auto", device: int = 0,
                  threads: int = 0, deterministic: bool = False) -> "Matrix":
        """Read a Matrix Market file (.mtx or .mtx.gz), as ``kryl solve A.mtx`` does."""
        ctx = get_context(backend, device, threads, deterministic)
        t0 = time.perf_counter()
        handle = Handle()
        check(lib.kryl_matrix_read_mtx(ctypes.byref(handle), ctx.handle, os.fsencode(path)))
        return cls(handle, ctx, time.perf_counter() - t0, os.fspath(path))

    @classmethod
    def generate(cls, kind: str, n: int, backend: str = "auto", device: int = 0,
                 threads: int = 0, deterministic: bool = False) -> "Matrix":
        """A generated test matrix, as ``kryl gen KIND --n N``: any kind ``kryl gen``
        takes (poisson2d, poisson3d, convdiff3d, random-spd, rgg, ...; an unknown
        name raises InvalidArgumentError listing them); n points per direction
        (random kinds: n rows)."""
        ctx = get_context(backend, device, threads, deterministic)
        t0 = time.perf_counter()
        options = _lib.GeneratorOptions()
        lib.kryl_generator_options_init(ctypes.byref(options), enum_from_name("generator", kind),
                                        int(n))
        rows, nnz = ctypes.c_int64(), ctypes.c_int64()
        check(lib.kryl_generator_size(ctypes.byref(options), ctypes.byref(rows), ctypes.byref(nnz)))
        handle = Handle()
        check(lib.kryl_matrix_generate(ctypes.byref(handle), ctx.handle, ctypes.byref(options), 0,
                                       rows.value))
        return cls(handle, ctx, time.perf_counter() - t0, f"{kind} n={n}")

    @property
    def handle(self) -> Handle:
        """The libkryl kryl_matrix handle (InvalidArgumentError once closed)."""
        if not self._handle:
            raise InvalidArgumentError("the matrix has been closed")
        return self._handle

    @property
    def backend(self) -> str:
        """The backend the matrix lives on."""
        return self.context.backend

    @property
    def host_copy(self) -> str:
        """Whether kryl holds the matrix on the host too: "given" (it came from
        host data), "none" (a CuPy matrix on the cuda backend that no host-side
        step has needed), or the step that downloaded it ("the symmetry check
        of cg", "the jacobi preconditioner", ...)."""
        has_copy, why = ctypes.c_bool(), ctypes.c_char_p()
        check(lib.kryl_matrix_host_copy(self.handle, ctypes.byref(has_copy), ctypes.byref(why)))
        if not has_copy.value:
            return "none"
        return _lib.text(why.value) or "given"

    def csr_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Copies of the host CSR arrays: row offsets (int64), columns (int32), values."""
        rp = ctypes.POINTER(ctypes.c_int64)()
        ci = ctypes.POINTER(ctypes.c_int32)()
        v = ctypes.POINTER(ctypes.c_double)()
        check(lib.kryl_matrix_csr_view(self.handle, ctypes.byref(rp), ctypes.byref(ci),
                                       ctypes.byref(v)))
        n = self.shape[0]
        indptr = np.ctypeslib.as_array(rp, (n + 1,)).copy()
        nnz = int(indptr[-1])
        if nnz == 0:
            return indptr, np.zeros(0, np.int32), np.zeros(0, np.float64)
        return (indptr, np.ctypeslib.as_array(ci, (nnz,)).copy(),
                np.ctypeslib.as_array(v, (nnz,)).copy())

    def update_values(self, values: Any) -> None:
        """Give the matrix new values on the same sparsity pattern.

        values: a SciPy (or cupyx) matrix with A's pattern, or the nnz values in
        the order of ``to_scipy().data`` (CSR, sorted columns, duplicates summed),
        as a NumPy or CuPy array (on cuda, a CuPy array's values stay on the device).
        Solvers built on the matrix pick them up (:meth:`Solver.update_values`
        does it at once).  Raises InvalidArgumentError for another pattern,
        DimensionMismatchError for a wrong count, InvalidValueError for NaN.
        """
        import scipy.sparse as sp

        if is_cupy(values) and values.ndim == 1 and self.context.backend == "cuda":
            # values stay on the device: the storage takes them there
            data = device_vector(values, self.nnz, "values", self.context.device)
            check(lib.kryl_matrix_update_values_device(self.handle, data.data.ptr), "values")
            return
        if sp.issparse(values) or type(values).__module__.startswith("cupyx"):
            new = _as_scipy_csr(values)
            indptr, indices, _ = self.csr_arrays()
            if (new.shape != self.shape or not np.array_equal(new.indptr, indptr)
                    or not np.array_equal(new.indices, indices)):
                raise InvalidArgumentError(
                    "the new matrix's sparsity pattern differs from A's: update_values keeps "
                    "the pattern; build a new Solver for another one")
            values = new.data
        data = host_vector(values, self.nnz, "values")
        check(lib.kryl_matrix_update_values(self.handle, data.ctypes.data), "values")

    def to_scipy(self) -> Any:
        """The matrix as a scipy.sparse.csr_array (a copy; duplicates summed)."""
        import scipy.sparse as sp

        indptr, indices, data = self.csr_arrays()
        return sp.csr_array((data, indices, indptr), shape=self.shape)

    def is_symmetric(self, tol: float = 1e-12) -> bool:
        """Whether max |a_ij - a_ji| <= tol * max |a_ij| (the library's default
        tolerance 1e-12: symmetric up to rounding; 0: exactly)."""
        out = ctypes.c_bool()
        check(lib.kryl_matrix_is_symmetric(self.handle, float(tol), ctypes.byref(out)))
        return bool(out.value)

    @property
    def asymmetry(self) -> float:
        """max |a_ij - a_ji| / max |a_ij| (0: symmetric, inf: not square)."""
        out = ctypes.c_double()
        check(lib.kryl_matrix_asymmetry(self.handle, ctypes.byref(out)))
        return out.value

    def write(self, path: str | os.PathLike) -> None:
        """Write the matrix as a Matrix Market coordinate file (17 digits: exact)."""
        check(lib.kryl_matrix_write_mtx(self.handle, os.fsencode(path)))

    def close(self) -> None:
        """Free the matrix now (solvers built on it must be closed first)."""
        if getattr(self, "_handle", None):
            lib.kryl_matrix_destroy(ctypes.byref(self._handle))
            self._handle = Handle()

    def __repr__(self) -> str:
        return (f"<kryl.Matrix {self.shape[0]} x {self.shape[1]}, {self.nnz} nonzeros, "
                f"backend {self.backend}>")


def as_matrix(A: Any, backend: str = "auto", device: int = 0, threads: int = 0,
              deterministic: bool = False) -> Matrix:
    """A itself when it is a kryl.Matrix, else Matrix.from_scipy(A)."""
    if isinstance(A, Matrix):
        return A
    return Matrix.from_scipy(A, backend, device, threads, deterministic)


class Vector:
    """A kryl vector laid out like a matrix's rows (double precision): its own
    memory, or with :meth:`wrap` an array's, read and written in place."""

    def __init__(self, A: Matrix, array: Any = None) -> None:
        self.matrix = A
        self.n = A.shape[0]
        self._handle = Handle()
        #: the wrapped array (kept alive as long as the vector)
        self.array = array
        if array is None:
            check(lib.kryl_vector_create(ctypes.byref(self._handle), A.handle, 0))
        else:
            check(lib.kryl_vector_wrap(ctypes.byref(self._handle), A.handle, address(array),
                                       self.n))

    @classmethod
    def wrap(cls, A: Matrix, array: Any) -> "Vector":
        """A vector over a contiguous float64 array of n entries in the memory A's
        backend addresses (NumPy for ref and omp, CuPy on A's GPU for cuda):
        nothing is copied."""
        return cls(A, array)

    @property
    def handle(self) -> Handle:
        return self._handle

    def set(self, values: np.ndarray, what: str) -> None:
        """Copy a float64 contiguous array of n entries in (NaN/Inf refused)."""
        check(lib.kryl_vector_set(self._handle, values.ctypes.data, self.n), what)

    def get(self, out: np.ndarray) -> np.ndarray:
        check(lib.kryl_vector_get(self._handle, out.ctypes.data, self.n))
        return out

    def set_device(self, values: Any) -> None:
        """Copy a contiguous float64 CuPy array of n entries in, on the device."""
        import cupy

        cupy.cuda.get_current_stream().synchronize()  # values are written
        check(lib.kryl_vector_set_device(self._handle, values.data.ptr, self.n))

    def get_device(self) -> Any:
        """The vector as a new CuPy array, copied on the device."""
        import cupy

        with cupy.cuda.Device(self.matrix.context.device):
            out = cupy.empty(self.n, dtype=cupy.float64)
        check(lib.kryl_vector_get_device(self._handle, out.data.ptr, self.n))
        return out

    def fill(self, value: float) -> None:
        check(lib.kryl_vector_fill(self._handle, float(value)))

    def close(self) -> None:
        if getattr(self, "_handle", None):
            lib.kryl_vector_destroy(ctypes.byref(self._handle))
            self._handle = Handle()
        self.array = None

    def __enter__(self) -> "Vector":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


def address(array: Any) -> int:
    """The address of a NumPy or CuPy array's first entry."""
    return array.data.ptr if is_cupy(array) else array.ctypes.data


def device_vector(v: Any, n: int, what: str, device: int) -> Any:
    """v (CuPy, n entries, on GPU `device`) as a contiguous float64 CuPy array,
    checked for NaN and Inf on the device."""
    import cupy

    if v.ndim != 1 or v.shape[0] != n:
        raise_error(-2, f"{what} has shape {v.shape}, but the matrix has {n} rows: expected ({n},)")
    if cupy.iscomplexobj(v):
        raise UnsupportedError(f"{what}: kryl solves real systems; {what} has dtype {v.dtype}")
    if v.device.id != device:
        raise_error(-3, f"{what} is on GPU {v.device.id}, the solver on GPU {device}")
    with cupy.cuda.Device(device):
        a = cupy.ascontiguousarray(v, dtype=cupy.float64)
        bad = ~cupy.isfinite(a)
        if bool(bad.any()):
            i = int(cupy.argmax(bad))
            raise_error(-27, f"{what}: entry {i} is {float(a[i])}")
    return a


def host_vector(v: Any, n: int, what: str) -> np.ndarray:
    """v (NumPy or CuPy, n entries) as a contiguous float64 host array."""
    if is_cupy(v):
        v = v.get()
    a = np.asarray(v)
    if a.ndim != 1 or a.shape[0] != n:
        raise_error(-2, f"{what} has shape {a.shape}, but the matrix has {n} rows: expected ({n},)")
    if np.iscomplexobj(a):
        raise UnsupportedError(f"{what}: kryl solves real systems; {what} has dtype {a.dtype}")
    return np.ascontiguousarray(a, dtype=np.float64)
