"""The course's one network guard: refuse every connection that leaves this machine.

Every lesson, exercise and test runs offline. This guard makes that a fact
rather than a hope: once :func:`install` has run, a TCP or UDP connection,
a datagram or a name lookup for anything but this machine (loopback
addresses, ``localhost``, Unix sockets) raises :class:`NetworkBlockedError`
with the address in its message, instead of silently depending on the
internet.

A process guards itself with ``netguard.install()``. A child process
(a Jupyter kernel, a notebook run, a graded submission) is guarded from its
first line by putting :func:`site_dir` on its ``PYTHONPATH``: that folder
holds a ``sitecustomize.py`` that Python imports at start-up, which installs
this guard (unless ``COURSE_OFFLINE_GUARD=0``)::

    env["PYTHONPATH"] = netguard.pythonpath(env.get("PYTHONPATH"))

It guards Python's ``socket`` module, so it stops Python code that uses it
(urllib, requests, httpx, asyncio); it is not a sandbox: code that calls the
C library directly, or starts a non-Python program, is not stopped. The
grader isolates submissions with a real sandbox on top of it.

>>> is_local("127.0.0.1"), is_local("::1"), is_local("localhost"), is_local("203.0.113.7")
(True, True, True, False)
"""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Mapping
from pathlib import Path

__all__ = ["DISABLE_VARIABLE", "NetworkBlockedError", "install", "installed", "is_local", "pythonpath",
           "site_dir", "uninstall", "wanted"]

#: ``COURSE_OFFLINE_GUARD=0`` in a child's environment leaves it unguarded (for debugging only).
DISABLE_VARIABLE = "COURSE_OFFLINE_GUARD"

_LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", ""}
_INTERNET = (socket.AF_INET, socket.AF_INET6)


class NetworkBlockedError(OSError):
    """Raised when code tries to leave the machine while the guard is installed."""


def is_local(host: object) -> bool:
    """Whether a host (name, address, bytes or None) is this machine: loopback, localhost or a wildcard."""
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode(errors="replace")
    host = str(host).strip("[]")
    if host in _LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback or host in ("0.0.0.0", "::")
    except ValueError:
        return False


def _refuse_if_far(sock: socket.socket, address: object) -> None:
    if sock.family in _INTERNET and isinstance(address, tuple) and address and not is_local(address[0]):
        raise NetworkBlockedError(
            f"network access blocked: the course runs offline (course_utils.core.netguard): {address!r}"
        )


# The unguarded originals, kept so that uninstall() can restore them.
_ORIGINAL = {
    "connect": socket.socket.connect,
    "connect_ex": socket.socket.connect_ex,
    "sendto": socket.socket.sendto,
    "getaddrinfo": socket.getaddrinfo,
}


def _connect(self, address):
    _refuse_if_far(self, address)
    return _ORIGINAL["connect"](self, address)


def _connect_ex(self, address):
    _refuse_if_far(self, address)
    return _ORIGINAL["connect_ex"](self, address)


def _sendto(self, data, *flags_and_address):
    _refuse_if_far(self, flags_and_address[-1] if flags_and_address else None)
    return _ORIGINAL["sendto"](self, data, *flags_and_address)


def _getaddrinfo(host, *args, **kwargs):
    if not is_local(host):
        raise NetworkBlockedError(f"name lookup blocked: the course runs offline (course_utils.core.netguard): {host!r}")
    return _ORIGINAL["getaddrinfo"](host, *args, **kwargs)


def install() -> None:
    """Guard this process from now on (calling it again changes nothing)."""
    socket.socket.connect = _connect
    socket.socket.connect_ex = _connect_ex
    socket.socket.sendto = _sendto
    socket.getaddrinfo = _getaddrinfo


def uninstall() -> None:
    """Restore the unguarded socket functions (for a test of the guard itself)."""
    socket.socket.connect = _ORIGINAL["connect"]
    socket.socket.connect_ex = _ORIGINAL["connect_ex"]
    socket.socket.sendto = _ORIGINAL["sendto"]
    socket.getaddrinfo = _ORIGINAL["getaddrinfo"]


def installed() -> bool:
    """Whether this process is guarded."""
    return socket.socket.connect is _connect and socket.getaddrinfo is _getaddrinfo


def wanted(environ: Mapping[str, str] | None = None) -> bool:
    """False only when the environment says ``COURSE_OFFLINE_GUARD=0``."""
    environ = os.environ if environ is None else environ
    return environ.get(DISABLE_VARIABLE, "1").strip() != "0"


def site_dir() -> Path:
    """The folder to put on a child process's ``PYTHONPATH`` so that it starts guarded.

    It holds only a ``sitecustomize.py`` that installs this guard, and is
    read-only in use: a sandbox may bind it read-only.
    """
    return Path(__file__).resolve().parent / "netguard_site"


def pythonpath(existing: str | None = None) -> str:
    """A ``PYTHONPATH`` value: :func:`site_dir` first, then ``existing`` (if any)."""
    return os.pathsep.join(filter(None, [str(site_dir()), existing]))
