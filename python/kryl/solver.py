"""kryl.solve and kryl.Solver: A x = b with libkryl's preconditioned Krylov methods."""

from __future__ import annotations

import ctypes
import time
from typing import Any, Optional, Union

import numpy as np

from . import _lib
from ._lib import Handle, lib
from .errors import InvalidArgumentError, check
from .info import SolveInfo
from .matrix import Closeable, Matrix, Vector, as_matrix, device_vector, enum_name, host_vector, is_cupy
from .options import OPTIONS, PLACEMENT, solver_options

OPTIONS_HELP = """\
Options (keywords, named as ``kryl solve``'s; None or absent: the library's default):

Method:
  method        "auto" where the library has it (it then chooses), else "cg"
                (the C API's default); "cg", "pcg" (preconditioned CG, Jacobi
                unless another precond is named), "pipecg" (pipelined PCG, one
                fused reduction per iteration), "gmres" (right-preconditioned
                GMRES(m)), "bicgstab"
  precond       "none"; "jacobi" (diag(A)); "lspoly" (least-squares polynomial,
                SPD A); "ic0", "mic0" (IC(0), shifted IC(0): symmetric A);
                "ilu0", "iluk", "ilut" (incomplete LU); "bjacobi" (IC(0)/ILU(0)
                blocks); "mcssor", "mcilu0" (multicolor SSOR, ILU(0)); "amg"
                (algebraic multigrid, one cycle per apply).
                Default jacobi for pcg, none otherwise
  degree        lspoly: polynomial degree, that many SpMVs per apply (default 8)
  fill          iluk: fill level (default 1)
  droptol       ilut: drop entries below droptol times the row's norm (1e-3)
  maxfill       ilut: at most maxfill entries per row of L and of U (default 20)
  blocks        bjacobi: row blocks (default 0: one per 4096 rows)
  partition     bjacobi: "auto" (metis when built with METIS), "contiguous", "metis"
  block_factor  bjacobi: "ic0", "mic0", "ilu0" or "ilut" per block (default: ic0
                for a symmetric matrix with cg/pcg/pipecg, else ilu0)
  sweeps        mcssor: symmetric sweeps per apply (default 1)
  omega         mcssor: relaxation factor, 0 < omega < 2 (default 1)
  amg_theta     amg: strong couplings |a_ij| >= theta sqrt(|a_ii a_jj|) (default 0)
  amg_coarse_theta amg: the coarse levels' threshold, max(it, amg_theta)
                (default 0.02; 0: amg_theta on every level)
  amg_smoother  amg: "auto" (the default: "ilu0" for a nonsymmetric matrix on
                omp and ref, and on cuda up to 65536 rows; else "chebyshev"),
                "chebyshev", "jacobi", "l1jacobi", "mcgs", "ilu0"
  amg_sweeps    amg: smoothing sweeps (Chebyshev: the degree; default 2 for
                ILU(0) and for Chebyshev, which on cuda under smoothed
                aggregation takes 1; else 1)
  amg_cycle     amg: "v" (the default) or "w"
  amg_aggregation amg: "auto" (the default: "sa" for a symmetric matrix, else
                  "plain"), "sa" (smoothed) or "plain"
  amg_coarsening amg: "auto" (the default: "parallel" on cuda, else "greedy"),
                  "greedy", "mis2" or "parallel" (built on the backend: the GPU on cuda)
  amg_coarse_size amg: stop coarsening at this many rows, inverted densely
  amg_max_levels amg: at most this many levels (default 20)
  nullspace     amg: the near-nullspace, an (n,) or (n, k) array (default: constants;
                the rigid-body modes for elasticity)
  restart       GMRES: Krylov vectors per cycle (default 40)
  orthog        GMRES: "dcgs2" (the default: one reduction a step) or "cgs2"
  rtol          stop when ||b - Ax|| <= rtol ||b|| (default 1e-8)
  atol          or when ||b - Ax|| <= atol (default 0)
  dtol          stop as diverged when the method's ||r|| > dtol ||b - A x0||
                (default 1e8; float("inf"): never)
  maxit         iteration limit (default 10000)
  check_interval iterations between convergence checks (default: the backend's)
  symmetry_tol  CG and the symmetric preconditioners (ic0, mic0, lspoly) take A as
                symmetric when max |a_ij - a_ji| <= symmetry_tol max |a_ij|
                (default 1e-12: up to rounding; 0: exactly)
Precision:
  precision     "double" (default), "single" or "mixed": double accuracy from
                single-precision inner solves
  mixed         "ir", "inner-outer" or "reliable" (implies precision="mixed";
                default inner-outer)
  inner_rtol    an inner solve stops once it reduced its residual by this
                factor (default 1e-6; reliable: the drop between refreshes, 1e-2)
  inner_its     and after at most this many iterations (default: no limit)
Storage format of the iteration's SpMV:
  format        "csr" (default), "ell", "ellr", "jds", "pjds", "sell", "bcsr2",
                "bcsr4", "dia", or "auto" (the bandwidth model's choice)
  tune          with format="auto": time a few SpMVs of each candidate
  order         "none" (default), "rcm", "amd" (SuiteSparse builds), "color":
                rows and columns reordered before the format's own row sort;
                b and x stay in the caller's order
Where it runs:
  backend       "auto" (cuda if a GPU is usable, else omp, else ref), "ref",
                "omp", "cuda"
  threads       OpenMP threads for omp (default: OpenMP's)
  device        CUDA device ordinal (default 0)
  deterministic the same bits of x and info.history from run to run: no setup
                choice by timing (tune refused); omp is reproducible across
                thread counts either way (default False)
  hybrid        with pipecg/pcg: "1", "2", "3" or "auto", pipelined CG on the host's
                cores and the GPU together (docs/HYBRID.md; default "none")
  hybrid_host_rows hybrid "3": the first rows on the host (default: the model's)
Output:
  history       record ||r_k|| of every iteration in info.history (default True)
  profile       time each phase (spmv, precond, vector, reduction, transfer) into
                info.profile; it synchronises around each phase, which costs time

Convergence: a method stops when the residual it carries meets
||r|| <= max(rtol ||b||, atol); kryl then computes the true residual b - Ax in
double with A's own values, and info.converged is True only when that meets
the test.  Not converging is a result (info.reason "max_iterations",
"breakdown", "nan", "diverged_dtol", "stagnation", "indefinite_pc"), not an exception; x is the
iterate with the smallest true residual computed, never worse than x0.
Errors (a non-square A, a wrong length, NaN in A or b, an unknown option
value) raise kryl.KrylError subclasses carrying the library's message.
"""

