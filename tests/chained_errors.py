"""Chained errors as the programs print them, for the tests of the causes asked after the
crash's error (:func:`kenning.querybuild.chained_causes`). Each was printed by its program
(Python 3.11.7, pytest 9, rustc and cargo 1.95 with anyhow 1.0.104, Node 20; paths shortened to
``/app/``, ``/work/ws/`` and ``/usr/lib/python3.11/``).
"""

from __future__ import annotations

#: ``raise RuntimeError(…) from exc`` around psycopg2's refused connection (its message's
#: second line indented by a tab)
DIRECT_CAUSE = "\n".join(
    [
        "Traceback (most recent call last):",
        '  File "/app/factory.py", line 12, in create_app',
        "    return connect()",
        "           ^^^^^^^^^",
        '  File "/app/factory.py", line 9, in connect',
        "    return psycopg2.connect(DSN)",
        "           ^^^^^^^^^^^^^^^^^^^^^",
        '  File "/app/factory.py", line 7, in connect',
        "    raise OperationalError('connection to server at \"db\" (10.0.0.5), port 5432 failed: Connection refused\\n\\tIs the server running on that host and accepting TCP/IP connections?\\n')",
        'psycopg2.OperationalError: connection to server at "db" (10.0.0.5), port 5432 failed: Connection refused',
        "\tIs the server running on that host and accepting TCP/IP connections?",
        "",
        "",
        "The above exception was the direct cause of the following exception:",
        "",
        "Traceback (most recent call last):",
        '  File "/app/main.py", line 4, in <module>',
        "    app = create_app()",
        "          ^^^^^^^^^^^^",
        '  File "/app/factory.py", line 14, in create_app',
        '    raise RuntimeError("could not start the app") from exc',
        "RuntimeError: could not start the app",
    ]
)

#: an exception of the app's raised ``from`` a bare ``KeyError: 'user'``
BARE_KEY_ERROR_CAUSE = "\n".join(
    [
        "Traceback (most recent call last):",
        '  File "/app/views.py", line 4, in profile',
        '    return session["user"]',
        "           ~~~~~~~^^^^^^^^",
        "KeyError: 'user'",
        "",
        "The above exception was the direct cause of the following exception:",
        "",
        "Traceback (most recent call last):",
        '  File "/app/main.py", line 12, in <module>',
        "    profile({})",
        '  File "/app/views.py", line 6, in profile',
        '    raise Unauthorized("log in to see your profile") from exc',
        "views.Unauthorized: log in to see your profile",
    ]
)

#: a bug in an ``except`` block: the ``KeyError`` it handled, then ``NameError``
DURING_HANDLING = "\n".join(
    [
        "Traceback (most recent call last):",
        '  File "/app/during.py", line 3, in handler',
        '    return req["user"]',
        "           ~~~^^^^^^^^",
        "KeyError: 'user'",
        "",
        "During handling of the above exception, another exception occurred:",
        "",
        "Traceback (most recent call last):",
        '  File "/app/during.py", line 6, in <module>',
        "    handler({})",
        '  File "/app/during.py", line 5, in handler',
        '    log.warning("no user")',
        "    ^^^",
        "NameError: name 'log' is not defined",
    ]
)

#: json's error, the app's ConfigError ``from`` it, and a RuntimeError raised while handling
#: that
CHAIN_OF_THREE = "\n".join(
    [
        "Traceback (most recent call last):",
        '  File "/app/three.py", line 5, in load',
        '    return json.loads("{bad")',
        "           ^^^^^^^^^^^^^^^^^^",
        '  File "/usr/lib/python3.11/json/__init__.py", line 346, in loads',
        "    return _default_decoder.decode(s)",
        "           ^^^^^^^^^^^^^^^^^^^^^^^^^^",
        '  File "/usr/lib/python3.11/json/decoder.py", line 337, in decode',
        "    obj, end = self.raw_decode(s, idx=_w(s, 0).end())",
        "               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        '  File "/usr/lib/python3.11/json/decoder.py", line 353, in raw_decode',
        "    obj, end = self.scan_once(s, idx)",
        "               ^^^^^^^^^^^^^^^^^^^^^^",
        "json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
        "",
        "The above exception was the direct cause of the following exception:",
        "",
        "Traceback (most recent call last):",
        '  File "/app/three.py", line 10, in start',
        "    load()",
        '  File "/app/three.py", line 7, in load',
        '    raise ConfigError("config.json is not valid JSON") from e',
        "ConfigError: config.json is not valid JSON",
        "",
        "During handling of the above exception, another exception occurred:",
        "",
        "Traceback (most recent call last):",
        '  File "/app/three.py", line 13, in <module>',
        "    start()",
        '  File "/app/three.py", line 12, in start',
        '    raise RuntimeError("could not start the app")',
        "RuntimeError: could not start the app",
    ]
)

