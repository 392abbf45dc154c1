"""Drop the package catalogue's entries that no source uses any more.

When a lesson's prints moved into its own cells (plain English, with the
Persian lesson's strings in ``notebooks/fa/po/``) or a check was rewritten as
question data, the package catalogue kept the old sentences. An entry is
*unused* when its msgid is found in none of the places a translated string can
come from:

- a string constant of any module of ``course_utils`` (so texts looked up
  later, such as ``_(STRATEGY_LABELS[name])`` or a question's hints, count),
  and the strings its modules hold once imported (``LOSS_RULE`` is built from
  a docstring);
- the text of the package's templates and data files (``{{ n }}`` in a
  Jinja2 ``{% trans %}`` block is ``%(n)s`` in its msgid);
- a code cell of a lesson or an exercise, in either edition (the exercises
  call ``_()`` themselves).

This is wider than what Babel's extractor sees (it finds only literal
``_("...")`` calls and would drop the looked-up texts), so an entry is
removed only when nothing could ask for it. The file is edited entry by
entry, so its comments stay (each entry then stands between blank lines).

    python scripts/prune_catalogues.py           # remove unused entries, then run compile_catalogues.py
    python scripts/prune_catalogues.py --check   # list them and exit 1 (tests/test_i18n.py)
"""

from __future__ import annotations

import ast
import io
import json
import re
import sys
from pathlib import Path

from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "course_utils"
LOCALE_DIR = PACKAGE / "locale"
DATA_SUFFIXES = (".j2", ".json", ".html", ".txt", ".md")


def string_constants(code: str) -> list[str]:
    """Every string constant in ``code`` (IPython's ``%magic`` and ``!shell`` lines left out).

    >>> sorted(string_constants('print(_("hello {name}").format(name="Bob"))'))
    ['Bob', 'hello {name}']
    """
    try:
        tree = ast.parse(code)
    except SyntaxError:
        lines = [line for line in code.splitlines() if not line.lstrip().startswith(("%", "!"))]
        try:
            tree = ast.parse("\n".join(lines))
        except SyntaxError:
            return []
    return [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)]


def code_cells(path: Path) -> list[str]:
    """The sources of a notebook's code cells."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]


def runtime_strings() -> list[str]:
    """The string values of every ``course_utils`` module's globals, and the strings inside its containers.

    Some texts are built when the module loads (``LOSS_RULE`` is a paragraph of a docstring, joined onto one
    line): no source holds them as written, but the module does.
    """
    import importlib
    import pkgutil

    if str(ROOT) not in sys.path:  # run as a script, the course's folder is not on the path
        sys.path.insert(0, str(ROOT))
    import course_utils

    found = []

    def collect(value, depth=0):
        if isinstance(value, str):
            found.append(value)
        elif depth < 3 and isinstance(value, dict):
            for key, item in value.items():
                collect(key, depth + 1)
                collect(item, depth + 1)
        elif depth < 3 and isinstance(value, (list, tuple, set, frozenset)):
            for item in value:
                collect(item, depth + 1)

    names = [info.name for info in pkgutil.walk_packages(course_utils.__path__, "course_utils.")
             if not info.name.endswith("__main__")]
    for name in ["course_utils", *names]:
        for value in list(vars(importlib.import_module(name)).values()):
            collect(value)
    return found


def used_texts() -> str:
    """All the text a translated string can come from, joined; a msgid is used when it is a substring."""
    texts = []
    for path in sorted(PACKAGE.rglob("*")):
        if LOCALE_DIR in path.parents or not path.is_file():
            continue
        if path.suffix == ".py":
            source = path.read_text(encoding="utf-8")
            texts += [source, *string_constants(source)]
        elif path.suffix in DATA_SUFFIXES:
            texts.append(path.read_text(encoding="utf-8"))
    for path in sorted([*ROOT.glob("notebooks/**/*.ipynb"), *ROOT.glob("exercises/**/*.ipynb")]):
        for source in code_cells(path):
            texts += [source, *string_constants(source)]
    texts += runtime_strings()
    joined = "\n\0".join(texts)
    return joined + "\n\0" + re.sub(r"\{\{\s*(\w+)\s*\}\}", r"%(\1)s", joined)


def entry_ids(block: str) -> tuple[str, ...]:
    """The msgid (and plural msgid) of one entry of a .po file, or () for a comment or the header."""
    catalog = read_po(io.StringIO(block))
    for message in catalog:
        if message.id:
            return message.id if isinstance(message.id, tuple) else (message.id,)
    return ()


def entries(text: str) -> list[str]:
    r"""The .po text cut into entries: at blank lines, and where a new entry follows a msgstr line directly.

    >>> entries('msgid "a"\nmsgstr "A"\nmsgid "b"\nmsgstr ""\n"B"\n\n# --- c ---\n')
    ['msgid "a"\nmsgstr "A"', 'msgid "b"\nmsgstr ""\n"B"', '# --- c ---']
    """
    found, lines, in_msgstr = [], [], False
    for line in text.splitlines():
        starts_entry = not line.strip() or (in_msgstr and not line.startswith(('"', "msgstr")))
        if starts_entry and lines:
            found.append("\n".join(lines))
            lines = []
        if line.strip():
            lines.append(line)
        in_msgstr = line.startswith("msgstr") or (in_msgstr and line.startswith('"'))
    if lines:
        found.append("\n".join(lines))
    return found


def unused_blocks(po: Path, used: str) -> list[str]:
    """The entries of ``po`` whose msgids no source holds."""
    return [block for block in entries(po.read_text(encoding="utf-8"))
            if (ids := entry_ids(block)) and not any(i in used for i in ids)]


def main(argv: list[str]) -> int:
    check = "--check" in argv
    used = used_texts()
    found = False
    for po in sorted(LOCALE_DIR.glob("*/LC_MESSAGES/*.po")):
        unused = unused_blocks(po, used)
        if not unused:
            continue
        found = True
        name = po.relative_to(ROOT)
        if check:
            print(f"{name}: {len(unused)} entries no source uses (run python scripts/prune_catalogues.py):")
            for block in unused[:20]:
                print("  ", entry_ids(block)[0][:100])
            continue
        drop = set(unused)
        kept = [block for block in entries(po.read_text(encoding="utf-8")) if block not in drop]
        po.write_text("\n\n".join(kept).rstrip("\n") + "\n", encoding="utf-8")
        print(f"{name}: removed {len(unused)} unused entries")
    if not check and found:
        import compile_catalogues

        return compile_catalogues.main([])
    return 1 if check and found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
