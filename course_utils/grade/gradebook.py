"""The gradebook: ``gradebook.csv`` and ``gradebook.html``, the same bytes for the same results.

The checks write their messages in a small part of Markdown: `code` spans,
*emphasis* and **strong**. The HTML page renders them (:func:`message_html`);
the CSV, read in a spreadsheet, gets the plain words (:func:`message_plain`).
A student's own words (``answer_text``) are shown exactly as written.

**Language.** The gradebook speaks the course's language (``COURSE_LANG``,
English by default) or the one its ``lang`` argument names ("en" or "fa";
``python -m course_utils.grade --lang fa``). The language is switched only
while the gradebook is written, then the caller's is back (:func:`speaking`).
In Persian the page is ``<html lang="fa" dir="rtl">``: its headings, legend,
statuses, tooltips, exercise and question titles and the grader's hints are
Persian, code and numbers stay left to right, and a student's words find
their own direction (``dir="auto"``). The checks' messages are shown in the
language the student's notebook ran in (the Persian edition's are Persian).

The CSV is read by spreadsheets and scripts: its column names and its status
values (``status``, ``notebook_status``: "correct", "not run", ...) are the
same English keys in every language, as are ``student``, ``exercise``,
``file`` and ``question``. Only its prose follows the language: the question
``title``, the ``hint`` and the grader's own "no question could be graded"
``message`` (in Persian, its reason is inside Unicode's first-strong isolate,
U+2068 ... U+2069, so an English reason keeps its order). An English gradebook is byte for byte what it was before the
gradebook spoke Persian (``tests/data/gradebook/`` holds the proof).

>>> with speaking("fa"):
...     status_word("not run")
'اجرا نشد'
"""

from __future__ import annotations

import contextlib
import csv
import functools
import html
import io
import os
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import jinja2
from markdown_it import MarkdownIt
from markupsafe import Markup

from course_utils.grade.results import find_exercise, grader_message, NotebookResult, QUESTION_STATUSES, Settings
from course_utils.grade.review import FOR_TEACHER, review_queue
from course_utils.grade.sandbox import Isolation
from course_utils.core import i18n
from course_utils.core.i18n import translate
from course_utils.core.style import STATUS_COLOURS


# --- the gradebook's language ------------------------------------------------------------------------


@contextlib.contextmanager
def speaking(lang: str | None):
    """The course speaks ``lang`` ("en" or "fa"; None: the current language) inside; the caller's language after.

    >>> with speaking("fa"):
    ...     i18n.get_language()
    'fa'
    >>> i18n.get_language()
    'en'
    """
    if lang is not None and not isinstance(lang, str):
        raise TypeError(f"lang must be a language code such as 'fa' or None, got {type(lang).__name__}")
    if lang is not None and lang not in i18n.LANGUAGES:
        raise ValueError(f"lang must be one of {', '.join(i18n.LANGUAGES)} or None, got {lang!r}")
    previous = i18n.get_language()
    i18n.set_language(lang or previous)
    try:
        yield
    finally:
        i18n.set_language(previous)


def _status_words() -> dict[str, str]:
    """Each status as the page shows it, in the current language (the CSV keeps the English keys)."""
    return {
        "correct": translate("correct", "grade status"),
        "wrong": translate("wrong", "grade status"),
        "for the teacher": translate("for the teacher", "grade status"),
        "not attempted": translate("not attempted", "grade status"),
        "error": translate("error", "grade status"),
        "not run": translate("not run", "grade status"),
        "ok": translate("ok", "grade status"),
        "crashed": translate("crashed", "grade status"),
        "timeout": translate("timeout", "grade status"),
        "memory limit": translate("memory limit", "grade status"),
        "disk limit": translate("disk limit", "grade status"),
        "invalid notebook": translate("invalid notebook", "grade status"),
    }


def status_word(status: str) -> str:
    """A status as the page shows it, in the current language; a status it does not know, as it is."""
    return _status_words().get(status, status)


def _prose(text: str) -> str:
    """Text of the course (a question's title, a hint) in the current language; unknown text as it is.

    Empty text stays empty (gettext would answer "" with the catalogue's header).
    """
    return translate(text) if text else text


# --- the gradebook ---------------------------------------------------------------------------------

CSV_COLUMNS = ("student", "exercise", "file", "question", "title", "status", "message", "hint",
               "notebook_status", "notebook_detail", "answer_text", "review", "teacher_mark", "teacher_comment")

