"""The PostgreSQL checkpointer, against a real PostgreSQL server the tests start.

The server comes from the ``postgres_server`` / ``postgres_url`` fixtures in
``tests/conftest.py``, built by ``tests/postgres_support.py`` with Debian's
``initdb``/``pg_ctl``, run as the ``postgres`` user when we are root. Not with
pytest-postgresql: as root (CI), even given a ``pg_ctl`` wrapper that drops to
``postgres``, its 10.0.0 release puts the data folder under pytest's 0700
temporary root and writes initdb's password file 0600 as root, so the server
user can reach neither (details in postgres_support's docstring). Where no
server can start the server tests are skipped with the reason in pytest's
summary; with ``COURSE_REQUIRE_POSTGRES=1`` (CI) they fail instead. The last
section tests that skip logic itself.
"""

import json
import os
import pwd
import re
import secrets
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from course_utils.agentic.checkpoints import (
    CHECKPOINT_URL_ENV,
    CheckpointerConnectionError,
    checkpoint_backend,
    checkpoints_holding,
    close_checkpointer,
    get_checkpointer,
    postgres_checkpointer,
    redact,
    user_thread_id,
)
from course_utils.agentic.graphs import (
    DEFAULT_DB_PATH,
    build_summarizing_chatbot,
    build_trimming_chatbot,
    chat,
    replay,
    restart_from_summary,
    stored_messages,
    thread_config,
)
from course_utils.core.samples import load_conversation

from postgres_support import DB_USER, PG_BIN_ENV, REQUIRE_ENV, ServerPlan, free_loopback_port, plan_server, unavailable

ROOT = Path(__file__).resolve().parents[1]
BOB = [m.content for m in load_conversation("bob") if m.type == "human"]


# --- a thread written, the connection closed, read back -----------------------------------

READ_BACK = textwrap.dedent(
    """
    import json, sys
    from course_utils.agentic.checkpoints import close_checkpointer, get_checkpointer
    from course_utils.agentic.graphs import build_summarizing_chatbot, chat, thread_config

    thread = sys.argv[1]
    saver = get_checkpointer()  # from COURSE_CHECKPOINT_URL: the URL is not on the command line
    graph = build_summarizing_chatbot(checkpointer=saver)
    values = graph.get_state(thread_config(thread)).values
    stored = [[m.type, m.content, m.id] for m in values["messages"]]
    reply = chat(graph, thread, "what's my name?")
    close_checkpointer(saver)
    print(json.dumps({"saver": type(saver).__name__, "messages": stored, "summary": values.get("summary", ""),
                      "reply": reply}))
    """
)


def _snapshot(graph, thread_id):
    values = graph.get_state(thread_config(thread_id)).values
    return [[m.type, m.content, m.id] for m in values["messages"]], values.get("summary", "")


