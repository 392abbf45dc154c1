"""The one network guard: this process, and every child started with its site folder, stay on this machine.

No test here sends a packet off the machine: the guard refuses before the
socket call, and the addresses used are from TEST-NET-3 (203.0.113.0/24,
RFC 5737), which is never routed.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from course_utils.core import netguard

FAR = ("203.0.113.7", 80)

# What a child reports: whether it started guarded and, only if so (an unguarded
# child must not try), what a connection attempt to a far host gives.
PROBE = """
import socket
from course_utils.core import netguard
print(netguard.installed())
if netguard.installed():
    try:
        socket.create_connection(("example.com", 80), timeout=1)
    except netguard.NetworkBlockedError as exc:
        print("blocked:", exc)
"""


def test_this_test_process_is_guarded():
    # conftest.py installs the guard for the whole run.
    assert netguard.installed()


def test_connections_and_lookups_off_the_machine_are_refused():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        with pytest.raises(netguard.NetworkBlockedError, match=r"203\.0\.113\.7"):
            sock.connect(FAR)
        with pytest.raises(netguard.NetworkBlockedError):
            sock.connect_ex(FAR)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        with pytest.raises(netguard.NetworkBlockedError):
            udp.sendto(b"x", FAR)
        with pytest.raises(netguard.NetworkBlockedError):
            udp.sendto(b"x", 0, FAR)
    with pytest.raises(netguard.NetworkBlockedError, match="example.com"):
        socket.getaddrinfo("example.com", 443)
    assert isinstance(netguard.NetworkBlockedError("x"), OSError)  # code that handles OSError handles it


def test_loopback_still_works():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with socket.create_connection(server.getsockname(), timeout=5) as client:
            accepted, _ = server.accept()
            client.sendall(b"hi")
            assert accepted.recv(2) == b"hi"
            accepted.close()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as receiver, \
            socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sender:
        receiver.bind(("127.0.0.1", 0))
        sender.sendto(b"ok", receiver.getsockname())
        assert receiver.recv(2) == b"ok"
    assert socket.getaddrinfo("localhost", 80)


def test_uninstall_and_install_round_trip():
    original_connect = netguard._ORIGINAL["connect"]
    netguard.uninstall()
    try:
        assert not netguard.installed() and socket.socket.connect is original_connect
    finally:
        netguard.install()
        netguard.install()  # twice changes nothing
    assert netguard.installed()


def _child(env_changes, executable=sys.executable, cwd=None):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", netguard.DISABLE_VARIABLE)}
    env.update(env_changes)
    result = subprocess.run([executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=60, cwd=cwd)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_a_child_with_the_site_folder_starts_guarded():
    out = _child({"PYTHONPATH": netguard.pythonpath()})
    assert out.startswith("True\nblocked: name lookup blocked"), out


def test_a_child_without_it_is_not_guarded_and_the_switch_turns_it_off():
    assert _child({}).startswith("False\n")
    assert _child({"PYTHONPATH": netguard.pythonpath(), netguard.DISABLE_VARIABLE: "0"}).startswith("False\n")


def test_the_site_folder_finds_its_own_package_when_course_utils_is_not_installed(tmp_path):
    # The base interpreter of this virtual environment does not have course_utils installed.
    base = getattr(sys, "_base_executable", sys.executable)
    check = subprocess.run([base, "-c", "import course_utils"], capture_output=True, env={"PATH": os.defpath},
                           cwd=tmp_path)
    if check.returncode == 0:
        pytest.skip(f"{base} has course_utils installed, so the fallback is not exercised")
    out = _child({"PYTHONPATH": netguard.pythonpath()}, executable=base, cwd=tmp_path)
    assert out.startswith("True\nblocked:"), out


def test_pythonpath_puts_the_site_folder_first():
    assert netguard.pythonpath() == str(netguard.site_dir())
    assert netguard.pythonpath("/a") == os.pathsep.join([str(netguard.site_dir()), "/a"])
    assert (netguard.site_dir() / "sitecustomize.py").is_file()
