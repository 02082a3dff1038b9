"""Chained errors as the programs print them, for the tests of the causes asked after the
crash's error (:func:`kenning.querybuild.chained_causes`). Each was printed by its program
(Python 3.11.7, pytest 8; paths shortened to ``/app/`` and ``/usr/lib/python3.11/``).
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
