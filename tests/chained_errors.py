"""Chained errors as the programs print them, for the tests of the causes asked after the
crash's error (:func:`kenning.querybuild.chained_causes`). Each was printed by its program
(Python 3.11.7, pytest 9, rustc and cargo 1.95 with anyhow 1.0.104, Node 20.20.2, OpenJDK 17.0.15
and Spring 4.3.30, .NET Core 3.1.23 and Mono 6.8.0.105; paths shortened to ``/app/``,
``/work/ws/`` and ``/usr/lib/python3.11/``). Each program was a few lines, run as ``node x.js``
or ``javac`` then ``java``, its stderr kept; the C# ones compiled by Mono's ``mcs -debug`` (Debian
12's mono-mcs) and run by ``mono --debug x.exe`` and by the .NET Core 3.1 runtime (PyPI's
dotnetcore2 3.1.23 wheel: ``dotnet x.exe`` with a runtimeconfig.json naming
Microsoft.NETCore.App 3.1.23), stdout and stderr kept.
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
#: Java 17 (OpenJDK 17.0.15): an IllegalStateException over the app's ConfigException over
#: FileInputStream's FileNotFoundException (``throw new …(msg, e)`` in ``catch``; ``java -cp out
#: app.Main``)
JAVA_CAUSES = "\n".join(
    [
        'Exception in thread "main" java.lang.IllegalStateException: could not start the app',
        "\tat app.Main.start(Main.java:30)",
        "\tat app.Main.main(Main.java:35)",
        "Caused by: app.Main$ConfigException: could not load the config",
        "\tat app.Main.load(Main.java:22)",
        "\tat app.Main.start(Main.java:28)",
        "\t... 1 more",
        "Caused by: java.io.FileNotFoundException: /etc/app/config.properties (No such file or directory)",
        "\tat java.base/java.io.FileInputStream.open0(Native Method)",
        "\tat java.base/java.io.FileInputStream.open(FileInputStream.java:216)",
        "\tat java.base/java.io.FileInputStream.<init>(FileInputStream.java:157)",
        "\tat java.base/java.io.FileInputStream.<init>(FileInputStream.java:111)",
        "\tat app.Main.read(Main.java:14)",
        "\tat app.Main.load(Main.java:20)",
        "\t... 2 more",
    ]
)

#: Spring 4.3.30 (Debian's libspring-context-java) on Java 17: ``new
#: AnnotationConfigApplicationContext(App.class)`` whose ``@Bean`` opens a socket to a closed
#: port; java.util.logging's lines first, Spring's `; nested exception is` in each message
SPRING_CAUSES = "\n".join(
    [
        "Dec 06, 2026 1:02:57 PM org.springframework.context.annotation.AnnotationConfigApplicationContext prepareRefresh",
        "INFO: Refreshing org.springframework.context.annotation.AnnotationConfigApplicationContext@50040f0c: startup date [Sun Dec 06 13:02:57 UTC 2026]; root of context hierarchy",
        "Dec 06, 2026 1:02:57 PM org.springframework.context.annotation.AnnotationConfigApplicationContext refresh",
        "WARNING: Exception encountered during context initialization - cancelling refresh attempt: org.springframework.beans.factory.BeanCreationException: Error creating bean with name 'database' defined in demo.App: Bean instantiation via factory method failed; nested exception is org.springframework.beans.BeanInstantiationException: Failed to instantiate [demo.App$Database]: Factory method 'database' threw exception; nested exception is java.net.ConnectException: Connection refused",
        "Exception in thread \"main\" org.springframework.beans.factory.BeanCreationException: Error creating bean with name 'database' defined in demo.App: Bean instantiation via factory method failed; nested exception is org.springframework.beans.BeanInstantiationException: Failed to instantiate [demo.App$Database]: Factory method 'database' threw exception; nested exception is java.net.ConnectException: Connection refused",
        "\tat org.springframework.beans.factory.support.ConstructorResolver.instantiateUsingFactoryMethod(ConstructorResolver.java:599)",
        "\tat org.springframework.beans.factory.support.AbstractAutowireCapableBeanFactory.instantiateUsingFactoryMethod(AbstractAutowireCapableBeanFactory.java:1176)",
        "\tat org.springframework.beans.factory.support.AbstractAutowireCapableBeanFactory.createBeanInstance(AbstractAutowireCapableBeanFactory.java:1071)",
        "\tat org.springframework.beans.factory.support.AbstractAutowireCapableBeanFactory.doCreateBean(AbstractAutowireCapableBeanFactory.java:511)",
        "\tat org.springframework.beans.factory.support.AbstractAutowireCapableBeanFactory.createBean(AbstractAutowireCapableBeanFactory.java:481)",
        "\tat org.springframework.beans.factory.support.AbstractBeanFactory$1.getObject(AbstractBeanFactory.java:312)",
        "\tat org.springframework.beans.factory.support.DefaultSingletonBeanRegistry.getSingleton(DefaultSingletonBeanRegistry.java:230)",
        "\tat org.springframework.beans.factory.support.AbstractBeanFactory.doGetBean(AbstractBeanFactory.java:308)",
        "\tat org.springframework.beans.factory.support.AbstractBeanFactory.getBean(AbstractBeanFactory.java:197)",
        "\tat org.springframework.beans.factory.support.DefaultListableBeanFactory.preInstantiateSingletons(DefaultListableBeanFactory.java:756)",
        "\tat org.springframework.context.support.AbstractApplicationContext.finishBeanFactoryInitialization(AbstractApplicationContext.java:867)",
        "\tat org.springframework.context.support.AbstractApplicationContext.refresh(AbstractApplicationContext.java:542)",
        "\tat org.springframework.context.annotation.AnnotationConfigApplicationContext.<init>(AnnotationConfigApplicationContext.java:84)",
        "\tat demo.App.main(App.java:31)",
        "Caused by: org.springframework.beans.BeanInstantiationException: Failed to instantiate [demo.App$Database]: Factory method 'database' threw exception; nested exception is java.net.ConnectException: Connection refused",
        "\tat org.springframework.beans.factory.support.SimpleInstantiationStrategy.instantiate(SimpleInstantiationStrategy.java:189)",
        "\tat org.springframework.beans.factory.support.ConstructorResolver.instantiateUsingFactoryMethod(ConstructorResolver.java:588)",
        "\t... 13 more",
        "Caused by: java.net.ConnectException: Connection refused",
        "\tat java.base/sun.nio.ch.Net.connect0(Native Method)",
        "\tat java.base/sun.nio.ch.Net.connect(Net.java:579)",
        "\tat java.base/sun.nio.ch.Net.connect(Net.java:568)",
        "\tat java.base/sun.nio.ch.NioSocketImpl.connect(NioSocketImpl.java:593)",
        "\tat java.base/java.net.SocksSocketImpl.connect(SocksSocketImpl.java:327)",
        "\tat java.base/java.net.Socket.connect(Socket.java:633)",
        "\tat java.base/java.net.Socket.connect(Socket.java:583)",
        "\tat java.base/java.net.Socket.<init>(Socket.java:507)",
        "\tat java.base/java.net.Socket.<init>(Socket.java:287)",
        "\tat demo.App.database(App.java:22)",
        "\tat java.base/jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)",
        "\tat java.base/jdk.internal.reflect.NativeMethodAccessorImpl.invoke(NativeMethodAccessorImpl.java:77)",
        "\tat java.base/jdk.internal.reflect.DelegatingMethodAccessorImpl.invoke(DelegatingMethodAccessorImpl.java:43)",
        "\tat java.base/java.lang.reflect.Method.invoke(Method.java:569)",
        "\tat org.springframework.beans.factory.support.SimpleInstantiationStrategy.instantiate(SimpleInstantiationStrategy.java:162)",
        "\t... 14 more",
    ]
)

#: Node 20: the app's Error over its Error over fs's ENOENT (``throw new Error(msg, { cause:
#: e })`` twice)
NODE_OWN_CAUSES = "\n".join(
    [
        "/app/cause.js:13",
        '    throw new Error("could not start the app", { cause: e });',
        "          ^",
        "",
        "Error: could not start the app",
        "    at main (/app/cause.js:13:11) {",
        "  [cause]: Error: could not read the config",
        "      at loadConfig (/app/cause.js:6:11)",
        "      at async main (/app/cause.js:11:5) {",
        "    [cause]: Error: ENOENT: no such file or directory, open '/etc/app/config.json'",
        "        at async open (node:internal/fs/promises:637:25)",
        "        at async Object.readFile (node:internal/fs/promises:1249:14)",
        "        at async loadConfig (/app/cause.js:4:12)",
        "        at async main (/app/cause.js:11:5) {",
        "      errno: -2,",
        "      code: 'ENOENT',",
        "      syscall: 'open',",
        "      path: '/etc/app/config.json'",
        "    }",
        "  }",
        "}",
        "",
        "Node.js v20.20.2",
    ]
)

#: Node 20: ``throw new AggregateError(reasons, "startup failed")`` of two rejected promises
NODE_AGGREGATE = "\n".join(
    [
        "/app/agg2.js:6",
        '  throw new AggregateError(results.map((r) => r.reason), "startup failed");',
        "        ^",
        "",
        "AggregateError: startup failed",
        "    at main (/app/agg2.js:6:9) {",
        "  [errors]: [",
        "    Error: redis: connect ECONNREFUSED 127.0.0.1:6379",
        "        at main (/app/agg2.js:3:20)",
        "        at Object.<anonymous> (/app/agg2.js:8:1)",
        "        at Module._compile (node:internal/modules/cjs/loader:1521:14)",
        "        at Module._extensions..js (node:internal/modules/cjs/loader:1623:10)",
        "        at Module.load (node:internal/modules/cjs/loader:1266:32)",
        "        at Module._load (node:internal/modules/cjs/loader:1091:12)",
        "        at Function.executeUserEntryPoint [as runMain] (node:internal/modules/run_main:164:12)",
        "        at node:internal/main/run_main_module:28:49,",
        "    TypeError: Cannot read properties of undefined (reading 'url')",
        "        at main (/app/agg2.js:4:20)",
        "        at Object.<anonymous> (/app/agg2.js:8:1)",
        "        at Module._compile (node:internal/modules/cjs/loader:1521:14)",
        "        at Module._extensions..js (node:internal/modules/cjs/loader:1623:10)",
        "        at Module.load (node:internal/modules/cjs/loader:1266:32)",
        "        at Module._load (node:internal/modules/cjs/loader:1091:12)",
        "        at Function.executeUserEntryPoint [as runMain] (node:internal/modules/run_main:164:12)",
        "        at node:internal/main/run_main_module:28:49",
        "  ]",
        "}",
        "",
        "Node.js v20.20.2",
    ]
)

#: Node 20: ``net.connect`` to localhost (::1, then 127.0.0.1, ``autoSelectFamily``), both
#: refused
NODE_AGGREGATE_CONNECT = "\n".join(
    [
        "/app/agg3.js:6",
        's.on("error", (e) => { throw e; });',
        "                       ^",
        "",
        "AggregateError [ECONNREFUSED]: ",
        "    at internalConnectMultiple (node:net:1122:18)",
        "    at afterConnectMultiple (node:net:1689:7) {",
        "  code: 'ECONNREFUSED',",
        "  [errors]: [",
        "    Error: connect ECONNREFUSED ::1:39998",
        "        at createConnectionError (node:net:1652:14)",
        "        at afterConnectMultiple (node:net:1682:16) {",
        "      errno: -111,",
        "      code: 'ECONNREFUSED',",
        "      syscall: 'connect',",
        "      address: '::1',",
        "      port: 39998",
        "    },",
        "    Error: connect ECONNREFUSED 127.0.0.1:39998",
        "        at createConnectionError (node:net:1652:14)",
        "        at afterConnectMultiple (node:net:1682:16) {",
        "      errno: -111,",
        "      code: 'ECONNREFUSED',",
        "      syscall: 'connect',",
        "      address: '127.0.0.1',",
        "      port: 39998",
        "    }",
        "  ]",
        "}",
        "",
        "Node.js v20.20.2",
    ]
)


#: anyhow with one context over ``io::Error::from(ErrorKind::TimedOut)``, whose message is the
#: kind's alone (``RUST_BACKTRACE=0``)
ANYHOW_TIMED_OUT = "\n".join(
    [
        "Error: the health check of the worker failed",
        "",
        "Caused by:",
        "    timed out",
    ]
)

#: anyhow with two contexts over a refused ``TcpStream::connect``
ANYHOW_REFUSED = "\n".join(
    [
        "Error: failed to start the worker",
        "",
        "Caused by:",
        "    0: could not connect to redis at 127.0.0.1:39996",
        "    1: Connection refused (os error 111)",
    ]
)


#: Java 17: a RuntimeException (over a SocketTimeoutException) thrown in a try-with-resources
#: whose close() threw too (over an IOException): the close's error printed as suppressed
JAVA_SUPPRESSED = "\n".join(
    [
        'Exception in thread "main" java.lang.RuntimeException: job failed',
        "\tat app.Sup.main(Sup.java:8)",
        "\tSuppressed: java.lang.IllegalStateException: close failed",
        "\t\tat app.Sup$Res.close(Sup.java:4)",
        "\t\tat app.Sup.main(Sup.java:7)",
        "\tCaused by: java.io.IOException: disk full",
        "\t\t... 2 more",
        "Caused by: java.net.SocketTimeoutException: Read timed out",
        "\t... 1 more",
    ]
)

#: .NET Core 3.1.23: an ApplicationException over the app's ConfigException over
#: File.ReadAllText's DirectoryNotFoundException (``throw new …(msg, e)`` in ``catch``), each
#: inner exception on a line of its own after `` ---> ``
DOTNET_CAUSES = "\n".join(
    [
        "Unhandled exception. System.ApplicationException: the app could not start",
        " ---> ConfigException: could not read the configuration /etc/app/config.json",
        " ---> System.IO.DirectoryNotFoundException: Could not find a part of the path '/etc/app/config.json'.",
        "   at Interop.ThrowExceptionForIoErrno(ErrorInfo errorInfo, String path, Boolean isDirectory, Func`2 errorRewriter)",
        "   at Microsoft.Win32.SafeHandles.SafeFileHandle.Open(String path, OpenFlags flags, Int32 mode)",
        "   at System.IO.FileStream.OpenHandle(FileMode mode, FileShare share, FileOptions options)",
        "   at System.IO.FileStream..ctor(String path, FileMode mode, FileAccess access, FileShare share, Int32 bufferSize, FileOptions options)",
        "   at System.IO.StreamReader.ValidateArgsAndOpenPath(String path, Encoding encoding, Int32 bufferSize)",
        "   at System.IO.StreamReader..ctor(String path, Encoding encoding, Boolean detectEncodingFromByteOrderMarks)",
        "   at System.IO.File.InternalReadAllText(String path, Encoding encoding)",
        "   at System.IO.File.ReadAllText(String path)",
        "   at Program.ReadConfig(String path)",
        "   --- End of inner exception stack trace ---",
        "   at Program.ReadConfig(String path)",
        "   at Program.Start()",
        "   --- End of inner exception stack trace ---",
        "   at Program.Start()",
        "   at Program.Main()",
    ]
)

#: .NET Core 3.1.23: an InvalidOperationException over TcpClient.Connect's refused connection
#: (3.1 throws a nested class, ``SocketExceptionFactory+ExtendedSocketException``)
DOTNET_REFUSED = "\n".join(
    [
        "Unhandled exception. System.InvalidOperationException: could not start the server",
        " ---> System.Net.Internals.SocketExceptionFactory+ExtendedSocketException (111): Connection refused [::ffff:127.0.0.1]:1",
        "   at System.Net.Sockets.Socket.DoConnect(EndPoint endPointSnapshot, SocketAddress socketAddress)",
        "   at System.Net.Sockets.Socket.Connect(EndPoint remoteEP)",
        "   at System.Net.Sockets.TcpClient.Connect(IPEndPoint remoteEP)",
        "   at System.Net.Sockets.TcpClient.Connect(String hostname, Int32 port)",
        "--- End of stack trace from previous location where exception was thrown ---",
        "   at System.Net.Sockets.TcpClient.Connect(String hostname, Int32 port)",
        "   at Program.Connect()",
        "   at Program.StartServer()",
        "   --- End of inner exception stack trace ---",
        "   at Program.StartServer()",
        "   at Program.Main()",
    ]
)

#: .NET Core 3.1.23: ``Task.WhenAll(…).Wait()`` of two failed tasks: an AggregateException,
#: its first inner exception after `` ---> ``, the other after `` ---> (Inner Exception #1)``
DOTNET_AGGREGATE = "\n".join(
    [
        "Unhandled exception. System.AggregateException: One or more errors occurred. (Could not find a part of the path '/var/cache/app/index.bin'.) (Connection refused [::ffff:127.0.0.1]:1)",
        " ---> System.IO.DirectoryNotFoundException: Could not find a part of the path '/var/cache/app/index.bin'.",
        "   at Interop.ThrowExceptionForIoErrno(ErrorInfo errorInfo, String path, Boolean isDirectory, Func`2 errorRewriter)",
        "   at Microsoft.Win32.SafeHandles.SafeFileHandle.Open(String path, OpenFlags flags, Int32 mode)",
        "   at System.IO.FileStream.OpenHandle(FileMode mode, FileShare share, FileOptions options)",
        "   at System.IO.FileStream..ctor(String path, FileMode mode, FileAccess access, FileShare share, Int32 bufferSize, FileOptions options)",
        "   at System.IO.StreamReader.ValidateArgsAndOpenPath(String path, Encoding encoding, Int32 bufferSize)",
        "   at System.IO.StreamReader..ctor(String path, Encoding encoding, Boolean detectEncodingFromByteOrderMarks)",
        "   at System.IO.File.InternalReadAllText(String path, Encoding encoding)",
        "   at System.IO.File.ReadAllText(String path)",
        "   at Program.LoadCache()",
        "   --- End of inner exception stack trace ---",
        "   at System.Threading.Tasks.Task.Wait(Int32 millisecondsTimeout, CancellationToken cancellationToken)",
        "   at System.Threading.Tasks.Task.Wait()",
        "   at Program.Main()",
        " ---> (Inner Exception #1) System.Net.Internals.SocketExceptionFactory+ExtendedSocketException (111): Connection refused [::ffff:127.0.0.1]:1",
        "   at System.Net.Sockets.Socket.DoConnect(EndPoint endPointSnapshot, SocketAddress socketAddress)",
        "   at System.Net.Sockets.Socket.Connect(EndPoint remoteEP)",
        "   at System.Net.Sockets.TcpClient.Connect(IPEndPoint remoteEP)",
        "   at System.Net.Sockets.TcpClient.Connect(String hostname, Int32 port)",
        "--- End of stack trace from previous location where exception was thrown ---",
        "   at System.Net.Sockets.TcpClient.Connect(String hostname, Int32 port)",
        "   at Program.ConnectDatabase()<---",
    ]
)

#: Mono 6.8.0.105 (.NET Framework's format): the same chain as DOTNET_CAUSES on one line,
#: printed twice (the second time behind ``[ERROR] FATAL UNHANDLED EXCEPTION:``)
MONO_CAUSES = "\n".join(
    [
        "",
        "Unhandled Exception:",
        'System.ApplicationException: the app could not start ---> ConfigException: could not read the configuration /etc/app/config.json ---> System.IO.DirectoryNotFoundException: Could not find a part of the path "/etc/app/config.json".',
        "  at System.IO.FileStream..ctor (System.String path, System.IO.FileMode mode, System.IO.FileAccess access, System.IO.FileShare share, System.Int32 bufferSize, System.Boolean anonymous, System.IO.FileOptions options) [0x001ac] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at System.IO.FileStream..ctor (System.String path, System.IO.FileMode mode, System.IO.FileAccess access, System.IO.FileShare share, System.Int32 bufferSize, System.IO.FileOptions options) [0x00000] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at (wrapper remoting-invoke-with-check) System.IO.FileStream..ctor(string,System.IO.FileMode,System.IO.FileAccess,System.IO.FileShare,int,System.IO.FileOptions)",
        "  at System.IO.StreamReader..ctor (System.String path, System.Text.Encoding encoding, System.Boolean detectEncodingFromByteOrderMarks, System.Int32 bufferSize) [0x00061] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at System.IO.StreamReader..ctor (System.String path, System.Text.Encoding encoding, System.Boolean detectEncodingFromByteOrderMarks) [0x00000] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at (wrapper remoting-invoke-with-check) System.IO.StreamReader..ctor(string,System.Text.Encoding,bool)",
        "  at System.IO.File.InternalReadAllText (System.String path, System.Text.Encoding encoding) [0x00000] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at System.IO.File.ReadAllText (System.String path) [0x00032] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at Program.ReadConfig (System.String path) [0x00003] in /app/config.cs:11 ",
        "   --- End of inner exception stack trace ---",
        "  at Program.ReadConfig (System.String path) [0x0001c] in /app/config.cs:13 ",
        "  at Program.Start () [0x00007] in /app/config.cs:18 ",
        "   --- End of inner exception stack trace ---",
        "  at Program.Start () [0x0001b] in /app/config.cs:20 ",
        "  at Program.Main () [0x00001] in /app/config.cs:24 ",
        '[ERROR] FATAL UNHANDLED EXCEPTION: System.ApplicationException: the app could not start ---> ConfigException: could not read the configuration /etc/app/config.json ---> System.IO.DirectoryNotFoundException: Could not find a part of the path "/etc/app/config.json".',
        "  at System.IO.FileStream..ctor (System.String path, System.IO.FileMode mode, System.IO.FileAccess access, System.IO.FileShare share, System.Int32 bufferSize, System.Boolean anonymous, System.IO.FileOptions options) [0x001ac] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at System.IO.FileStream..ctor (System.String path, System.IO.FileMode mode, System.IO.FileAccess access, System.IO.FileShare share, System.Int32 bufferSize, System.IO.FileOptions options) [0x00000] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at (wrapper remoting-invoke-with-check) System.IO.FileStream..ctor(string,System.IO.FileMode,System.IO.FileAccess,System.IO.FileShare,int,System.IO.FileOptions)",
        "  at System.IO.StreamReader..ctor (System.String path, System.Text.Encoding encoding, System.Boolean detectEncodingFromByteOrderMarks, System.Int32 bufferSize) [0x00061] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at System.IO.StreamReader..ctor (System.String path, System.Text.Encoding encoding, System.Boolean detectEncodingFromByteOrderMarks) [0x00000] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at (wrapper remoting-invoke-with-check) System.IO.StreamReader..ctor(string,System.Text.Encoding,bool)",
        "  at System.IO.File.InternalReadAllText (System.String path, System.Text.Encoding encoding) [0x00000] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at System.IO.File.ReadAllText (System.String path) [0x00032] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at Program.ReadConfig (System.String path) [0x00003] in /app/config.cs:11 ",
        "   --- End of inner exception stack trace ---",
        "  at Program.ReadConfig (System.String path) [0x0001c] in /app/config.cs:13 ",
        "  at Program.Start () [0x00007] in /app/config.cs:18 ",
        "   --- End of inner exception stack trace ---",
        "  at Program.Start () [0x0001b] in /app/config.cs:20 ",
        "  at Program.Main () [0x00001] in /app/config.cs:24 ",
    ]
)

#: Mono 6.8.0.105: the same AggregateException as DOTNET_AGGREGATE (each inner exception
#: listed again, ``(Inner Exception #0)`` too), printed twice
MONO_AGGREGATE = "\n".join(
    [
        "",
        "Unhandled Exception:",
        'System.AggregateException: One or more errors occurred. (Could not find a part of the path "/var/cache/app/index.bin".) (Connection refused) ---> System.IO.DirectoryNotFoundException: Could not find a part of the path "/var/cache/app/index.bin".',
        "  at System.IO.FileStream..ctor (System.String path, System.IO.FileMode mode, System.IO.FileAccess access, System.IO.FileShare share, System.Int32 bufferSize, System.Boolean anonymous, System.IO.FileOptions options) [0x001ac] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at System.IO.FileStream..ctor (System.String path, System.IO.FileMode mode, System.IO.FileAccess access, System.IO.FileShare share, System.Int32 bufferSize, System.IO.FileOptions options) [0x00000] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at (wrapper remoting-invoke-with-check) System.IO.FileStream..ctor(string,System.IO.FileMode,System.IO.FileAccess,System.IO.FileShare,int,System.IO.FileOptions)",
        "  at System.IO.StreamReader..ctor (System.String path, System.Text.Encoding encoding, System.Boolean detectEncodingFromByteOrderMarks, System.Int32 bufferSize) [0x00061] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at System.IO.StreamReader..ctor (System.String path, System.Text.Encoding encoding, System.Boolean detectEncodingFromByteOrderMarks) [0x00000] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at (wrapper remoting-invoke-with-check) System.IO.StreamReader..ctor(string,System.Text.Encoding,bool)",
        "  at System.IO.File.InternalReadAllText (System.String path, System.Text.Encoding encoding) [0x00000] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at System.IO.File.ReadAllText (System.String path) [0x00032] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at Program.LoadCache () [0x00073] in /app/aggregate.cs:9 ",
        "   --- End of inner exception stack trace ---",
        "  at System.Threading.Tasks.Task.ThrowIfExceptional (System.Boolean includeTaskCanceledExceptions) [0x00014] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at System.Threading.Tasks.Task.Wait (System.Int32 millisecondsTimeout, System.Threading.CancellationToken cancellationToken) [0x00052] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at System.Threading.Tasks.Task.Wait () [0x00000] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at Program.Main () [0x0001c] in /app/aggregate.cs:18 ",
        '---> (Inner Exception #0) System.IO.DirectoryNotFoundException: Could not find a part of the path "/var/cache/app/index.bin".',
        "  at System.IO.FileStream..ctor (System.String path, System.IO.FileMode mode, System.IO.FileAccess access, System.IO.FileShare share, System.Int32 bufferSize, System.Boolean anonymous, System.IO.FileOptions options) [0x001ac] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at System.IO.FileStream..ctor (System.String path, System.IO.FileMode mode, System.IO.FileAccess access, System.IO.FileShare share, System.Int32 bufferSize, System.IO.FileOptions options) [0x00000] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at (wrapper remoting-invoke-with-check) System.IO.FileStream..ctor(string,System.IO.FileMode,System.IO.FileAccess,System.IO.FileShare,int,System.IO.FileOptions)",
        "  at System.IO.StreamReader..ctor (System.String path, System.Text.Encoding encoding, System.Boolean detectEncodingFromByteOrderMarks, System.Int32 bufferSize) [0x00061] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at System.IO.StreamReader..ctor (System.String path, System.Text.Encoding encoding, System.Boolean detectEncodingFromByteOrderMarks) [0x00000] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at (wrapper remoting-invoke-with-check) System.IO.StreamReader..ctor(string,System.Text.Encoding,bool)",
        "  at System.IO.File.InternalReadAllText (System.String path, System.Text.Encoding encoding) [0x00000] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at System.IO.File.ReadAllText (System.String path) [0x00032] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at Program.LoadCache () [0x00073] in /app/aggregate.cs:9 <---",
        "",
        "---> (Inner Exception #1) System.Net.Sockets.SocketException (0x80004005): Connection refused",
        "  at System.Net.Sockets.TcpClient.Connect (System.String hostname, System.Int32 port) [0x001fe] in <a85c1a570f9a4f9f9c3d2cfa5504e34f>:0 ",
        "  at Program.ConnectDatabase () [0x0007c] in /app/aggregate.cs:14 <---",
        "",
        '[ERROR] FATAL UNHANDLED EXCEPTION: System.AggregateException: One or more errors occurred. (Could not find a part of the path "/var/cache/app/index.bin".) (Connection refused) ---> System.IO.DirectoryNotFoundException: Could not find a part of the path "/var/cache/app/index.bin".',
        "  at System.IO.FileStream..ctor (System.String path, System.IO.FileMode mode, System.IO.FileAccess access, System.IO.FileShare share, System.Int32 bufferSize, System.Boolean anonymous, System.IO.FileOptions options) [0x001ac] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at System.IO.FileStream..ctor (System.String path, System.IO.FileMode mode, System.IO.FileAccess access, System.IO.FileShare share, System.Int32 bufferSize, System.IO.FileOptions options) [0x00000] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at (wrapper remoting-invoke-with-check) System.IO.FileStream..ctor(string,System.IO.FileMode,System.IO.FileAccess,System.IO.FileShare,int,System.IO.FileOptions)",
        "  at System.IO.StreamReader..ctor (System.String path, System.Text.Encoding encoding, System.Boolean detectEncodingFromByteOrderMarks, System.Int32 bufferSize) [0x00061] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at System.IO.StreamReader..ctor (System.String path, System.Text.Encoding encoding, System.Boolean detectEncodingFromByteOrderMarks) [0x00000] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at (wrapper remoting-invoke-with-check) System.IO.StreamReader..ctor(string,System.Text.Encoding,bool)",
        "  at System.IO.File.InternalReadAllText (System.String path, System.Text.Encoding encoding) [0x00000] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at System.IO.File.ReadAllText (System.String path) [0x00032] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at Program.LoadCache () [0x00073] in /app/aggregate.cs:9 ",
        "   --- End of inner exception stack trace ---",
        "  at System.Threading.Tasks.Task.ThrowIfExceptional (System.Boolean includeTaskCanceledExceptions) [0x00014] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at System.Threading.Tasks.Task.Wait (System.Int32 millisecondsTimeout, System.Threading.CancellationToken cancellationToken) [0x00052] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at System.Threading.Tasks.Task.Wait () [0x00000] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at Program.Main () [0x0001c] in /app/aggregate.cs:18 ",
        '---> (Inner Exception #0) System.IO.DirectoryNotFoundException: Could not find a part of the path "/var/cache/app/index.bin".',
        "  at System.IO.FileStream..ctor (System.String path, System.IO.FileMode mode, System.IO.FileAccess access, System.IO.FileShare share, System.Int32 bufferSize, System.Boolean anonymous, System.IO.FileOptions options) [0x001ac] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at System.IO.FileStream..ctor (System.String path, System.IO.FileMode mode, System.IO.FileAccess access, System.IO.FileShare share, System.Int32 bufferSize, System.IO.FileOptions options) [0x00000] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at (wrapper remoting-invoke-with-check) System.IO.FileStream..ctor(string,System.IO.FileMode,System.IO.FileAccess,System.IO.FileShare,int,System.IO.FileOptions)",
        "  at System.IO.StreamReader..ctor (System.String path, System.Text.Encoding encoding, System.Boolean detectEncodingFromByteOrderMarks, System.Int32 bufferSize) [0x00061] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at System.IO.StreamReader..ctor (System.String path, System.Text.Encoding encoding, System.Boolean detectEncodingFromByteOrderMarks) [0x00000] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at (wrapper remoting-invoke-with-check) System.IO.StreamReader..ctor(string,System.Text.Encoding,bool)",
        "  at System.IO.File.InternalReadAllText (System.String path, System.Text.Encoding encoding) [0x00000] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at System.IO.File.ReadAllText (System.String path) [0x00032] in <12b418a7818c4ca0893feeaaf67f1e7f>:0 ",
        "  at Program.LoadCache () [0x00073] in /app/aggregate.cs:9 <---",
        "",
        "---> (Inner Exception #1) System.Net.Sockets.SocketException (0x80004005): Connection refused",
        "  at System.Net.Sockets.TcpClient.Connect (System.String hostname, System.Int32 port) [0x001fe] in <a85c1a570f9a4f9f9c3d2cfa5504e34f>:0 ",
        "  at Program.ConnectDatabase () [0x0007c] in /app/aggregate.cs:14 <---",
    ]
)


#: Node 20: ``await fetch("http://localhost:3000/api/health")`` at a module's top level (an
#: .mjs), no server on the port: fetch's ``TypeError: fetch failed`` over its ECONNREFUSED
NODE_FETCH_REFUSED = "\n".join(
    [
        "node:internal/deps/undici/undici:14976",
        "      Error.captureStackTrace(err);",
        "            ^",
        "",
        "TypeError: fetch failed",
        "    at node:internal/deps/undici/undici:14976:13",
        "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)",
        "    at async file:///tmp/fetchf/refused2.mjs:1:13 {",
        "  [cause]: Error: connect ECONNREFUSED 127.0.0.1:3000",
        "      at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1611:16) {",
        "    errno: -111,",
        "    code: 'ECONNREFUSED',",
        "    syscall: 'connect',",
        "    address: '127.0.0.1',",
        "    port: 3000",
        "  }",
        "}",
        "",
        "Node.js v20.20.2",
    ]
)

#: Node 20: ``await fetch("https://api.example.invalid/v1/users")`` in an .mjs: a host no DNS
#: knows (``getaddrinfo ENOTFOUND``) under fetch's ``TypeError: fetch failed``
NODE_FETCH_NOT_FOUND = "\n".join(
    [
        "node:internal/deps/undici/undici:14976",
        "      Error.captureStackTrace(err);",
        "            ^",
        "",
        "TypeError: fetch failed",
        "    at node:internal/deps/undici/undici:14976:13",
        "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)",
        "    at async file:///tmp/fetchf/notfound.mjs:1:13 {",
        "  [cause]: Error: getaddrinfo ENOTFOUND api.example.invalid",
        "      at GetAddrInfoReqWrap.onlookupall [as oncomplete] (node:dns:122:26) {",
        "    errno: -3008,",
        "    code: 'ENOTFOUND',",
        "    syscall: 'getaddrinfo',",
        "    hostname: 'api.example.invalid'",
        "  }",
        "}",
        "",
        "Node.js v20.20.2",
    ]
)

#: Node 20: fetch of an https server (node:https, on 127.0.0.1) whose certificate is self-signed
NODE_FETCH_CERT = "\n".join(
    [
        "node:internal/deps/undici/undici:14976",
        "      Error.captureStackTrace(err);",
        "            ^",
        "",
        "TypeError: fetch failed",
        "    at node:internal/deps/undici/undici:14976:13",
        "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)",
        "    at async file:///tmp/fetchf/cert.mjs:6:3 {",
        "  [cause]: Error: self-signed certificate",
        "      at TLSSocket.onConnectSecure (node:_tls_wrap:1699:34)",
        "      at TLSSocket.emit (node:events:524:28)",
        "      at TLSSocket._finishInit (node:_tls_wrap:1097:8)",
        "      at ssl.onhandshakedone (node:_tls_wrap:883:12) {",
        "    code: 'DEPTH_ZERO_SELF_SIGNED_CERT'",
        "  }",
        "}",
        "",
        "Node.js v20.20.2",
    ]
)

#: Node 20: ``fetch(…).catch((e) => { console.error("request failed:", e); process.exit(1) })``
#: to a closed port
NODE_FETCH_LOGGED = "\n".join(
    [
        "request failed: TypeError: fetch failed",
        "    at node:internal/deps/undici/undici:14976:13",
        "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5) {",
        "  [cause]: Error: connect ECONNREFUSED 127.0.0.1:39997",
        "      at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1611:16) {",
        "    errno: -111,",
        "    code: 'ECONNREFUSED',",
        "    syscall: 'connect',",
        "    address: '127.0.0.1',",
        "    port: 39997",
        "  }",
        "}",
    ]
)
