"""Keyword options, named as the command line names them, into kryl_solver_options."""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from . import _lib
from ._lib import lib
from .matrix import enum_from_name

# Where a solver runs: context options, not solver options.
PLACEMENT = ("backend", "device", "threads", "deterministic")

# keyword -> (kryl_solver_options field, how the value is read)
_FIELDS = {
    "rtol": ("rtol", float),
    "atol": ("atol", float),
    "dtol": ("dtol", float),
    "maxit": ("max_iterations", int),
    "restart": ("restart", int),
    "degree": ("degree", int),
    "fill": ("fill", int),
    "droptol": ("droptol", float),
    "maxfill": ("maxfill", int),
    "blocks": ("blocks", int),
    "sweeps": ("sweeps", int),
    "omega": ("omega", float),
    "inner_rtol": ("inner_rtol", float),
    "symmetry_tol": ("symmetry_tol", float),
    "inner_its": ("inner_iterations", int),
    "check_interval": ("check_interval", int),
    "tune": ("tune", bool),
    "profile": ("profile", bool),
    "history": ("record_history", bool),
    "hybrid_host_rows": ("hybrid_host_rows", int),
}
# keyword -> (field, the enum the name is parsed as)
_NAMED = {
    "method": ("method", "method"),
    "precond": ("precond", "precond"),
    "precision": ("precision", "precision"),
    "mixed": ("mixed", "mixed_scheme"),
    "format": ("format", "format"),
    "order": ("order", "order"),
    "partition": ("partition", "partition"),
    "block_factor": ("block_factor", "precond"),
    "hybrid": ("hybrid", "hybrid"),
}
# algebraic multigrid (precond="amg"): keyword -> kryl_amg_options field
_AMG_FIELDS = {
    "amg_theta": ("theta", float),
    "amg_coarse_theta": ("coarse_theta", float),
    "amg_sweeps": ("sweeps", int),
    "amg_coarse_size": ("coarse_size", int),
    "amg_max_levels": ("max_levels", int),
}
_AMG_NAMED = {
    "amg_smoother": ("smoother", "amg_smoother"),
    "amg_cycle": ("cycle", "amg_cycle"),
    "amg_aggregation": ("aggregation", "amg_aggregation"),
    "amg_coarsening": ("coarsening", "amg_coarsening"),
}
OPTIONS = (tuple(_NAMED) + ("orthog",) + tuple(_FIELDS) + tuple(_AMG_NAMED) + tuple(_AMG_FIELDS)
           + ("nullspace",))


def method_auto_available() -> bool:
    """Whether this libkryl chooses the method itself (method="auto")."""
    value = ctypes.c_int()
    ok = lib.kryl_method_from_name(b"auto", ctypes.byref(value)) == 0
    return ok


def default_method() -> str:
    """"auto" where libkryl has it, else the C API's default, "cg"."""
    return "auto" if method_auto_available() else "cg"


def solver_options(options: dict[str, Any]) -> _lib.SolverOptions:
    """kryl_solver_options from keyword options (None: the library's default).

    Unknown keywords raise TypeError; unknown names raise the library's
    InvalidArgumentError listing the valid ones.  As on the command line,
    naming a mixed scheme implies precision="mixed".
    """
    unknown = sorted(set(options) - set(OPTIONS) - set(PLACEMENT))
    if unknown:
        raise TypeError(f"unknown option {', '.join(map(repr, unknown))}; kryl's options are "
                        f"{', '.join(OPTIONS + PLACEMENT)}")
    o = _lib.SolverOptions()
    lib.kryl_solver_options_init(ctypes.byref(o))
    given = {k: v for k, v in options.items() if v is not None and k not in PLACEMENT}
    given.setdefault("method", default_method())
    if given.get("mixed", "none") != "none" and "precision" not in given:
        given["precision"] = "mixed"
    for key, value in given.items():
        if key in _NAMED:
            field, kind = _NAMED[key]
            setattr(o, field, enum_from_name(kind, value))
        elif key in _AMG_NAMED:
            field, kind = _AMG_NAMED[key]
            setattr(o.amg, field, enum_from_name(kind, value))
        elif key in _AMG_FIELDS:
            field, convert = _AMG_FIELDS[key]
            setattr(o.amg, field, convert(value))
        elif key == "nullspace":
            # n x k, column by column; kept alive with the options (read at setup)
            B = np.asarray(value, dtype=np.float64)
            B = B.reshape(-1, 1) if B.ndim == 1 else B
            o.nullspace_array = np.asfortranarray(B)
            o.amg.nullspace = o.nullspace_array.ctypes.data
            o.amg.nullspace_vectors = B.shape[1]
        elif key == "orthog":
            o.gmres_orthog = {"auto": 0, "cgs2": 1, "dcgs2": 2}.get(value, -1)
            if o.gmres_orthog < 0:
                from .errors import InvalidArgumentError

                raise InvalidArgumentError(f"orthog: '{value}', expected cgs2 or dcgs2")
        else:
            field, convert = _FIELDS[key]
            setattr(o, field, convert(value))
    return o
