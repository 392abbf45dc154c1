"""Which answer cells failed: so a check never grades a value left over from an earlier run.

When a learner's answer cell stops with an error (a SyntaxError, or an
exception before the assignment), the name it should set keeps its previous
value: the ``...`` placeholder, or an answer from an earlier run. A check
that then reads the name would grade that old value as if it were the new
one. To tell, the checks register an IPython ``post_run_cell`` hook the
first time they are imported in a kernel. After every cell it notes which
top-level names the cell sets, and whether it ran to the end:

- a cell that ran to the end clears its names;
- a cell that stopped marks the names it did not get to set: every name when
  it could not be parsed or stopped before running (a SyntaxError), else
  the names set by the statement that raised and by every statement after it.

``failed_answer(["kept_ids"])`` then says which of a check's names is marked,
with the error that stopped its cell. Outside IPython (a script, the unit
tests) no hook is registered and nothing is ever marked.
"""

from __future__ import annotations

import ast
import re
import traceback
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

#: name -> the failure that left it unset (cleared when a later cell sets it)
_FAILED: dict[str, FailedCell] = {}
#: The attribute on the IPython shell holding the hook, so a re-import replaces it instead of adding another.
_HOOK_ATTRIBUTE = "_course_checks_post_run_cell"


@dataclass(frozen=True)
class FailedCell:
    """A cell that stopped before setting ``name``: its execution count and the error, in one line."""

    name: str
    execution_count: int | None
    error: str


def _statement_names(statement: ast.stmt) -> set[str]:
    """Top-level names a statement sets: assignment targets, ``def``/``class`` names, imports."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {statement.name}
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).split(".")[0] for alias in statement.names}
    targets: list[ast.AST] = []
    if isinstance(statement, ast.Assign):
        targets = list(statement.targets)
    elif isinstance(statement, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
        targets = [statement.target]
    elif isinstance(statement, (ast.With, ast.AsyncWith)):
        targets = [item.optional_vars for item in statement.items if item.optional_vars is not None]
    names = set()
    for target in targets:
        names |= {node.id for node in ast.walk(target) if isinstance(node, ast.Name)}
    if isinstance(statement, (ast.If, ast.Try, ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While)):
        for child in ast.iter_child_nodes(statement):
            if isinstance(child, ast.stmt):
                names |= _statement_names(child)
        for handler in getattr(statement, "handlers", []):
            for child in handler.body:
                names |= _statement_names(child)
    return names


_ASSIGNED = re.compile(r"^(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)|^([A-Za-z_]\w*)\s*(?::[^=\n]*)?=(?!=)", re.M)


def names_left_unset(source: str, failed_line: int | None) -> set[str]:
    """The top-level names a cell did not get to set when it stopped at ``failed_line`` (1-based; None: at once).

    A cell that does not parse sets nothing, so every name it looks like it
    sets is returned (found with a regular expression, since there is no tree).

    >>> sorted(names_left_unset("a = 1\\nb = f()\\ndef c(): pass", 2))
    ['b', 'c']
    >>> sorted(names_left_unset("kept_ids = [\\"h2\\", \\"a2\\"", None))
    ['kept_ids']
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {a or b for a, b in _ASSIGNED.findall(source)}
    names: set[str] = set()
    for statement in tree.body:
        end = getattr(statement, "end_lineno", statement.lineno)
        if failed_line is None or end >= failed_line:
            names |= _statement_names(statement)
    return names


def names_set(source: str) -> set[str]:
    """Every top-level name a cell sets when it runs to the end."""
    return names_left_unset(source, None)


def _failed_line(error: BaseException) -> int | None:
    """The line of the cell's own code where ``error`` stopped it (its first frame is the cell)."""
    frames = traceback.extract_tb(error.__traceback__)
    cell_frames = [f for f in frames if f.name == "<module>"]  # the first is the cell; later ones, modules it imports
    return cell_frames[0].lineno if cell_frames else None


def after_cell(result: Any) -> None:
    """IPython's ``post_run_cell`` hook: note the names a failed cell left unset, clear those a cell set."""
    source = getattr(getattr(result, "info", None), "raw_cell", None)
    if not isinstance(source, str):
        return
    error = getattr(result, "error_before_exec", None) or getattr(result, "error_in_exec", None)
    if error is None:
        for name in names_set(source):
            _FAILED.pop(name, None)
        return
    before_exec = getattr(result, "error_before_exec", None) is not None
    line = None if before_exec else _failed_line(error)
    unset = names_left_unset(source, line)
    for name in names_set(source) - unset:  # statements before the failure did run
        _FAILED.pop(name, None)
    if isinstance(error, SyntaxError):  # its str() names a temporary file: say the line instead
        detail = f"{type(error).__name__}: {error.msg} (line {error.lineno} of the cell)"
    else:
        detail = f"{type(error).__name__}: {error}".splitlines()[0][:200]
    for name in unset:
        _FAILED[name] = FailedCell(name, getattr(result, "execution_count", None), detail)


def failed_answer(names: Iterable[str]) -> FailedCell | None:
    """The first of ``names`` whose cell stopped before setting it (and was not run again since), or None."""
    for name in names:
        if name in _FAILED:
            return _FAILED[name]
    return None


def forget() -> None:
    """Clear every mark (for tests)."""
    _FAILED.clear()


def install() -> bool:
    """Register :func:`after_cell` with the running IPython shell, once; False outside IPython."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipykernel
        return False
    shell = get_ipython()
    if shell is None or not hasattr(shell, "events"):
        return False
    previous = getattr(shell, _HOOK_ATTRIBUTE, None)
    if previous is not None:
        try:
            shell.events.unregister("post_run_cell", previous)
        except ValueError:
            pass
    shell.events.register("post_run_cell", after_cell)
    setattr(shell, _HOOK_ATTRIBUTE, after_cell)
    return True
