"""ctypes declarations of include/kryl.h and the loading of libkryl.

The structures mirror the header field by field (tests/test_abi.py checks
the field names and their order against include/kryl.h).  libkryl is
looked for, in order, at $KRYL_LIBRARY, next to this file (where
``pip install`` puts it) and on the system's library path.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
from ctypes import (
    POINTER,
    c_bool,
    c_char_p,
    c_double,
    c_int,
    c_int32,
    c_int64,
    c_size_t,
    c_void_p,
)

# Handles are opaque pointers.
Handle = c_void_p
LOG_FN = ctypes.CFUNCTYPE(None, c_int, c_char_p, c_void_p)
PROGRESS_FN = ctypes.CFUNCTYPE(None, c_int64, c_double, c_void_p)


class ContextOptions(ctypes.Structure):
    """kryl_context_options"""

    _fields_ = [
        ("backend", c_int),
        ("device", c_int),
        ("threads", c_int),
        ("log", c_void_p),
        ("log_user", c_void_p),
        ("log_level", c_int),
        ("deterministic", c_bool),
    ]


class AmgOptions(ctypes.Structure):
    """kryl_amg_options"""

    _fields_ = [
        ("theta", c_double),
        ("smoother", c_int),
        ("sweeps", c_int),
        ("cycle", c_int),
        ("aggregation", c_int),
        ("coarsening", c_int),
        ("coarse_size", c_int),
        ("max_levels", c_int),
        ("nullspace", c_void_p),
        ("nullspace_vectors", c_int),
        ("coarse_theta", c_double),
    ]


class SolverOptions(ctypes.Structure):
    """kryl_solver_options"""

    _fields_ = [
        ("method", c_int),
        ("precond", c_int),
        ("precision", c_int),
        ("rtol", c_double),
        ("atol", c_double),
        ("dtol", c_double),
        ("max_iterations", c_int64),
        ("record_history", c_bool),
        ("check_interval", c_int),
        ("profile", c_bool),
        ("progress", c_void_p),
        ("progress_user", c_void_p),
        ("residual", c_void_p),
        ("residual_user", c_void_p),
        ("restart", c_int),
        ("mixed", c_int),
        ("inner_iterations", c_int),
        ("format", c_int),
        ("order", c_int),
        ("tune", c_bool),
        ("inner_rtol", c_double),
        ("degree", c_int),
        ("fill", c_int),
        ("droptol", c_double),
        ("maxfill", c_int),
        ("blocks", c_int),
        ("sweeps", c_int),
        ("omega", c_double),
        ("partition", c_int),
        ("gmres_orthog", c_int),
        ("block_factor", c_int),
        ("symmetry_tol", c_double),
        ("amg", AmgOptions),
        ("match", c_bool),
        ("hybrid", c_int),
        ("hybrid_host_rows", c_int64),
    ]


class Profile(ctypes.Structure):
    """kryl_profile"""

    _fields_ = [
        ("spmv", c_double),
        ("precond", c_double),
        ("vector", c_double),
        ("reduction", c_double),
        ("transfer", c_double),
        ("iteration", c_double),
    ]


# KRYL_SETUP_PHASES: the phases of kryl_solver_create timed one by one
SETUP_PHASES = 10


class Result(ctypes.Structure):
    """kryl_result"""

    _fields_ = [
        ("iterations", c_int64),
        ("reason", c_int),
        ("converged", c_bool),
        ("relres", c_double),
        ("relres_recursive", c_double),
        ("resnorm", c_double),
        ("resnorm_recursive", c_double),
        ("bnorm", c_double),
        ("residual_replacements", c_int64),
        ("best_iteration", c_int64),
        ("relres_last", c_double),
        ("inner_iterations", c_int64),
        ("orthog_fallback", c_bool),
        ("format", c_int),
        ("setup_s", c_double),
        ("solve_s", c_double),
        ("profile", Profile),
        ("setup_phases", c_double * SETUP_PHASES),
    ]


# name -> (restype, argtypes); every call returning kryl_status has restype c_int.
_S = c_int
_PROTOTYPES = {
    "kryl_strerror": (c_char_p, [c_int]),
    "kryl_last_error": (c_char_p, []),
    "kryl_last_error_location": (c_char_p, []),
    "kryl_backend_name": (c_char_p, [c_int]),
    "kryl_precision_name": (c_char_p, [c_int]),
    "kryl_method_name": (c_char_p, [c_int]),
    "kryl_precond_name": (c_char_p, [c_int]),
    "kryl_reason_name": (c_char_p, [c_int]),
    "kryl_format_name": (c_char_p, [c_int]),
    "kryl_order_name": (c_char_p, [c_int]),
    "kryl_partition_name": (c_char_p, [c_int]),
    "kryl_mixed_scheme_name": (c_char_p, [c_int]),
    "kryl_generator_name": (c_char_p, [c_int]),
    "kryl_amg_smoother_name": (c_char_p, [c_int]),
    "kryl_amg_cycle_name": (c_char_p, [c_int]),
    "kryl_amg_aggregation_name": (c_char_p, [c_int]),
    "kryl_amg_coarsening_name": (c_char_p, [c_int]),
    "kryl_amg_smoother_from_name": (_S, [c_char_p, POINTER(c_int)]),
    "kryl_amg_cycle_from_name": (_S, [c_char_p, POINTER(c_int)]),
    "kryl_amg_aggregation_from_name": (_S, [c_char_p, POINTER(c_int)]),
    "kryl_amg_coarsening_from_name": (_S, [c_char_p, POINTER(c_int)]),
    "kryl_backend_from_name": (_S, [c_char_p, POINTER(c_int)]),
    "kryl_precision_from_name": (_S, [c_char_p, POINTER(c_int)]),
    "kryl_method_from_name": (_S, [c_char_p, POINTER(c_int)]),
    "kryl_precond_from_name": (_S, [c_char_p, POINTER(c_int)]),
    "kryl_mixed_scheme_from_name": (_S, [c_char_p, POINTER(c_int)]),
    "kryl_format_from_name": (_S, [c_char_p, POINTER(c_int)]),
    "kryl_order_from_name": (_S, [c_char_p, POINTER(c_int)]),
    "kryl_partition_from_name": (_S, [c_char_p, POINTER(c_int)]),
    "kryl_generator_from_name": (_S, [c_char_p, POINTER(c_int)]),
    "kryl_mixed_default_inner_rtol": (c_double, [c_int]),
    "kryl_context_options_init": (None, [POINTER(ContextOptions)]),
    "kryl_context_create": (_S, [POINTER(Handle), POINTER(ContextOptions)]),
    "kryl_context_destroy": (_S, [POINTER(Handle)]),
    "kryl_context_backend": (c_int, [Handle]),
    "kryl_backend_available": (c_bool, [c_int]),
    "kryl_context_device_name": (c_char_p, [Handle]),
    "kryl_matrix_create_csr": (
        _S,
        [POINTER(Handle), Handle, c_int64, c_int64, c_int64, c_int64, c_void_p, c_void_p, c_void_p],
    ),
    "kryl_matrix_create_csr_device": (
        _S,
        [POINTER(Handle), Handle, c_int64, c_int64, c_int64, c_void_p, c_void_p, c_void_p],
    ),
    "kryl_matrix_host_copy": (_S, [Handle, POINTER(c_bool), POINTER(c_char_p)]),
    "kryl_matrix_read_mtx": (_S, [POINTER(Handle), Handle, c_char_p]),
    "kryl_matrix_write_mtx": (_S, [Handle, c_char_p]),
    "kryl_matrix_destroy": (_S, [POINTER(Handle)]),
    "kryl_matrix_size": (_S, [Handle, POINTER(c_int64), POINTER(c_int64), POINTER(c_int64)]),
    "kryl_matrix_csr_view": (
        _S,
        [Handle, POINTER(POINTER(c_int64)), POINTER(POINTER(c_int32)), POINTER(POINTER(c_double))],
    ),
    "kryl_matrix_is_symmetric": (_S, [Handle, c_double, POINTER(c_bool)]),
    "kryl_matrix_asymmetry": (_S, [Handle, POINTER(c_double)]),
    "kryl_matrix_update_values": (_S, [Handle, c_void_p]),
    "kryl_matrix_update_values_device": (_S, [Handle, c_void_p]),
    "kryl_matrix_spmv": (_S, [Handle, c_double, Handle, c_double, Handle]),
    "kryl_generator_options_init": (None, [c_void_p, c_int, c_int64]),
    "kryl_generator_size": (_S, [c_void_p, POINTER(c_int64), POINTER(c_int64)]),
    "kryl_matrix_generate": (_S, [POINTER(Handle), Handle, c_void_p, c_int64, c_int64]),
    "kryl_vector_create": (_S, [POINTER(Handle), Handle, c_int]),
    "kryl_vector_destroy": (_S, [POINTER(Handle)]),
    "kryl_vector_set": (_S, [Handle, c_void_p, c_int64]),
    "kryl_vector_get": (_S, [Handle, c_void_p, c_int64]),
    "kryl_vector_fill": (_S, [Handle, c_double]),
    "kryl_vector_set_device": (_S, [Handle, c_void_p, c_int64]),
    "kryl_vector_get_device": (_S, [Handle, c_void_p, c_int64]),
    "kryl_vector_wrap": (_S, [POINTER(Handle), Handle, c_void_p, c_int64]),
    "kryl_solver_options_init": (None, [POINTER(SolverOptions)]),
    "kryl_solver_create": (_S, [POINTER(Handle), Handle, POINTER(SolverOptions)]),
    "kryl_solver_solve": (_S, [Handle, Handle, Handle, POINTER(Result)]),
    "kryl_solver_history": (_S, [Handle, POINTER(POINTER(c_double)), POINTER(c_int64)]),
    "kryl_solver_format": (_S, [Handle, POINTER(c_int), POINTER(c_char_p)]),
    "kryl_solver_choice": (_S, [Handle, POINTER(c_int), POINTER(c_int), POINTER(c_char_p)]),
    "kryl_solver_precond_info": (_S, [Handle, c_char_p, c_size_t]),
    "kryl_solver_apply_preconditioner": (_S, [Handle, Handle, Handle]),
    "kryl_solver_update": (_S, [Handle]),
    "kryl_setup_phase_name": (c_char_p, [c_int]),
    "kryl_solver_destroy": (_S, [POINTER(Handle)]),
}


class GeneratorOptions(ctypes.Structure):
    """kryl_generator_options"""

    _fields_ = [
        ("kind", c_int),
        ("nx", c_int64),
        ("ny", c_int64),
        ("nz", c_int64),
        ("epsilon", c_double),
        ("peclet", c_double),
        ("row_length", c_int64),
        ("exponent", c_double),
        ("seed", ctypes.c_uint64),
    ]


def _candidates() -> list[str]:
    """Paths to try for libkryl, in order."""
    found = []
    env = os.environ.get("KRYL_LIBRARY")
    if env:
        found.append(env)
    here = os.path.dirname(os.path.abspath(__file__))
    found += sorted(glob.glob(os.path.join(here, "libkryl.so*")))
    found += sorted(glob.glob(os.path.join(here, "libkryl*.dylib")))
    system = ctypes.util.find_library("kryl")
    if system:
        found.append(system)
    return found


def _load() -> ctypes.CDLL:
    tried = []
    for path in _candidates():
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append(f"{path}: {e}")
            continue
        if not hasattr(lib, "kryl_solver_create"):
            tried.append(f"{path}: not libkryl (no kryl_solver_create)")
            continue
        return lib
    raise ImportError(
        "kryl: cannot load libkryl; install the package with `pip install ./python` from the "
        "repository, or point KRYL_LIBRARY at a built libkryl.so"
        + ("".join("\n  " + t for t in tried) if tried else " (no candidate found)")
    )


lib = _load()
LIBRARY_PATH: str = lib._name
for _name, (_res, _args) in _PROTOTYPES.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args


def text(value: bytes | None) -> str:
    """A C string as str ("" for NULL)."""
    return value.decode("utf-8", "replace") if value else ""
