"""Grade a folder of submitted exercise notebooks and write a gradebook.

    python -m course_utils.grade SUBMISSIONS_DIR [--out DIR] [--timeout S] [--memory MB] [--disk MB] [--jobs N]
                                 [--lang en|fa]

Every ``.ipynb`` under SUBMISSIONS_DIR is one submission. The student is the
first folder below SUBMISSIONS_DIR (``alice/03_trimming_walkthrough_exercise.ipynb``),
or the file's name when it lies directly in it (``alice.ipynb``, as a hand-in
folder for one exercise collects them). The exercise is read from the file
name (``03_..._exercise``) or else from the notebook's own
``from course_utils.checks import ex03``.

Each notebook runs top to bottom in a fresh kernel, in a temporary folder of
its own, with an environment stripped of your variables, no network, a time
limit, a memory limit and a disk limit (see :func:`detect_isolation` for what
is used where, and :mod:`.diskguard` for the disk). The teacher's check calls replace the notebook's own, and after
the student's code has run, the grader's own cells check each question and
print the result with a secret made up only then (see :mod:`.grading_cells`);
only those results count. The gradebook lists, per student and question:
correct, wrong, not attempted, error, or not run, with the check's message and
the question's first hint; an answer in the student's own words is "for the
teacher" (column ``review``) until the teacher's marks file (``--marks``) marks it. ``--lang fa`` writes the gradebook page in Persian (right to
left); the CSV keeps its English column names and status values.

A notebook that raises, crashes its kernel, loops, runs out of memory, writes
too much or is not a notebook at all is recorded as such and never stops the run. The
gradebook has no timestamps: grading the same folder again writes the same
bytes. Student code is untrusted; TEACHING.md says what this isolation
guarantees and what it does not.

Inside, one job per module: :mod:`.submissions` (finding and reading them),
:mod:`.isolation` (the modes and the bubblewrap command), :mod:`.sandbox` (the parent
side: a folder, a runner started and stopped), :mod:`.runner` (the child
side, one notebook in its sandbox; :mod:`.runspec` types what passes between the two),
:mod:`.diskguard` (the disk limit's watchdog), :mod:`.grading_cells` and :mod:`.masters` (the
grader's own cells and the teacher's check calls; :mod:`.in_kernel` is the code those cells run
in the kernel), :mod:`.grading` (one notebook, a whole
folder), :mod:`.results` (what comes out), :mod:`.gradebook` (CSV, and HTML
from a Jinja2 template) and :mod:`.cli` (the command line).
"""

from course_utils.grade.cli import main
from course_utils.grade.grading import grade_folder
from course_utils.grade.isolation import Isolation
from course_utils.grade.results import NotebookResult, QuestionResult, Settings, Submission
from course_utils.grade.sandbox import detect_isolation
from course_utils.grade.submissions import find_submissions

__all__ = [
    "Isolation",
    "NotebookResult",
    "QuestionResult",
    "Settings",
    "Submission",
    "detect_isolation",
    "find_submissions",
    "grade_folder",
    "main",
]