ArrayLike = Any  # a NumPy or CuPy array


class Solver(Closeable):
    """A solver for A x = b that keeps the matrix, its storage format and the
    preconditioner (on the device, for cuda) across solves.

    ``Solver(A, **options)`` takes A as :func:`kryl.solve` does and the same
    options; setup (format conversion, preconditioner, workspace) happens
    once, here.  Use it as a context manager or call :meth:`close`.

    """

    def __init__(self, A: Any, **options: Any) -> None:
        t0 = time.perf_counter()
        self._handle = Handle()
        placement = {k: options[k] for k in PLACEMENT if options.get(k) is not None}
        self._options_given = dict(options)
        self._copts = solver_options(options)
        self.matrix: Matrix = as_matrix(A, **placement)
        self._owns_matrix = self.matrix is not A
        #: "scipy", a file name, or what generated the matrix
        self.name = self.matrix.name
        self._context_s = self.matrix.context.create_s if self._owns_matrix else 0.0
        self.matrix.context.create_s = 0.0  # counted once, by the first solver
        check(lib.kryl_solver_create(ctypes.byref(self._handle), self.matrix.handle,
                                     ctypes.byref(self._copts)))
        self._result = _lib.Result()
        #: CuPy arrays are read and written on the device where they are
        self._cuda = self.matrix.context.backend == "cuda"
        # NumPy b and x cross to a cuda device through these; other arrays are
        # wrapped where they are
        self._b = Vector(self.matrix) if self._cuda else None
        self._x = Vector(self.matrix) if self._cuda else None
        self._fixed: Optional[dict] = None
        #: seconds this constructor took (conversion of A included)
        self.create_s = time.perf_counter() - t0

    @property
    def handle(self) -> Handle:
        """The libkryl kryl_solver handle (InvalidArgumentError once closed)."""
        if not self._handle:
            raise InvalidArgumentError("the solver has been closed")
        return self._handle

    @property
    def shape(self) -> tuple[int, int]:
        """A's (rows, columns)."""
        return self.matrix.shape

    def solve(self, b: ArrayLike, x0: Optional[ArrayLike] = None) -> tuple[ArrayLike, Any]:
        """Solve A x = b from x0 (default 0).

        b: 1-D (n,) or 2-D (n, k) NumPy or CuPy array; the k right-hand sides
        of a 2-D b are solved one after another.  Returns (x, info): x of b's
        shape and array kind (CuPy in, CuPy out), float64; info a
        :class:`SolveInfo`, or a list of k of them for a 2-D b.
        """
        _ = self.handle  # a closed solver refuses here, before any array is staged
        if not is_cupy(b):
            b = np.asarray(b)
        if x0 is not None and not is_cupy(x0):
            x0 = np.asarray(x0)
        if b.ndim == 2:
            return self._solve_columns(b, x0)
        return self._solve_one(b, x0)

    def _solve_columns(self, b: ArrayLike, x0: Optional[ArrayLike]) -> tuple[ArrayLike, list]:
        if x0 is not None and tuple(x0.shape) != tuple(b.shape):
            raise InvalidArgumentError(f"x0 has shape {x0.shape}, b has shape {b.shape}: expected the same")
        columns, infos = [], []
        for j in range(b.shape[1]):
            x, info = self._solve_one(b[:, j], None if x0 is None else x0[:, j])
            columns.append(x)
            infos.append(info)
        if is_cupy(b):
            import cupy

            return cupy.stack(columns, axis=1), infos
        return np.stack(columns, axis=1), infos

    def _in_place(self, v: ArrayLike) -> bool:
        """Whether the backend addresses v's memory (NumPy for ref and omp, CuPy
        for cuda): kryl then reads and writes the array where it is."""
        return is_cupy(v) == self._cuda

    def _input(self, v: ArrayLike, what: str) -> Vector:
        """v as a kryl vector: wrapped where it is when the backend addresses it
        (a float64 contiguous array is not copied), else copied into the
        solver's staging vector (NumPy on cuda)."""
        n = self.matrix.shape[0]
        if self._cuda and is_cupy(v):
            return Vector.wrap(self.matrix, device_vector(v, n, what, self.matrix.context.device))
        a = host_vector(v, n, what)
        if not self._cuda:
            return Vector.wrap(self.matrix, a)
        self._b.set(a, what)
        return self._b

    def _output(self, like: ArrayLike, x0: Optional[ArrayLike], zero: bool) -> Vector:
        """The vector kryl writes x into: a new array of the kind of `like` that the
        backend addresses, wrapped, else the staging vector (NumPy on cuda); it
        holds x0, or 0 when `zero`."""
        n = self.matrix.shape[0]
        if self._cuda and not is_cupy(like):
            x = self._x
        elif self._cuda:
            import cupy

            with cupy.cuda.Device(self.matrix.context.device):
                x = Vector.wrap(self.matrix, (cupy.zeros if zero and x0 is None else cupy.empty)(n))
        else:
            x = Vector.wrap(self.matrix, (np.zeros if zero and x0 is None else np.empty)(n))
        if x0 is not None and self._cuda and is_cupy(x0):
            a = device_vector(x0, n, "x0", self.matrix.context.device)
            check(lib.kryl_vector_set_device(x.handle, a.data.ptr, n), "x0")
        elif x0 is not None:
            x.set(host_vector(x0, n, "x0"), "x0")  # NaN and Inf refused by the library
        elif zero and x is self._x:
            x.fill(0.0)
        if is_cupy(x.array):
            import cupy

            cupy.cuda.get_current_stream().synchronize()  # CuPy's writes are done
        return x

    def _returned(self, x: Vector, like: ArrayLike) -> ArrayLike:
        """x as an array of the kind of `like` (NumPy or CuPy); wrapped vectors
        are closed, their array handed over as it is."""
        if x.array is None:
            out = x.get(np.empty(self.matrix.shape[0]))
        else:
            out = x.array
            x.close()
        return _cupy_array(out) if is_cupy(like) and not is_cupy(out) else out

    def _run(self, call: Any, v: ArrayLike, x0: Optional[ArrayLike], zero: bool, what: str,
             *extra: Any) -> ArrayLike:
        """call(solver, input, output, *extra) on v and a new output; returns the output."""
        inp = self._input(v, what)
        try:
            out = self._output(v, x0, zero)
            try:
                check(call(self.handle, inp.handle, out.handle, *extra))
            except BaseException:
                if out is not self._x:
                    out.close()
                raise
        finally:
            if inp is not self._b:
                inp.close()
        return self._returned(out, v)

    def _solve_one(self, b: ArrayLike, x0: Optional[ArrayLike]) -> tuple[ArrayLike, SolveInfo]:
        x = self._run(lib.kryl_solver_solve, b, x0, True, "b", ctypes.byref(self._result))
        return x, self._info()

    def _history(self) -> np.ndarray:
        h = ctypes.POINTER(ctypes.c_double)()
        length = ctypes.c_int64()
        check(lib.kryl_solver_history(self.handle, ctypes.byref(h), ctypes.byref(length)))
        if length.value == 0 or not h:
            return np.zeros(0)
        return np.ctypeslib.as_array(h, (length.value,)).copy()

    def _fixed_fields(self) -> dict:
        """The SolveInfo fields set at setup (the options, the matrix, the
        format, the device), gathered at the first solve and kept."""
        if self._fixed is not None:
            return self._fixed
        r, o = self._result, self._copts
        fmt, why = ctypes.c_int(), ctypes.c_char_p()
        check(lib.kryl_solver_format(self.handle, ctypes.byref(fmt), ctypes.byref(why)))
        ctx = self.matrix.context
        n, ncols = self.matrix.shape
        read_s = self.matrix.read_s if self._owns_matrix else 0.0
        # measured where the matrix is stored (on the GPU for a CuPy matrix)
        asymmetry = self.matrix.asymmetry
        host_copy = self.matrix.host_copy
        self._fixed = dict(
            matrix=self.name, n=n, ncols=ncols, nnz=self.matrix.nnz,
            asymmetry=asymmetry,
            symmetry_tol=o.symmetry_tol,
            method_requested=enum_name("method", o.method), match=bool(o.match),
            restart=o.restart or 40, orthog="cgs2" if o.gmres_orthog == 1 else "dcgs2",
            degree=o.degree or 8, fill=o.fill, droptol=o.droptol, maxfill=o.maxfill,
            blocks=o.blocks, partition=enum_name("partition", o.partition),
            block_factor=enum_name("precond", o.block_factor), sweeps=o.sweeps, omega=o.omega,
            backend=ctx.backend, device=ctx.device_name, deterministic=ctx.deterministic,
            precision=enum_name("precision", o.precision), mixed=enum_name("mixed_scheme", o.mixed),
            inner_its=o.inner_iterations,
            inner_rtol=o.inner_rtol or float(lib.kryl_mixed_default_inner_rtol(o.mixed)),
            format=enum_name("format", fmt.value), format_requested=enum_name("format", o.format),
            format_reason=_lib.text(why.value), order=enum_name("order", o.order),
            tune=bool(o.tune), rtol=o.rtol, atol=o.atol, dtol=o.dtol, maxit=o.max_iterations,
            read_s=read_s, setup_s=r.setup_s, context_s=self._context_s,
            host_copy=host_copy,
            setup_phases={_lib.text(lib.kryl_setup_phase_name(k)): r.setup_phases[k]
                          for k in range(_lib.SETUP_PHASES)},
        )
        return self._fixed

    def _info(self) -> SolveInfo:
        """The SolveInfo of the last solve: the fixed fields and the result's."""
        r, o = self._result, self._copts
        fixed = self._fixed_fields()
        buf = ctypes.create_string_buffer(192)
        check(lib.kryl_solver_precond_info(self.handle, buf, len(buf)))
        # what ran: for method="auto", the candidate that produced x
        method, precond, choice = ctypes.c_int(), ctypes.c_int(), ctypes.c_char_p()
        check(lib.kryl_solver_choice(self.handle, ctypes.byref(method), ctypes.byref(precond),
                                     ctypes.byref(choice)))
        method, precond = method.value, precond.value
        if method == 1 and precond == 0:  # pcg: Jacobi unless another is named
            precond = 1
        profile = None
        if o.profile:
            p = r.profile
            profile = {"spmv_s": p.spmv, "precond_s": p.precond, "vector_s": p.vector,
                       "reduction_s": p.reduction, "transfer_s": p.transfer,
                       "iteration_s": p.iteration}
        return SolveInfo(
            **fixed,
            method=enum_name("method", method), precond=enum_name("precond", precond),
            choice=_lib.text(choice.value), precond_info=_lib.text(buf.value),
            iterations=r.iterations, relres=r.relres, relres_recursive=r.relres_recursive,
            relres_last=r.relres_last, best_iteration=r.best_iteration,
            orthog_fallback=bool(r.orthog_fallback),
            resnorm=r.resnorm, bnorm=r.bnorm, residual_replacements=r.residual_replacements,
            inner_iterations=r.inner_iterations, reason=enum_name("reason", r.reason),
            converged=bool(r.converged), time_s=fixed["read_s"] + r.setup_s + r.solve_s,
            solve_s=r.solve_s,
            time_per_iteration_s=r.solve_s / r.iterations if r.iterations > 0 else 0.0,
            **(_amg_fields(o.amg) if precond == _AMG else {}),
            profile=profile, history=self._history(),
        )

    def update_values(self, data: Any) -> None:
        """Give A new values on the same pattern and bring the solver up to date.

        data: a SciPy (or cupyx) matrix with A's sparsity pattern, or the nnz
        values in the order of ``solver.matrix.to_scipy().data``.  Keeps what
        depends on the pattern alone (format layout, ordering, coloring, level
        schedules, workspace) and redoes the values (factorization, diagonal,
        polynomial); the next solve runs as one freshly set up would.  The
        seconds it took are in ``solver.update_s``.
        """
        handle = self.handle
        t0 = time.perf_counter()
        self.matrix.update_values(data)
        check(lib.kryl_solver_update(handle))
        self._fixed = None  # the asymmetry is the new values'
        #: seconds the last update_values took
        self.update_s = time.perf_counter() - t0

    def apply_preconditioner(self, r: ArrayLike) -> ArrayLike:
        """z = M^{-1} r with the solver's preconditioner (z = r without one); r and
        z NumPy or CuPy (on the device with the cuda backend)."""
        return self._run(lib.kryl_solver_apply_preconditioner, r, None, False, "r")

    def aspreconditioner(self) -> Any:
        """The solver's preconditioner as a scipy LinearOperator (M= of SciPy's solvers)."""
        from .interop import Preconditioner

        return Preconditioner(self)

    def close(self) -> None:
        """Free the solver (and the matrix it converted from a SciPy one)."""
        if getattr(self, "_handle", None):
            if self._cuda:
                self._b.close()
                self._x.close()
            lib.kryl_solver_destroy(ctypes.byref(self._handle))
            self._handle = Handle()
            if self._owns_matrix:
                self.matrix.close()

    def __repr__(self) -> str:
        o = self._copts
        return (f"<kryl.Solver {enum_name('method', o.method)}, precond "
                f"{enum_name('precond', o.precond)}, {self.matrix!r}>")