def test_a_thread_survives_its_connection_and_its_process(postgres_url):
    thread = "bob-" + secrets.token_hex(4)
    saver = postgres_checkpointer(postgres_url)
    graph = build_summarizing_chatbot(checkpointer=saver)
    turns = replay(graph, thread, BOB[:5])
    assert turns[1].reply == "Your name is Bob."
    assert any(turn.summary for turn in turns), "the how-to's dialogue summarises by turn 4"
    messages, summary = _snapshot(graph, thread)
    assert summary and "bob" in summary.lower()
    close_checkpointer(saver)
    assert saver.conn.closed

    # A new connection in this process sees the same thread, summary included.
    saver2 = postgres_checkpointer(postgres_url)
    try:
        assert _snapshot(build_summarizing_chatbot(checkpointer=saver2), thread) == (messages, summary)
    finally:
        close_checkpointer(saver2)

    # A new process, which finds the server through COURSE_CHECKPOINT_URL, reads it and carries on.
    env = {**os.environ, CHECKPOINT_URL_ENV: postgres_url}
    done = subprocess.run(
        [sys.executable, "-c", READ_BACK, thread], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["saver"] == "PostgresSaver"
    assert (seen["messages"], seen["summary"]) == (messages, summary)
    assert seen["reply"] == "Your name is Bob."  # from the summary: "hi! I'm bob" itself was deleted
    assert not any(content == "hi! I'm bob" for _, content, _ in seen["messages"])

    # ...and what that process wrote is there for the next connection.
    saver3 = postgres_checkpointer(postgres_url)
    try:
        after = stored_messages(build_summarizing_chatbot(checkpointer=saver3), thread)
        assert [m.content for m in after][-2:] == ["what's my name?", "Your name is Bob."]
    finally:
        close_checkpointer(saver3)


def test_two_thread_ids_are_isolated(postgres_url):
    suffix = secrets.token_hex(4)
    bob, alice, unknown = f"bob-{suffix}", f"alice-{suffix}", f"nobody-{suffix}"
    saver = postgres_checkpointer(postgres_url)
    graph = build_trimming_chatbot(checkpointer=saver, max_tokens=128)
    chat(graph, bob, "hi! I'm bob")
    chat(graph, alice, "hi! I'm alice")
    assert chat(graph, bob, "what's my name?") == "Your name is Bob."
    assert chat(graph, alice, "what's my name?") == "Your name is Alice."
    close_checkpointer(saver)

    saver = postgres_checkpointer(postgres_url)
    try:
        graph = build_trimming_chatbot(checkpointer=saver, max_tokens=128)
        bob_texts = [m.content for m in stored_messages(graph, bob)]
        alice_texts = [m.content for m in stored_messages(graph, alice)]
        assert bob_texts == ["hi! I'm bob", "Hi Bob! Nice to meet you. How can I help you today?",
                             "what's my name?", "Your name is Bob."]  # fmt: skip
        assert alice_texts == ["hi! I'm alice", "Hi Alice! Nice to meet you. How can I help you today?",
                               "what's my name?", "Your name is Alice."]  # fmt: skip
        assert stored_messages(graph, unknown) == []
        assert chat(graph, unknown, "what's my name?") == "I don't know your name: it is not in what I was sent."
        threads = {c.config["configurable"]["thread_id"] for c in saver.list(None)}
        assert {bob, alice, unknown} <= threads
        saver.delete_thread(bob)  # starting one thread afresh leaves the others alone
        assert stored_messages(graph, bob) == []
        assert [m.content for m in stored_messages(graph, alice)] == alice_texts
    finally:
        close_checkpointer(saver)


def test_erasing_a_thread_on_postgres_restart_or_prune(postgres_url):
    """RemoveMessage leaves "hi! I'm bob" in earlier checkpoints; restart_from_summary and prune erase it."""
    suffix = secrets.token_hex(4)
    restarted, pruned, other = f"bob-r-{suffix}", f"bob-p-{suffix}", f"bob-o-{suffix}"
    name = "hi! I'm bob"
    saver = postgres_checkpointer(postgres_url)
    try:
        graph = build_summarizing_chatbot(checkpointer=saver)
        for thread in (restarted, pruned, other):
            replay(graph, thread, BOB[:4])
            assert name not in [m.content for m in stored_messages(graph, thread)]
            assert checkpoints_holding(saver, name, thread).holding > 0
        untouched = checkpoints_holding(saver, name, other)

        summary = graph.get_state(thread_config(restarted)).values["summary"]
        restart_from_summary(graph, restarted)
        saver.prune([pruned], strategy="keep_latest")  # PostgresSaver implements prune; SqliteSaver 3.1.x does not
    finally:
        close_checkpointer(saver)

    reader = postgres_checkpointer(postgres_url)  # read back on a new connection
    try:
        for thread in (restarted, pruned):
            held = checkpoints_holding(reader, name, thread)
            assert (held.holding, held.total) == (0, 1), thread
            assert checkpoints_holding(reader, "Bob", thread).holding == 1  # the summary keeps the name
        assert checkpoints_holding(reader, name, other) == untouched
        graph = build_summarizing_chatbot(checkpointer=reader)
        assert graph.get_state(thread_config(restarted)).values["summary"] == summary
        assert chat(graph, restarted, "what's my name?") == "Your name is Bob."
        assert chat(graph, pruned, "what's my name?") == "Your name is Bob."
    finally:
        close_checkpointer(reader)


def test_setup_twice_and_get_checkpointer_chooses_postgres(postgres_url, monkeypatch):
    first = postgres_checkpointer(postgres_url)
    second = get_checkpointer(postgres_url)  # setup() again on existing tables: harmless
    monkeypatch.setenv(CHECKPOINT_URL_ENV, postgres_url)
    third = get_checkpointer(default="lesson.sqlite")  # the hub's setting wins over a lesson's file
    try:
        assert {type(s).__name__ for s in (first, second, third)} == {"PostgresSaver"}
        with first.conn.cursor() as cur:
            versions = [row["v"] for row in cur.execute("SELECT v FROM checkpoint_migrations ORDER BY v")]
        assert versions == list(range(len(first.MIGRATIONS)))  # each migration ran once
    finally:
        for saver in (first, second, third):
            close_checkpointer(saver)


@pytest.mark.parametrize("build", [build_trimming_chatbot, build_summarizing_chatbot])
def test_builders_without_a_checkpointer_follow_course_checkpoint_url(postgres_url, monkeypatch, tmp_path, build):
    """A hub sets COURSE_CHECKPOINT_URL once; the lessons' builders, given no checkpointer, use it."""
    monkeypatch.setenv(CHECKPOINT_URL_ENV, postgres_url)
    lesson_file = tmp_path / "lesson.sqlite"
    graph = build(db_path=lesson_file)
    thread = "hub-" + secrets.token_hex(4)
    try:
        assert type(graph.checkpointer).__name__ == "PostgresSaver"
        assert chat(graph, thread, "hi! I'm bob").startswith("Hi Bob")
    finally:
        close_checkpointer(graph.checkpointer)
    assert not lesson_file.exists()  # the lesson's own file is only the fallback
    saver = postgres_checkpointer(postgres_url)
    try:
        assert [m.content for m in stored_messages(build(checkpointer=saver), thread)][0] == "hi! I'm bob"
    finally:
        close_checkpointer(saver)


def test_a_refused_login_names_the_server_not_the_password(postgres_server):
    wrong = "not-the-password-" + secrets.token_hex(4)
    with pytest.raises(CheckpointerConnectionError) as caught:
        postgres_checkpointer(postgres_server.url(password=wrong))
    message = str(caught.value)
    assert f"{DB_USER}@127.0.0.1:{postgres_server.port}/postgres" in message
    assert "password authentication failed" in message
    assert wrong not in message and postgres_server.password not in message


def test_a_missing_database_is_named(postgres_server):
    with pytest.raises(CheckpointerConnectionError, match=r"/no_such_db.*does not exist"):
        postgres_checkpointer(postgres_server.url(dbname="no_such_db"))


def test_a_user_who_cannot_create_the_tables_is_told_why(postgres_server):
    """PostgreSQL 15+ gives ordinary roles no CREATE on schema public: setup() fails, and says so."""
    import psycopg

    role, password = "student_" + secrets.token_hex(3), secrets.token_hex(8)
    with psycopg.connect(postgres_server.url(), autocommit=True) as admin:
        admin.execute(f"CREATE ROLE {role} LOGIN PASSWORD '{password}'")
        admin.execute(f"CREATE DATABASE {role}_db")
    url = f"postgresql://{role}:{password}@127.0.0.1:{postgres_server.port}/{role}_db"
    with pytest.raises(RuntimeError) as caught:
        postgres_checkpointer(url)
    message = str(caught.value)
    assert f"{role}@127.0.0.1:{postgres_server.port}/{role}_db" in message
    assert "permission denied" in message and "GRANT CREATE ON SCHEMA public" in message
    assert "SELECT, INSERT, UPDATE, DELETE" in message
    assert password not in message

    # A teacher creates the tables once and grants the rows; then the same call works for the student.
    teacher_url = postgres_server.url(dbname=f"{role}_db")
    close_checkpointer(postgres_checkpointer(teacher_url))
    with psycopg.connect(teacher_url, autocommit=True) as admin:
        admin.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role}")
    saver = postgres_checkpointer(url)
    try:
        graph = build_trimming_chatbot(checkpointer=saver)
        chat(graph, "bob", "hi! I'm bob")
        assert chat(graph, "bob", "what's my name?") == "Your name is Bob."
    finally:
        close_checkpointer(saver)


