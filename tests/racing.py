"""Writers that start writing at one moment, for the tests of races between them: processes
(:func:`start_together`) and threads (:func:`threads_together`).

A process takes ~0.5-1.5 CPU-s to start (Python, kenning, numpy, a driver, maybe the model),
and on a busy machine one process may finish its writes before the next one has started:
then nothing raced, and a test with the store's lock taken out still passed. Each writer
script runs :data:`AWAIT_GO` once it is ready to write (its imports done, its store open:
:func:`writer_script` puts it where the script's ``AWAIT_GO`` line stands);
:func:`start_together` starts them all, waits until every one is ready, and then lets them
go at once. Few processes with few writes each then race for certain. Threads, each with a store or
backend of its own, race the same way where what races is a server's sessions (whose queries
release the GIL), not the processes.
"""

from __future__ import annotations

import subprocess
import textwrap
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

#: The lines a writer script runs when it is ready: it says so and waits for the word.
AWAIT_GO = 'print("ready", flush=True)\nsys.stdin.readline()\n'


def writer_script(source: str) -> str:
    """``source`` (indented as in the test module, ``sys`` imported) dedented, with its line
    ``AWAIT_GO`` replaced by :data:`AWAIT_GO`'s code."""
    script = textwrap.dedent(source)
    if "\nAWAIT_GO\n" not in script:
        raise ValueError("a writer script needs a line AWAIT_GO where it is ready to write")
    return script.replace("\nAWAIT_GO\n", "\n" + AWAIT_GO)


def start_together(
    commands: Sequence[Sequence[str]],
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 300,
) -> list[subprocess.Popen[str]]:
    """Start ``commands`` (each runs :data:`AWAIT_GO` once ready), and once all of them are
    ready tell them to go. Their stdout (after ``ready``) and stderr are for the caller's
    ``communicate()``."""
    import select

    procs = [
        subprocess.Popen(
            list(command),
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for command in commands
    ]
    try:
        for proc in procs:
            assert proc.stdout is not None
            ready, _, _ = select.select([proc.stdout], [], [], timeout)
            line = proc.stdout.readline().strip() if ready else ""
            if line != "ready":
                _, err = proc.communicate(timeout=timeout)
                raise AssertionError(f"a writer never got ready ({line!r}): {err}")
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.write("go\n")
            proc.stdin.flush()
    except BaseException:
        for proc in procs:
            proc.kill()
            proc.wait()
        raise
    return procs


def threads_together(
    write: Callable[[int], None], workers: int, *, timeout: float = 300
) -> list[BaseException]:
    """Run ``write(0)`` … ``write(workers - 1)`` in threads let go at one moment (once every
    one has started), wait for them, and return what they raised."""
    go = threading.Barrier(workers)
    errors: list[BaseException] = []

    def run(worker: int) -> None:
        try:
            go.wait(60)
            write(worker)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(w,)) for w in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    return errors