Solver.__doc__ += "\n" + OPTIONS_HELP


_AMG = 11  # KRYL_PRECOND_AMG


def _amg_fields(a: _lib.AmgOptions) -> dict:
    """The amg_* fields of kryl solve --json."""
    return {"amg_theta": a.theta, "amg_coarse_theta": a.coarse_theta,
            "amg_smoother": enum_name("amg_smoother", a.smoother),
            "amg_sweeps": a.sweeps, "amg_cycle": enum_name("amg_cycle", a.cycle),
            "amg_aggregation": enum_name("amg_aggregation", a.aggregation),
            "amg_coarsening": enum_name("amg_coarsening", a.coarsening),
            "amg_coarse_size": a.coarse_size, "amg_max_levels": a.max_levels,
            "amg_nullspace_vectors": a.nullspace_vectors or 1}


def _cupy_array(x: np.ndarray) -> Any:
    import cupy

    return cupy.asarray(x)


def solve(A: Any, b: ArrayLike, method: Optional[str] = None, precond: Optional[str] = None,
          rtol: float = 1e-8, backend: str = "auto", x0: Optional[ArrayLike] = None,
          **options: Any) -> tuple[ArrayLike, Union[SolveInfo, list]]:
    """Solve A x = b with a preconditioned Krylov method; returns (x, info).

    A: any scipy.sparse matrix or array (converted to CSR once), a
    cupyx.scipy.sparse matrix, or a :class:`kryl.Matrix`.  b: a NumPy or
    CuPy array, 1-D (n,) or 2-D (n, k) for k right-hand sides solved one
    after another.  x0: the initial guess (default 0), shaped like b.

    x has b's shape and array kind (float64); info is a :class:`SolveInfo`
    (a list of k of them for a 2-D b) with every field of
    ``kryl solve --json``: iterations, relres (true), relres_recursive,
    reason, converged, setup_s, solve_s, the method, preconditioner and
    format as run, and the residual history.

    """
    with Solver(A, method=method, precond=precond, rtol=rtol, backend=backend, **options) as s:
        return s.solve(b, x0)


solve.__doc__ += "\n" + OPTIONS_HELP
assert set(OPTIONS) <= set(OPTIONS_HELP.replace("\n", " ").split()), "an option left out of help"