# --- without a server ---------------------------------------------------------------------


def test_an_unreachable_server_is_named_without_its_password():
    port = free_loopback_port()  # nothing listens there
    with pytest.raises(CheckpointerConnectionError) as caught:
        postgres_checkpointer(f"postgresql://teacher:hunter2secret@127.0.0.1:{port}/course")
    message = str(caught.value)
    assert f"teacher@127.0.0.1:{port}/course" in message
    assert "hunter2secret" not in message
    assert CHECKPOINT_URL_ENV in message


@pytest.mark.parametrize(
    "module, package",
    [("langgraph.checkpoint.postgres", "langgraph-checkpoint-postgres"), ("psycopg", "psycopg")],
)
def test_a_missing_package_is_named(monkeypatch, module, package):
    monkeypatch.setitem(sys.modules, module, None)  # makes `import module` fail
    with pytest.raises(ImportError, match=re.escape(package)) as caught:
        postgres_checkpointer("postgresql://teacher@127.0.0.1/course")
    assert 'pip install langgraph-checkpoint-postgres "psycopg[binary]"' in str(caught.value)


@pytest.mark.parametrize(
    "conninfo, error",
    [(None, TypeError), (5432, TypeError), ("", ValueError), ("   ", ValueError), ("nonsense", ValueError),
     ("postgresql://u:s3cret@[bad/course", ValueError)],
)  # fmt: skip
def test_bad_conninfo_is_refused_before_connecting(conninfo, error):
    with pytest.raises(error) as caught:
        postgres_checkpointer(conninfo)
    assert "s3cret" not in str(caught.value)


