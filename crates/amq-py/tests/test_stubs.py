"""The stubs (python/amq/*.pyi) and the docstrings say what the package has: every public
name of every module and class is in the stubs with the runtime's parameters, and the other
way round, and every public callable has a docstring."""

import ast
import inspect
import pathlib

import pytest

import amq

PACKAGE = pathlib.Path(amq.__file__).parent
MODULES = {"__init__": amq, "eth": amq.eth, "btc": amq.btc, "cashu": amq.cashu,
           "algorand": amq.algorand, "parquet": amq.parquet}
# stub-only helpers (type aliases, the shared base of the filter classes)
STUB_ONLY = {"Item", "Items", "Answers", "Spec", "AnyFilter", "Hex", "Bytes", "Hash", "HashName",
             "Response", "Name", "Element", "_Filter", "_F"}


def stub_tree(name):
    return ast.parse((PACKAGE / f"{name}.pyi").read_text())


def stub_names(tree):
    """Module-level names and, for classes, their member names (with the base class's)."""
    names, classes = set(), {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets)
        elif isinstance(node, ast.ImportFrom) and node.module is None:
            names.update(a.asname or a.name for a in node.names)
        if isinstance(node, ast.ClassDef):
            members = {n.name: n for n in node.body if isinstance(n, ast.FunctionDef)}
            for base in node.bases:
                if isinstance(base, ast.Name) and base.id in classes:
                    members = {**classes[base.id], **members}
            classes[node.name] = members
    return names, classes


@pytest.mark.parametrize("name", MODULES)
def test_stubs_match_the_runtime(name):
    module = MODULES[name]
    names, classes = stub_names(stub_tree(name))
    runtime = {n for n in dir(module) if not n.startswith("_")} | (
        {"__version__"} if name == "__init__" else set())
    if name == "__init__":
        runtime -= {"algorand", "btc", "cashu", "eth", "parquet"} - names
    assert runtime - names == set(), f"{name}: not in the stubs"
    assert names - STUB_ONLY - runtime == set(), f"{name}: in the stubs only"
    for cls_name, members in classes.items():
        if cls_name in STUB_ONLY or not isinstance(getattr(module, cls_name), type):
            continue
        cls = getattr(module, cls_name)
        if issubclass(cls, Exception):
            continue
        public = {m for m in dir(cls) if not m.startswith("_")}
        assert public - set(members) == set(), f"{cls_name}: not in the stubs"
        for member, node in members.items():
            assert hasattr(cls, member), f"{cls_name}.{member}: in the stubs only"
            if member == "__init__":
                sig = cls.__text_signature__
            elif member.startswith("__"):
                continue  # operators: Python's own signatures
            else:
                sig = getattr(getattr(cls, member), "__text_signature__", None)
            if sig and not any(isinstance(d, ast.Name) and d.id == "property"
                               for d in node.decorator_list):
                stub_params = [a.arg for a in node.args.args + node.args.kwonlyargs]
                runtime_params = [p.strip().split("=")[0].lstrip("*")
                                  for p in sig.strip("()").split(",")
                                  if p.strip() not in ("/", "*", "$self", "$cls")]
                stub_params = [p for p in stub_params if p not in ("self", "cls")]
                assert stub_params == runtime_params, f"{cls_name}.{member}"


@pytest.mark.parametrize("name", MODULES)
def test_public_callables_have_docstrings(name):
    module = MODULES[name]
    assert module.__doc__
    for attr in dir(module):
        obj = getattr(module, attr)
        if attr.startswith("_") or not callable(obj):
            continue
        assert (obj.__doc__ or "").strip(), f"{name}.{attr}"
        if isinstance(obj, type) and not issubclass(obj, Exception):
            for m in dir(obj):
                if not m.startswith("_") and callable(getattr(obj, m)):
                    assert (getattr(obj, m).__doc__ or "").strip(), f"{attr}.{m}"


def test_py_typed_marker_is_shipped():
    assert (PACKAGE / "py.typed").exists()
    assert inspect.getdoc(amq.BloomFilter.with_fpr)
