"""The shape of ``course_utils``: layers that import only downward, no import circles, small modules.

The layers are ``course_utils.LAYERS``, lowest first; every module lives in
one of them (a package of that name), so there is no list of modules to keep
here: a new module is placed by the folder it is written in.

The import graph is read statically with :mod:`ast` from the source files,
including imports inside functions (a function-level import that closes a
circle is still a circle: it only hides it until the function runs).
Imports under ``if TYPE_CHECKING:`` are left out, as they never run.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = "course_utils"
ROOT = Path(__file__).resolve().parent.parent / PACKAGE

import course_utils

LAYERS: tuple[str, ...] = course_utils.LAYERS

#: Past about this many lines a module is doing two jobs (notebooks/AUTHORING.md keeps this rule).
MAX_LINES = 700


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST):
    """Every Import / ImportFrom node, at any depth, except under ``if TYPE_CHECKING:``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _type_checking(node.test):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The package modules that ``path`` imports, by dotted name."""
    name = module_name(path)
    package = name if is_package(path) else name.rpartition(".")[0]
    found = set()
    for node in _import_nodes(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            if node.level:  # relative: from . import x, from .y import z
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            # ``from course_utils.checks import ex03`` imports the package and its submodule ex03.
            targets = [module] + [f"{module}.{alias.name}" for alias in node.names]
        for target in targets:
            # ``import course_utils.a.b`` runs course_utils.a too; the package itself is the root.
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name and target != PACKAGE:
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    paths = sorted(ROOT.rglob("*.py"))
    modules = {module_name(p) for p in paths}
    return {module_name(p): imports_of(p, modules) for p in paths}


def layer_of(module: str) -> str:
    """``course_utils.checks.ex01`` -> ``checks``: the layer (top-level package) a module belongs to."""
    return module.split(".")[1] if module.count(".") else module


def upward_imports(graph: dict[str, set[str]], layers: tuple[str, ...]) -> list[str]:
    """Every import from a layer to a later one, as "a imports b (layer x -> y)"."""
    rank = {layer: position for position, layer in enumerate(layers)}
    return sorted(
        f"{module} imports {target} ({layer_of(module)} -> {layer_of(target)})"
        for module, targets in graph.items()
        if module != PACKAGE
        for target in targets
        if rank[layer_of(target)] > rank[layer_of(module)]
    )


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_graph_sees_function_level_imports():
    # render imports thresholds inside limits_table only: the graph must still see the edge.
    graph = import_graph()
    assert f"{PACKAGE}.window.thresholds" in graph[f"{PACKAGE}.pictures.render"]
    assert f"{PACKAGE}.window.tokens" in graph[f"{PACKAGE}.window.trimming"]


def test_circles_are_found():
    # The detector itself, on a made-up graph: a -> b -> c -> a is a circle, d -> a is not part of it.
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circles():
    assert circles(import_graph()) == []


def test_every_module_lives_in_a_layer():
    """No flat module beside ``__init__``, and every package at the top is a layer with a place in the order."""
    flat = sorted(p.name for p in ROOT.glob("*.py") if p.name != "__init__.py")
    assert flat == [], f"put these modules in a layer package: {flat}"
    packages = sorted(p.parent.name for p in ROOT.glob("*/__init__.py"))
    assert sorted(LAYERS) == packages, "course_utils.LAYERS must name every top-level package once"


def test_an_upward_import_is_caught():
    # The rule itself, on made-up graphs: window -> pictures goes up; pictures -> window goes down.
    up = {f"{PACKAGE}.window.x": {f"{PACKAGE}.pictures.y"}, f"{PACKAGE}.pictures.y": set()}
    down = {f"{PACKAGE}.pictures.y": {f"{PACKAGE}.window.x"}, f"{PACKAGE}.window.x": set()}
    assert upward_imports(up, LAYERS) == [f"{PACKAGE}.window.x imports {PACKAGE}.pictures.y (window -> pictures)"]
    assert upward_imports(down, LAYERS) == []


def test_no_layer_imports_a_later_layer():
    assert upward_imports(import_graph(), LAYERS) == [], "a layer may import only from itself and the layers before it"


def test_each_layer_lists_its_modules():
    """A layer's docstring names each of its modules (the map a reader starts from stays true)."""
    missing = []
    for layer in LAYERS:
        doc = ast.get_docstring(ast.parse((ROOT / layer / "__init__.py").read_text(encoding="utf-8"))) or ""
        for path in sorted((ROOT / layer).glob("*.py")):
            named = re.search(rf"[`.]{path.stem}\b", doc)
            if not path.stem.startswith("__") and not named:
                missing.append(f"{layer}.{path.stem}")
    assert missing == [], f"list these modules in their layer's docstring: {missing}"


@pytest.mark.parametrize("path", sorted(ROOT.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_over_700_lines(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT.parent)} has {lines} lines (at most {MAX_LINES})"


def test_no_module_imports_another_modules_private_names():
    """What one module needs from another is public and documented: no ``from course_utils.x import _name``.

    The one exception is gettext's conventional ``_`` (translate this text), from ``course_utils.core.i18n``.
    """
    offenders = []
    for path in sorted(ROOT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PACKAGE):
                private = [a.name for a in node.names
                           if a.name.startswith("_") and not a.name.startswith("__")
                           and not (a.name == "_" and node.module == f"{PACKAGE}.core.i18n")]
                if private:
                    offenders.append(f"{path.relative_to(ROOT.parent)} imports {private} from {node.module}")
    assert not offenders, "\n".join(offenders)
