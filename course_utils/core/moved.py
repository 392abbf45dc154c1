"""Old flat module paths (``course_utils.tokens``) keep importing after the move into layers.

Until the modules were grouped into layer packages, a lesson wrote
``from course_utils.tokens import count_tokens``. Code written that way, a
teacher's own notebook for instance, still runs: importing
``course_utils.tokens`` gives the very module ``course_utils.window.tokens``
(one module object under two names, so ``isinstance`` and monkeypatching
agree) and warns once with a :class:`FutureWarning` naming the new path.

The old names are found by looking in the layer folders, so there is no list
to keep: a module ``course_utils/<layer>/<name>.py`` answers to
``course_utils.<name>`` as long as no module of that name exists at the top.

>>> new_path("tokens")
'course_utils.window.tokens'
>>> new_path("no_such_module") is None
True
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from pathlib import Path
from types import ModuleType

PACKAGE = "course_utils"
ROOT = Path(__file__).resolve().parents[1]


def new_path(name: str) -> str | None:
    """Where the flat module ``course_utils.<name>`` lives now, or None if no layer has it."""
    from course_utils import LAYERS

    for layer in LAYERS:
        if (ROOT / layer / f"{name}.py").is_file():
            return f"{PACKAGE}.{layer}.{name}"
    return None


class _AliasLoader(importlib.abc.Loader):
    """Loads an old name as the module that now lives at ``target``."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec) -> ModuleType:
        return importlib.import_module(self.target)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module under its new name has run already."""


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Answers ``import course_utils.<old flat name>`` with the module's new home, and warns."""

    def find_spec(self, fullname, path=None, target=None):
        package, dot, name = fullname.partition(".")
        if package != PACKAGE or not dot or "." in name:
            return None
        moved_to = new_path(name)
        if moved_to is None:
            return None
        warnings.warn(f"{fullname} is now {moved_to}: import it from there", FutureWarning, stacklevel=2)
        return importlib.util.spec_from_loader(fullname, _AliasLoader(moved_to))


def install() -> None:
    """Put the finder on ``sys.meta_path`` once (after the normal finders, which find real modules first)."""
    if not any(isinstance(finder, MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.append(MovedModuleFinder())
