"""Refuse every network connection except to this machine (loopback, Unix sockets).

The test suite puts this folder on PYTHONPATH, so the guard is loaded by the
pytest process *and* by every kernel nbval or the browser test starts. A
lesson or test that tries to reach the internet fails with a clear error
instead of silently depending on it.
"""

import ipaddress
import os
import socket

_LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", ""}


class NetworkBlockedError(OSError):
    """Raised when code under test tries to leave the machine."""


def _is_local(host) -> bool:
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode()
    host = str(host).strip("[]")
    if host in _LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback or host in ("0.0.0.0", "::")
    except ValueError:
        return False


def _check(address) -> None:
    if isinstance(address, tuple) and address and not _is_local(address[0]):
        raise NetworkBlockedError(f"network access blocked in the course's offline mode: {address!r}")


_connect = socket.socket.connect
_connect_ex = socket.socket.connect_ex
_getaddrinfo = socket.getaddrinfo


def _guarded_connect(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6):
        _check(address)
    return _connect(self, address)


def _guarded_connect_ex(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6):
        _check(address)
    return _connect_ex(self, address)


def _guarded_getaddrinfo(host, *args, **kwargs):
    if not _is_local(host):
        raise NetworkBlockedError(f"name lookup blocked in the course's offline mode: {host!r}")
    return _getaddrinfo(host, *args, **kwargs)


if os.environ.get("COURSE_OFFLINE_GUARD", "1") != "0":
    socket.socket.connect = _guarded_connect
    socket.socket.connect_ex = _guarded_connect_ex
    socket.getaddrinfo = _guarded_getaddrinfo
