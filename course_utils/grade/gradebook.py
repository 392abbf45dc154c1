"""The gradebook: ``gradebook.csv`` and ``gradebook.html``, the same bytes for the same results.

The checks write their messages in a small part of Markdown: `code` spans,
*emphasis* and **strong**. The HTML page renders them (:func:`message_html`);
the CSV, read in a spreadsheet, gets the plain words (:func:`message_plain`).
A student's own words (``answer_text``) are shown exactly as written.
"""

from __future__ import annotations

import csv
import functools
import html
import io
import os
import re
from dataclasses import dataclass
from pathlib import Path

import jinja2
from markupsafe import Markup

from course_utils.grade.results import find_exercise, NotebookResult, QUESTION_STATUSES, Settings
from course_utils.grade.sandbox import Isolation
from course_utils.core.style import STATUS_COLOURS


# --- the gradebook ---------------------------------------------------------------------------------

CSV_COLUMNS = ("student", "exercise", "file", "question", "title", "status", "message", "hint",
               "notebook_status", "notebook_detail", "answer_text")

#: The symbol or short word the gradebook shows for each status.
SYMBOLS = {
    "correct": "\u2713",
    "wrong": "\u2717",
    "needs review": "?",
    "not attempted": "\u2013",
    "error": "!",
    "not run": "\u00b7",
    "ok": "ok",
    "crashed": "crashed",
    "timeout": "timeout",
    "memory limit": "memory",
    "disk limit": "disk",
    "invalid notebook": "invalid",
}
#: status -> (symbol, colour, background); the colours are the course's one palette.
COLOURS = {status: (symbol, *STATUS_COLOURS[status]) for status, symbol in SYMBOLS.items()}


# --- the checks' messages: a small part of Markdown ------------------------------------------------

_CODE = re.compile(r"`([^`\n]+)`")
_STRONG = re.compile(r"\*\*(?=\S)([^*\n]+?)(?<=\S)\*\*")
_EMPHASIS = re.compile(r"(?<![\w*])\*(?=[^\s*])([^*\n]+?)(?<=[^\s*])\*(?![\w*])")
#: The columns whose text a check (or the grader) wrote, in that Markdown; answer_text is the student's.
MARKDOWN_COLUMNS = ("message", "hint", "notebook_detail")


def _code_spans(text: str):
    """``text`` cut into (is_code, piece): code spans are left alone by the other rules."""
    position = 0
    for match in _CODE.finditer(text):
        yield False, text[position:match.start()]
        yield True, match.group(1)
        position = match.end()
    yield False, text[position:]


@dataclass(frozen=True)
class Span:
    """A piece of a check's message and how it is drawn; the template ``message.html.j2`` draws it."""

    text: str = ""
    code: bool = False
    strong: bool = False
    em: bool = False
    newline: bool = False


def _lines(text: str, strong: bool, em: bool) -> list[Span]:
    spans = []
    for number, line in enumerate(text.split("\n")):
        if number:
            spans.append(Span(newline=True))
        if line:
            spans.append(Span(line, strong=strong, em=em))
    return spans


def _emphasised(text: str, strong: bool) -> list[Span]:
    spans, position = [], 0
    for match in _EMPHASIS.finditer(text):
        spans += _lines(text[position:match.start()], strong, False) + _lines(match.group(1), strong, True)
        position = match.end()
    return spans + _lines(text[position:], strong, False)


def message_spans(text: str) -> list[Span]:
    """A check's message (a small part of Markdown) as :class:`Span` pieces: `code`, **strong**, *em*, line breaks.

    >>> [(s.text, s.code, s.em) for s in message_spans("`x` is *not* 1")]
    [('x', True, False), (' is ', False, False), ('not', False, True), (' 1', False, False)]
    """
    spans: list[Span] = []
    for code, piece in _code_spans(str(text)):
        if code:
            spans.append(Span(piece, code=True))
            continue
        position = 0
        for match in _STRONG.finditer(piece):
            spans += _emphasised(piece[position:match.start()], False) + _emphasised(match.group(1), True)
            position = match.end()
        spans += _emphasised(piece[position:], False)
    return spans


def message_plain(text: str) -> str:
    """A check's message as plain words, for the CSV: no backticks or asterisks around words.

    >>> message_plain("`B` should be a *whole* number, not `'4k'`; see **lesson 02**.")
    "B should be a whole number, not '4k'; see lesson 02."
    >>> message_plain("2 * 3 * 4 is `2*3*4`")
    '2 * 3 * 4 is 2*3*4'
    """
    return "".join("\n" if span.newline else span.text for span in message_spans(text))


def message_html(text: str) -> Markup:
    """A check's message as HTML, drawn by the template ``message.html.j2`` from :func:`message_spans`.

    >>> str(message_html("`x < 1` is *not* true"))
    '<code>x &lt; 1</code> is <em>not</em> true'
    """
    return Markup(_environment().get_template("message.html.j2").module.md(message_spans(text)))


def gradebook_rows(results: list[NotebookResult]) -> list[dict[str, str]]:
    """One row per student, exercise and question (one row for a notebook with no known questions)."""
    rows = []
    for r in results:
        base = {"student": r.submission.student, "exercise": r.exercise or "?", "file": r.submission.relpath,
                "notebook_status": r.status, "notebook_detail": r.detail}
        if not r.questions:
            why = r.detail or ("no checks of a known exercise ran in it (name the file NN_..._exercise.ipynb, "
                               "or keep its `from course_utils.checks import exNN` line)")
            rows.append({**base, "question": "", "title": "", "status": "not run", "hint": "", "answer_text": "",
                         "message": f"no question could be graded: {why}"})
        for q in r.questions:
            rows.append({**base, "question": f"q{q.number}", "title": q.title, "status": q.status,
                         "message": q.message, "hint": q.hint, "answer_text": q.answer_text})
    return rows


