"""The course's one palette and its fonts, for every picture it draws.

HTML tables (``render``), figures (``plots``), exercise feedback
(``checks``) and the gradebook (``grade``) colour the same states the same
way, so a learner who has seen "kept" in green in lesson 03 reads green as
"fine" everywhere else. Colours were chosen to stay readable in light mode
and when printed in grey; every picture also writes the state out in words,
so nobody depends on colour alone.

Plain constants, nothing computed: presentation modules import from here,
computing modules never need to.

>>> STATUS_COLOURS["kept"] == STATUS_COLOURS["correct"]
True
>>> accent, background = STATUS_COLOURS["dropped"]
>>> accent, background
('#9e2a2a', '#f6e9e9')
"""

from __future__ import annotations

__all__ = ["FONT", "MONO", "PERSIAN_FACE", "PERSIAN_MONO", "STATUS_COLOURS", "PART_COLOURS", "NEUTRAL", "LIMIT_COLOUR", "LIMIT_BACKGROUND",
           "HISTORY_COLOUR", "SENT_COLOUR", "MUTED_TEXT"]

#: Inline CSS for prose: system fonts, with Persian (Vazirmatn) and Chinese
#: fallbacks so the course's fa and zh samples never show boxes.
FONT = (
    "font-family:system-ui,-apple-system,'Segoe UI',Roboto,'Noto Sans','Vazirmatn','Noto Sans CJK SC',"
    "'Microsoft YaHei','WenQuanYi Micro Hei',sans-serif;line-height:1.4"  # JupyterLab's widgets set 28px lines
)
#: Inline CSS for code and the step-by-step working.
MONO = "font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,'Noto Sans Mono',monospace"

# Printed Persian (the Persian edition's outputs, a <pre> in a code font). A fixed-width font that has
# Persian letters draws each one a cell wide, so words come out stretched and the half-space is lost
# (DejaVu Sans Mono, JupyterLab's code font where Menlo and Consolas are missing). A Persian fixed-width
# font (Vazir Code) has neither fault: it comes first where it is installed. Otherwise Persian letters,
# and only those (unicode-range), come from a Persian text font the machine has, and everything else
# (code, digits, formulas, spaces) from the usual code font. Noto Sans Arabic and DejaVu Sans draw a
# Persian letter about 0.8 of a code-font cell wide (measured in Chromium at 13 px), so at 118 % a
# Persian header sits over its column in the text tables (core.columns counts one cell a letter).
_PERSIAN_LETTERS = "unicode-range:U+0600-06FF,U+0750-077F,U+08A0-08FF,U+FB50-FDFF,U+FE70-FEFF,U+200C-200F"
#: Two @font-face rules: "Course Persian" (a Linux machine's Persian text font, scaled to the code
#: font's cell) and "Course Persian System" (Windows' and macOS's, as they are); Persian letters only.
PERSIAN_FACE = (
    "@font-face{font-family:'Course Persian';"
    "src:local('Noto Sans Arabic Regular'),local('NotoSansArabic-Regular'),local('Noto Sans Arabic'),"
    "local('Noto Naskh Arabic Regular'),local('NotoNaskhArabic-Regular'),local('DejaVu Sans'),local('DejaVuSans');"
    f"size-adjust:118%;{_PERSIAN_LETTERS}}}"
    "@font-face{font-family:'Course Persian System';"
    "src:local('Vazirmatn'),local('Vazirmatn Regular'),local('Vazirmatn-Regular'),local('Vazir'),"
    "local('Segoe UI'),local('Tahoma'),local('Geeza Pro'),local('GeezaPro');"
    f"{_PERSIAN_LETTERS}}}"
)
#: The font-family of printed Persian: Vazir Code, else the Persian faces for the letters, then
#: JupyterLab's code font (its default where the variable is not set, as on the website).
PERSIAN_MONO = (
    "'Vazir Code','Course Persian','Course Persian System',"
    "var(--jp-code-font-family,Menlo,Consolas,'DejaVu Sans Mono',monospace)"
)

# The status colours, as (accent, background): the accent colours a border or
# a label, the background fills the box or row. Four tones carry meaning:
_GOOD = ("#2e7d32", "#e7f5ea")  # kept / correct / ok
_HALF = ("#a15c00", "#fff4de")  # partly kept / not quite right yet
_GONE = ("#9e2a2a", "#f6e9e9")  # dropped by a trim
_FAIL = ("#c62828", "#fdecea")  # an error: the code raised, a run crashed, over the limit

#: status -> (accent, background), for every state a picture of the course shows.
STATUS_COLOURS: dict[str, tuple[str, str]] = {
    # a message after trimming (render, widgets)
    "kept": _GOOD,
    "partial": _HALF,
    "dropped": _GONE,
    # an exercise answer (checks, grade)
    "correct": _GOOD,
    "wrong": _HALF,
    "not attempted": ("#455a64", "#eceff1"),
    "error": _FAIL,
    "for the teacher": ("#00695c", "#e0f2f1"),  # an answer in the learner's own words: the teacher marks it
    "hint": ("#1565c0", "#e3f2fd"),
    "solution": ("#6a1b9a", "#f3e5f5"),
    # a graded notebook (grade)
    "not run": ("#616161", "#f5f5f5"),
    "ok": _GOOD,
    "crashed": _FAIL,
    "timeout": _FAIL,
    "memory limit": _FAIL,
    "disk limit": _FAIL,
    "invalid notebook": _FAIL,
}

#: Colours of the budget parts, in the order budget.py subtracts them.
PART_COLOURS = {
    "S": "#5c6bc0",  # system prompt
    "U": "#26a69a",  # user input
    "R": "#ffa726",  # reply reserve
    "M": "#bdbdbd",  # safety margin
    "B": "#66bb6a",  # what is left for history
    "H_max": "#66bb6a",
}

#: The neutral grey of lines that carry no status: table header rules, outlines, a figure's
#: connectors and legend edges (and lesson 06's plain AI text).
NEUTRAL = "#9e9e9e"
#: Muted text on a status background (a dropped trim row: 5.9:1 on its #f6e9e9, WCAG AA asks 4.5:1).
MUTED_TEXT = "#595959"

# Amounts against a limit (token bars, growth tables and figures).
LIMIT_COLOUR = _FAIL[0]  #: the limit line of a figure, and a bar or row over the limit
LIMIT_BACKGROUND = _FAIL[1]  #: the background of a table row over the limit
HISTORY_COLOUR = "#1e88e5"  #: history tokens in a growth figure
SENT_COLOUR = "#fb8c00"  #: tokens sent in a growth figure
