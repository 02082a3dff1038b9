"""Start the page: open the store, bind 127.0.0.1, print the address, serve until stopped."""

from __future__ import annotations

import contextlib
import logging
import secrets
import signal
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import KenningError, UserInputError
from ..store import MemoryStore, open_store
from .app import StoreSource, create_app

if TYPE_CHECKING:
    import uvicorn

#: The only address the page is served on: never another interface.
HOST = "127.0.0.1"


class _NoUpgradeAdvice(logging.Filter):
    """Drops uvicorn's warnings about a WebSocket upgrade it cannot serve. The page has no
    WebSocket; any page in the browser may knock on a local port with one (a live-reload
    client, a port scan), is refused (403), and uvicorn would tell the person to ``pip
    install 'uvicorn[standard]'`` — packages kenning never needs."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not (
            message == "Unsupported upgrade request."
            or message.startswith("No supported WebSocket library detected")
        )


def bind(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1:``port`` (0: a free port)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port))
    except OSError as exc:
        sock.close()
        raise KenningError(
            f"cannot listen on {HOST}:{port} ({exc.strerror or exc}); pick another port with "
            "--port, or leave it out for a free one"
        ) from None
    sock.listen(64)
    return sock


def serve(location: str | None = None, *, port: int = 0, cwd: Path | None = None) -> None:
    """Serve the page for the project's store until interrupted.

    The store is opened (and the model loaded) before anything is printed, so a server
    that is down fails here with its own error (exit 3, "knowledge base NOT consulted").
    A project with no store yet gets an empty page that says so (the first ``remember``
    creates the store; the page picks it up). Then the first line of standard output is
    the address with its token.
    """
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        # bad input (exit 1), as every value out of its range is; the CLI names its --port
        raise UserInputError.of_parameter(
            "port",
            "port",
            f" is {port!r:.40}; expected a whole number from 0 (any free port) to 65535",
        )
    import uvicorn

    first = open_store(location, cwd=cwd, create=False, missing_ok=True)
    try:
        embedder = first.embedder
        embedder.embed(["warm-up"])  # load the model before the first search
        project = first.group_id
        sock = bind(port)
    except BaseException:
        first.close()
        raise

    def opener() -> MemoryStore:
        return open_store(location, cwd=cwd, create=False, missing_ok=True, embedder=embedder)

    if first.project.store_url is None and first.exists:
        source = StoreSource(kept=first, opener=opener)
    else:
        first.close()
        source = StoreSource(opener=opener)
    actual = sock.getsockname()[1]
    token = secrets.token_urlsafe(24)
    app = create_app(
        source, port=actual, token=token, store_option=bool(location and location.strip())
    )
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="off",
        proxy_headers=False,
        server_header=False,
        date_header=False,
    )
    # after uvicorn.Config, which configures its loggers
    logging.getLogger("uvicorn.error").addFilter(_NoUpgradeAdvice())
    server = uvicorn.Server(config)
    with _ctrl_c_stops(server):
        try:
            print(f"http://{HOST}:{actual}/?token={token}", flush=True)
            print(
                f"kenning ui: serving {project} on {HOST}:{actual} only; Ctrl+C to stop",
                file=sys.stderr,
                flush=True,
            )
            # uvicorn shuts down on Ctrl+C, then raises it again with the handler it found,
            # _ctrl_c_stops's: run() returns, however the process was started
            server.run(sockets=[sock])
            print("kenning ui: stopped", file=sys.stderr, flush=True)
        finally:
            source.close()
            sock.close()


@contextlib.contextmanager
def _ctrl_c_stops(server: uvicorn.Server) -> Iterator[None]:
    """Ctrl+C stops ``server`` from here on: from before the address is printed, not only
    once ``server.run`` has set uvicorn's handler (in its event loop, a moment later).

    A script that reads the address may send Ctrl+C at once. Python's own handler raised
    KeyboardInterrupt wherever it fell ("error: interrupted", exit 130, or a coroutine never
    awaited), and where Ctrl+C was ignored from the start (a script's `kenning ui &`) the
    signal was lost and the page went on serving. uvicorn's handler, set here, marks the
    server to stop; one not started yet starts and shuts down at once. Only the main thread
    sets handlers; elsewhere uvicorn sets none either."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGINT, server.handle_exit)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


__all__ = ["HOST", "bind", "serve"]
