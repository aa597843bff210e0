"""The ctypes structures match include/kryl.h field by field, in order."""

import re

import pytest
from conftest import REPO

from kryl import _lib

STRUCTS = {
    "kryl_context_options": _lib.ContextOptions,
    "kryl_solver_options": _lib.SolverOptions,
    "kryl_amg_options": _lib.AmgOptions,
    "kryl_profile": _lib.Profile,
    "kryl_result": _lib.Result,
    "kryl_generator_options": _lib.GeneratorOptions,
}


def header_fields(header: str, struct: str) -> list:
    body = re.search(r"typedef struct %s \{(.*?)\} %s;" % (struct, struct), header, re.S)
    assert body, f"{struct} not found in kryl.h"
    text = re.sub(r"/\*.*?\*/", "", body.group(1), flags=re.S)
    text = re.sub(r"\[[^]]*\]", "", text)  # array sizes
    names = []
    for decl in text.split(";"):
        decl = decl.strip()
        if not decl:
            continue
        declarators = decl.split(",")
        first = declarators[0].split()
        names.append(first[-1].lstrip("*"))
        names += [d.strip().lstrip("*") for d in declarators[1:]]
    return names


@pytest.mark.parametrize("struct", sorted(STRUCTS))
def test_struct_fields_match_header(struct):
    path = REPO / "include" / "kryl.h"
    if not path.exists():
        pytest.skip("include/kryl.h not found next to the package")
    fields = [f[0] for f in STRUCTS[struct]._fields_]
    assert fields == header_fields(path.read_text(), struct)


def test_setup_phase_count():
    path = REPO / "include" / "kryl.h"
    if not path.exists():
        pytest.skip("include/kryl.h not found next to the package")
    body = re.search(r"typedef enum kryl_setup_phase \{(.*?)KRYL_SETUP_PHASES", path.read_text(),
                     re.S)
    assert len(re.findall(r"^\s*KRYL_SETUP_\w+", body.group(1), re.M)) == _lib.SETUP_PHASES
