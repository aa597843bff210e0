"""Keyword options, named as the command line names them, into kryl_solver_options."""

from __future__ import annotations

import ctypes
from typing import Any

from . import _lib
from ._lib import lib
from .matrix import enum_from_name

# Where a solver runs: context options, not solver options.
PLACEMENT = ("backend", "device", "threads")

# keyword -> (kryl_solver_options field, how the value is read)
_FIELDS = {
    "rtol": ("rtol", float),
    "atol": ("atol", float),
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
}
OPTIONS = tuple(_NAMED) + ("orthog",) + tuple(_FIELDS)


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
        elif key == "orthog":
            o.gmres_orthog = {"auto": 0, "cgs2": 1, "dcgs2": 2}.get(value, -1)
            if o.gmres_orthog < 0:
                from .errors import InvalidArgumentError

                raise InvalidArgumentError(f"orthog: '{value}', expected cgs2 or dcgs2")
        else:
            field, convert = _FIELDS[key]
            setattr(o, field, convert(value))
    return o
