"""The grader: python -m course_utils.grade SUBMISSIONS_DIR.

One folder of submissions of exercise 02 (the quickest) holds every case the
issue names: correct, wrong, not attempted, a cell that raises, a kernel that
dies, a loop, a memory hog, a disk filler, a file that is not JSON, and a
submission that hunts for an API key and tries to overwrite another student's
file (from a folder whose name is HTML). The grader runs on it twice, as a
teacher would run it (a subprocess, with secrets in its environment, and its
temporary folders in one of this test's own, whose size is sampled); the rows
are asserted, the other submission must be byte-identical, the key must appear
nowhere, and both runs must write the same bytes.

The disk limit (``--disk``) has its own section: the same attacks in each
isolation mode, bubblewrap's (the folder above) and the plain process's.
"""

import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from course_utils import grade
from course_utils.checks import ex02
from course_utils.checks.record import valid_record

from grade_support import cleared
from socket_support import Listener

ROOT = Path(__file__).resolve().parents[1]
EXERCISE = "02_token_budgets_exercise.ipynb"
MASTER = ROOT / "exercises" / "solutions" / EXERCISE
STUDENT_COPY = ROOT / "exercises" / EXERCISE
SECRET = "sk-test-secret-4f9a2c"
TOKEN = "ghp_testtoken_77e1"
TIMEOUT = 30  # seconds per notebook: exercise 02 takes about 4 s on an idle machine, two at a time; the
# margin is for a loaded one (under -n 2 the other worker may be running Chromium), where 15 s timed out
DISK = 20  # MB per notebook (--disk): small, so that a cell trying to write 4 GB is stopped in a moment
MB = 1024 * 1024
EVIL = "mallory<img src=x onerror=alert(1)>"
#: A cell that tries to write 4 GB in files of 240 MB each (under the old 256 MB per-file limit).
WRITE_4GB = ("chunk = b'x' * 2 ** 20\n"
             "for n in range(4096):\n"
             "    with open(f'big{n // 240}.bin', 'ab') as file:\n"
             "        file.write(chunk)")
#: Many small files (1 KB each, 100,000 of them).
SMALL_FILES = ("import os\nos.makedirs('many', exist_ok=True)\n"
               "for n in range(100_000):\n"
               "    with open(f'many/{n}.txt', 'wb') as file:\n"
               "        file.write(b'y' * 1024)")
#: Empty files take no size: the number of files is limited too.
EMPTY_FILES = "for n in range(100_000):\n    open(f'empty{n}', 'w').close()"
#: One file grown past the limit by appending, a megabyte at a time, reopening it each time.
APPEND = ("for n in range(4096):\n"
          "    with open('grown.log', 'a') as file:\n"
          "        file.write('z' * 2 ** 20)")
#: Within the limit: 5 MB, then a line printed.
WITHIN = "with open('fine.bin', 'wb') as file:\n    file.write(b'w' * 5 * 2 ** 20)\nprint('wrote 5 MB')"

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the grader's sandbox is tested on Linux")


# --- building the submissions ----------------------------------------------------------------------


def master() -> nbformat.NotebookNode:
    """The solved exercise with its outputs cleared."""
    return cleared(MASTER)


def code_index(nb, startswith: str) -> int:
    return next(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.source.startswith(startswith))


def with_cell_after(nb, startswith: str, source: str) -> nbformat.NotebookNode:
    nb.cells.insert(code_index(nb, startswith) + 1, new_code_cell(source))
    return nb


def wrong() -> nbformat.NotebookNode:
    nb = master()
    nb.cells[code_index(nb, "def room")].source = (  # off by one
        "def room(limit, system, user, reserve):\n    return limit - system - user - reserve + 1")
    return nb


def evil(victim: Path) -> nbformat.NotebookNode:
    """Looks for the teacher's keys (its environment, every /proc/*/environ), then attacks another submission."""
    nb = master()
    nb.cells[code_index(nb, "def room")].source = (
        "import glob, os\n"
        "found = [os.environ.get(name, '') for name in ('OPENAI_API_KEY', 'GITHUB_TOKEN')]\n"
        "for path in glob.glob('/proc/*/environ'):\n"
        "    try:\n"
        "        found += [v.decode() for v in open(path, 'rb').read().split(b'\\0') if b'_KEY=' in v or b'TOKEN' in v]\n"
        "    except OSError:\n"
        "        pass\n"
        "B = ' '.join(f for f in found if f) or 'no key found'\n"
        "print(B)\n"
        "def room(limit, system, user, reserve):\n"
        "    return B"
    )
    return with_cell_after(nb, "q1.check", (
        f"assert B == 'no key found', B\n"
        f"with open({str(victim)!r}, 'w') as file:\n"
        f"    file.write('{{}}')"
    ))


