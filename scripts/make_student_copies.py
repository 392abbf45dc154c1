"""Make the student copies of the exercises from the masters, without the solutions, and the solutions data.

    python scripts/make_student_copies.py            # write exercises/NN_*_exercise.ipynb and the solutions
    python scripts/make_student_copies.py --check    # exit 1 if a committed copy or solutions file is stale

Reads every master in ``exercises/solutions/`` and writes its student copy
to ``exercises/`` with the same name, and the master's solution lines per
question to ``course_utils/checks/master_solutions/exNN.json`` (what
``qN.solution()`` shows; see ``course_utils/checks/solutions.py``). The master
is the one source of every solution. Running it twice changes nothing.

The Persian edition is done the same way, from the Persian masters that
``scripts/make_persian_edition.py`` builds: ``exercises/fa/solutions/`` ->
student copies in ``exercises/fa/`` and solutions data in
``course_utils/checks/master_solutions/fa/`` (what ``qN.solution()`` shows
when the course speaks Persian). See :func:`editions`.

Solution markers in a master (the otter-grader convention, simplified):

- code lines between ``# BEGIN SOLUTION`` and ``# END SOLUTION`` are replaced
  by one line ``...  # your code here`` at the marker's indentation;
- ``# PROMPT: text`` lines just before a block become ``text`` in the copy
  and replace the default prompt (e.g. ``# PROMPT: why = ...  # one sentence``);
- a code line ending in ``# SOLUTION`` that assigns (``x = 5  # SOLUTION``)
  becomes ``x = ...  # your code here``;
- in Markdown, text between ``<!-- BEGIN SOLUTION -->`` and
  ``<!-- END SOLUTION -->`` becomes ``_Write your answer here._``
  (``_پاسخ خود را اینجا بنویسید._`` in a Persian master);
- a cell tagged ``solution`` is replaced as a whole.

In the copy every output and execution count is cleared, the markers are
gone, and links that leave the masters' folder (``../../notebooks/``) point
from the copy's folder, one level up, instead (``../notebooks/``; from a
Persian master ``../../../notebooks/fa/`` becomes ``../../notebooks/fa/``).
A Persian master's ``course_edition`` metadata is kept.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the course_utils beside this script, not another installed copy

from course_utils.checks import solutions  # noqa: E402 - after the path is set
MASTERS = ROOT / "exercises" / "solutions"
COPIES = ROOT / "exercises"
#: Where the solutions data goes: package data of course_utils.checks (what ``qN.solution()`` reads).
SOLUTIONS_DATA = solutions.DATA_DIR
#: The Persian edition's folder, inside COPIES: masters (built by scripts/make_persian_edition.py) in
#: ``fa/solutions/``, copies in ``fa/``, solutions data in ``SOLUTIONS_DATA / "fa"``.
PERSIAN = "fa"

CODE_PROMPT = "...  # your code here"
MARKDOWN_PROMPT = "_Write your answer here._"
BEGIN = re.compile(r"^(\s*)# BEGIN SOLUTION\s*$")
END = re.compile(r"^\s*# END SOLUTION\s*$")
PROMPT = re.compile(r"^(\s*)# PROMPT: ?(.*)$")
LINE = re.compile(r"^(\s*)([^=#]+?)\s*(?<![=!<>+\-*/%&|^])=(?!=)\s*(.+?)\s*# SOLUTION\s*$")
#: The Markdown prompt in a Persian master's copy (its markdown carries lang="fa").
PERSIAN_MARKDOWN_PROMPT = "_پاسخ خود را اینجا بنویسید._"
MD_BEGIN = "<!-- BEGIN SOLUTION -->"
MD_END = "<!-- END SOLUTION -->"
#: Any of these left in a copy means a marker was not understood.
LEFTOVERS = ("SOLUTION", "# PROMPT:")


class MarkerError(ValueError):
    """A master's solution markers do not pair up or are not understood."""


def strip_code(source: str, where: str) -> str:
    """Replace the solution parts of one code cell's source."""
    out: list[str] = []
    prompts: list[str] = []
    lines = source.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if match := PROMPT.match(line):
            prompts.append(match.group(1) + match.group(2))
            i += 1
            continue
        if match := BEGIN.match(line):
            end = next((j for j in range(i + 1, len(lines)) if END.match(lines[j])), None)
            if end is None:
                raise MarkerError(f"{where}: '# BEGIN SOLUTION' on line {i + 1} has no '# END SOLUTION'")
            inner = lines[i + 1 : end]
            if any(BEGIN.match(x) for x in inner):
                raise MarkerError(f"{where}: nested '# BEGIN SOLUTION' after line {i + 1}")
            out.extend(prompts or [match.group(1) + CODE_PROMPT])
            prompts = []
            i = end + 1
            continue
        if prompts:
            raise MarkerError(f"{where}: '# PROMPT:' lines must come just before '# BEGIN SOLUTION' (line {i + 1})")
        if END.match(line):
            raise MarkerError(f"{where}: '# END SOLUTION' on line {i + 1} without a '# BEGIN SOLUTION'")
        if line.rstrip().endswith("# SOLUTION"):
            match = LINE.match(line)
            if not match:
                raise MarkerError(f"{where}: line {i + 1} ends in '# SOLUTION' but is not an assignment: {line!r}")
            out.append(f"{match.group(1)}{match.group(2)} = {CODE_PROMPT}")
            i += 1
            continue
        out.append(line)
        i += 1
    if prompts:
        raise MarkerError(f"{where}: '# PROMPT:' lines at the end of the cell with no solution block")
    return "\n".join(out)


