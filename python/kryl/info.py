"""SolveInfo: what a solve did, with the fields of ``kryl solve --json``."""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Optional

import numpy as np


@dataclasses.dataclass
class SolveInfo:
    """The outcome of one solve: every field of ``kryl solve --json``.

    Not converging is reported here (``converged`` False, ``reason``
    "max_iterations", "breakdown", "nan", "diverged_dtol", "stagnation" or
    "indefinite_pc"), never
    raised; x is then the iterate of ``best_iteration``, the one with the smallest
    true residual computed (x0's included), and ``relres_last`` the last iterate's.  ``history`` holds
    the norm of the residual the method carried at each iteration
    (``history[k] / bnorm`` is the relative residual), ``relres`` the true
    ``||b - Ax|| / ||b||`` computed in double with A's values.
    """

    matrix: str
    n: int
    ncols: int
    nnz: int
    asymmetry: float  # max |a_ij - a_ji| / max |a_ij|, measured where A is stored
    symmetry_tol: float
    method: str  # the method that ran (for "auto", the one it chose)
    precond: str
    method_requested: str
    choice: str  # why: what auto found and each candidate it gave up ("requested" otherwise)
    match: bool
    precond_info: str
    restart: int
    orthog: str
    degree: int
    fill: int
    droptol: float
    maxfill: int
    blocks: int
    partition: str
    block_factor: str
    sweeps: int
    omega: float
    backend: str
    device: str
    deterministic: bool
    precision: str
    mixed: str
    inner_its: int
    inner_rtol: float
    format: str
    format_requested: str
    format_reason: str
    order: str
    tune: bool
    rtol: float
    atol: float
    dtol: float
    maxit: int
    iterations: int
    relres: float
    relres_recursive: float
    relres_last: float
    best_iteration: int
    orthog_fallback: bool
    resnorm: float
    bnorm: float
    residual_replacements: int
    inner_iterations: int
    reason: str
    converged: bool
    time_s: float
    read_s: float
    setup_s: float
    solve_s: float
    context_s: float
    time_per_iteration_s: float
    setup_phases: dict = dataclasses.field(default_factory=dict)
    profile: Optional[dict] = None
    # whether kryl holds A on the host too: "given" (host input), "none" (a CuPy
    # matrix kept on the GPU only) or the step that downloaded it
    host_copy: str = "given"
    # with precond="amg" (None otherwise), as the CLI writes them
    amg_theta: Optional[float] = None
    amg_coarse_theta: Optional[float] = None
    amg_smoother: Optional[str] = None
    amg_sweeps: Optional[int] = None
    amg_cycle: Optional[str] = None
    amg_aggregation: Optional[str] = None
    amg_coarsening: Optional[str] = None
    amg_coarse_size: Optional[int] = None
    amg_max_levels: Optional[int] = None
    amg_nullspace_vectors: Optional[int] = None
    history: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0), repr=False)

    def as_dict(self) -> dict[str, Any]:
        """The fields as a dict (history as a list), as the CLI's JSON has them."""
        d = dataclasses.asdict(self)
        d["history"] = [float(h) for h in self.history]
        return {k: v for k, v in d.items() if v is not None}

    def to_json(self, **kwargs: Any) -> str:
        """The fields as one JSON object (``kryl solve --json`` plus the history)."""
        return json.dumps(self.as_dict(), **kwargs)

    def __str__(self) -> str:
        state = "converged" if self.converged else "NOT converged"
        return (f"{self.method}, precond {self.precond_info or self.precond}, format {self.format}, "
                f"{self.precision} precision on {self.backend}: {state} ({self.reason}) after "
                f"{self.iterations} iterations, relres {self.relres:.3e}; setup {self.setup_s:.3g} s, "
                f"solve {self.solve_s:.3g} s")

    def plot(self, ax: Any = None, relative: bool = True, **line: Any) -> Any:
        """Draw the residual history (log scale) with matplotlib; returns the axes.

        relative: plot ||r_k|| / ||b|| (default) or ||r_k||.  The tolerance
        max(rtol ||b||, atol) is drawn as a dashed line.  Extra keywords go
        to ``ax.semilogy``.
        """
        try:
            import matplotlib.pyplot as plt
        except ImportError as e:  # an optional dependency
            raise ImportError("info.plot() needs matplotlib: pip install matplotlib") from e
        if ax is None:
            ax = plt.gca()
        scale = self.bnorm if relative and self.bnorm > 0 else 1.0
        line.setdefault("label", f"{self.method} + {self.precond}")
        ax.semilogy(np.arange(len(self.history)), self.history / scale, **line)
        tol = max(self.rtol * self.bnorm, self.atol) / scale
        if tol > 0:
            ax.axhline(tol, linestyle="--", color="gray", linewidth=0.8)
        ax.set_xlabel("iteration")
        ax.set_ylabel("||r|| / ||b||" if relative else "||r||")
        ax.set_title(f"{self.n} rows, {self.reason} after {self.iterations} iterations")
        ax.legend()
        return ax
