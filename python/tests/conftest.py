"""Shared fixtures: the real matrices of ../shared/matrices (or $KRYL_MATRICES)."""

import os
import pathlib

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

REPO = pathlib.Path(__file__).resolve().parents[2]


def matrices_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("KRYL_MATRICES", REPO.parent / "shared" / "matrices"))


def read_matrix(name: str) -> sp.csr_matrix:
    """A real matrix by file name; skips the test when the collection is absent."""
    path = matrices_dir() / name
    if not path.exists():
        pytest.skip(f"{path} absent (the real matrices are not in the repository)")
    return sp.csr_matrix(scipy.io.mmread(str(path)), dtype=np.float64)


def true_relres(A, x, b) -> float:
    """||b - A x|| / ||b|| in NumPy."""
    return float(np.linalg.norm(b - A @ x) / np.linalg.norm(b))


@pytest.fixture(autouse=True)
def _passive_omp(monkeypatch):
    monkeypatch.setenv("OMP_WAIT_POLICY", os.environ.get("OMP_WAIT_POLICY", "passive"))
