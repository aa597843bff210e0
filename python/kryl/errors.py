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


class InvalidArgumentError(KrylError, ValueError):
    """An invalid argument or option (KRYL_ERR_INVALID_ARGUMENT)."""

    status = -1


class DimensionMismatchError(KrylError, ValueError):
    """Sizes of the operands disagree (KRYL_ERR_DIMENSION_MISMATCH)."""

    status = -2


class ContextMismatchError(KrylError, ValueError):
    """Objects from different contexts (KRYL_ERR_CONTEXT_MISMATCH)."""

    status = -3


class UnsupportedError(KrylError):
    """A valid request this build cannot do (KRYL_ERR_UNSUPPORTED)."""

    status = -4


class BackendUnavailableError(KrylError):
    """The backend is not compiled in or has no device (KRYL_ERR_BACKEND_UNAVAILABLE)."""

    status = -5


class KrylIOError(KrylError, OSError):
    """A file cannot be opened, read or written (KRYL_ERR_IO)."""

    status = -20


class ParseError(KrylError, ValueError):
    """A Matrix Market file is malformed (KRYL_ERR_PARSE)."""

    status = -21


class NotSquareError(KrylError, ValueError):
    """The solver or preconditioner needs a square matrix (KRYL_ERR_NOT_SQUARE)."""

    status = -22


class NotSymmetricError(KrylError, ValueError):
    """CG needs a symmetric matrix (KRYL_ERR_NOT_SYMMETRIC)."""

    status = -23


class ZeroDiagonalError(KrylError, ValueError):
    """A preconditioner divides by a_ii = 0 (KRYL_ERR_ZERO_DIAGONAL)."""

    status = -24


class NotPositiveDefiniteError(KrylError, ValueError):
    """A non-positive pivot or diagonal (KRYL_ERR_NOT_POSITIVE_DEFINITE)."""

    status = -25


class IndexOverflowError(KrylError, OverflowError):
    """An index does not fit the index type (KRYL_ERR_INDEX_OVERFLOW)."""

    status = -26


class InvalidValueError(KrylError, ValueError):
    """NaN or Inf in the input (KRYL_ERR_INVALID_VALUE)."""

    status = -27


class IndexOutOfRangeError(KrylError, IndexError):
    """An entry outside the matrix (KRYL_ERR_INDEX_OUT_OF_RANGE)."""

    status = -28


class FormatUnsuitableError(KrylError, ValueError):
    """A storage format would cost too much for this matrix (KRYL_ERR_FORMAT_UNSUITABLE)."""

    status = -29


class KrylMemoryError(KrylError, MemoryError):
    """A host allocation failed (KRYL_ERR_OUT_OF_MEMORY)."""

    status = -40


class DeviceMemoryError(KrylError, MemoryError):
    """A device allocation failed (KRYL_ERR_DEVICE_OUT_OF_MEMORY)."""

    status = -41


class DeviceError(KrylError):
    """A device call failed (KRYL_ERR_DEVICE)."""

    status = -42


class InternalError(KrylError):
    """An internal error (KRYL_ERR_INTERNAL): please report it with its location."""

    status = -60


_BY_STATUS = {
    cls.status: cls
    for cls in (
        InvalidArgumentError,
        DimensionMismatchError,
        ContextMismatchError,
        UnsupportedError,
        BackendUnavailableError,
        KrylIOError,
        ParseError,
        NotSquareError,
        NotSymmetricError,
        ZeroDiagonalError,
        NotPositiveDefiniteError,
        IndexOverflowError,
        InvalidValueError,
        IndexOutOfRangeError,
        FormatUnsuitableError,
        KrylMemoryError,
        DeviceMemoryError,
        DeviceError,
        InternalError,
    )
}


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