def strip_markdown(source: str, where: str, prompt: str = MARKDOWN_PROMPT) -> str:
    """Replace the solution parts of one Markdown cell's source; point links that leave the masters' folder
    from the copy's folder, one level up (``](../../notebooks/`` -> ``](../notebooks/``)."""
    while MD_BEGIN in source:
        start = source.index(MD_BEGIN)
        end = source.find(MD_END, start)
        if end == -1:
            raise MarkerError(f"{where}: '{MD_BEGIN}' has no '{MD_END}'")
        source = source[:start] + prompt + source[end + len(MD_END) :]
    if MD_END in source:
        raise MarkerError(f"{where}: '{MD_END}' without '{MD_BEGIN}'")
    return source.replace("](../", "](")


def student_copy(master: nbformat.NotebookNode, name: str = "notebook") -> nbformat.NotebookNode:
    """The student copy of one master notebook (a new object; the master is not changed)."""
    nb = nbformat.v4.new_notebook()
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    edition = master.get("metadata", {}).get("course_edition")
    persian = bool(edition) and edition.get("lang") == "fa"
    if edition:
        # the English twin of a copy is the English copy of the same name, beside exercises/fa/
        nb.metadata["course_edition"] = {**edition, "english": f"../{name}"} if "english" in edition else dict(edition)
    for index, cell in enumerate(master.cells):
        where = f"{name}, cell {index}"
        metadata = {k: v for k, v in cell.get("metadata", {}).items() if k not in ("execution", "collapsed", "scrolled")}
        tags = [t for t in metadata.get("tags", []) if t != "solution"]
        whole = "solution" in metadata.get("tags", [])
        if tags:
            metadata["tags"] = tags
        else:
            metadata.pop("tags", None)
        if cell.cell_type == "code":
            source = CODE_PROMPT if whole else strip_code(cell.source, where)
            new = nbformat.v4.new_code_cell(source, metadata=metadata)
        elif cell.cell_type == "markdown":
            prompt = PERSIAN_MARKDOWN_PROMPT if persian else MARKDOWN_PROMPT
            source = prompt if whole else strip_markdown(cell.source, where, prompt)
            new = nbformat.v4.new_markdown_cell(source, metadata=metadata)
        else:
            new = nbformat.v4.new_raw_cell(cell.source, metadata=metadata)
        if "id" in cell:
            new["id"] = cell["id"]
        for leftover in LEFTOVERS:
            if leftover in new.source:
                raise MarkerError(f"{where}: {leftover!r} is left in the student copy; check the markers")
        nb.cells.append(new)
    return nb


def render(nb: nbformat.NotebookNode) -> str:
    text = nbformat.writes(nb)
    return text if text.endswith("\n") else text + "\n"


def editions() -> list[tuple[Path, Path, Path]]:
    """(masters folder, copies folder, solutions data folder) of each edition: English, then Persian."""
    return [(MASTERS, COPIES, SOLUTIONS_DATA),
            (COPIES / PERSIAN / "solutions", COPIES / PERSIAN, SOLUTIONS_DATA / PERSIAN)]


def copy_path(master: Path) -> Path:
    return next(copies for masters_dir, copies, _ in editions() if master.parent == masters_dir) / master.name


def data_folder(master: Path) -> Path:
    return next(data for masters_dir, _, data in editions() if master.parent == masters_dir)


def masters() -> list[Path]:
    """The English masters (what every English test walks)."""
    return sorted(MASTERS.glob("*_exercise.ipynb"))


def persian_masters() -> list[Path]:
    """The Persian masters built so far by scripts/make_persian_edition.py."""
    return sorted((COPIES / PERSIAN / "solutions").glob("*_exercise.ipynb"))


def expected_copy(master: Path) -> str:
    """The text the student copy of ``master`` should have."""
    return render(student_copy(nbformat.read(master, as_version=4), master.name))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check: exit 1 if a student copy is stale")
    args = parser.parse_args(argv)
    paths = masters() + persian_masters()
    if not paths:
        print(f"no masters found in {MASTERS}", file=sys.stderr)
        return 1
    stale = []
    for master in paths:
        try:
            text = expected_copy(master)
        except MarkerError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        try:
            data = solutions.render(master, ROOT)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        data_file = data_folder(master) / solutions.data_path(solutions.exercise_of(master)).name
        for target, wanted in ((copy_path(master), text), (data_file, data)):
            if not _update(target, wanted, args.check):
                stale.append(target)
    return 1 if stale else 0


def _update(target: Path, text: str, check: bool) -> bool:
    """Write ``text`` to ``target`` unless it is there already; with ``check``, only say so. False when stale."""
    current = target.read_text(encoding="utf-8") if target.exists() else None
    shown = target.relative_to(ROOT) if target.is_relative_to(ROOT) else target
    if current == text:
        print(f"up to date: {shown}")
        return True
    if check:
        print(f"STALE: {shown} (run: python scripts/make_student_copies.py)", file=sys.stderr)
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    print(f"wrote: {shown}")
    return True


if __name__ == "__main__":
    sys.exit(main())
