"""The Persian edition writes one term per idea and one register: the wrong variants are held out.

A Persian reader's review found a term written four ways ("tool-using
agent": ابزاردار، ابزارمحور، ابزاربه‌دست ...), the singular «خودت را بسنج»
beside a body that says «شما», and calques. The glossary
(``notebooks/fa/GLOSSARY.md``) names the form to use; this test fails when a
variant it rules out, or one of the other listed wrong forms, is written in
the Persian prose (``notebooks/fa/src``, ``exercises/fa/src``, README.fa,
TEACHING.fa), the lessons' catalogues (``notebooks/fa/po``), the package's
catalogue (``course_utils/locale/fa``: the checks' feedback and hints, the
widgets, the figures), or what the built notebooks show (their Markdown and
stored outputs: a stale output is caught too).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
GLOSSARY = ROOT / "notebooks" / "fa" / "GLOSSARY.md"
FILES = sorted(
    [*(ROOT / "notebooks" / "fa" / "src").glob("*.md"), *(ROOT / "exercises" / "fa" / "src").glob("*.md"),
     *(ROOT / "notebooks" / "fa" / "po").glob("*.po"), *(ROOT / "course_utils" / "locale" / "fa").rglob("*.po"),
     ROOT / "README.fa.md", ROOT / "TEACHING.fa.md"]
)
NOTEBOOKS = sorted(
    [*(ROOT / "notebooks" / "fa").glob("*.ipynb"), *(ROOT / "exercises" / "fa").glob("*.ipynb"),
     *(ROOT / "exercises" / "fa" / "solutions").glob("*.ipynb")]
)
#: Wrong forms beyond the glossary's «not» column: (pattern, what to write instead).
WRONG = [
    (r"خودت\b", "one register: «خودتان را بسنجید»"),
    (r"(?<![\w\u200c])(?:نگه دار|بفرست)(?=[\s،.:؛]|$)", "one register: «نگه دارید»، «بفرستید»"),
    (r"براند", "«برانید», or «کنترلش کنید»"),
    (r"گفتگوی Bob در(?!\w)", "«گفتگوی Bob»"),
    (r"هر دو فایل را", "«هر دو تاریخچه فایل را»"),
    (r"پرامپت", "prompt"),
    (r"صورت‌حساب (?:می‌کن|می‌شو|کرد|شد|کن)", "bill: «پول می‌گیرد», «حساب می‌شود» (GLOSSARY.md)"),
    (r"سؤال", "پرسش"),
    (r"یک رشتهٔ? (?:جدید|تازه)", "thread"),
    (r"برش(?:‌زنی)? (?:دادن|زدن|کنید)", "trim"),
    (r"حالت (?:گراف|کامل|فعلی|thread)", "state"),
    (r"درباره دلیل", "«دربارهٔ دلیل» (ezafe)"),
    (r"نتیجه ابزار", "«نتیجهٔ ابزار» (ezafe)"),
    (r"بهتر می‌خورد|به کار می‌خورد", "«مناسب‌تر است», «مناسب است»"),
    (r"هم‌نظر", "«همخوان» (for results that agree)"),
    (r"برابر token کمتری", "a fraction, not «N برابر token کمتری»"),
    (r"(?:این|آن)\u200c(?:جا|که)", "joined, as README.fa: «اینجا», «آنجا», «اینکه», «آنکه»"),
    (r"عامل(?:‌های|هایی|ی)? که ابزار به کار می‌بر", "tool-using agent: «عامل ابزاردار»"),
]


def glossary_nots() -> list[tuple[str, str]]:
    rows = []
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 3 and cells[0] not in ("English", "---"):
            rows += [(re.escape(bad.strip()), f"{cells[0]} -> {cells[1]}") for bad in cells[2].split("،") if bad.strip()]
    return rows


def test_the_glossary_names_the_reviewed_terms():
    terms = {pattern: fix for pattern, fix in glossary_nots()}
    assert "trigger -> trigger" in terms.values() and "orphaned -> بی‌صاحب" in terms.values()
    assert "tool-using agent -> عامل ابزاردار" in terms.values()
    assert re.escape("ماشه") in terms
    assert problems("ارائه‌دهنده صورت‌حساب می‌کند") != []


def problems(text: str) -> list[str]:
    found = []
    for pattern, fix in [*glossary_nots(), *WRONG]:
        for match in re.finditer(pattern, text):
            line = text.count("\n", 0, match.start()) + 1
            found.append(f"line {line}: {match.group(0)!r} (write: {fix})")
    return found


def test_the_check_finds_a_wrong_form():
    assert problems("### خودت را بسنج\nبا ماشه‌ای پایین") != []
    assert problems("### خودتان را بسنجید\nبا یک trigger پایین، همه چیز را نگه دارید") == []


@pytest.mark.parametrize("wrong, right", [
    ("مدل گفتگو پاسخ می‌دهد", "مدل چت پاسخ می‌دهد"),
    ("با 12 کلمه", "با 12 واژه"),
    ("با کلمات خودتان", "با واژه‌های خودتان"),
    ("پاسخ را بررسی کنید", "پاسخ را وارسی کنید"),
    ("بررسی‌شده در 2026-12-01", "وارسی‌شده در 2026-12-01"),
    ("این‌جا", "اینجا"), ("آن‌جا", "آنجا"), ("برای این‌که", "برای اینکه"), ("مگر آن‌که", "مگر آنکه"),
    ("جست‌وجوی دودویی", "جستجوی دودویی"),
    ("یک گفت‌وگوی تازه", "یک گفتگوی تازه"),
    ("محدودیت زمینه", "limit زمینه"),
    ("در عامل‌هایی که ابزار به کار می‌برند", "در عامل‌های ابزاردار"),
    ("پیام یتیم", "پیام بی‌صاحب"),
])
def test_each_reviewed_variant_is_caught_and_its_glossary_form_is_not(wrong, right):
    assert problems(wrong) != [], wrong
    assert problems(right) == [], right


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_wrong_persian_form(path):
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".po":  # translations only: the English msgids may say anything
        text = "\n".join(line for line in text.splitlines() if not line.startswith(("msgid", "#")))
    found = problems(text)
    assert not found, f"{path.relative_to(ROOT)}:\n" + "\n".join(found)


def shown(nb: nbformat.NotebookNode) -> str:
    """What a built notebook shows: its Markdown and the text and HTML of its stored outputs."""
    parts = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            parts.append(cell.source)
        for output in cell.get("outputs", []):
            parts.append(output.get("text", ""))
            data = output.get("data", {})
            parts += [data.get("text/plain", ""), data.get("text/html", ""), data.get("text/markdown", "")]
    return "\n".join(p if isinstance(p, str) else "".join(p) for p in parts)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_wrong_persian_form_in_a_built_notebook(path):
    found = problems(shown(nbformat.read(path, as_version=4)))
    assert not found, f"{path.relative_to(ROOT)} (rebuild, or re-run if an output):\n" + "\n".join(found)
