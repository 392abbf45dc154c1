"""The shape of ``course_utils``: layers that import only downward, no import circles.

The layers are ``course_utils.LAYERS``, lowest first; every module lives in
one of them (a package of that name), so there is no list of modules to keep
here: a new module is placed by the folder it is written in.

The import graph is read statically with :mod:`ast` from the source files,
including imports inside functions (a function-level import that closes a
circle is still a circle: it only hides it until the function runs).
Imports under ``if TYPE_CHECKING:`` are left out, as they never run.

The layers themselves are import-linter's ``layers`` contract in pyproject.toml
(``lint-imports``, run here); this file holds its list equal to
``course_utils.LAYERS`` and finds the circles import-linter does not look for.
Size is not a rule: ruff's C901 (pyproject.toml, at most 15) keeps functions
small, and a module is split by idea.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

PACKAGE = "course_utils"
ROOT = Path(__file__).resolve().parent.parent / PACKAGE

import course_utils

LAYERS: tuple[str, ...] = course_utils.LAYERS


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


def contract_layers() -> list[str]:
    """The ``layers`` of pyproject.toml's import-linter contract, highest first (as import-linter lists them)."""
    text = (ROOT.parent / "pyproject.toml").read_text(encoding="utf-8")
    contract = text.split("[[tool.importlinter.contracts]]", 1)[1]
    return json.loads(re.search(r"^layers = (\[.*\])$", contract, re.M).group(1))


def test_the_import_contract_lists_the_layers_of_course_utils():
    assert contract_layers() == list(reversed(LAYERS)), "pyproject.toml's layers must be course_utils.LAYERS, reversed"


def test_no_layer_imports_a_later_layer():
    """import-linter's layers contract, function-level imports included (tools: requirements-dev.txt)."""
    done = subprocess.run([sys.executable, "-c", "import sys; from importlinter.cli import lint_imports; "
                           "sys.exit(lint_imports(no_cache=True, no_logo=True))"],
                          cwd=ROOT.parent, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "1 kept, 0 broken" in done.stdout, done.stdout[-2000:]


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
