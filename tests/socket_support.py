"""Sockets for the tests: a free loopback port, and a listener that records what connects to it.

The grader's no-network tests start a :class:`Listener` (TCP on loopback, or a
Unix socket), let a graded notebook try to reach it, then stop it and assert
that it heard nothing. The JupyterLab and PostgreSQL test servers take their
ports from :func:`free_loopback_port`.
"""

from __future__ import annotations

import socket
import threading


def free_loopback_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (a server started later may still lose it to another)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Listener:
    """Accept connections on ``server`` in a background thread; ``heard`` keeps what each sent."""

    def __init__(self, server: socket.socket):
        self.server, self.heard, self._stop = server, [], threading.Event()
        server.listen()
        server.settimeout(0.2)
        self._thread = threading.Thread(target=self._listen, daemon=True)
        self._thread.start()

    def _listen(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.server.accept()
            except OSError:
                continue
            self.heard.append(conn.recv(100) or b"(connected)")
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.server.close()