#: ``raise LookupError(…) from None``: no chain is printed
FROM_NONE = "\n".join(
    [
        "Traceback (most recent call last):",
        '  File "/app/main.py", line 9, in <module>',
        '    raise LookupError("no user in the session") from None',
        "LookupError: no user in the session",
    ]
)

#: pytest's long report of a chained failure (no ``Traceback`` line: ``E`` lines)
PYTEST_CHAIN = "\n".join(
    [
        "F                                                                        [100%]",
        "=================================== FAILURES ===================================",
        "__________________________________ test_load ___________________________________",
        "",
        "d = {}",
        "",
        "    def load(d):",
        "        try:",
        '>           return d["user"]',
        "                   ^^^^^^^^^",
        "E           KeyError: 'user'",
        "",
        "pt/test_chain.py:3: KeyError",
        "",
        "The above exception was the direct cause of the following exception:",
        "",
        "    def test_load():",
        ">       load({})",
        "",
        "pt/test_chain.py:8: ",
        "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ ",
        "",
        "d = {}",
        "",
        "    def load(d):",
        "        try:",
        '            return d["user"]',
        "        except KeyError as e:",
        '>           raise RuntimeError("could not load the user") from e',
        "E           RuntimeError: could not load the user",
        "",
        "pt/test_chain.py:5: RuntimeError",
        "=========================== short test summary info ============================",
        "FAILED pt/test_chain.py::test_load - RuntimeError: could not load the user",
        "1 failed in 0.67s",
    ]
)

#: the same with ``--tb=short``
PYTEST_SHORT_CHAIN = "\n".join(
    [
        "F                                                                        [100%]",
        "=================================== FAILURES ===================================",
        "__________________________________ test_load ___________________________________",
        "pt/test_chain.py:3: in load",
        '    return d["user"]',
        "           ^^^^^^^^^",
        "E   KeyError: 'user'",
        "",
        "The above exception was the direct cause of the following exception:",
        "pt/test_chain.py:8: in test_load",
        "    load({})",
        "pt/test_chain.py:5: in load",
        '    raise RuntimeError("could not load the user") from e',
        "E   RuntimeError: could not load the user",
        "=========================== short test summary info ============================",
        "FAILED pt/test_chain.py::test_load - RuntimeError: could not load the user",
        "1 failed in 0.69s",
    ]
)

#: Rust's anyhow (1.0, `fn main() -> anyhow::Result<()>`): an error with two contexts over an
#: io::Error
ANYHOW_TWO_CAUSES = "\n".join(
    [
        "Error: failed to start the server",
        "",
        "Caused by:",
        "    0: could not read /etc/app/config.toml",
        "    1: No such file or directory (os error 2)",
    ]
)

#: ... and with one context: its cause unnumbered
ANYHOW_ONE_CAUSE = "\n".join(
    [
        "Error: failed to load the config",
        "",
        "Caused by:",
        "    No such file or directory (os error 2)",
    ]
)

#: cargo 1.95's own error: a `Caused by:` for each cause
CARGO_CAUSES = "\n".join(
    [
        "error: failed to load manifest for workspace member `/work/ws/missing`",
        "referenced by workspace at `/work/ws/Cargo.toml`",
        "",
        "Caused by:",
        "  failed to read `/work/ws/missing/Cargo.toml`",
        "",
        "Caused by:",
        "  No such file or directory (os error 2)",
    ]
)