@pytest.mark.parametrize(
    "setting, expected",
    [
        ("postgresql://t:pw@hub.example.edu/course", ("postgres", "postgresql://t:pw@hub.example.edu/course")),
        ("postgres://t@localhost/course", ("postgres", "postgres://t@localhost/course")),
        ("PostgreSQL://t@localhost/course", ("postgres", "PostgreSQL://t@localhost/course")),
        ("sqlite:///threads.sqlite", ("sqlite", "threads.sqlite")),
        ("sqlite:////srv/course/threads.sqlite", ("sqlite", "/srv/course/threads.sqlite")),
        ("sqlite:///:memory:", ("sqlite", ":memory:")),
        ("sqlite://", ("sqlite", ":memory:")),
        ("threads.sqlite", ("sqlite", "threads.sqlite")),
        (" /tmp/x.sqlite ", ("sqlite", "/tmp/x.sqlite")),
        (Path("a/b.sqlite"), ("sqlite", "a/b.sqlite")),
    ],
)
def test_checkpoint_backend_reads_the_setting(setting, expected):
    assert checkpoint_backend(setting) == expected


@pytest.mark.parametrize(
    "setting, error",
    [(None, TypeError), (3, TypeError), ("", ValueError), ("sqlite://threads.sqlite", ValueError),
     ("mysql://u:pw@host/db", ValueError), ("redis://host", ValueError)],
)  # fmt: skip
def test_checkpoint_backend_refuses_what_it_cannot_use(setting, error):
    with pytest.raises(error) as caught:
        checkpoint_backend(setting)
    assert ":pw@" not in str(caught.value)


