"""Every public function, method and property of the package has a docstring
and type hints, and help(kryl.solve) lists every option as the CLI's help
does."""

import inspect

import kryl
from kryl.options import OPTIONS


def public_callables():
    """(name, function) of every public function, method and property."""
    for name in kryl.__all__:
        obj = getattr(kryl, name)
        if inspect.isclass(obj) and issubclass(obj, Exception):
            continue
        if not inspect.isclass(obj):
            yield name, obj
            continue
        yield name, obj
        for member, value in vars(obj).items():
            if member.startswith("_"):
                continue
            if isinstance(value, property):
                yield f"{name}.{member}", value.fget
            elif isinstance(value, (staticmethod, classmethod)):
                yield f"{name}.{member}", value.__func__
            elif inspect.isfunction(value):
                yield f"{name}.{member}", value


def test_every_public_callable_has_a_docstring_and_hints():
    undocumented, unhinted = [], []
    for name, f in public_callables():
        if not (f.__doc__ or "").strip():
            undocumented.append(name)
        if inspect.isclass(f) or not callable(f):
            continue
        sig = inspect.signature(f)
        unhinted += [f"{name}({p.name})" for p in sig.parameters.values()
                     if p.name not in ("self", "cls") and p.annotation is inspect.Parameter.empty]
        if sig.return_annotation is inspect.Signature.empty:
            unhinted.append(f"{name} -> ?")
    assert not undocumented, f"no docstring: {undocumented}"
    assert not unhinted, f"no type hints: {unhinted}"


def test_help_of_solve_lists_every_option():
    text = kryl.solve.__doc__
    for option in OPTIONS:
        assert f"\n  {option} " in text or f"\n  {option}\n" in text, option
    assert kryl.Solver.__doc__.endswith(text[text.index("Options"):])