@pytest.fixture(scope="module")
def submissions(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("submissions")
    cases = {
        "alice": master(),
        "bob": wrong(),
        "carol": nbformat.read(STUDENT_COPY, as_version=4),
        "dave": with_cell_after(master(), "q1.check", "import os\nos._exit(1)"),
        "erin": with_cell_after(master(), "q1.check", "1 / 0"),
        # sorts second, so its 15 s start at once; it sleeps rather than spins, leaving the cores to the others
        "amir": with_cell_after(master(), "q2.check", "import time\nwhile True:\n    time.sleep(0.1)"),
        "grace": with_cell_after(master(), "q1.check", "hog = bytearray(8 * 1024 ** 3)"),
        "judy": with_cell_after(master(), "q1.check", WRITE_4GB),
        EVIL: evil(folder / "alice" / EXERCISE),
    }
    for student, nb in cases.items():
        (folder / student).mkdir()
        nbformat.write(nb, folder / student / EXERCISE)
    (folder / "heidi.ipynb").write_text('{"cells": [', encoding="utf-8")  # flat layout, not JSON
    (folder / "ivan.ipynb").symlink_to(folder / "alice" / EXERCISE)  # a link: not followed
    (folder / ".ipynb_checkpoints").mkdir()  # hidden: ignored
    (folder / ".ipynb_checkpoints" / "x.ipynb").write_text("{}", encoding="utf-8")
    return folder


class DiskSampler:
    """Adds up, every few milliseconds, the bytes allocated below ``folder`` (every file's blocks); keeps the peak,
    and the size of the largest file seen."""

    def __init__(self, folder: Path):
        self.folder, self.peak, self.largest, self._stop = folder, 0, 0, threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> "DiskSampler":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        while not self._stop.wait(0.005):
            total = 0
            for dirpath, _dirs, files in os.walk(self.folder):
                for name in files:
                    try:
                        st = os.lstat(os.path.join(dirpath, name))
                    except OSError:
                        continue
                    total += st.st_blocks * 512
                    self.largest = max(self.largest, st.st_size)
            self.peak = max(self.peak, total)


@pytest.fixture(scope="module")
def grader_tmp():
    """A folder of its own for the grader's temporary folders (TMPDIR), which ``nobody`` may pass through
    (pytest's own are mode 0700): what the submissions put on the disk is measured there."""
    folder = Path(tempfile.mkdtemp(prefix="grade-disk-"))
    os.chmod(folder, 0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def run_grader(submissions: Path, out: Path, *extra: str, tmp: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "OPENAI_API_KEY": SECRET, "GITHUB_TOKEN": TOKEN, "COURSE_CHECKS_STRICT": "1",
           **({"TMPDIR": str(tmp)} if tmp else {})}
    command = [sys.executable, "-m", "course_utils.grade", str(submissions), "--out", str(out),
               "--timeout", str(TIMEOUT), "--memory", "1024", "--disk", str(DISK), "--jobs", "2", *extra]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def graded(submissions, tmp_path_factory, grader_tmp):
    """Two runs of the grader on the same folder: (submissions' bytes before, [(process, out folder)] * 2,
    the most the grader's temporary folders held on the disk at any moment)."""
    before = {p: p.read_bytes() for p in submissions.rglob("*") if p.is_file()}
    runs = []
    with DiskSampler(grader_tmp) as sampler:
        for n in (1, 2):
            out = tmp_path_factory.mktemp(f"gradebook{n}")
            started = time.monotonic()
            proc = run_grader(submissions, out, tmp=grader_tmp)
            print(f"grader run {n}: {time.monotonic() - started:.1f} s\n{proc.stderr}")
            assert proc.returncode == 0, proc.stderr
            runs.append((proc, out))
    return before, runs, sampler.peak


def rows(out: Path) -> dict[tuple[str, str], dict[str, str]]:
    with open(out / "gradebook.csv", encoding="utf-8", newline="") as file:
        return {(r["student"], r["question"]): r for r in csv.DictReader(file)}


def statuses(table, student: str) -> list[str]:
    return [table[(student, f"q{n}")]["status"] for n in (1, 2, 3, 4)]


# --- the gradebook --------------------------------------------------------------------------------


@pytest.mark.full
def test_every_case_is_recorded_as_what_it_is(graded):
    table = rows(graded[1][0][1])
    assert len(table) == 9 * 4 + 2
    notebook = {student: r["notebook_status"] for (student, _q), r in table.items()}
    assert notebook == {
        "alice": "ok", "bob": "ok", "carol": "ok", "dave": "crashed", "erin": "error", "amir": "timeout",
        "grace": "memory limit", "judy": "disk limit", "heidi": "invalid notebook", "ivan": "invalid notebook",
        EVIL: "error",
    }
    assert statuses(table, "alice") == ["correct"] * 4
    assert statuses(table, "bob") == ["wrong", "correct", "correct", "correct"]
    assert statuses(table, "carol") == ["not attempted"] * 4
    # the grader's own cells check the answers after the student's code: a kernel that dies takes them along
    assert statuses(table, "dave") == ["not run", "not run", "not run", "not run"]
    assert statuses(table, "erin") == ["correct"] * 4  # the cells after the error still ran
    assert statuses(table, "amir") == ["correct", "correct", "not run", "not run"]
    assert statuses(table, "grace") == ["correct"] * 4
    # stopped at the disk limit after q1's answer was kept: q1 is still graded, the rest never ran
    assert statuses(table, "judy") == ["correct", "not run", "not run", "not run"]
    assert statuses(table, EVIL)[0] == "wrong"
    assert table[("heidi", "")]["exercise"] == "?" and table[("heidi", "")]["status"] == "not run"


@pytest.mark.full
def test_messages_hints_and_details(graded):
    table = rows(graded[1][0][1])
    bob = table[("bob", "q1")]
    assert bob["message"].startswith("room(8192, 1200, 450, 1024) returned 5519") and bob["hint"] == ex02.q1.hints[0]
    assert table[("alice", "q1")]["hint"] == "" and table[("alice", "q1")]["title"] == ex02.q1.title
    assert table[("carol", "q2")]["message"].startswith("the body of budget is still ...")
    assert table[("dave", "q1")]["notebook_detail"] == "the kernel died while running cell 6"
    assert "never ran: the notebook stopped first (crashed)" in table[("dave", "q2")]["message"]
    assert table[("erin", "q1")]["notebook_detail"] == "cell 6 raised ZeroDivisionError: division by zero"
    assert table[("amir", "q3")]["notebook_detail"] == f"stopped at the time limit ({TIMEOUT} s) while running cell 9"
    assert table[("grace", "q1")]["notebook_detail"] == "cell 6 raised MemoryError (limit 1024 MB)"
    assert table[("judy", "q1")]["notebook_detail"] == (f"stopped: wrote more than {DISK} MB (the disk limit) "
                                                        f"while running cell 6")
    assert "never ran: the notebook stopped first (disk limit)" in table[("judy", "q2")]["message"]
    assert table[("heidi", "")]["notebook_detail"] == "the file is not valid JSON."
    assert table[("ivan", "")]["notebook_detail"] == "the file is a symbolic link (not followed)."
    assert table[(EVIL, "q1")]["message"] == (  # CSV: plain words
        "room(8192, 1200, 450, 1024) returned 'no key found'; room should return a whole number of tokens.")


@pytest.mark.full
def test_other_submissions_are_unchanged_and_no_secret_is_seen(graded, submissions):
    before, runs, _peak = graded
    after = {p: p.read_bytes() for p in submissions.rglob("*") if p.is_file()}
    assert after == before  # alice's notebook, which mallory tried to overwrite, included
    for proc, out in runs:
        texts = [proc.stdout, proc.stderr] + [p.read_text(encoding="utf-8") for p in out.iterdir()]
        for text in texts:
            assert SECRET not in text and TOKEN not in text
    table = rows(runs[0][1])
    # mallory's attack failed inside the sandbox (read-only) or, without namespaces, was undone afterwards
    assert "Error" in table[(EVIL, "q1")]["notebook_detail"]


@pytest.mark.full
def test_gradebook_is_the_same_bytes_on_a_second_run(graded):
    (_, first), (_, second) = graded[1]
    for name in ("gradebook.csv", "gradebook.html"):
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


@pytest.mark.full
def test_html_escapes_student_text_and_shows_every_status(graded):
    page = (graded[1][0][1] / "gradebook.html").read_text(encoding="utf-8")
    assert "<img" not in page and "mallory&lt;img src=x onerror=alert(1)&gt;" in page
    for status in grade.results.QUESTION_STATUSES + grade.results.NOTEBOOK_STATUSES:
        assert status in page
    assert "02 \u00b7 " + ex02.title in page and 'title="q1 (compute B): wrong. room(8192, 1200, 450, 1024) returned 5519' in page


@pytest.mark.full
def test_progress_and_summary_on_stderr(graded):
    proc = graded[1][0][0]
    lines = [line for line in proc.stderr.splitlines() if line.startswith("[")]
    assert [line.split("]")[0] for line in lines] == [f"[{n}/11" for n in range(1, 12)]
    assert any(line.startswith("[") and f"judy/{EXERCISE}: disk limit (" in line for line in lines)
    assert f"{DISK} MB of disk per notebook" in proc.stderr
    assert ("Notebooks: 3 ok, 2 error, 1 crashed, 1 timeout, 1 memory limit, 1 disk limit, 2 invalid notebook"
            in proc.stderr)
    assert proc.stdout == ""


def test_the_progress_bar_is_drawn_on_a_terminal_only():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    for stream, bar in ((io.StringIO(), False), (Terminal(), True)):
        progress = grade.grading.Progress(2, stream)
        progress.advance("a.ipynb: ok (1.0 s)")
        progress.advance("b.ipynb: error (2.0 s)")
        text = stream.getvalue()
        assert "[1/2] a.ipynb: ok (1.0 s)\n" in text and "[2/2] b.ipynb: error (2.0 s)\n" in text
        assert ("2/2 [" in text) == bar, text  # tqdm's "2/2 [00:00<00:00, ...]"


# --- isolation, piece by piece -------------------------------------------------------------------


def test_environment_keeps_nothing_secret(monkeypatch, tmp_path):
    for name, value in {"OPENAI_API_KEY": SECRET, "GITHUB_TOKEN": TOKEN, "DB_PASSWORD": "pw",
                        "COURSE_CHECKPOINT_URL": "postgresql://u:pw@h/db", "AWS_SECRET_ACCESS_KEY": "x",
                        "COURSE_CHECKS_STRICT": "1", "COURSE_CHAT_MODEL": "openai:gpt-4o-mini", "LANG": "C.UTF-8"}.items():
        monkeypatch.setenv(name, value)
    env = grade.sandbox.kernel_environment(tmp_path, tmp_path / "work")
    assert "OPENAI_API_KEY" not in env and "COURSE_CHECKS_STRICT" not in env and "COURSE_CHAT_MODEL" not in env
    assert not any(SECRET in v or TOKEN in v or "pw" in v for v in env.values())
    assert env["HOME"] == str(tmp_path / "work") and env["LANG"] == "C.UTF-8"
    assert env["COURSE_CHECKS_RECORD"] == str(tmp_path / "work" / grade.sandbox.RECORD_FILE)


def test_detected_isolation_is_described():
    isolation = grade.detect_isolation("auto")
    assert isolation.description
    if os.geteuid() == 0 and isolation.namespaces:
        assert isolation.protected  # as root on Linux the submissions are read-only from inside


@pytest.mark.full
def test_process_isolation_still_grades(tmp_path):
    """The fallback (no namespaces): a plain process with the stripped environment and the limits."""
    folder = tmp_path / "subs"
    folder.mkdir()
    nbformat.write(master(), folder / EXERCISE)  # flat layout: the student is the file's name
    isolation = grade.detect_isolation("process")
    assert not isolation.namespaces
    results, changed = grade.grade_folder(folder, grade.Settings(timeout=60, memory_mb=1024), isolation)
    [result] = results
    assert result.submission.student == "02_token_budgets_exercise" and result.exercise == "02"
    assert result.status == "ok" and [q.status for q in result.questions] == ["correct"] * 4 and changed == []


def test_a_changed_submission_is_put_back(tmp_path):
    folder = tmp_path / "subs"
    (folder / "ann").mkdir(parents=True)
    path = folder / "ann" / EXERCISE
    path.write_text("original", encoding="utf-8")
    subs = grade.find_submissions(folder)
    taken = grade.submissions.snapshot(subs)
    path.write_text("overwritten", encoding="utf-8")
    (folder / "new.ipynb").write_text("{}", encoding="utf-8")
    assert grade.submissions.verify_and_restore(folder, taken, subs) == [f"ann/{EXERCISE}", "new.ipynb (new)"]
    assert path.read_text(encoding="utf-8") == "original"


# --- small parts -----------------------------------------------------------------------------------


def test_layouts_and_exercise_names(tmp_path):
    for rel in ["zoe.ipynb", "amy/03_trimming_walkthrough_exercise.ipynb", "amy/notes.txt",
                "ben/ex/05_threshold_selection_exercise (1).ipynb", ".hidden/x.ipynb", "amy/.ipynb_checkpoints/y.ipynb"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("{}", encoding="utf-8")
    found = [(s.student, s.relpath, s.exercise) for s in grade.find_submissions(tmp_path)]
    assert found == [("amy", "amy/03_trimming_walkthrough_exercise.ipynb", "03"),
                     ("ben", "ben/ex/05_threshold_selection_exercise (1).ipynb", "05"),
                     ("zoe", "zoe.ipynb", "")]
    nb = new_notebook(cells=[new_code_cell("from course_utils.checks import ex04\nq1, = ex04.questions")])
    assert grade.submissions.exercise_from_source(nb) == "04"


@pytest.mark.parametrize("data, reason", [
    (b"\xff\xfe", "not UTF-8 text"),
    (b'{"cells": [', "not valid JSON"),
    (b"[" * 100000, "not valid JSON"),
    (b'{"hello": "world"}', "valid JSON, but not a Jupyter notebook (nbformat 4)"),
])
def test_invalid_notebooks_are_named(data, reason):
    with pytest.raises(grade.submissions.InvalidNotebook, match=re.escape(reason)):
        grade.submissions.read_notebook(data)


def test_question_results_fill_in_what_never_ran():
    records = [{"exercise": "02", "question": 1, "title": "compute B", "status": "wrong", "message": "first"},
               {"exercise": "02", "question": 1, "title": "compute B", "status": "correct", "message": "again"},
               {"exercise": "02", "question": 9, "title": "forged", "status": "correct", "message": "no such q"}]
    results = grade.results.question_results("02", records, "timeout")
    assert [(q.number, q.status) for q in results] == [(1, "correct"), (2, "not run"), (3, "not run"), (4, "not run")]
    assert results[1].message == "`q2.check(budget)` never ran: the notebook stopped first (timeout)."
    assert results[1].hint == ex02.q2.hints[0] and results[0].hint == ""


def test_text_from_submissions_is_made_safe():
    assert grade.results.clean_text("object at 0x7f3a2b1c4d50\x1b[31m") == "object at 0x... [31m"
    assert len(grade.results.clean_text("x" * 5000)) == grade.results.MAX_TEXT
    assert grade.gradebook.csv_safe("=HYPERLINK(\"http://x\")") == "'=HYPERLINK(\"http://x\")"


def test_checks_write_a_record_only_when_the_grader_asks(monkeypatch, tmp_path):
    record = tmp_path / "checks.jsonl"
    monkeypatch.setattr("course_utils.checks.settings.strict", False)
    monkeypatch.delenv("COURSE_CHECKS_RECORD", raising=False)
    ex02.q1.check(5518)
    assert not record.exists()
    monkeypatch.setenv("COURSE_CHECKS_RECORD", str(record))
    result = ex02.q1.check(5519)
    assert json.loads(record.read_text(encoding="utf-8")) == {
        "exercise": "02", "question": 1, "title": ex02.q1.title, "status": "wrong", "message": result.message}


@pytest.mark.parametrize("args, message", [
    (["--timeout", "0"], "out of range"),
    (["--timeout", "soon"], "is not a number"),
    (["--memory", "10"], "out of range"),
    (["--jobs", "0"], "out of range"),
    (["--out", "{subs}/graded"], "inside SUBMISSIONS_DIR"),
    (["--lang", "de"], "argument --lang: invalid choice: 'de'"),
])
def test_command_line_is_validated(tmp_path, capsys, args, message):
    subs = tmp_path / "subs"
    subs.mkdir()
    with pytest.raises(SystemExit) as exit_info:
        grade.main([str(subs), *[a.format(subs=subs) for a in args]])
    assert exit_info.value.code == 2 and message in capsys.readouterr().err


def test_missing_or_empty_folder(tmp_path, capsys):
    with pytest.raises(SystemExit):
        grade.main([str(tmp_path / "nope")])
    assert "is not a folder" in capsys.readouterr().err
    assert grade.main([str(tmp_path), "--out", str(tmp_path.parent / "out")]) == 1
    assert "nothing to grade" in capsys.readouterr().err


def test_csv_has_the_documented_columns():
    header = next(csv.reader(io.StringIO(grade.gradebook.gradebook_csv([]))))
    assert tuple(header) == grade.gradebook.CSV_COLUMNS


# --- attacks a security review found -----------------------------------------------------------------

FORGED = {"exercise": "03_conversation", "question": 1, "status": "correct", "message": "x"}
ODD_NAME = b"b\xffob.ipynb"


def record_cell(record_expr: str) -> str:
    return ("import json, os\n"
            "with open(os.environ['COURSE_CHECKS_RECORD'], 'a') as f:\n"
            f"    f.write(json.dumps({record_expr}) + '\\n')")


@pytest.fixture(scope="module")
def attacked(tmp_path_factory, grader_tmp):
    """One grader run on: a forged record naming a non-exercise, a FIFO, a file name that is not UTF-8, a
    notebook that connects to a Unix-domain socket the test process listens on in a world-open folder of /tmp,
    and the disk attacks (with one notebook within the limit). Returns (process, out folder, what the
    listener heard, the most the grader's temporary folders held on the disk)."""
    import socket
    import tempfile

    folder = tmp_path_factory.mktemp("attacks")
    nbformat.write(new_notebook(cells=[new_code_cell(record_cell(repr(FORGED)))]), folder / "forger.ipynb")
    os.mkfifo(folder / "fifo.ipynb")
    with open(os.path.join(os.fsencode(folder), ODD_NAME), "w", encoding="utf-8") as file:
        nbformat.write(new_notebook(cells=[new_code_cell("1 + 1")]), file)
    listen_dir = Path(tempfile.mkdtemp(prefix="grade-test-sock-", dir="/tmp"))
    os.chmod(listen_dir, 0o755)
    address = str(listen_dir / "sock")
    server = socket.socket(socket.AF_UNIX)
    server.bind(address)
    os.chmod(address, 0o777)
    listener = Listener(server)
    connect = (f"import socket\ns = socket.socket(socket.AF_UNIX)\ntry:\n    s.connect({address!r})\n"
               f"    s.sendall(b'hello')\n    result = 'connected'\nexcept OSError as exc:\n"
               f"    result = 'failed: ' + type(exc).__name__\nprint(result)\n")
    nbformat.write(new_notebook(cells=[new_code_cell(connect + "raise RuntimeError('socket ' + result)")]),
                   folder / "sock.ipynb")
    for name, source in {**DISK_ATTACKS, "writable": WRITABLE}.items():
        nbformat.write(new_notebook(cells=[new_code_cell(source), new_code_cell("print('after')")]),
                       folder / f"{name}.ipynb")
    out = tmp_path_factory.mktemp("attacks-out")
    try:
        with DiskSampler(grader_tmp) as sampler:
            proc = run_grader(folder, out, tmp=grader_tmp)
    finally:
        listener.close()
        shutil.rmtree(listen_dir)
    return proc, out, listener.heard, sampler.peak


@pytest.mark.full
def test_attacks_do_not_stop_the_run(attacked):
    proc, out, _heard, _peak = attacked
    assert proc.returncode == 0, proc.stderr
    table = rows(out)
    forger = table[("forger", "")]
    assert forger["exercise"] == "?" and forger["notebook_status"] == "ok" and forger["status"] == "not run"
    assert forger["notebook_detail"] == ("ignored: not from a grading cell: 1 record(s) written to the record "
                                         "file (a malformed record)")
    fifo = table[("fifo", "")]
    assert fifo["notebook_status"] == "invalid notebook" and fifo["notebook_detail"] == "the file is not a regular file."
    odd = table[("b\\xffob", "")]
    assert odd["file"] == "b\\xffob.ipynb" and odd["notebook_status"] == "ok"


@pytest.mark.full
def test_unix_sockets_under_tmp_are_out_of_reach(attacked):
    proc, out, heard, _peak = attacked
    assert heard == []
    detail = rows(out)[("sock", "")]["notebook_detail"]
    assert detail.startswith("cell 1 raised RuntimeError: socket "), detail
    if "own namespaces" in proc.stderr:
        assert detail.startswith("cell 1 raised RuntimeError: socket failed: "), detail


def test_a_bad_result_is_recorded_as_crashed(monkeypatch, tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    for name in ("a.ipynb", "b.ipynb"):
        nbformat.write(new_notebook(cells=[new_code_cell("1")]), folder / name)
    outcomes = iter([{"status": "ok", "records": "not a list"}, ["not", "a", "dict"]])
    monkeypatch.setattr(grade.grading, "run_sandboxed", lambda *a, **k: next(outcomes))
    results, _changed = grade.grade_folder(folder, grade.Settings(), grade.Isolation(False))
    assert [r.status for r in results] == ["crashed", "crashed"]
    monkeypatch.setattr(grade.grading, "grade_one", lambda *a: 1 / 0)
    results, _changed = grade.grade_folder(folder, grade.Settings(), grade.Isolation(False))
    assert [(r.status, r.detail) for r in results] == [("crashed", "the grader failed: ZeroDivisionError: "
                                                                   "division by zero")] * 2


def test_a_runner_that_died_without_a_result_gets_one_more_try(monkeypatch, tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    for name in ("a.ipynb", "b.ipynb"):
        nbformat.write(new_notebook(cells=[new_code_cell("1")]), folder / name)
    died = {"status": "crashed", "records": [], "no_result": True, "detail": "the grader's runner stopped"}
    # a: dies once, then runs; b: dies twice, and is recorded as crashed.
    outcomes = iter([died, {"status": "ok", "detail": "", "records": []}, died, died])
    calls = []
    monkeypatch.setattr(grade.grading, "run_sandboxed", lambda *a, **k: calls.append(1) or next(outcomes))
    results, _changed = grade.grade_folder(folder, grade.Settings(jobs=1), grade.Isolation(False))
    assert [r.status for r in results] == ["ok", "crashed"]
    assert len(calls) == 4


def test_exercise_lookup_accepts_only_exercises():
    assert grade.results.find_exercise("02") is ex02
    for name in ("03_conversation", "", "2", "99", "__class__", None):
        assert grade.results.find_exercise(name) is None
    assert grade.results.known_questions("03_conversation") == {}
    assert not valid_record(FORGED)


def test_a_fifo_is_not_read(tmp_path):
    os.mkfifo(tmp_path / "x.ipynb")
    with pytest.raises(OSError):
        grade.submissions.read_submission(tmp_path / "x.ipynb")
    subs = grade.find_submissions(tmp_path)
    assert grade.submissions.snapshot(subs) == {"x.ipynb": None}


def test_an_unwritable_out_folder_is_refused_before_grading(tmp_path, capsys):
    subs = tmp_path / "subs"
    subs.mkdir()
    (tmp_path / "file").write_text("", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_info:
        grade.main([str(subs), "--out", str(tmp_path / "file" / "out")])
    assert exit_info.value.code == 2 and "is not writable" in capsys.readouterr().err


def test_jobs_default_to_one_without_namespaces(tmp_path):
    assert grade.cli.default_jobs(grade.Isolation(False)) == 1
    assert grade.cli.default_jobs(grade.Isolation(False, 65534, 65534, "nobody")) == 1
    assert grade.cli.default_jobs(grade.Isolation(True)) == min(2, os.cpu_count() or 1)


def test_work_folders_are_not_listable(tmp_path):
    root, work = grade.sandbox.prepare_folder(b"{}", grade.Isolation(False))
    try:
        parent = root.parent
        assert parent != Path(tempfile_dir()) and os.stat(parent).st_mode & 0o777 in (0o700, 0o711)
        assert work.name == "work" and root.name not in ("", "work")
    finally:
        grade.sandbox.remove_folder(root.parent)


def tempfile_dir() -> str:
    import tempfile

    return tempfile.gettempdir()


def test_a_record_that_cannot_be_encoded_does_not_break_a_check(monkeypatch, tmp_path):
    record = tmp_path / "checks.jsonl"
    monkeypatch.setattr("course_utils.checks.settings.strict", False)
    monkeypatch.setenv("COURSE_CHECKS_RECORD", str(record))

    def budget(*args, **kwargs):
        raise ValueError("\udcff")

    result = ex02.q2.check(budget)
    assert result.status != "correct"
    assert "\udcff" in json.loads(record.read_text(encoding="utf-8"))["message"]


# --- the disk limit, in each isolation mode ---------------------------------------------------------

#: Where a submission might write: only its own folder (and /dev/shm) may be writable; in namespaces mode
#: the folder is a tmpfs of exactly --disk MB.
WRITABLE = ("import os, tempfile\nfound = []\n"
            "for folder in ['/tmp', '/var/tmp', '/run', '/root', '/home', '/dev', '/', os.path.expanduser('~'),\n"
            "               tempfile.gettempdir(), '/dev/shm', '.']:\n"
            "    path = os.path.join(folder, 'written-by-a-submission')\n"
            "    try:\n"
            "        open(path, 'w').close()\n"
            "        os.remove(path)\n"
            "        found.append(folder)\n"
            "    except OSError:\n"
            "        pass\n"
            "st = os.statvfs('.')\n"
            "raise RuntimeError(f'writable: {\" \".join(found)}; {st.f_blocks * st.f_frsize // 2 ** 20} MB')")
DISK_ATTACKS = {"many": SMALL_FILES, "empty": EMPTY_FILES, "grown": APPEND, "within": WITHIN}
DISK_STOPS = {
    "many": f"stopped: wrote more than {DISK} MB (the disk limit) while running cell 1",
    "empty": "stopped: created more than 10000 files (the disk limit) while running cell 1",
    "grown": f"stopped: wrote more than {DISK} MB (the disk limit) while running cell 1",
}


def notebook_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*.ipynb") if p.is_file() and not p.is_symlink())


@pytest.mark.full
def test_disk_limit_with_bubblewrap(graded, attacked, submissions):
    """Big files (judy), many small files, empty files and a file grown by appending are each stopped at the
    limit; a notebook within it runs to the end; the tmpfs of --disk MB is the one writable folder besides
    /dev/shm; and nothing a submission wrote reached the disk."""
    proc, out, _heard, attacks_peak = attacked
    if "own namespaces" not in proc.stderr:
        pytest.skip("bubblewrap does not run here: the process mode has its own test below")
    table = rows(out)
    for name, detail in DISK_STOPS.items():
        assert (table[(name, "")]["notebook_status"], table[(name, "")]["notebook_detail"]) == ("disk limit", detail)
    assert table[("within", "")]["notebook_status"] == "ok"
    assert table[("writable", "")]["notebook_detail"] == \
        f"cell 1 raised RuntimeError: writable: . ./tmp /dev/shm .; {DISK} MB"
    # the grader's temporary folders held the notebooks' copies only: every byte written went to a tmpfs
    _before, _runs, graded_peak = graded
    assert graded_peak <= notebook_bytes(submissions) + 2 * MB, graded_peak
    assert attacks_peak <= 4 * MB, attacks_peak


@pytest.mark.full
def test_disk_limit_in_process_mode(tmp_path, grader_tmp, monkeypatch):
    """The same attacks without namespaces: the watchdog (and RLIMIT_FSIZE) stop each at the limit, the
    answers kept before the stop are graded, and a solved master that writes 5 MB more grades fully correct.
    No file the notebooks wrote ever exceeds the limit, and their folders are removed."""
    folder = tmp_path / "subs"
    folder.mkdir()
    cases = {"alice": with_cell_after(master(), "q4.check", WITHIN),
             "judy": with_cell_after(master(), "q1.check", WRITE_4GB)}
    for name, source in DISK_ATTACKS.items():
        if name != "within":
            cases[name] = new_notebook(cells=[new_code_cell(source), new_code_cell("print('after')")])
    for name, nb in cases.items():
        nbformat.write(nb, folder / f"{name}.ipynb")
    work_tmp = grader_tmp / "process"
    work_tmp.mkdir(mode=0o755)
    monkeypatch.setattr(tempfile, "tempdir", str(work_tmp))
    isolation = grade.detect_isolation("process")
    settings = grade.Settings(timeout=60, memory_mb=1024, disk_mb=DISK, jobs=2)
    with DiskSampler(work_tmp) as sampler:
        results, changed = grade.grade_folder(folder, settings, isolation)
    by_name = {r.submission.student: r for r in results}
    assert by_name["alice"].status == "ok" and [q.status for q in by_name["alice"].questions] == ["correct"] * 4
    judy = by_name["judy"]
    assert (judy.status, judy.detail) == ("disk limit", f"stopped: wrote more than {DISK} MB (the disk limit) "
                                                        f"while running cell 6")
    assert [q.status for q in judy.questions] == ["correct", "not run", "not run", "not run"]
    for name, detail in DISK_STOPS.items():
        assert (by_name[name].status, by_name[name].detail) == ("disk limit", detail)
    assert changed == []
    # the limit's effect, not a race with the watchdog: every attack above was stopped and reported, no file
    # ever grew past the limit (RLIMIT_FSIZE: the kernel refuses the byte past it), and nothing was left behind.
    # The total the sampler saw at once depends on how fast the watchdog ran under load: printed, not bounded.
    print(f"peak {sampler.peak / MB:.1f} MB, largest file {sampler.largest / MB:.1f} MB")
    assert 0 < sampler.largest <= DISK * MB, sampler.largest / MB
    assert not any(work_tmp.iterdir()), sorted(work_tmp.iterdir())


def test_the_runner_decides_the_status_in_one_place_by_precedence():
    from course_utils.grade.runner import Events, decide

    stopped = "stopped: wrote more than 20 MB (the disk limit)"
    assert decide(Events(), 60, 512) == ("ok", "")
    assert decide(Events(errors=[("cell 2", "ValueError", "x"), ("cell 5", "MemoryError", "")]), 60, 512) == \
        ("memory limit", "cell 5 raised MemoryError (limit 512 MB); 1 more cell(s) raised errors")
    assert decide(Events(died_at="while running cell 3", errors=[("cell 2", "E", "")]), 60, 512) == \
        ("crashed", "the kernel died while running cell 3")
    assert decide(Events(failed="TimeoutError while starting the kernel", failed_late=True), 60, 512) == \
        ("timeout", "stopped at the time limit (60 s) while starting the kernel")
    assert decide(Events(failed="RuntimeError while grading q1"), 60, 512) == \
        ("crashed", "the kernel could not run it (RuntimeError) while grading q1")
    timed_out = Events(timeout_at="while running cell 4", grading_timeout_at="while grading q2")
    assert decide(timed_out, 60, 512) == ("timeout", "stopped at the time limit (60 s) while running cell 4; "
                                                     "the grader's cells stopped at their time limit while grading q2")
    assert decide(Events(grading_timeout_at="while grading q1", died_at="x"), 60, 512)[0] == "timeout"
    both = Events(timeout_at="while running cell 4", disk_at="while running cell 4")
    assert decide(both, 60, 512, stopped, killed=True) == (
        "disk limit", f"{stopped} while running cell 4; the kernel went on writing after it was stopped, so it "
                      "was killed and nothing more was graded")
    assert decide(both, 60, 512, None) == ("timeout", "stopped at the time limit (60 s) while running cell 4")


def test_the_run_spec_is_typed_and_rejects_unknown_fields():
    from course_utils.grade.runspec import RunSpec

    spec = RunSpec(root="/r", work="/r/work", timeout=60.0, memory_mb=1024, disk_mb=20, result_fd=5,
                   exercise="01", calls={1: "q1.check(total_sent)"}, needed=("/usr",))
    assert RunSpec.from_json(spec.to_json()) == spec
    with pytest.raises(ValueError, match="unknown field.*colour"):
        RunSpec.from_json(json.dumps({**json.loads(spec.to_json()), "colour": "red"}))


def test_the_grader_waits_longer_than_the_runner_may_take_after_the_limit():
    from course_utils.grade import runner, sandbox

    assert sandbox.GRACE_SECONDS > runner.IOPUB_SECONDS + runner.INTERRUPT_SECONDS + runner.GRADING_SECONDS
    teaching = (ROOT / "TEACHING.md").read_text(encoding="utf-8")
    assert f"at least {runner.GRADING_SECONDS} s more" in teaching
    assert f"{sandbox.GRACE_SECONDS} s after the limit" in teaching
    assert f"killed at the limit plus {sandbox.GRACE_SECONDS} s" in teaching.replace("\n  ", " ")
