"""A listening socket that records what connects to it, for the grader's no-network tests.

The tests start one (TCP on loopback, or a Unix socket), let a graded
notebook try to reach it, then stop it and assert that it heard nothing.
"""

from __future__ import annotations

import socket
import threading


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
