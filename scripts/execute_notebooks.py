"""Run notebooks top to bottom and store their outputs, offline, in place.

The stored outputs are what strict nbval compares, so they must be exactly
what a fresh run produces: this runs each notebook in a fresh kernel of the
current environment, with the same network guard as the tests, and removes
run-specific metadata (timings, widget state) so a re-run changes nothing.

    python scripts/execute_notebooks.py notebooks/*.ipynb
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from course_utils.core import netguard


def clean(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Drop what differs between runs but is not a result: timings, widget state, kernel details."""
    nb.metadata.pop("widgets", None)
    nb.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            for output in cell.get("outputs", []):
                output.get("metadata", {}).pop("execution", None)
    return nb


def execute(path: Path, timeout: int = 300) -> float:
    """Execute one notebook in place (working directory: its folder); return seconds taken."""
    nb = nbformat.read(path, as_version=4)
    os.environ["PYTHONPATH"] = netguard.pythonpath(os.environ.get("PYTHONPATH"))  # the kernel starts guarded
    os.environ.pop("COURSE_CHAT_MODEL", None)
    os.environ.pop("COURSE_LANG", None)  # an edition sets its language in the notebook, never from the shell
    # A master whose check is not correct raises, as under the tests, so a wrong result is never stored.
    os.environ["COURSE_CHECKS_STRICT"] = "1"
    client = NotebookClient(
        nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    start = time.perf_counter()
    client.execute()
    elapsed = time.perf_counter() - start
    nbformat.write(clean(nb), path)
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--timeout", type=int, default=300, help="seconds per cell")
    args = parser.parse_args(argv)
    for path in args.notebooks:
        print(f"{path}: {execute(path, args.timeout):.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
