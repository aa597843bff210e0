"""Exceptions: one class per kryl_status, carrying the library's message.

Every class derives from :class:`KrylError`; those that describe bad
input also derive from the built-in exception a Python caller expects
(``ValueError``, ``MemoryError``, ``OSError``), so ``except ValueError``
catches a non-square matrix or a NaN.  Not converging is never an
exception: it is ``info.converged`` / ``info.reason``.
"""

from __future__ import annotations

from . import _lib


class KrylError(Exception):
    """A kryl call failed.

    Attributes:
        status: the kryl_status code (negative).
        message: what was wrong, as kryl_last_error() said it.
        location: where in libkryl's sources it was raised (for bug reports).
    """

    status: int = -60

    def __init__(self, message: str, status: int | None = None, location: str = "") -> None:
        super().__init__(message)
        if status is not None:
            self.status = status
        self.message = message
        self.location = location


_BY_STATUS: dict[int, type[KrylError]] = {}


def _status_error(status: int, constant: str, builtin: type[Exception] | None,
                  meaning: str) -> type[KrylError]:
    """The exception class of one kryl_status, also a `builtin` where given
    (named after the variable it is assigned to, below)."""
    bases = (KrylError,) if builtin is None else (KrylError, builtin)
    cls = type("KrylError", bases, {"__doc__": f"{meaning} (KRYL_ERR_{constant}).",
                                    "status": status, "__module__": __name__})
    _BY_STATUS[status] = cls
    return cls


# one class per kryl_status of include/kryl.h: status, constant, built-in, meaning
InvalidArgumentError = _status_error(-1, "INVALID_ARGUMENT", ValueError, "An invalid argument or option")
DimensionMismatchError = _status_error(-2, "DIMENSION_MISMATCH", ValueError, "Sizes of the operands disagree")
ContextMismatchError = _status_error(-3, "CONTEXT_MISMATCH", ValueError, "Objects from different contexts")
UnsupportedError = _status_error(-4, "UNSUPPORTED", None, "A valid request this build cannot do")
BackendUnavailableError = _status_error(-5, "BACKEND_UNAVAILABLE", None, "The backend is not compiled in or has no device")
KrylIOError = _status_error(-20, "IO", OSError, "A file cannot be opened, read or written")
ParseError = _status_error(-21, "PARSE", ValueError, "A Matrix Market file is malformed")
NotSquareError = _status_error(-22, "NOT_SQUARE", ValueError, "The solver or preconditioner needs a square matrix")
NotSymmetricError = _status_error(-23, "NOT_SYMMETRIC", ValueError, "CG needs a symmetric matrix")
ZeroDiagonalError = _status_error(-24, "ZERO_DIAGONAL", ValueError, "A preconditioner divides by a_ii = 0")
NotPositiveDefiniteError = _status_error(-25, "NOT_POSITIVE_DEFINITE", ValueError, "A non-positive pivot or diagonal")
IndexOverflowError = _status_error(-26, "INDEX_OVERFLOW", OverflowError, "An index does not fit the index type")
InvalidValueError = _status_error(-27, "INVALID_VALUE", ValueError, "NaN or Inf in the input")
IndexOutOfRangeError = _status_error(-28, "INDEX_OUT_OF_RANGE", IndexError, "An entry outside the matrix")
FormatUnsuitableError = _status_error(-29, "FORMAT_UNSUITABLE", ValueError, "A storage format would cost too much for this matrix")
KrylMemoryError = _status_error(-40, "OUT_OF_MEMORY", MemoryError, "A host allocation failed")
DeviceMemoryError = _status_error(-41, "DEVICE_OUT_OF_MEMORY", MemoryError, "A device allocation failed")
DeviceError = _status_error(-42, "DEVICE", None, "A device call failed")
InternalError = _status_error(-60, "INTERNAL", None, "An internal error: please report it with its location")

for _name, _cls in list(globals().items()):
    if _cls in _BY_STATUS.values():
        _cls.__name__ = _cls.__qualname__ = _name


def error_class(status: int) -> type[KrylError]:
    """The exception class of a kryl_status."""
    return _BY_STATUS.get(status, KrylError)


def raise_error(status: int, message: str) -> None:
    """Raise the class of `status` with `message` (for checks made in Python)."""
    raise error_class(status)(message, status)


def check(status: int, what: str = "") -> None:
    """Raise the exception of a failed kryl call, with kryl_last_error().

    `what` prefixes the message with what the call was about ("b", "x0").
    """
    if status == 0:
        return
    message = _lib.text(_lib.lib.kryl_last_error()) or _lib.text(_lib.lib.kryl_strerror(status))
    location = _lib.text(_lib.lib.kryl_last_error_location())
    if what:
        message = f"{what}: {message}"
    raise error_class(status)(message, status, location)