def test_get_checkpointer_gives_sqlite_for_paths_and_the_default(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(CHECKPOINT_URL_ENV, raising=False)
    savers = [get_checkpointer(), get_checkpointer(tmp_path / "p.sqlite"), get_checkpointer("sqlite:///u.sqlite")]
    monkeypatch.setenv(CHECKPOINT_URL_ENV, f"sqlite:///{tmp_path / 'env.sqlite'}")
    savers.append(get_checkpointer())
    monkeypatch.setenv(CHECKPOINT_URL_ENV, "   ")
    savers.append(get_checkpointer())  # blank means unset
    savers.append(get_checkpointer(default=tmp_path / "lesson.sqlite"))  # a lesson's own file
    try:
        assert all(isinstance(s, SqliteSaver) for s in savers)
        graph = build_trimming_chatbot(checkpointer=savers[3])
        chat(graph, "t", "hi! I'm bob")
    finally:
        for saver in savers:
            close_checkpointer(saver)
    assert sorted(p.name for p in tmp_path.glob("*.sqlite")) == sorted(
        [DEFAULT_DB_PATH, "env.sqlite", "lesson.sqlite", "p.sqlite", "u.sqlite"]
    )
    close_checkpointer(savers[0])  # twice is harmless
    with pytest.raises(TypeError):
        close_checkpointer("not a saver")


def test_redact_hides_passwords_in_urls_and_keyword_strings():
    assert redact("postgresql://t:pw@h:5432/d") == "postgresql://t:***@h:5432/d"
    assert redact("postgresql://h:5432/d") == "postgresql://h:5432/d"
    assert redact("host=h password=pw dbname=d") == "host=h password=*** dbname=d"
    assert redact("host=h password='p w' dbname=d") == "host=h password=*** dbname=d"


def test_user_thread_id(monkeypatch):
    monkeypatch.setenv("JUPYTERHUB_USER", "student07")
    assert user_thread_id("bob") == "student07/bob"
    assert user_thread_id("bob", user="teacher") == "teacher/bob"
    monkeypatch.delenv("JUPYTERHUB_USER")
    assert user_thread_id("bob") == "bob"
    with pytest.raises(ValueError, match="^thread_id must not be empty"):
        user_thread_id("")
    with pytest.raises(TypeError, match="^thread_id must be a str, got int: 5"):
        user_thread_id(5)
    with pytest.raises(TypeError, match="^user must be a str or None, got int"):
        user_thread_id("bob", user=7)


@pytest.mark.parametrize(
    "bad, error, words",
    [(5, TypeError, "^default must be a file path"), ("", ValueError, "^default must not be empty"),
     ("redis://host", ValueError, "^default: unsupported checkpoint URL"),
     ("/no/such/folder/x.sqlite", ValueError, "^default must be in an existing folder")],
)  # fmt: skip
def test_get_checkpointer_names_default_when_the_default_is_bad(monkeypatch, bad, error, words):
    monkeypatch.delenv(CHECKPOINT_URL_ENV, raising=False)
    with pytest.raises(error, match=words):
        get_checkpointer(default=bad)
    with pytest.raises(error, match=words.replace("default", "url_or_path")):
        get_checkpointer(bad)


def test_get_checkpointer_names_the_environment_variable_when_it_is_bad(monkeypatch, tmp_path):
    monkeypatch.setenv(CHECKPOINT_URL_ENV, "mysql://u:pw@host/db")
    with pytest.raises(ValueError, match=rf"^{CHECKPOINT_URL_ENV}: unsupported checkpoint URL") as caught:
        get_checkpointer(default=tmp_path / "lesson.sqlite")
    assert ":pw@" not in str(caught.value)
    monkeypatch.setenv(CHECKPOINT_URL_ENV, "/no/such/folder/x.sqlite")
    with pytest.raises(ValueError, match=rf"^{CHECKPOINT_URL_ENV} must be in an existing folder"):
        get_checkpointer()
    with pytest.raises(TypeError, match="^default must be a file path"):  # checked even when the variable wins
        get_checkpointer(default=5)


def test_checkpoints_does_not_import_graphs_and_graphs_does_not_re_export_the_sqlite_saver():
    from course_utils.agentic import checkpoints
    from course_utils.agentic import graphs

    done = subprocess.run(
        [sys.executable, "-c", "import sys, course_utils.agentic.checkpoints; print('course_utils.agentic.graphs' in sys.modules)"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "False"
    assert not hasattr(graphs, "sqlite_checkpointer")  # one home: checkpoints
    assert graphs.DEFAULT_DB_PATH == checkpoints.DEFAULT_DB_PATH == "course_checkpoints.sqlite"


# --- the skip logic ---------------------------------------------------------------------------


def test_no_binaries_is_a_reason(tmp_path):
    reason = plan_server(env={PG_BIN_ENV: str(tmp_path)})
    assert reason == f"{PG_BIN_ENV}={tmp_path} has no initdb and pg_ctl"


def _fake_bindir(tmp_path) -> Path:
    for name in ("initdb", "pg_ctl"):
        (tmp_path / name).write_text("#!/bin/sh\n")
        (tmp_path / name).chmod(0o755)
    return tmp_path


def test_root_without_a_postgres_user_is_a_reason(tmp_path):
    def no_such_user(name):
        raise KeyError(name)

    reason = plan_server(env={PG_BIN_ENV: str(_fake_bindir(tmp_path))}, euid=0, lookup_user=no_such_user)
    assert isinstance(reason, str) and "no 'postgres' user" in reason


def test_root_runs_the_server_as_postgres_and_others_as_themselves(tmp_path):
    bindir = _fake_bindir(tmp_path)
    user = pwd.struct_passwd(("postgres", "x", 101, 104, "", "/var/lib/postgresql", "/bin/sh"))
    which = {"runuser": "/usr/sbin/runuser"}.get
    as_root = plan_server(env={PG_BIN_ENV: str(bindir)}, euid=0, which=which, lookup_user=lambda name: user)
    assert as_root == ServerPlan(bindir, ["/usr/sbin/runuser", "-u", "postgres", "--"], (101, 104))
    assert plan_server(env={PG_BIN_ENV: str(bindir)}, euid=1000) == ServerPlan(bindir)
    no_runuser = plan_server(env={PG_BIN_ENV: str(bindir)}, euid=0, which=lambda n: None, lookup_user=lambda n: user)
    assert "no runuser" in no_runuser


def test_without_a_server_the_tests_skip_and_print_why(tmp_path):
    """Run one server test in a child pytest whose initdb lookup points at an empty folder."""
    env = {**os.environ, PG_BIN_ENV: str(tmp_path)}
    env.pop(REQUIRE_ENV, None)
    command = [sys.executable, "-m", "pytest", __file__, "-q", "-rs", "-k", "missing_database",
               "-o", "addopts=", "-p", "no:nbval", "-p", "no:cacheprovider"]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "1 skipped" in done.stdout
    assert "SKIPPED [1] tests/test_postgres.py" in done.stdout
    assert f"no PostgreSQL test server: {PG_BIN_ENV}={tmp_path} has no initdb and pg_ctl" in done.stdout


def test_in_ci_no_server_is_a_failure_not_a_skip(monkeypatch):
    monkeypatch.setenv(REQUIRE_ENV, "1")
    with pytest.raises(pytest.fail.Exception, match=rf"no PostgreSQL test server: why \({REQUIRE_ENV}=1"):
        unavailable("why")
    monkeypatch.delenv(REQUIRE_ENV)
    with pytest.raises(pytest.skip.Exception, match=r"^no PostgreSQL test server: why$"):
        unavailable("why")