def csv_safe(value: str) -> str:
    """A spreadsheet must not read a student's text as a formula.

    >>> csv_safe("=1+1"), csv_safe("1+1")
    ("'=1+1", '1+1')
    """
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def gradebook_csv(results: list[NotebookResult]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in gradebook_rows(results):
        writer.writerow([csv_safe(message_plain(row[c]) if c in MARKDOWN_COLUMNS else row[c]) for c in CSV_COLUMNS])
    return buffer.getvalue()


def _exercise_titles(exercises: list[str]) -> dict[str, str]:
    titles = {}
    for ex in exercises:
        found = find_exercise(ex)
        titles[ex] = f"{ex} \u00b7 {found.title}" if found else f"exercise {ex}"
    return titles


class _Colours(dict):
    """COLOURS, with a neutral look for a status it does not know."""

    def __missing__(self, status):
        return ("?", "#212121", "#fff")


def _escape(value) -> Markup:
    """The template's ``h`` filter: html.escape (quotes too), marked safe so Jinja2 does not escape it again."""
    return Markup(html.escape(str(value)))


@functools.lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("course_utils.grade", "templates"),
        autoescape=True,  # anything the template forgets to pass through `h` is still escaped
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    environment.filters["h"] = _escape
    environment.filters["spans"] = message_spans
    return environment


def _template():
    return _environment().get_template("gradebook.html.j2")


def _student_rows(results: list[NotebookResult], exercises: list[str],
                  columns: dict[str, list[int]]) -> list[dict]:
    """The summary table's rows: one per student (more when a student handed in one exercise twice)."""
    students: dict[tuple[str, int], dict[str, NotebookResult]] = {}
    for r in results:
        k = 0
        while (r.exercise or "?") in students.setdefault((r.submission.student, k), {}):
            k += 1
        students[(r.submission.student, k)][r.exercise or "?"] = r
    rows = []
    for (student, k), by_exercise in sorted(students.items()):
        label = student if k == 0 else f"{student} ({', '.join(r.submission.relpath for r in by_exercise.values())})"
        cells = []
        for ex in exercises:
            r = by_exercise.get(ex)
            if r is None:
                cells.append({"kind": "absent", "span": len(columns[ex]) + 2})
                continue
            cells.append({"kind": "status", "status": r.status, "text": r.status,
                          "title": f"{r.submission.relpath}: {r.status}. {message_plain(r.detail)}"})
            by_number = {q.number: q for q in r.questions}
            for n in columns[ex]:
                q = by_number.get(n)
                if q is None:
                    cells.append({"kind": "blank"})
                    continue
                tip = f"q{n} ({q.title}): {q.status}. {message_plain(q.message)}" + (
                    f"\nHint: {message_plain(q.hint)}" if q.hint else "")
                cells.append({"kind": "status", "status": q.status, "text": f"{COLOURS[q.status][0]} {q.status}",
                              "title": tip})
            cells.append({"kind": "score", "text": f"{r.correct}/{len(r.questions)}"})
        rows.append({"label": label, "cells": cells})
    return rows


def _notebook_groups(rows: list[dict[str, str]]) -> list[dict]:
    """The detail table's groups: one per notebook (its student, exercise, file and run), then its questions."""
    groups: list[dict] = []
    for row in rows:
        key = tuple(row[c] for c in ("student", "exercise", "file", "notebook_status", "notebook_detail"))
        if not groups or groups[-1]["key"] != key:
            groups.append({"key": key, "student": row["student"], "exercise": row["exercise"], "file": row["file"],
                           "status": row["notebook_status"], "detail": row["notebook_detail"], "questions": []})
        groups[-1]["questions"].append(row)
    return groups


def gradebook_html(results: list[NotebookResult], settings: Settings, isolation: Isolation,
                   changed: list[str]) -> str:
    """A per-student table (each question coloured, its message and hint on hover), then every row in full.

    The page is ``templates/gradebook.html.j2``; this function only gathers what it shows.
    """
    exercises = sorted({r.exercise or "?" for r in results})
    titles = _exercise_titles(exercises)
    columns = {ex: sorted({q.number for r in results if (r.exercise or "?") == ex for q in r.questions})
               for ex in exercises}
    return _template().render(
        notebooks=len(results),
        colours=_Colours(COLOURS),
        legend=QUESTION_STATUSES,
        changed=changed,
        exercises=[{"title": titles[ex], "columns": columns[ex]} for ex in exercises],
        students=_student_rows(results, exercises, columns),
        notebook_groups=_notebook_groups(gradebook_rows(results)),
        isolation=isolation.description,
        timeout=f"{settings.timeout:g}",
        memory_mb=settings.memory_mb,
        disk_mb=settings.disk_mb,
    )


def _write(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text, encoding="utf-8", errors="backslashreplace", newline="")
    os.replace(temporary, path)


def write_gradebook(out: Path, results: list[NotebookResult], settings: Settings, isolation: Isolation,
                    changed: list[str]) -> tuple[Path, Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = out / "gradebook.csv", out / "gradebook.html"
    _write(paths[0], gradebook_csv(results))
    _write(paths[1], gradebook_html(results, settings, isolation, changed))
    return paths
