"""What the grader's tests share: a solved notebook as a student hands it in.

>>> from pathlib import Path
>>> nb = cleared(Path(__file__).resolve().parents[1] / "exercises" / "solutions" / "02_token_budgets_exercise.ipynb")
>>> {(len(c.outputs), c.execution_count) for c in nb.cells if c.cell_type == "code"}
{(0, None)}
"""

from __future__ import annotations

from pathlib import Path

import nbformat


def cleared(path: Path) -> nbformat.NotebookNode:
    """The notebook at ``path`` with every code cell's outputs and execution count cleared."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return nb