#: Python's ExceptionGroup of two errors
EXCEPTION_GROUP = "\n".join(
    [
        "  + Exception Group Traceback (most recent call last):",
        '  |   File "<stdin>", line 7, in <module>',
        "  | ExceptionGroup: startup failed (2 sub-exceptions)",
        "  +-+---------------- 1 ----------------",
        "    | Traceback (most recent call last):",
        '    |   File "<stdin>", line 5, in <module>',
        '    |   File "<stdin>", line 1, in a',
        "    | ValueError: invalid literal for int() with base 10: 'x'",
        "    +---------------- 2 ----------------",
        "    | Traceback (most recent call last):",
        '    |   File "<stdin>", line 5, in <module>',
        '    |   File "<stdin>", line 2, in b',
        "    | KeyError: 'user'",
        "    +------------------------------------",
    ]
)

#: an asyncio TaskGroup's two failed tasks, the first raised `from` psycopg2's error
TASK_GROUP_WITH_CHAIN = "\n".join(
    [
        "  + Exception Group Traceback (most recent call last):",
        '  |   File "<stdin>", line 15, in <module>',
        '  |   File "/usr/lib/python3.11/asyncio/runners.py", line 190, in run',
        "  |     return runner.run(main)",
        "  |            ^^^^^^^^^^^^^^^^",
        '  |   File "/usr/lib/python3.11/asyncio/runners.py", line 118, in run',
        "  |     return self._loop.run_until_complete(task)",
        "  |            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        '  |   File "/usr/lib/python3.11/asyncio/base_events.py", line 653, in run_until_complete',
        "  |     return future.result()",
        "  |            ^^^^^^^^^^^^^^^",
        '  |   File "<stdin>", line 12, in main',
        '  |   File "/usr/lib/python3.11/asyncio/taskgroups.py", line 145, in __aexit__',
        "  |     raise me from None",
        "  | ExceptionGroup: unhandled errors in a TaskGroup (2 sub-exceptions)",
        "  +-+---------------- 1 ----------------",
        "    | Traceback (most recent call last):",
        '    |   File "<stdin>", line 6, in db',
        '    | psycopg2.OperationalError: connection to server at "db" (10.0.0.5), port 5432 failed: Connection refused',
        "    | ",
        "    | The above exception was the direct cause of the following exception:",
        "    | ",
        "    | Traceback (most recent call last):",
        '    |   File "<stdin>", line 8, in db',
        "    | RuntimeError: the database is not ready",
        "    +---------------- 2 ----------------",
        "    | Traceback (most recent call last):",
        '    |   File "<stdin>", line 10, in cache',
        "    | ConnectionRefusedError: [Errno 111] Connect call failed ('127.0.0.1', 6379)",
        "    +------------------------------------",
    ]
)

#: Node 20: an Error with `{ cause }` over fetch's TypeError over its ECONNREFUSED
NODE_CAUSES = "\n".join(
    [
        "/app/cause.js:2",
        '  try { await fetch("http://127.0.0.1:39999/") } catch (e) { throw new Error("could not load the config", { cause: e }) }',
        "                                                                   ^",
        "",
        "Error: could not load the config",
        "    at main (/app/cause.js:2:68)",
        "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5) {",
        "  [cause]: TypeError: fetch failed",
        "      at node:internal/deps/undici/undici:14976:13",
        "      at process.processTicksAndRejections (node:internal/process/task_queues:95:5)",
        "      at async main (/app/cause.js:2:9) {",
        "    [cause]: Error: connect ECONNREFUSED 127.0.0.1:39999",
        "        at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1611:16) {",
        "      errno: -111,",
        "      code: 'ECONNREFUSED',",
        "      syscall: 'connect',",
        "      address: '127.0.0.1',",
        "      port: 39999",
        "    }",
        "  }",
        "}",
        "",
        "Node.js v20.20.2",
    ]
)
