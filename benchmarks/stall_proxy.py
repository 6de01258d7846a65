"""A TCP proxy in front of PostgreSQL that can stall: bytes stop flowing both ways, connections stay open.

This is what a database under a long lock, a full disk's fsync or a network partition looks like
to the service: nothing fails, nothing answers. Tests and ``benchmarks/abuse_load.py`` put it between
the server and PostgreSQL and stall it for a while.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from urllib.parse import urlsplit, urlunsplit

__all__ = ["StallProxy"]


class StallProxy:
    """Forwards 127.0.0.1:<port> to the database of ``database_url``; :meth:`stall` holds every byte."""

    def __init__(self, database_url: str) -> None:
        parts = urlsplit(database_url)
        self.target = (parts.hostname or "127.0.0.1", parts.port or 5432)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        netloc = f"{parts.username}@127.0.0.1:{self.port}" if parts.username else f"127.0.0.1:{self.port}"
        self.url = urlunsplit((parts.scheme, netloc, parts.path, parts.query, ""))
        self._flowing = threading.Event()
        self._flowing.set()
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def stall(self) -> None:
        self._flowing.clear()

    def resume(self) -> None:
        self._flowing.set()

    def close(self) -> None:
        self._closed = True
        self._flowing.set()
        self._listener.close()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            self._flowing.wait()  # a stalled server accepts nothing either
            try:
                server = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while chunk := source.recv(65536):
                self._flowing.wait()
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)