#: The symbol or short word the gradebook shows for each status.
SYMBOLS = {
    "correct": "\u2713",
    "wrong": "\u2717",
    "for the teacher": "?",
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


# --- the checks' messages: a small part of Markdown, read by markdown-it-py ----------------------------

#: The columns whose text a check (or the grader) wrote, in that Markdown; answer_text is the student's.
MARKDOWN_COLUMNS = ("message", "hint", "notebook_detail")


@dataclass(frozen=True)
class Span:
    """A piece of a check's message and how it is drawn; the template ``message.html.j2`` draws it."""

    text: str = ""
    code: bool = False
    strong: bool = False
    em: bool = False
    newline: bool = False


#: Messages name Python (``__init__``, ``max_tokens``): only ``*`` emphasises, so ``_`` is hidden from the
#: parser as a private-use character the message does not hold.
_PRIVATE_USE = range(0xE000, 0xF900)


@functools.cache
def _markdown() -> MarkdownIt:
    """Only `code`, *emphasis*, **strong** and line breaks: no raw HTML, links, images or entities."""
    return MarkdownIt("zero").enable(["backticks", "emphasis", "newline"])


def message_spans(text: str) -> list[Span]:
    """A check's message (a small part of Markdown) as :class:`Span` pieces: `code`, **strong**, *em*, line breaks.

    >>> [(s.text, s.code, s.em) for s in message_spans("`x` is *not* 1")]
    [('x', True, False), (' is ', False, False), ('not', False, True), (' 1', False, False)]
    >>> [s.text for s in message_spans("__init__ and max_tokens")]
    ['__init__ and max_tokens']
    """
    spans: list[Span] = []
    depth = {"strong": 0, "em": 0}
    text = str(text)
    hidden = next(chr(c) for c in _PRIVATE_USE if chr(c) not in text) if "_" in text else "_"
    for line_number, line in enumerate(text.replace("_", hidden).split("\n")):  # every line break is one, kept as it is
        if line_number:
            spans.append(Span(newline=True))
        for token in (_markdown().parseInline(line)[0].children or []) if line else []:
            kind = token.type.rsplit("_", 1)
            if kind[0] in depth and kind[-1] in ("open", "close"):
                depth[kind[0]] += 1 if kind[-1] == "open" else -1
            elif token.type == "code_inline":
                spans.append(Span(token.content.replace(hidden, "_"), code=True))
            elif token.content:
                spans.append(Span(token.content.replace(hidden, "_"), strong=depth["strong"] > 0, em=depth["em"] > 0))
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


def gradebook_rows(results: list[NotebookResult], marks: dict | None = None) -> list[dict[str, str]]:
    """One row per student, exercise and question (one row for a notebook with no known questions).

    The keys and statuses are the CSV's English ones; titles, hints and the
    grader's own message are in the current language (see the module's doc).
    """
    rows = []
    for r in results:
        base = {"student": r.submission.student, "exercise": r.exercise or "?", "file": r.submission.relpath,
                "notebook_status": r.status, "notebook_detail": r.detail}
        if not r.questions:
            why = r.detail or translate("no checks of a known exercise ran in it (name the file "
                                        "NN_..._exercise.ipynb, or keep its `from course_utils.checks import exNN` "
                                        "line)")
            if i18n.direction() == "rtl":  # the why (often English) keeps its own direction in a Persian sentence
                why = f"\u2068{why}\u2069"
            rows.append({**base, "question": "", "title": "", "status": "not run", "hint": "", "answer_text": "",
                         "review": "", "teacher_mark": "", "teacher_comment": "",
                         "message": translate("no question could be graded: {why}").format(why=why)})
        for q in r.questions:
            mark = (marks or {}).get((r.submission.student, r.exercise or "?", f"q{q.number}"))
            review = "" if not q.answer_text else ("marked" if mark else FOR_TEACHER)
            rows.append({**base, "question": f"q{q.number}", "title": _prose(q.title), "status": q.status,
                         "message": grader_message(q.message), "hint": _prose(q.hint), "answer_text": q.answer_text,
                         "review": review, "teacher_mark": f"{mark.mark:g}" if mark else "",
                         "teacher_comment": mark.comment if mark else ""})
    return rows


def csv_safe(value: str) -> str:
    """A spreadsheet must not read a student's text as a formula.

    >>> csv_safe("=1+1"), csv_safe("1+1")
    ("'=1+1", '1+1')
    """
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def gradebook_csv(results: list[NotebookResult], lang: str | None = None, marks: dict | None = None) -> str:
    """The gradebook for a spreadsheet: the English column names and statuses in every language (see above)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    with speaking(lang):
        rows = gradebook_rows(results, marks)
    for row in rows:
        writer.writerow([csv_safe(message_plain(row[c]) if c in MARKDOWN_COLUMNS else row[c]) for c in CSV_COLUMNS])
    return buffer.getvalue()


def exercise_title(ex: str) -> str:
    """The exercise's heading on the page, in the current language: "03 · Trimming walkthrough", or "exercise ?".

    >>> exercise_title("02")
    '02 · Token budgets'
    >>> with speaking("fa"):
    ...     exercise_title("02")
    '02 · بودجهٔ token'
    """
    found = find_exercise(ex)
    if found:
        return f"{ex} \u00b7 {translate(found.title, 'exercise title')}"
    return translate("exercise {number}").format(number=ex)


class _Colours(dict):
    """COLOURS, with a neutral look for a status it does not know."""

    def __missing__(self, status):
        return ("?", "#212121", "#fff")


def _escape(value) -> Markup:
    """The template's ``h`` filter: html.escape (quotes too), marked safe so Jinja2 does not escape it again."""
    return Markup(html.escape(str(value)))


def _left_to_right(text: str) -> bool:
    """On a right-to-left page: is ``text`` written left to right only (an English message, a code name)?

    Such a cell is laid out left to right, so its closing bracket or full stop stays where it was written.

    >>> with speaking("fa"):
    ...     _left_to_right("cumulative_sent(messages)"), _left_to_right("trim با دست"), _left_to_right("")
    (True, False, False)
    """
    if i18n.direction() != "rtl":
        return False
    kinds = {unicodedata.bidirectional(character) for character in str(text)}
    return "L" in kinds and not kinds & {"R", "AL", "RLI", "RLE", "RLO"}


@functools.lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("course_utils.grade", "templates"),
        autoescape=True,  # anything the template forgets to pass through `h` is still escaped
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        extensions=["jinja2.ext.i18n"],
    )
    # The page's own words, as in the course's other templates (course_utils.pictures.templates): looked up
    # when the page renders, in the language gradebook_html chose. Caller text never goes through these.
    environment.install_gettext_callables(gettext=translate, ngettext=i18n.ngettext, newstyle=True,
                                          pgettext=lambda context, message: translate(message, context))
    # <html lang="en">, or lang and dir for another language; inside a right-to-left page, LTR() keeps code,
    # numbers and file names left to right and AUTO() lets a student's words find their direction.
    environment.globals["HTML_LANG"] = lambda: Markup(i18n.html_language() or ' lang="en"')
    environment.globals["LTR"] = lambda: Markup(' dir="ltr"' if i18n.direction() == "rtl" else "")
    environment.globals["RTL"] = lambda: i18n.direction() == "rtl"
    environment.globals["LTR_IF"] = lambda text: Markup(' dir="ltr"' if _left_to_right(text) else "")
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
            cells.append({"kind": "status", "status": r.status, "text": status_word(r.status),
                          "title": f"{r.submission.relpath}: {status_word(r.status)}. {message_plain(r.detail)}"})
            by_number = {q.number: q for q in r.questions}
            for n in columns[ex]:
                q = by_number.get(n)
                if q is None:
                    cells.append({"kind": "blank"})
                    continue
                tip = translate("q{number} ({title}): {status}. {message}").format(
                    number=n, title=_prose(q.title), status=status_word(q.status),
                    message=message_plain(grader_message(q.message)))
                if q.hint:
                    tip += f"\n{translate('Hint', 'check feedback')}: {message_plain(_prose(q.hint))}"
                cells.append({"kind": "status", "status": q.status,
                              "text": f"{COLOURS[q.status][0]} {status_word(q.status)}", "title": tip})
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
                   changed: list[str], lang: str | None = None, marks: dict | None = None) -> str:
    """A per-student table (each question coloured, its message and hint on hover), then every row in full.

    The page is ``templates/gradebook.html.j2``; this function only gathers what it shows, in ``lang``
    ("en" or "fa"; None: the course's language), and gives the caller's language back afterwards.
    """
    with speaking(lang):
        exercises = sorted({r.exercise or "?" for r in results})
        columns = {ex: sorted({q.number for r in results if (r.exercise or "?") == ex for q in r.questions})
                   for ex in exercises}
        return _template().render(
            notebooks=len(results),
            colours=_Colours(COLOURS),
            words=_status_words(),
            legend=QUESTION_STATUSES,
            changed=changed,
            exercises=[{"title": exercise_title(ex), "columns": columns[ex]} for ex in exercises],
            students=_student_rows(results, exercises, columns),
            notebook_groups=_notebook_groups(gradebook_rows(results, marks)),
            review=review_queue(results, marks),
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
                    changed: list[str], lang: str | None = None, marks: dict | None = None) -> tuple[Path, Path]:
    """Write ``gradebook.csv`` and ``gradebook.html`` into ``out``, in ``lang`` (None: the course's language).

    ``marks`` ({(student, exercise, question): Mark}, from ``--marks FILE``) are the teacher's marks of
    answers in the students' own words (see :mod:`.review`)."""
    out.mkdir(parents=True, exist_ok=True)
    paths = out / "gradebook.csv", out / "gradebook.html"
    _write(paths[0], gradebook_csv(results, lang, marks))
    _write(paths[1], gradebook_html(results, settings, isolation, changed, lang, marks))
    return paths
