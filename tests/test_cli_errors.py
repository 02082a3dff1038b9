"""Every CLI failure is one line and a documented exit code, never a traceback (issue 13,
item 8).

The fixed cases are the file arguments that cannot be written or read. The property test
drives every command in-process (click's runner, the hashing test embedder so that
hundreds of runs stay fast) with odd option values: blanks, ``all``, huge, negative and
non-finite numbers, undecodable bytes (as the OS hands them to Python), control and bidi
characters, and paths that are missing, folders, devices, read-only or not a store. Any
exception that escapes the command (anything but click's and kenning's own exits) fails.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kenning import open_store
from kenning.cli import main
from kenning.embedders import Embedder
from kenning.store import NewMemory

from .cli_runner import run_cli
from .conftest import make_repo
from .reliability.conftest import assert_clean_outcome, run_kenning


def _one_line_error(result: Result, what: str) -> None:
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        import traceback

        trace = "".join(traceback.format_exception(result.exception))
        pytest.fail(f"{what}: {type(result.exception).__name__} escaped\n{trace}")
    # 3: a server URL as --store, and no server (knowledge base NOT consulted)
    assert result.exit_code in (0, 1, 2, 3), f"{what}: exit {result.exit_code}\n{result.stderr}"
    if result.exit_code in (1, 3):
        lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
        assert len(lines) == 1, f"{what}: expected one error line\n{result.stderr}"


@pytest.fixture(scope="module")
def _seeded_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seeded project's store folder, written once for the module: creating a store and
    remembering two notes (a git lookup, the schema, a duplicate check each) for each of the
    ~40 tests that read it cost more than a copy; each test gets a copy of its own."""
    # the project fixture's remote: the copy must be this project's store, not another's
    remote = "git@github.com:Acme/Widgets.git"
    project = make_repo(tmp_path_factory.mktemp("seeded") / "proj", remote=remote)
    with open_store(cwd=project, embedder="hashing") as store:
        for text in (
            "Use snake_case for Python function names.",
            "ERROR-FIX: KeyError: 'tenant_id' | FIX: pass the tenant in every job payload",
        ):
            assert store.remember(text, "context").ok
    return project / ".kenning"


@pytest.fixture
def seeded_project(project: Path, monkeypatch: pytest.MonkeyPatch, _seeded_store: Path) -> Path:
    monkeypatch.setenv("KENNING_EMBEDDER", "hashing")
    shutil.copytree(_seeded_store, project / ".kenning")
    return project


@pytest.mark.parametrize(
    "target",
    ["/nonexistent/dir/x.jsonl", "{project}/.kenning/memory.db", "{project}/README.md/x.jsonl"],
)
def test_export_to_an_unwritable_file_is_one_line(seeded_project: Path, target: str) -> None:
    path = target.format(project=seeded_project)
    proc = run_kenning(seeded_project, "export", "-o", path, env={"KENNING_EMBEDDER": "hashing"})
    assert_clean_outcome(proc, f"export -o {path}")
    assert proc.returncode == 1, proc.stderr
    err = proc.stderr.decode()
    assert path in err, err
    assert not list(seeded_project.glob("*.tmp")), "a failed export left its temporary file"


@pytest.mark.parametrize(
    "name",
    [
        *(f"memory.db{s}" for s in ("", "-wal", ".vectors", ".ann", ".ann.log", ".reembed.lock")),
        "config.toml",
        ".gitignore",
    ],
)
def test_an_export_over_one_of_the_stores_own_files_is_refused(
    seeded_project: Path, name: str
) -> None:
    """Only the database and its WAL files were refused: an export over ``memory.db.vectors``
    or ``memory.db.ann`` was made, then overwritten by the store's next rebuild of that file
    (the backup gone), and the store read a file of JSON lines as its vectors meanwhile.
    Over ``config.toml`` every later command failed (its calibrated values lost), and over
    kenning's ``.gitignore`` the store showed up in ``git status``."""
    own = seeded_project / ".kenning" / name
    before = own.read_bytes() if own.exists() else None
    result = CliRunner().invoke(main, ["export", "-o", str(own)])
    _one_line_error(result, "export over a store file")
    assert result.exit_code == 1
    assert f"{own} is one of the store's own files" in result.stderr, result.stderr
    assert (own.read_bytes() if own.exists() else None) == before
    assert not list(own.parent.glob("*.tmp"))
    with open_store(cwd=seeded_project, embedder="hashing") as store:
        assert store.count() == 2
        assert own.resolve() in store.own_files()


def test_export_to_a_missing_folder_says_so(seeded_project: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["export", "-o", "/nonexistent/dir/x.jsonl"])
    _one_line_error(result, "export")
    assert result.exit_code == 1
    assert "/nonexistent/dir" in result.stderr and "folder" in result.stderr


def test_export_to_a_symlink_writes_the_file_it_points_to(
    seeded_project: Path, tmp_path: Path
) -> None:
    """``backup.jsonl`` a link to the backup disk's file: the export's rename put a new file
    in place of the link, and the file on the backup disk kept the old export for ever
    (every later export said "exported 2 memories")."""
    disk = tmp_path / "backups"
    disk.mkdir()
    (disk / "kenning.jsonl").write_text("an old export\n")
    link = seeded_project / "backup.jsonl"
    link.symlink_to(disk / "kenning.jsonl")
    result = CliRunner().invoke(main, ["export", "-o", str(link)])
    _one_line_error(result, "export -o link")
    assert result.exit_code == 0, result.stderr
    assert link.is_symlink()
    lines = (disk / "kenning.jsonl").read_text().splitlines()
    assert len(lines) == 3 and "kenning_export" in lines[0], lines
    assert not list(disk.glob("*.tmp")) and not list(seeded_project.glob("*.tmp"))


def test_export_never_writes_its_temporary_file_through_a_symlink(
    seeded_project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The export is written to a temporary file and renamed: a ``backup.jsonl.tmp`` a
    checkout carries as a symlink (the README's own example name) had every note written
    into the file it names, overwriting it (a shell profile, a world-readable folder's
    file), and the link then became the backup. The link is replaced, never followed."""
    victim = tmp_path / "profile.sh"
    victim.write_text("precious\n")
    (seeded_project / "backup.jsonl.tmp").symlink_to(victim)
    monkeypatch.chdir(seeded_project)
    result = CliRunner().invoke(main, ["export", "-o", "backup.jsonl"])
    _one_line_error(result, "export -o backup.jsonl")
    assert result.exit_code == 0, result.stderr
    assert victim.read_text() == "precious\n"
    backup = seeded_project / "backup.jsonl"
    assert not backup.is_symlink() and "kenning_export" in backup.read_text().splitlines()[0]
    assert not (seeded_project / "backup.jsonl.tmp").exists()


def test_an_export_removes_killed_exports_files_and_keeps_a_running_ones(
    seeded_project: Path,
) -> None:
    """Each export writes ``<output>.<pid>.tmp``: the file of an export killed before its
    rename (a copy of every note, forgotten ones included) goes with the next export to that
    name, as an older kenning's ``<output>.tmp`` does; a running export's file stays."""
    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    try:
        files = {pid: seeded_project / f"backup.jsonl.{pid}.tmp" for pid in (running.pid, dead.pid)}
        for f in (*files.values(), seeded_project / "backup.jsonl.tmp"):
            f.write_text("notes of an export\n")
        other = seeded_project / "backup.jsonl.old.tmp"  # not an export's name: kept
        other.write_text("mine\n")
        result = CliRunner().invoke(main, ["export", "-o", "backup.jsonl"])
        assert result.exit_code == 0, result.stderr
        assert files[running.pid].exists()
        assert not files[dead.pid].exists()
        assert not (seeded_project / "backup.jsonl.tmp").exists()
        assert other.read_text() == "mine\n"
        lines = (seeded_project / "backup.jsonl").read_text().splitlines()
        assert "kenning_export" in lines[0] and len(lines) == 3, lines
    finally:
        running.kill()
        running.wait()


def test_a_refusal_in_json_quotes_no_secret(seeded_project: Path) -> None:
    """The reason of a refused note quotes what was wrong: said as an error line it had
    its secrets redacted, in --json (and to an MCP client) it had them as given."""
    token = "ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5"
    runner = CliRunner()
    for args in (
        ["remember", "--type", token, "a note about tokens"],
        ["remember", "--type", token, "--json", "a note about tokens"],
    ):
        result = runner.invoke(main, args)
        assert result.exit_code == 1, result.output
        said = result.stdout + result.stderr
        assert "unknown memory type" in said and token not in said, said
    with open_store(cwd=seeded_project, embedder="hashing") as store:
        refused = store.remember("a note about tokens", token)
    assert refused.status == "rejected" and token not in (refused.reason or "")


def test_export_over_a_private_backup_keeps_it_private(
    seeded_project: Path, tmp_path: Path
) -> None:
    """A backup the user made readable to them alone (``chmod 600``): the export's new file
    replaced it with the umask's mode (0644), every note readable to the machine's other
    users, and the file half-written beside it was too. Both keep the file's mode."""
    backup = tmp_path / "backup.jsonl"
    backup.write_text("an old export\n")
    backup.chmod(0o600)
    result = CliRunner().invoke(main, ["export", "-o", str(backup)])
    assert result.exit_code == 0, result.stderr
    assert "kenning_export" in backup.read_text().splitlines()[0]
    assert backup.stat().st_mode & 0o777 == 0o600


def test_export_to_a_folder_is_bad_input_not_usage(seeded_project: Path) -> None:
    """`export -o <a folder>` was click's usage error (exit 2, with the usage text), where
    every other file argument that cannot be used, a missing folder for -o included, is
    bad input: one line naming it, exit 1."""
    result = CliRunner().invoke(main, ["export", "-o", str(seeded_project)])
    _one_line_error(result, "export")
    assert result.exit_code == 1
    assert "--output" in result.stderr and str(seeded_project) in result.stderr
    assert "Usage:" not in result.stderr
    # it said only "File '…' is a directory."; it says what to give instead
    assert "name a file inside it, such as " in result.stderr, result.stderr


def test_a_store_path_in_an_unknown_users_home_is_one_line(seeded_project: Path) -> None:
    for command in (["recall", "q"], ["remember", "a note"], ["export"]):
        result = CliRunner().invoke(main, [*command, "--store", "~no-such-user-kenning/x.db"])
        _one_line_error(result, f"{command[0]} --store ~no-such-user-kenning")
        assert result.exit_code == 1
        assert "~no-such-user-kenning" in result.stderr and "home" in result.stderr


@pytest.mark.parametrize("variable", ["KENNING_STORE", "KENNING_MODEL_DIR"])
def test_a_variable_in_an_unknown_users_home_is_one_line_naming_it(
    seeded_project: Path, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    """``~someone/...`` where no user is called someone: pathlib raises a bare RuntimeError
    ("Could not determine home directory"); the user gets the variable and the fix."""
    from kenning import embedders

    monkeypatch.setenv(variable, "~no-such-user-kenning/x")
    monkeypatch.setenv("KENNING_EMBEDDER", "minilm")  # the model folder is only read for it
    # ... and only by a process that has not loaded the model yet (an earlier test may have)
    monkeypatch.setattr(embedders, "_LOADED", {})
    result = CliRunner().invoke(main, ["recall", "--project", "all", "snake case names"])
    _one_line_error(result, f"recall with {variable}=~no-such-user-kenning/x")
    assert result.exit_code == 1
    assert variable in result.stderr and "no user 'no-such-user-kenning'" in result.stderr
    assert "write the path out in full" in result.stderr


def _odd_text() -> st.SearchStrategy[str]:
    fixed = st.sampled_from(
        [
            "", " ", "   ", "all", "ALL", "-", "--", "0", "-1", "1e309", "-1e309", "nan", "inf",
            "-inf", "99999999999999999999999", "0x10", "1.5", "true", "none", "null", "~",
            ".", "..", "../..", "/", "/proc/self/status",
            "/nonexistent/dir/x", "README.md", ".kenning", ".kenning/memory.db",
            "postgresql://", "http://", "qdrant-local:", ":memory:", "a" * 5000,
            "\udcff\udcfe", "x\udc80y", "\u202eevil", "\u061c", "tab\there", "line\nbreak",
            "\x1b[31mred", "\x7f", "'; DROP TABLE memories;--", '"', "*", "NEAR(", "🙂",
        ]
    )  # fmt: skip
    free = st.text(
        alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
        max_size=40,
    )
    return st.one_of(fixed, free)


def _command() -> st.SearchStrategy[list[str]]:
    v = _odd_text()

    def opt(name: str) -> st.SearchStrategy[list[str]]:
        return st.one_of(st.just([]), v.map(lambda x: [name, x]))

    def build(*parts: st.SearchStrategy[list[str]]) -> st.SearchStrategy[list[str]]:
        return st.tuples(*parts).map(lambda ps: [a for p in ps for a in p])

    def arg(strategy: st.SearchStrategy[str] = v) -> st.SearchStrategy[list[str]]:
        return strategy.map(lambda x: [x])

    return st.one_of(
        build(st.just(["recall"]), arg(), opt("--top-k"), opt("--project"), opt("--store"),
              opt("--format"), opt("--error")),
        build(st.just(["search"]), arg(), opt("--collection"), opt("--type"), opt("--intent"),
              opt("--limit"), opt("--group-id"), opt("--threshold"), opt("--store")),
        build(st.just(["remember"]), arg(), opt("--type"), opt("--source"), opt("--tag"),
              opt("--project"), opt("--store")),
        build(st.just(["forget"]), arg(), opt("--group-id"), opt("--store")),
        build(st.just(["export"]), opt("-o"), opt("--group-id"), opt("--store")),
        build(st.just(["import"]), arg(), opt("--store")),
        build(st.just(["stats"]), opt("--store")),
        build(st.just(["doctor"]), opt("--store")),
        build(st.just(["calibrate"]), arg(), opt("--group-id"), opt("--store")),
        build(st.just(["seed-solutions"]), arg(), opt("--source-prefix"), opt("--store")),
        build(st.just(["query", "pr"]), opt("--title"), opt("--body"), opt("--body-file"),
              opt("--file")),
        build(st.just(["query", "plan"]), arg()),
        build(st.just(["query", "error"]), arg()),
        build(st.just(["reembed"]), opt("--store")),
    )  # fmt: skip


@settings(
    max_examples=int(os.environ.get("KENNING_FUZZ_EXAMPLES", "250")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(argv=_command())
def test_odd_option_values_never_escape_as_tracebacks(
    seeded_project: Path, argv: list[str]
) -> None:
    runner = CliRunner()
    result = runner.invoke(main, argv, input="")
    if (argv[0] == "doctor" and result.exit_code == 1 and result.exception is None) or (
        isinstance(result.exception, SystemExit)
        and argv[0] == "doctor"
        and "failed" in result.stdout
    ):
        assert "failed" in result.stdout and "fix:" in result.stdout, result.stdout  # its report
        return
    _one_line_error(result, f"kenning {argv!r}")
    # nothing may have been written outside the project (a store, an export)
    assert not Path("/nonexistent").exists()


#: ``python -c`` this, then a count of commands, the length of each, and their arguments:
#: each command runs as ``python -m kenning`` would run it, in a child forked once kenning is
#: imported (one interpreter start and one import of kenning and of the modules the commands
#: import as they run, not seven: 2.6 -> 0.8 CPU-s). A child's arguments are the argv bytes
#: this process got from the OS, decoded by Python's own start; its stdout and stderr are the
#: real streams over files of its own (``<folder>/<n>.out`` and ``.err``), and its exit
#: status is what the interpreter's exit would make of the command's.
_EACH_COMMAND_IN_A_CHILD = r"""
import os, sys, traceback
from kenning.cli import main
import kenning.seeding, kenning.store, kenning.transfer  # what the commands import, once

folder, count, rest = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
lengths, args = [int(n) for n in rest[:count]], rest[count:]
for n, length in enumerate(lengths):
    command, args = args[:length], args[length:]
    pid = os.fork()
    if pid == 0:
        for fd, suffix in ((1, "out"), (2, "err")):
            os.dup2(os.open(f"{folder}/{n}.{suffix}", os.O_WRONLY | os.O_CREAT, 0o600), fd)
        sys.argv = ["kenning", *command]
        try:
            main()
            code = 0
        except SystemExit as exit:  # as the interpreter's exit reads it
            if exit.code is None or isinstance(exit.code, int):
                code = exit.code or 0
            else:
                print(exit.code, file=sys.stderr)
                code = 1
        except BaseException:  # an uncaught exception: its traceback, exit 1
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    print(os.waitstatus_to_exitcode(status))
"""


def test_undecodable_argv_in_a_real_process(seeded_project: Path, tmp_path: Path) -> None:
    """The bytes the OS hands over (not str): every file argument and option."""
    bad = b"\xff\xfe.jsonl"
    cases = [
        [b"export", b"-o", bad],
        [b"import", bad],
        [b"recall", b"--store", bad, b"query"],
        [b"seed-solutions", bad],
        [b"calibrate", bad],
        [b"forget", bad],
        [b"search", b"--type", bad, b"query"],
    ]
    lengths = [str(len(argv)).encode() for argv in cases]
    driver = [sys.executable.encode(), b"-c", _EACH_COMMAND_IN_A_CHILD.encode(), bytes(tmp_path)]
    done = subprocess.run(
        [*driver, str(len(cases)).encode(), *lengths, *(arg for argv in cases for arg in argv)],
        cwd=seeded_project,
        capture_output=True,
        env={**os.environ, "KENNING_EMBEDDER": "hashing"},
        timeout=120,
    )
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    codes = [int(line) for line in done.stdout.split()]
    assert len(codes) == len(cases), done.stdout
    for n, (argv, code) in enumerate(zip(cases, codes, strict=True)):
        proc = subprocess.CompletedProcess(
            argv, code, (tmp_path / f"{n}.out").read_bytes(), (tmp_path / f"{n}.err").read_bytes()
        )
        assert_clean_outcome(proc, repr(argv))


def test_ctrl_c_while_a_command_starts_is_interrupted_not_a_traceback(project: Path) -> None:
    """Ctrl-C in the first fraction of a second of any command (while Python loads kenning,
    before a command runs) printed a traceback of the import it cut, through kenning's own
    modules; exit codes say 130 for an interrupt. The console script, in a real process,
    SIGINT at moments through its start. Only what comes before kenning's first line (the
    interpreter's start, the script's own imports) is beyond its reach."""
    import signal
    import subprocess
    import time

    script = Path(sys.executable).with_name("kenning")
    package = f"{os.sep}kenning{os.sep}"
    handled = 0
    # 8 moments through the start, 20 ms apart from 30 ms on (a quiet machine's interpreter
    # starts in ~20 ms and kenning's imports take ~100-250 ms more: a later moment only adds
    # the CPU of a whole command); on a machine busy enough that the interpreter's own start
    # takes all of them, later ones until a signal lands in kenning or the command is done
    for step in range(96):
        delay = 0.03 + 0.02 * step
        proc = subprocess.Popen(
            [str(script), "stats"], cwd=project, stderr=subprocess.PIPE, stdout=subprocess.PIPE
        )
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        text = err.decode("utf-8", "replace")
        frames = [line for line in text.splitlines() if line.strip().startswith("File ")]
        assert not [f for f in frames if package in f], f"{delay:.3f} s: {text}"
        if proc.returncode == 130:
            assert text == "error: interrupted\n", f"{delay:.3f} s: {text}"
            handled += 1
        if step >= 7 and (handled or proc.returncode == 0):
            break
    assert handled, "no interrupt came while kenning started"


def test_ctrl_c_while_the_cli_sets_its_handler_is_answered(project: Path, tmp_path: Path) -> None:
    """Started as the command, the package notes a Ctrl-C from its first lines, and the CLI
    answers it as it loads: one line, exit 130. Before, a Ctrl-C while the module that sets
    the CLI's handler was itself being imported printed a traceback through kenning (the
    test above hit that window now and then): here the SIGINT comes at that moment, sent by
    an import hook as Python looks for that module. A program of the command's name that
    imports kenning and no CLI gets Python's own Ctrl-C."""
    command = (
        "import os, signal, sys\n"
        "sys.argv = [os.path.join('bin', 'kenning'), 'stats']\n"  # as the console script
        "class Interrupt:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'kenning.startup_interrupt':\n"
        "            os.kill(os.getpid(), signal.SIGINT)\n"
        "sys.meta_path.insert(0, Interrupt())\n"
        "from kenning.cli import main\n"
        "main()\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", command], cwd=project, capture_output=True, text=True, timeout=60
    )
    assert (proc.returncode, proc.stderr) == (130, "error: interrupted\n"), proc.stderr
    program = tmp_path / "kenning"
    program.write_text(
        "import os, signal, time\n"
        "import kenning\n"
        "os.kill(os.getpid(), signal.SIGINT)\n"
        "time.sleep(5)\n",  # a Ctrl-C only noted would let it sleep and end with 0
        encoding="utf-8",
    )
    proc = subprocess.run(
        [sys.executable, str(program)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode != 0 and "KeyboardInterrupt" in proc.stderr, proc.stderr
    library = "import signal, kenning\nassert signal.getsignal(signal.SIGINT) is signal.default_int_handler"
    proc = subprocess.run(
        [sys.executable, "-c", library], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr


SCRIPT_NAMES = ("re", "sys", "kenning.cli", "main")  # pip's console script imports these


@pytest.mark.parametrize(
    ("argv", "orig_argv", "importer_names", "command"),
    [
        (["/venv/bin/kenning", "stats"], [], SCRIPT_NAMES, True),
        (["/venv/Scripts/kenning.exe"], [], SCRIPT_NAMES, True),
        (["/venv/bin/kenning-script.py"], [], SCRIPT_NAMES, True),
        (["-m", "stats"], ["python", "-X", "importtime", "-m", "kenning", "stats"], (), True),
        (["-m", "stats"], ["python", "-mkenning", "stats"], (), True),
        # a program of the command's name that imports kenning, not its CLI
        (["/home/me/bin/kenning"], [], ("kenning", "os"), False),
        (["-m"], ["python", "-m", "bench", "recall"], (), False),  # a package importing it
        (["/venv/bin/kenningish"], [], SCRIPT_NAMES, False),
        (["-c"], [], SCRIPT_NAMES, False),
        ([], [], (), False),
    ],
)
def test_the_package_knows_when_it_is_the_command(
    argv: list[str], orig_argv: list[str], importer_names: tuple[str, ...], command: bool
) -> None:
    import kenning

    assert kenning._started_as_the_command(argv, orig_argv, importer_names) is command


def test_a_cli_import_that_fails_gives_the_program_its_ctrl_c_back() -> None:
    """A program importing kenning.cli whose import fails midway (the module is dropped
    before its last line restores the handler) keeps Python's Ctrl-C: a KeyboardInterrupt
    it can catch, not an exit 130 with no cleanup. A real process and a real SIGINT."""
    import subprocess

    code = (
        "import os, signal, kenning.startup_interrupt\n"
        "try:\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "    print('not interrupted')\n"
        "except KeyboardInterrupt:\n"
        "    print('caught')\n"
        "assert signal.getsignal(signal.SIGINT) is signal.default_int_handler\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout) == (0, "caught\n"), proc.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ("export",),
        # one answer larger than a pipe's buffer, written at once: Python's buffered stdout
        # took the 64 KiB the pipe took for the whole and dropped the rest, exit 0
        ("search", "--json", "--limit", "100", "--threshold", "0", "widget port gadget"),
    ],
)
def test_a_reader_that_stops_reading_ends_the_command_quietly(
    seeded_project: Path, argv: tuple[str, ...]
) -> None:
    """``kenning export | head``: the closed pipe is exit 141 (as git reports it), with
    nothing on stderr, not ``error: Broken pipe``. A real pipe: the boundary is the point."""
    import subprocess

    from .reliability.conftest import kenning_cmd

    with open_store(cwd=seeded_project, embedder="hashing") as store:
        # more than a pipe's buffer (64 KiB) of export, so the writer meets the closed pipe
        results = store.remember_many(
            [store_note(i) for i in range(120)]  # ~2 KiB a line with its vector
        )
        assert all(r.ok for r in results)
    proc = subprocess.Popen(
        kenning_cmd(*argv),
        cwd=seeded_project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "KENNING_EMBEDDER": "hashing"},
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.read(10)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141, err
    assert err == ""


def store_note(i: int) -> NewMemory:
    return NewMemory(f"Widget {i} is configured with port {8000 + i} and gadget {i * 7}", "rule")


def test_export_writes_format_controls_as_escapes(project: Path) -> None:
    """A bidi override in a note reaches the export file as ``\\u202e``, never raw (it would
    reorder what a terminal or an editor shows), and comes back the same on import."""
    from kenning.transfer import export_memories

    note = "Deploy \u202eon Fridays\u202c only after the \u2066freeze\u2069 lifts"
    with open_store(cwd=project, embedder="hashing") as store:
        assert store.remember(note, "rule").ok
    result = run_cli(project, "export", "--no-vectors", env={"KENNING_EMBEDDER": "hashing"})
    assert result.returncode == 0, result.stderr
    assert "\u202e" not in result.stdout and "\u2066" not in result.stdout
    assert "\\u202e" in result.stdout and "\\u2066" in result.stdout
    exported = [json.loads(line) for line in result.stdout.splitlines()]
    assert exported[-1]["content"] == note
    with open_store(cwd=project, embedder="hashing") as store, io.StringIO() as out:
        export_memories(store, out)
        assert "\u202e" not in out.getvalue()


@pytest.mark.parametrize("args", [("import",), ("import", "--from", "ruvector")])
def test_a_missing_import_file_is_one_line_and_exit_1(project: Path, args: tuple[str, ...]) -> None:
    """As every other file a command cannot read (not click's usage block and exit 2)."""
    result = run_cli(project, *args, str(project / "nowhere.jsonl"))
    assert result.returncode == 1, result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("error:") and "nowhere.jsonl" in line


def test_a_refused_note_creates_no_store(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Agents check `test -d .kenning` for "is there a store": a note the write path refuses
    (empty, invisible, an unknown type) must not create one; the first good note does."""
    from kenning import embedders

    for args in (("remember", "   "), ("remember", "\u200b"), ("remember", "--type", "x", "a")):
        result = run_cli(project, *args, env={"KENNING_EMBEDDER": "hashing"})
        assert result.returncode == 1, result.stderr
        assert not (project / ".kenning").exists(), args
    empty = project.parent / "no-model"
    empty.mkdir()
    # as a process that has not loaded the model yet (this one may have, and keeps it)
    monkeypatch.setattr(embedders, "_LOADED", {})
    missing = run_cli(project, "remember", "a good note", env={"KENNING_MODEL_DIR": str(empty)})
    assert missing.returncode == 1 and "model files missing" in missing.stderr
    assert not (project / ".kenning").exists()  # a model that cannot load creates no store
    good = run_cli(
        project, "remember", "Deploys happen on Tuesdays only", env={"KENNING_EMBEDDER": "hashing"}
    )
    assert good.returncode == 0 and (project / ".kenning" / "memory.db").is_file()


def test_doctor_fails_when_this_kenning_cannot_embed(project: Path, minilm: Embedder) -> None:
    """With KENNING_EMBEDDER misspelt or KENNING_MODEL_DIR naming a folder without the model,
    every recall, search and remember failed while doctor said "ok ... not compared"."""
    with open_store(cwd=project, embedder=minilm) as store:
        store.remember("Deploys happen on Tuesdays only", "decision")
    assert run_cli(project, "doctor").returncode == 0
    empty = project.parent / "no-model"
    empty.mkdir()
    for env, said in (
        ({"KENNING_EMBEDDER": "minilmm"}, "KENNING_EMBEDDER='minilmm' is no embedder"),
        ({"KENNING_MODEL_DIR": str(empty)}, "model files missing"),
    ):
        result = run_cli(project, "doctor", "--json", env=env)
        assert result.returncode == 1, result.stdout
        check = next(c for c in json.loads(result.stdout)["checks"] if c["name"] == "provenance")
        assert check["status"] == "failed" and said in check["message"], check
        assert "cannot embed" in check["message"] and check["fix"], check


def test_doctor_does_not_check_a_file_the_configured_store_is_not(project: Path) -> None:
    """With KENNING_STORE naming a server, the embedded file beside the project is not the
    store in use: doctor said it was healthy while the server refused the password. It
    checks the server's store: one that cannot be reached fails the store check, exit 3
    (knowledge base NOT consulted), the password never shown."""
    env = {"KENNING_STORE": "postgresql://team:hunter2secret@127.0.0.1:1/kenning"}
    result = run_cli(project, "doctor", "--json", env=env)
    assert result.returncode == 3
    (line,) = result.stderr.splitlines()
    assert "knowledge base NOT consulted" in line and "hunter2secret" not in line
    report = json.loads(result.stdout)
    assert report["store"].startswith("postgresql://") and "memory.db" not in result.stdout
    assert "hunter2secret" not in result.stdout
    store = next(c for c in report["checks"] if c["name"] == "store")
    assert store["status"] == "failed", store


def test_doctor_on_a_qdrant_local_store_checks_that_store(project: Path, tmp_path: Path) -> None:
    """A Qdrant local-mode store (a folder, no server): doctor called it 'a server store'
    whose 'server's own tools check it', then refused it. It checks the folder's store
    (none yet here: healthy, exit 0), and never the embedded file beside the project."""
    inside, outside = project / ".kenning" / "q", tmp_path / "q"
    env = {"KENNING_STORE": f"qdrant-local:{inside}"}
    # named with --store outside the project: checked where it is (writes are refused)
    for args, location in (((), "ok"), (("--store", f"qdrant-local:{outside}"), "warning")):
        result = run_cli(project, "doctor", "--json", *args, env=env)
        assert result.returncode == 0, result.stderr
        report = json.loads(result.stdout)
        assert report["store"].startswith("qdrant-local:"), report
        checks = {c["name"]: c for c in report["checks"]}
        assert checks["location"]["status"] == location, checks["location"]
        assert checks["store"]["status"] == "ok" and "yet" in checks["store"]["message"]
    assert not inside.exists() and not outside.exists()


def _every_command() -> list[tuple[str, ...]]:
    import click

    found: list[tuple[str, ...]] = []
    for name, command in main.commands.items():
        found.append((name,))
        if isinstance(command, click.Group):
            found += [(name, sub) for sub in command.commands]
    return found


@pytest.mark.parametrize("command", _every_command(), ids=" ".join)
def test_every_command_has_help_with_examples(project: Path, command: tuple[str, ...]) -> None:
    """README: every command takes --help with examples."""
    result = run_cli(project, *command, "--help")
    assert result.returncode == 0, result.stderr
    assert "Examples:" in result.stdout, command


@pytest.mark.parametrize("command", [("export",), ("export", "-o", "x.jsonl"), ("reembed",)])
def test_a_read_of_no_store_yet_is_exit_0(project: Path, command: tuple[str, ...]) -> None:
    """README: exit 0 for "no store yet" — export and reembed said it as an error (exit 1)."""
    result = run_cli(project, *command)
    assert result.returncode == 0, result.stderr
    assert "no kenning store" in result.stderr and result.stdout == ""
    assert not (project / ".kenning").exists() and not (project / "x.jsonl").exists()


def test_a_refused_import_creates_no_store(project: Path) -> None:
    """Every line is checked before anything is written — the store included."""
    bad = project / "bad.jsonl"
    bad.write_text('{"kenning_export": 1, "provenance": null}\n{"id": "x", "content": 5}\n')
    result = run_cli(project, "import", str(bad), env={"KENNING_EMBEDDER": "hashing"})
    assert result.returncode == 1 and "nothing was imported" in result.stderr
    assert not (project / ".kenning").exists()


def test_a_line_that_is_not_json_is_said_with_its_column_and_the_fix(project: Path) -> None:
    """A cut or hand-edited line was said as "line 2 is not JSON (Unterminated string
    starting at)": json's message without its place, and no word of what to do (qa78 F4).
    calibrate reads JSON lines too."""
    cut = project / "cut.jsonl"
    cut.write_text('{"kenning_export": 1, "provenance": null}\n{"id": "x", "content": "ab')
    result = run_cli(project, "import", str(cut), env={"KENNING_EMBEDDER": "hashing"})
    assert result.returncode == 1, result.stderr
    assert "line 2 is not JSON (Unterminated string starting at column 24)" in result.stderr
    assert "restore it from the export it came from, or delete it" in result.stderr
    # a file that is no export at all: its first line says so
    notes = project / "notes.md"
    notes.write_text("# Notes\n\n- use WAL\n")
    result = run_cli(project, "import", str(notes), env={"KENNING_EMBEDDER": "hashing"})
    assert result.returncode == 1, result.stderr
    assert "line 1 is not JSON (Expecting value at column 1): the file is no kenning export" in (
        result.stderr
    )
    gold = project / "gold.jsonl"
    gold.write_text('{"query": "x", "gold": ["a"]\n')
    result = run_cli(project, "calibrate", str(gold), env={"KENNING_EMBEDDER": "hashing"})
    assert "line 1 is not JSON (Expecting ',' delimiter at column 29)" in result.stderr, result


def test_json_answers_stay_json_and_one_output_is_asked_for(seeded_project: Path) -> None:
    """`edit --json` with an unknown id answers JSON (as remember and forget do), exit 1;
    `--json` with `--format xml` asks for two outputs: a usage error, not JSON silently."""
    env = {"KENNING_EMBEDDER": "hashing"}
    edited = run_cli(seeded_project, "edit", "--json", "nope", "--content", "x", env=env)
    assert edited.returncode == 1
    answer = json.loads(edited.stdout)
    assert answer["status"] == "rejected" and "no memory with id nope" in answer["reason"]
    for command in ("recall", "search"):
        both = run_cli(seeded_project, command, "--json", "--format", "xml", "tenant", env=env)
        assert both.returncode == 2 and "give one of them" in both.stderr


def test_an_error_that_quotes_its_input_shows_it_inert(seeded_project: Path) -> None:
    """An id, a path or a value quoted back in an error is shown, not obeyed: a terminal
    sequence or a bidi override is written as its escape, a credential redacted."""
    runner = CliRunner()
    for args, shown in (
        (["forget", "abc\x1b[8m"], "abc\\x1b[8m"),
        (["edit", "x\x1b]2;t\x07", "--type", "rule"], "x\\x1b]2;t\\x07"),
        (["import", "in\x1b[5m.jsonl"], "in\\x1b[5m.jsonl"),
        (["calibrate", "in\x1b[5m.jsonl"], "in\\x1b[5m.jsonl"),
        (["forget", "id\u202egnp"], "id\\u202egnp"),
        (["remember", "--type", "password=Zq9type1", "a note"], "[REDACTED:"),
    ):
        result = runner.invoke(main, args, catch_exceptions=False)
        assert result.exit_code == 1, (args, result.stderr)
        assert shown in result.stderr, (args, result.stderr)
        assert "\x1b" not in result.stderr and "\u202e" not in result.stderr
        assert "Zq9type1" not in result.stderr
        assert len(result.stderr.splitlines()) == 1


def test_an_error_that_quotes_a_huge_input_keeps_its_ends(seeded_project: Path) -> None:
    """An error line quoted its input whole: `forget` of a 1 MB id (a log pasted where the
    id goes) printed 1 MB on stderr, a --json refusal's reason held it too, and all of it
    was redacted first (~1.7 CPU-s). A message past ERROR_LINE_CHARS keeps its start (what
    was wrong) and its end (what to do), cut between, and only its ends with
    CUT_CONTEXT_CHARS around them are redacted; a secret quoted in them is still redacted,
    and a message under the limit is shown whole, as before."""
    from kenning.cli import ERROR_LINE_CHARS
    from kenning.render import CUT_CONTEXT_CHARS

    from .conftest import texts_redacted

    log = "config key=value timeout=30 host=db.internal port=5432 secret_name=orders retry=3; "
    # past ERROR_LINE_CHARS with CUT_CONTEXT_CHARS on both sides: only the ends are redacted
    huge = "DB_PASSWORD=Zq8Rw2Kx9Mt4Bn7C " + log * (
        (ERROR_LINE_CHARS + 2 * CUT_CONTEXT_CHARS) // len(log) + 10
    )
    for args, start, end in (
        (("forget", huge), "error: no memory with id DB_PASSWORD=", "names another project's)"),
        (("search", "api", "--collection", huge), "error: unknown collection 'DB_PASSWORD=", "discussions"),
        (("edit", huge, "--type", "rule"), "error: no memory with id DB_PASSWORD=", "names another project's)"),
    ):  # fmt: skip
        with texts_redacted() as redacted:
            result = run_cli(seeded_project, *args)
        assert result.returncode == 1, result.stderr[:300]
        (line,) = result.stderr.splitlines()
        assert line.startswith(start) and line.endswith(end), (line[:300], line[-300:])
        assert "characters cut]…" in line and len(line) < ERROR_LINE_CHARS + 100, len(line)
        assert "[REDACTED" in line and "Zq8Rw2Kx9Mt4Bn7C" not in line, line[:300]
        assert max(map(len, redacted)) <= ERROR_LINE_CHARS + CUT_CONTEXT_CHARS < len(huge)
    # a script reading --json gets the same reason
    result = run_cli(seeded_project, "edit", huge, "--type", "rule", "--json")
    reason = json.loads(result.stdout)["reason"]
    assert reason.startswith("no memory with id DB_PASSWORD=[REDACTED"), reason[:300]
    assert "characters cut]…" in reason and len(reason) < ERROR_LINE_CHARS + 100, len(reason)
    # under the limit: the whole id
    long_id = "x" * (ERROR_LINE_CHARS - 500)
    (line,) = run_cli(seeded_project, "forget", long_id).stderr.splitlines()
    assert f"no memory with id {long_id} in this project" in line and "cut" not in line


def test_a_command_refused_before_it_has_a_result_prints_no_json(seeded_project: Path) -> None:
    """README: with --json, remember, edit, forget and source answer a refusal in their JSON;
    the other commands, refused before they have a result, print the error line alone and
    nothing on stdout (no half answer a script could take for a result), exit 1."""
    not_a_store = seeded_project / "notes.txt"
    not_a_store.write_text("plain text\n")
    env = {"KENNING_EMBEDDER": "hashing"}
    for args in (
        ("recall", "--json", "   "),
        ("search", "--json", "   "),
        ("search", "--json", "deploys", "--type", "bogus"),
        ("stats", "--json", "--store", str(not_a_store)),
        ("stale", "--json", "--store", str(not_a_store)),
        ("reembed", "--json", "--store", str(not_a_store)),
        ("import", "--json", "nothere.jsonl"),
    ):
        r = run_cli(seeded_project, *args, env=env)
        assert r.returncode == 1 and r.stdout == "", (args, r.stdout)
        (line,) = r.stderr.splitlines()
        assert line.startswith("error: "), (args, line)


def test_a_json_answer_that_names_a_huge_input_keeps_its_ends(seeded_project: Path) -> None:
    """`forget --json` and `source --json` name the id (or path) they were asked about; a
    1 MB input where the id goes came back whole in the JSON, its secret unredacted, while
    the reason beside it was cut and redacted. An input that cannot be a memory id is named
    as the error line quotes it (about ERROR_LINE_CHARS, redacted); an id is named as given."""
    from kenning.cli import ERROR_LINE_CHARS

    huge = "DB_PASSWORD=Zq8Rw2Kx9Mt4Bn7C " + "host=db.internal port=5432; " * 2_000
    for command, key in (("forget", "id"), ("source", "path")):
        result = run_cli(seeded_project, command, "--json", huge)
        assert result.returncode == 1, result.stderr[:300]
        named = json.loads(result.stdout)[key]
        assert named.startswith("DB_PASSWORD=[REDACTED"), (command, named[:300])
        assert "characters cut]…" in named and len(named) < ERROR_LINE_CHARS + 100, len(named)
        assert "Zq8Rw2Kx9Mt4Bn7C" not in result.stdout + result.stderr
    result = run_cli(seeded_project, "forget", "--json", " ruvector:2024.08-1 ")
    answer = json.loads(result.stdout)
    assert answer["id"] == "ruvector:2024.08-1" and answer["deleted"] is False, answer


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("import", "nothere.jsonl"), "cannot read nothere.jsonl: No such file or directory"),
        # a file read as import reads one says what import says (click's "'QUERIES':
        # 'nothere.jsonl': …" named the parameter in capitals and quoted the path)
        (("calibrate", "nothere.jsonl"), "cannot read nothere.jsonl: No such file or directory"),
        (("query", "plan", "nothere.md"), "cannot read nothere.md: No such file or directory"),
        (("query", "pr", "--body-file", "/nonexistent/b.md"), "cannot read /nonexistent/b.md: "),
        (("install", "cursor", "--project-dir", "/nonexistent/dir"), "'--project-dir'"),
        (("source", "--project-dir", "/nonexistent/dir", "a.txt"), "'--project-dir'"),
    ],
)
def test_a_missing_input_file_or_folder_is_bad_input(
    project: Path, args: tuple[str, ...], named: str
) -> None:
    """Exit 1 with one line naming the argument (README: 1 is bad input, 2 an unknown
    option or command), as `import nothere.jsonl` does; click's check made it exit 2."""
    result = run_cli(project, *args)
    assert result.returncode == 1, result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: ") and named in line, line
    assert not (project / ".cursor").exists()


def test_forget_of_an_unknown_id_says_where_it_looked_and_what_to_do(project: Path) -> None:
    """Like `edit`: which project was searched, and how to find ids or name another."""
    assert run_cli(project, "remember", "Releases are cut on Mondays.").returncode == 0
    for args, where in ((("forget", "no-such-id"), "in this project"),
                        (("forget", "no-such-id", "--project", "acme/other"), "in project acme/other")):  # fmt: skip
        result = run_cli(project, *args)
        assert result.returncode == 1
        (line,) = result.stderr.splitlines()
        assert f"no memory with id no-such-id {where}" in line and "--project" in line, line
        assert "kenning search" in line


def test_the_commands_a_failed_forget_names_for_ids_do_list_them(project: Path) -> None:
    """`forget` of an unknown id said "`kenning search` or `kenning export` list ids", but
    `kenning search` as written prints a numbered listing without ids: each command it
    names, run as named (search with the note's words), prints the note's id."""
    stored = run_cli(project, "remember", "--json", "Releases are cut on Mondays.")
    memory_id = json.loads(stored.stdout)["id"]
    line = run_cli(project, "forget", "no-such-id").stderr
    named = [part for part in line.split("`")[1::2] if part.startswith("kenning ")]
    assert any(c.startswith("kenning search") for c in named), line
    for command in named:
        args = command.split()[1:]
        if args[0] in ("search", "recall"):
            args.append("when are releases cut")
        result = run_cli(project, *args)
        assert result.returncode == 0, result.stderr
        # the listing of search and recall shows the start of the id forget takes (F3)
        assert memory_id[:13] in result.stdout, command


@pytest.mark.parametrize("folder", ["docs/solutions", "README.md"])
def test_seeding_from_a_folder_that_is_not_there_creates_no_store(
    project: Path, folder: str
) -> None:
    """A mistyped solutions folder is refused, and nothing is written: the store was created
    first (an empty .kenning/memory.db), so every later read found a store and no notes."""
    (project / "README.md").write_text("not a folder\n")
    result = run_cli(project, "seed-solutions", folder, env={"KENNING_EMBEDDER": "hashing"})
    assert result.returncode == 1 and folder in result.stderr, result.stderr
    assert not (project / ".kenning").exists()


def _a_solution_doc(project: Path) -> None:
    """docs/solutions/build/a.md: one bug document, whose error is E123."""
    docs = project / "docs" / "solutions" / "build"
    docs.mkdir(parents=True)
    (docs / "a.md").write_text(
        "---\ntrack: bug\nproblem: the build fails with E123\n---\n\n## Fix\n\nPin it.\n"
    )


@pytest.mark.parametrize(
    ("prefix", "why"),
    [
        ("../team-docs", "'..'"),
        ("/srv/docs", "absolute"),
        ("~/docs", "home"),
        ("docs/\u202esolutions", "invisible"),
    ],
)
def test_a_source_prefix_outside_the_project_is_refused_before_any_write(
    project: Path, prefix: str, why: str
) -> None:
    """`seed-solutions --source-prefix ../team-docs` wrote every entry with a SOURCE: path
    outside the project, which `kenning source` and freshness then refused on every read.
    Refused naming the option and why, before a store is made; a prefix inside is taken."""
    _a_solution_doc(project)
    env = {"KENNING_EMBEDDER": "hashing"}
    result = run_cli(project, "seed-solutions", "--source-prefix", prefix, env=env)
    assert result.returncode == 1, result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: --source-prefix") and why in line, line
    assert not (project / ".kenning").exists()
    taken = run_cli(project, "seed-solutions", "--source-prefix", "kb/solutions/", env=env)
    assert taken.returncode == 0, taken.stderr
    found = run_cli(project, "search", "E123", "--json", env=env)
    assert found.returncode == 0 and "kb/solutions/build/a.md" in found.stdout, found.stdout


@pytest.mark.parametrize("prefix", ["", "/"])
def test_an_empty_source_prefix_writes_the_documents_own_paths(project: Path, prefix: str) -> None:
    """An empty (or "/") --source-prefix means the documents' own paths: the entries' text
    said SOURCE: build/a.md, but their source field was /build/a.md, an absolute path that
    `kenning source` refused as unsafe and freshness never checked."""
    _a_solution_doc(project)
    env = {"KENNING_EMBEDDER": "hashing"}
    seeded = run_cli(project, "seed-solutions", "--source-prefix", prefix, env=env)
    assert seeded.returncode == 0, seeded.stderr
    found = run_cli(project, "search", "E123", "--json", env=env)
    [result] = json.loads(found.stdout)["results"]
    memory = result["memory"]
    assert memory["source"] == "build/a.md", memory
    assert memory["metadata"]["seeded_from"] == "build/a.md", memory
    assert "SOURCE: build/a.md" in memory["content"], memory


def test_reembed_json_of_no_store_yet_answers_json(project: Path) -> None:
    """`kenning reembed --json` printed nothing on stdout when there was no store yet (exit
    0): a script parsing its answer failed on empty input. It answers the shape its help
    shows, with nothing done, as stats --json answers for no store."""
    result = run_cli(project, "reembed", "--json", env={"KENNING_EMBEDDER": "hashing"})
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "reembedded": 0,
        "already_done": 0,
        "unchanged": 0,
        "provenance": None,
        "damaged": {},
        "index_built": False,
    }
    assert "no kenning store" in result.stderr
    assert not (project / ".kenning").exists()


def test_export_to_dash_writes_standard_output(seeded_project: Path) -> None:
    """`import -` reads standard input, but `export -o -` wrote a file named '-' in the
    current folder and nothing to stdout (a `| gzip` after it compressed nothing)."""
    result = run_cli(seeded_project, "export", "-o", "-", env={"KENNING_EMBEDDER": "hashing"})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert json.loads(lines[0])["kenning_export"] == 1 and len(lines) == 3
    assert not (seeded_project / "-").exists()


@pytest.mark.parametrize("commits", ["101", "-1"])
def test_stale_commits_out_of_range_is_bad_input_like_limit(
    seeded_project: Path, commits: str
) -> None:
    """`stale --commits 101` was click's usage error (exit 2, with the usage text), where
    `search --limit 101` and `recall --top-k 0` are bad input: one line, exit 1."""
    result = CliRunner().invoke(main, ["stale", "--commits", commits])
    _one_line_error(result, "stale")
    assert result.exit_code == 1
    assert "commits" in result.stderr and "from 0 to 100" in result.stderr
    assert "Usage:" not in result.stderr


def test_a_qdrant_local_store_without_a_folder_is_refused(project: Path, tmp_path: Path) -> None:
    """KENNING_STORE=qdrant-local: (no folder) was the current folder: `kenning stats` wrote
    Qdrant's .lock and meta.json into the checkout, and remember its collection; a read of a
    folder that holds no Qdrant store wrote them there too."""
    before = sorted(p.name for p in project.iterdir())
    for args in (("stats",), ("remember", "Deploys happen on Tuesdays only")):
        result = run_cli(
            project, *args, env={"KENNING_STORE": "qdrant-local:", "KENNING_EMBEDDER": "hashing"}
        )
        assert result.returncode == 1, result.stdout
        assert "qdrant-local: names no folder" in result.stderr, result.stderr
    docs = project / "docs"
    docs.mkdir()
    result = run_cli(project, "stats", env={"KENNING_STORE": f"qdrant-local:{docs}"})
    assert result.returncode == 0 and "no kenning store" in result.stdout, result.stdout
    assert list(docs.iterdir()) == []
    assert sorted(p.name for p in project.iterdir() if p.name != "docs") == before


def test_a_qdrant_local_prefix_in_capitals_is_the_same_store(project: Path, tmp_path: Path) -> None:
    """The registry took QDRANT-LOCAL:<folder> for Qdrant's local mode, and the Qdrant backend
    then refused it as "not a Qdrant URL" (every command, exit 1)."""
    env = {
        "KENNING_STORE": f"QDRANT-LOCAL:{project / '.kenning' / 'q'}",
        "KENNING_EMBEDDER": "hashing",
    }
    stored = run_cli(project, "remember", "Deploys happen on Tuesdays only", env=env)
    assert stored.returncode == 0, stored.stderr
    lower = {**env, "KENNING_STORE": f"qdrant-local:{project / '.kenning' / 'q'}"}
    assert "1 in this project" in run_cli(project, "stats", env=lower).stdout


@pytest.mark.parametrize("argv", [("--help",), ("stats", "--help"), ("--version",)])
def test_help_to_a_closed_pipe_is_141_and_quiet(tmp_path: Path, argv: tuple[str, ...]) -> None:
    """``kenning --help | true``: click printed the help, met the closed pipe and exited 1 (a
    failure to the shell) where every other output to a closed pipe is 141. A real pipe whose
    reader is gone before the help is written: the boundary is the point."""
    import subprocess

    reader, writer = os.pipe()
    os.close(reader)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "kenning", *argv],
            cwd=tmp_path,
            stdout=writer,
            stderr=subprocess.PIPE,
            timeout=120,
            check=False,
        )
    finally:
        os.close(writer)
    assert proc.returncode == 141, proc.stderr
    assert proc.stderr == b""


def test_a_damaged_local_qdrant_folder_is_named_as_damaged(project: Path, tmp_path: Path) -> None:
    """A local Qdrant folder whose meta.json no longer reads (cut short by a crash, edited
    by hand) said "knowledge base NOT consulted: … answered, but not Qdrant; point the URL at
    the Qdrant server's REST address" (exit 3): there is no server or URL to fix. Now it says
    the folder is damaged and what to do, exit 1."""
    folder = project / ".kenning" / "q"
    env = {"KENNING_STORE": f"qdrant-local:{folder}", "KENNING_EMBEDDER": "hashing"}
    assert run_cli(project, "remember", "Deploys happen on Tuesdays only", env=env).returncode == 0
    (folder / "meta.json").write_text('{"collections": {"kenn')
    for args in (("stats",), ("recall", "when do deploys happen"), ("remember", "another note")):
        r = run_cli(project, *args, env=env)
        assert r.returncode == 1, (args, r.returncode, r.stderr)
        assert "is damaged" in r.stderr and "server" not in r.stderr, r.stderr
        assert str(folder) in r.stderr and r.stderr.count("\n") == 1


def test_migrate_onto_its_own_local_qdrant_folder_spelled_another_way(
    project: Path, tmp_path: Path
) -> None:
    """``kenning migrate --store qdrant-local:F --to qdrant-local:F/`` (or a relative path
    to F) said "knowledge base NOT consulted: the local Qdrant folder … is open in another
    process" (exit 3): there was no other process, the target is the source itself. It is
    refused as the identical spelling is: the target is the store being migrated, exit 1."""
    folder = project / ".kenning" / "q"
    env = {"KENNING_STORE": f"qdrant-local:{folder}", "KENNING_EMBEDDER": "hashing"}
    assert run_cli(project, "remember", "Deploys happen on Tuesdays only", env=env).returncode == 0
    relative = os.path.relpath(folder, project)
    for target in (f"qdrant-local:{folder}/", f"qdrant-local:{relative}", f"QDRANT-LOCAL:{folder}"):
        r = run_cli(project, "migrate", "--to", target, env=env)
        assert r.returncode == 1, (target, r.returncode, r.stderr)
        assert "is the store being migrated" in r.stderr and "another process" not in r.stderr


def test_migrate_to_an_empty_target_is_refused(project: Path) -> None:
    """``kenning migrate --to "$TEAM_STORE"`` with the variable unset (``--to ""``, or a
    blank) copied every memory into a new ``memory.db`` in the checkout's top folder (or in
    a folder named by the blank) and said "verified": the person believed the notes were
    on the team's server. A blank target is refused, naming what to give; nothing is
    written."""
    env = {"KENNING_EMBEDDER": "hashing"}
    assert run_cli(project, "remember", "Deploys happen on Tuesdays only", env=env).returncode == 0
    before = sorted(p.name for p in project.iterdir())
    for target in ("", " ", "\t"):
        r = run_cli(project, "migrate", "--to", target, env=env)
        assert r.returncode == 1, (target, r.returncode, r.stdout, r.stderr)
        assert "--to is empty" in r.stderr and "copied" not in r.stdout, r.stderr
    assert sorted(p.name for p in project.iterdir()) == before


@pytest.mark.parametrize("port", ["70000", "99999", "-1"])
def test_a_port_out_of_range_is_bad_input_like_limit(project: Path, port: str) -> None:
    """`kenning ui --port 99999` was click's usage error (exit 2, with the usage text) where
    `search --limit 101`, `recall --top-k 0` and `stale --commits 101` are bad input: one
    line, exit 1. README's exit codes keep 2 for an unknown option or command; a value out
    of its range is bad input, for every option. 0 is a port too (any free one)."""
    r = run_cli(project, "ui", "--port", port)
    assert r.returncode == 1, (r.returncode, r.stderr)
    (line,) = r.stderr.splitlines()
    assert line.startswith("error: --port is") and "from 0" in line and "65535" in line, line
    assert "Usage:" not in r.stderr


@pytest.mark.parametrize("where", ["{project}/backup/memry.db", "{project}/../elsewhere.db"])
def test_export_of_a_store_named_with_store_that_does_not_exist_is_an_error(
    project: Path, where: str
) -> None:
    """`kenning export --store X -o backup.jsonl` with a typo in X said "nothing to export"
    and exited 0: a backup script went on with no backup, as if the store were empty. A
    store the user names and that is not there is bad input naming the path (exit 1); with
    no --store, a project with no store yet still has nothing to export (exit 0)."""
    path = where.format(project=project)
    result = run_cli(project, "export", "--store", path, "-o", str(project / "b.jsonl"))
    assert result.returncode == 1, result.stderr
    (line,) = [x for x in result.stderr.splitlines() if x.startswith("error:")]
    assert str(Path(path).resolve()) in line and "--store" in line, line
    assert not (project / "b.jsonl").exists() and not Path(path).exists()
    result = run_cli(project, "export", "-o", str(project / "b.jsonl"))
    assert result.returncode == 0 and "nothing to export" in result.stderr, result.stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("recall", "--top-k", "0", "database is locked"), "--top-k is 0;"),
        (("search", "database is locked", "--limit", "101"), "--limit is 101;"),
        (("search", "database is locked", "--threshold", "2"), "--threshold is 2.0;"),
        (("recall", "database is locked", "--project", ""), "(from --project/--group-id)"),
        (("stats", "--group-id", " "), "(from --group-id/--project)"),
        (("remember", "--project", "all", "a note"), "(from --project/--group-id)"),
        (("source", "0199a3c2-7d1e-7c3a-9b1f-2f0c4d5e6a7b", "--project", ""), "(from --group"),
    ],
)
def test_a_refused_option_value_is_named_by_the_option(
    project: Path, args: tuple[str, ...], said: str
) -> None:
    """`kenning recall --top-k 0` said "top_k is 0", `search --threshold 2` "similarity
    threshold from argument is 2.0" and `--project ''` "(from the command line)": the
    Python API's parameter names, and no option the user could find in --help. The CLI
    names the option; the Python API still names its parameters."""
    assert run_cli(project, "remember", "Deploys happen on Tuesdays only").returncode == 0
    result = run_cli(project, *args)
    assert result.returncode == 1, (args, result.stderr)
    (line,) = result.stderr.splitlines()
    assert said in line, line
    for internal in ("top_k", "from argument", "the command line", "group_id argument"):
        assert internal not in line, line


@pytest.mark.parametrize(
    ("option", "value"),
    [("--type", ""), ("--type", " , "), ("--collection", ""), ("--collection", " ")],
)
def test_a_blank_search_filter_is_refused_naming_its_option(
    seeded_project: Path, option: str, value: str
) -> None:
    """`kenning search --type ''` (an unset shell variable in `--type "$TYPE"`) searched every
    type and exited 0, where `--collection ''` was refused: both are now one line naming the
    option and what to give, exit 1 as `--project ''` is. MCP clients send blanks for "no
    filter", and the MCP tool still takes them so."""
    result = CliRunner().invoke(main, ["search", "snake_case function names", option, value])
    _one_line_error(result, f"search {option} {value!r}")
    assert result.exit_code == 1, result.output
    (line,) = result.stderr.splitlines()
    assert f"{option} is blank" in line and f"leave {option} out" in line, line
    assert "Usage:" not in result.stderr


def test_the_python_api_names_its_parameters_not_the_clis_options(project: Path) -> None:
    from kenning import recall, search_memories
    from kenning.errors import UserInputError

    with pytest.raises(UserInputError, match=r"^top_k is 0;"):
        recall("database is locked", top_k=0)
    with pytest.raises(UserInputError, match=r"^similarity threshold from argument is 2;"):
        search_memories("database is locked", threshold=2)
    with pytest.raises(UserInputError, match=r"\(from the group_id argument\) cannot be"):
        open_store(group_id="")


def test_a_store_of_another_model_says_which_variable_chose_this_one(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store written with the bundled MiniLM read with KENNING_EMBEDDER or
    KENNING_MODEL_DIR set (a test's shell, an old experiment's export) was refused with one
    fix, `kenning reembed`: run as told, it re-embeds the whole store with the model the
    variable chose, for every teammate. The message says the variable chose this model and
    that unsetting it goes back to the store's; a store made with another model than the
    default has no variable to unset, and is told `kenning reembed` alone."""
    from kenning import embedders
    from kenning.embedders.minilm import locate_model

    assert run_cli(project, "remember", "Deploys happen on Tuesdays only").returncode == 0
    r = run_cli(project, "recall", "when do deploys happen", env={"KENNING_EMBEDDER": "hashing"})
    assert r.returncode == 1, r.stderr
    (line,) = r.stderr.splitlines()
    assert "KENNING_EMBEDDER='hashing'" in line and "unset KENNING_EMBEDDER" in line, line
    assert "kenning reembed" in line, line
    r = run_cli(project, "doctor", "--json", env={"KENNING_EMBEDDER": "hashing"})
    (check,) = [c for c in json.loads(r.stdout)["checks"] if c["name"] == "provenance"]
    assert check["fix"].startswith("unset KENNING_EMBEDDER") and "reembed" in check["fix"]

    original = locate_model().folder
    folder = tmp_path / "minilm-128"  # MiniLM's weights cut at 128 word pieces: another model
    folder.mkdir()
    for name in ("model.safetensors", "tokenizer.json", "config.json"):
        (folder / name).symlink_to(original / name)
    (folder / "sentence_bert_config.json").write_text('{"max_seq_length": 128}')
    # as a process that has not loaded the model yet (this one has, from the bundled folder)
    monkeypatch.setattr(embedders, "_LOADED", {})
    r = run_cli(project, "recall", "when do deploys happen", env={"KENNING_MODEL_DIR": str(folder)})
    assert r.returncode == 1, r.stderr
    (line,) = r.stderr.splitlines()
    assert "unset KENNING_MODEL_DIR" in line and "kenning reembed" in line, line

    other = project / "other"
    other.mkdir()
    with open_store(other / "memory.db", cwd=project, embedder="hashing") as store:
        assert store.remember("Deploys happen on Tuesdays only", "context").ok
    r = run_cli(project, "recall", "when do deploys happen", "--store", str(other / "memory.db"))
    assert r.returncode == 1, r.stderr
    (line,) = r.stderr.splitlines()
    assert "kenning reembed" in line and "unset" not in line, line


@pytest.mark.parametrize("as_json", [False, True])
def test_doctor_that_finds_a_failed_check_says_so_on_stderr(project: Path, as_json: bool) -> None:
    """`kenning doctor` (and `doctor --json`) exited 1 for a failed check with nothing on
    stderr: the report went to stdout, and a script keeping stderr and the exit code (CI,
    a cron job) had "exit 1" and no why, where README's exit codes promise one line on
    stderr. The line names the failed check and its fix; stdout is the report as it was."""
    assert run_cli(project, "remember", "Deploys happen on Tuesdays only").returncode == 0
    args = ("doctor", "--json") if as_json else ("doctor",)
    r = run_cli(project, *args, env={"KENNING_EMBEDDER": "hashing"})  # the store is MiniLM's
    assert r.returncode == 1, r.stderr
    (line,) = r.stderr.splitlines()
    assert line.startswith("error: 1 check failed: provenance") and "reembed" in line, line
    if as_json:
        assert json.loads(r.stdout)["healthy"] is False
    else:
        assert "failed  provenance" in r.stdout, r.stdout
    assert run_cli(project, "doctor").returncode == 0


@pytest.mark.parametrize("commits", ["2", 2.5, -1, 101, True])
def test_stales_commits_is_checked_by_the_core_the_cli_names_its_option(
    project: Path, commits: object
) -> None:
    """`kenning stale --commits 101` was refused by the CLI alone: MemoryStore.stale() took
    any value, and with a stale memory commits='2' or 2.5 ended in a TypeError traceback
    (not kenning's error tree), -1 listed no commit and 10**9 every one. The core refuses
    it as a UserInputError of its commits parameter; the CLI says it as --commits."""
    from kenning.errors import UserInputError

    with (
        open_store(cwd=project) as store,
        pytest.raises(UserInputError, match=r"^commits is .*; expected a whole number"),
    ):
        store.stale(commits=commits)  # type: ignore[arg-type]
    r = run_cli(project, "stale", "--commits", "101")
    assert r.returncode == 1 and r.stderr.startswith("error: --commits is 101;"), r.stderr


@pytest.mark.parametrize("as_json", [False, True])
def test_an_import_that_cannot_take_the_write_lock_says_so(
    project: Path, monkeypatch: pytest.MonkeyPatch, as_json: bool
) -> None:
    """Another process holding the store's write lock past SQLite's wait made `kenning
    import` die with a traceback ("RuntimeError: generator didn't yield": the refusal came
    before the import's transaction began, which swallowed it). Now nothing is written and
    the import says why, as a write cut short midway does: on stderr in one line, and in
    --json as not_written with its reason; exit 1."""
    import sqlite3

    from kenning.backends import sqlite as sqlite_backend

    env = {"KENNING_EMBEDDER": "hashing"}
    kept = run_cli(
        project, "remember", "--json", "The CDN cache is purged on every release", env=env
    )
    memory_id = json.loads(kept.stdout)["id"]
    export = project / "notes.jsonl"
    assert run_cli(project, "export", "-o", str(export), env=env).returncode == 0
    assert run_cli(project, "forget", memory_id, env=env).returncode == 0
    # SQLite's wait, shortened: the lock is held throughout, so any wait ends refused
    monkeypatch.setattr(sqlite_backend, "BUSY_TIMEOUT_S", 0.05)
    holder = sqlite3.connect(project / ".kenning" / "memory.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another writer
    try:
        r = run_cli(project, "import", *(["--json"] if as_json else []), str(export), env=env)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    (line,) = [x for x in r.stderr.splitlines() if x.startswith("error:")]
    assert "1 memory was not written" in line and "held its write lock" in line, line
    if as_json:
        data = json.loads(r.stdout)
        assert (data["imported"], data["not_written"]) == (0, 1), data
        assert "held its write lock" in data["not_written_reason"], data
    listed = run_cli(project, "export", "--no-vectors", env=env).stdout.splitlines()[1:]
    assert listed == [], listed


def test_a_local_qdrant_folder_outside_the_project_is_refused_as_a_store_file_is(
    project: Path, tmp_path: Path
) -> None:
    """The store-location guard held a store file to the project, not a ``qdrant-local:``
    folder: one outside the checkout (named in the environment, in a cloned repository's
    ``.env``, or as migrate's ``--to``) was written, Qdrant's files and every note made
    there. It is refused as a file outside is, before anything is created."""
    outside = tmp_path / "elsewhere" / "q"
    env = {"KENNING_EMBEDDER": "hashing"}
    named = {**env, "KENNING_STORE": f"qdrant-local:{outside}"}
    r = run_cli(project, "remember", "Deploys happen on Tuesdays only", env=named)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert "outside the project root" in r.stderr and "a folder inside" in r.stderr, r.stderr
    (project / ".env").write_text("KENNING_STORE=qdrant-local:../elsewhere/q\n")
    r = run_cli(project, "remember", "Deploys happen on Tuesdays only", env=env)
    assert r.returncode == 1 and "outside the project root" in r.stderr, r.stderr
    (project / ".env").unlink()
    assert run_cli(project, "remember", "Deploys happen on Tuesdays only", env=env).returncode == 0
    r = run_cli(project, "migrate", "--to", f"qdrant-local:{outside}", env=env)
    assert r.returncode == 1 and "outside the project root" in r.stderr, r.stderr
    assert not (tmp_path / "elsewhere").exists()
    inside = project / ".kenning" / "team-q"
    r = run_cli(project, "migrate", "--to", f"qdrant-local:{inside}", env=env)
    assert r.returncode == 0, r.stderr


def test_import_of_a_compressed_export_a_store_or_ruvectors_file_says_what_to_run(
    seeded_project: Path, tmp_path: Path
) -> None:
    """A gzipped export (as `kenning export --help` makes one), a copy of a store file and
    ruvector's intelligence.json were refused as "not UTF-8 text (byte 1)" or "id is
    missing": they say what the file is and what to run instead."""
    import gzip

    export = tmp_path / "all.jsonl"
    assert run_cli(seeded_project, "export", "--project", "all", "-o", str(export)).returncode == 0
    packed = tmp_path / "all.jsonl.gz"
    packed.write_bytes(gzip.compress(export.read_bytes()))
    ruvector = tmp_path / "intelligence.json"
    ruvector.write_text('{"memories": [{"id": "m1", "content": "x", "timestamp": 1}]}\n')
    store = seeded_project / ".kenning" / "memory.db"
    for path, said in (
        (packed, "gunzip -c FILE | kenning import -"),
        (store, "kenning export --store FILE"),
        (ruvector, "kenning import --from ruvector FILE"),
    ):
        new = seeded_project / ".kenning" / "new.db"
        r = run_cli(seeded_project, "import", str(path), "--store", str(new))
        assert r.returncode == 1 and said in r.stderr, (path, r.stderr)
        assert r.stderr.count("\n") == 1 and not new.exists(), r.stderr


def test_text_that_starts_with_a_dash_is_told_how_to_pass(project: Path) -> None:
    """go test's `--- FAIL: TestParse (0.00s)` or bash's `-bash: pnpm: command not found`
    given as the query was "No such option" (exit 2) with no word of `--`; a misspelt option
    is still only that."""
    for args, example in (
        (("recall", "--errors", "--- FAIL: TestParseConfig (0.00s)"), "recall -- '--- FAIL"),
        (("query", "error", "-bash: pnpm: command not found"), "query error -- '-bash: pnpm"),
    ):
        refused = run_cli(project, *args)
        assert refused.returncode == 2, refused.stderr
        assert "put -- before it" in refused.stderr and example in refused.stderr, refused.stderr
        passed = run_cli(project, *args[:-1], "--", args[-1])
        assert passed.returncode in (0, 1) and "No such option" not in passed.stderr, passed
    misspelt = run_cli(project, "recall", "--top-kk", "3", "x")
    assert misspelt.returncode == 2 and "put -- before it" not in misspelt.stderr


def test_a_store_another_process_holds_exclusively_locked_says_so(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """qa-s65c C6: a sqlite3 shell or a backup tool holding the store in exclusive locking
    mode made every command wait and end with SQLite's bare "database is locked", where
    the write lock's case names the cause and the fix."""
    import sqlite3

    from kenning.backends import sqlite as sqlite_backend

    env = {"KENNING_EMBEDDER": "hashing"}
    assert run_cli(project, "remember", "Deploys go out on Tuesdays", env=env).returncode == 0
    # SQLite's wait, shortened: the lock is held throughout, so any wait ends refused
    monkeypatch.setattr(sqlite_backend, "BUSY_TIMEOUT_S", 0.05)
    holder = sqlite3.connect(project / ".kenning" / "memory.db", isolation_level=None)
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        results = [
            run_cli(project, *args, env=env)
            for args in (("recall", "deploy day"), ("remember", "Tags are semver"), ("stats",))
        ]
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    for r in results:
        assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
        assert "another process has held it locked" in r.stderr, r.stderr
        assert "retry once it is done" in r.stderr, r.stderr


@pytest.mark.parametrize("command", [("recall", "tenant"), ("remember", "A note of one line.")])
def test_a_misspelt_kenning_embedder_is_named_with_its_fix(
    seeded_project: Path, command: tuple[str, ...]
) -> None:
    """A misspelt KENNING_EMBEDDER (an MCP server's env block, a shell profile) was said as
    "unknown embedder 'minilmm'; valid embedders are …": nothing named where the name came
    from, nor what to change. It names the variable and its fix, as doctor does."""
    proc = run_kenning(seeded_project, *command, env={"KENNING_EMBEDDER": "minilmm"})
    assert_clean_outcome(proc, " ".join(command))
    assert proc.returncode == 1, proc.stderr
    err = proc.stderr.decode()
    assert "KENNING_EMBEDDER='minilmm' is no embedder" in err, err
    assert "unset KENNING_EMBEDDER (minilm is the default)" in err, err


def test_a_store_that_refuses_the_connection_is_said_in_each_command_s_words(
    project: Path, tmp_path: Path
) -> None:
    """`kenning migrate --to postgresql://…:1/…` (a target server that refuses the
    connection) said "knowledge base NOT consulted: cannot connect to PostgreSQL …" (exit
    3): recall's wording (an agent's answer without memory), odd for the store a migration
    copies to. A command that writes says the reason and the fix, then what it did not do
    (the target named as the migration's); the commands that read the store keep recall's
    wording. Exit 3 for each, one line. A closed port (1) on this machine."""
    env = {"KENNING_EMBEDDER": "hashing"}
    stored = run_cli(project, "remember", "--json", "Deploys happen on Tuesdays only", env=env)
    assert stored.returncode == 0, stored.stderr
    memory_id = json.loads(stored.stdout)["id"]
    fix = {
        "postgresql://postgres@127.0.0.1:1/nope": "; nothing accepts connections there: check "
        "that the server is running and that the URL's host and port are its own",
        "http://127.0.0.1:1": "; check that the server is running and reachable",
    }
    for url, then in fix.items():
        kind = "PostgreSQL" if url.startswith("postgresql") else "Qdrant"
        r = run_cli(project, "migrate", "--to", url, env=env)
        assert r.returncode == 3 and r.stdout == "", (url, r.stdout, r.stderr)
        (line,) = r.stderr.splitlines()
        assert line.startswith(
            f"error: cannot connect to the migration target, {kind} at {url} ("
        ), line
        assert line.endswith(f"{then}; nothing was copied"), line
    down = "postgresql://postgres@127.0.0.1:1/nope"
    export = tmp_path / "export.jsonl"
    export.write_text(run_cli(project, "export", env=env).stdout)
    writes = {
        ("remember", "Deploys happen on Fridays"): "the note was not stored",
        ("edit", memory_id, "--type", "decision"): "nothing was edited",
        ("forget", memory_id): "nothing was forgotten",
        ("import", str(export)): "nothing was imported",
        ("migrate", "--to", str(tmp_path / "copy.db")): "nothing was copied",
        ("reembed",): "nothing was re-embedded",
        ("seed-solutions",): "nothing was seeded",
        ("move", "--from-project", "another-project"): "nothing was moved",
    }
    for args, not_done in writes.items():
        r = run_cli(project, *args, env={**env, "KENNING_STORE": down})
        assert r.returncode == 3, (args, r.stdout, r.stderr)
        (line,) = r.stderr.splitlines()
        assert line.startswith(f"error: cannot connect to PostgreSQL at {down} ("), (args, line)
        assert line.endswith(f"{fix[down]}; {not_done}"), (args, line)
    for args in (
        ("recall", "when do we deploy"),
        ("search", "deploys"),
        ("stats",),
        ("stale",),
        ("export",),
    ):
        r = run_cli(project, *args, env={**env, "KENNING_STORE": down})
        assert r.returncode == 3, (args, r.stdout, r.stderr)
        (line,) = r.stderr.splitlines()
        assert line.startswith(
            f"error: knowledge base NOT consulted: cannot connect to PostgreSQL at {down} ("
        ), (args, line)
        assert line.endswith(fix[down]), (args, line)


def test_a_local_qdrant_folder_another_process_holds_is_said_in_each_command_s_words(
    project: Path,
) -> None:
    """qa78 F2: `kenning remember` on a qdrant-local: folder another process held (a
    `kenning mcp`) said "the local Qdrant folder … is open in another process (…)", exit 3,
    without what a write whose store refused the connection adds: the folder was never
    opened, so "; the note was not stored" (forget: "; nothing was forgotten"). A read
    keeps "knowledge base NOT consulted"."""
    folder = project / ".kenning" / "q"
    env = {"KENNING_STORE": f"qdrant-local:{folder}", "KENNING_EMBEDDER": "hashing"}
    stored = run_cli(project, "remember", "--json", "Deploys happen on Tuesdays only", env=env)
    assert stored.returncode == 0, stored.stderr
    memory_id = json.loads(stored.stdout)["id"]
    # The folder held as a `kenning mcp` holds it, by a store this process keeps open (its
    # lock is an flock of its own open file, which refuses every other open of the folder,
    # this process's included): a second interpreter importing qdrant-client to hold it was
    # ~1.2 CPU-s, and what each command says is the point, not whose process holds it.
    holder = open_store(env["KENNING_STORE"], cwd=project, embedder="hashing")
    try:
        held = (
            f"the local Qdrant folder qdrant-local:{folder} is open in another process (local "
            "mode serves one process at a time; use a Qdrant server for several)"
        )
        writes = {
            ("remember", "Deploys happen on Fridays"): "the note was not stored",
            ("forget", memory_id): "nothing was forgotten",
        }
        for args, not_done in writes.items():
            r = run_cli(project, *args, env=env)
            assert r.returncode == 3, (args, r.stdout, r.stderr)
            assert r.stderr == f"error: {held}; {not_done}\n", (args, r.stderr)
        r = run_cli(project, "recall", "when do we deploy", env=env)
        assert r.returncode == 3, r.stderr
        assert r.stderr == f"error: knowledge base NOT consulted: {held}\n", r.stderr
    finally:
        holder.close()
    # the folder, let go, is opened again: the refusals were the holder's doing
    assert run_cli(project, "recall", "when do we deploy", env=env).returncode == 0


def test_input_not_utf8_says_the_place_the_byte_and_the_command_that_converts_it(
    project: Path, tmp_path: Path
) -> None:
    """qa81 F5: "(byte 1)" read as the byte's value, import's "(byte 5163)" counted from
    the start of the 8 KiB its reader was decoding (not of the file) and gave no fix, and
    UTF-16 with its byte order mark (Windows tools) was "not valid UTF-8 (byte 0)"."""
    latin = run_cli(project, "remember", "-", stdin=b"caf\xe9 au lait")
    assert latin.returncode == 1, latin.stderr
    assert "not valid UTF-8 at byte 3 (0xE9)" in latin.stderr, latin.stderr
    assert "pipe it through iconv -f LATIN1 -t UTF-8, if it is Latin-1" in latin.stderr
    utf16 = run_cli(project, "remember", "-", stdin="a note".encode("utf-16"))
    assert utf16.returncode == 1, utf16.stderr
    assert "it is UTF-16 (it starts with the byte order mark FF FE)" in utf16.stderr
    assert "pipe it through iconv -f UTF-16 -t UTF-8)" in utf16.stderr, utf16.stderr
    # UTF-32's marks: little-endian's starts as UTF-16's does (qa83 F10)
    for encoding, mark in (("utf-32-le", "FF FE 00 00"), ("utf-32-be", "00 00 FE FF")):
        data32 = "\ufeffa note".encode(encoding)
        for args in (("remember", "-"), ("import", "-")):
            said = run_cli(project, *args, stdin=data32).stderr
            assert f"it is UTF-32 (it starts with the byte order mark {mark})" in said, said
            assert "iconv -f UTF-32 -t UTF-8" in said, said
    # an import's bad byte far into the file (past the reader's first chunks): its place
    lines = [json.dumps({"n": n, "text": "x" * 90}) + "\n" for n in range(200)]
    data = "".join(lines).encode() + b'{"text": "caf\xe9"}\n'
    latin_file = tmp_path / "latin.jsonl"
    latin_file.write_bytes(data)
    refused = run_cli(project, "import", str(latin_file))
    assert refused.returncode == 1, refused.stderr
    place = data.index(b"\xe9")
    assert f"not UTF-8 text at byte {place} (0xE9, on line 201)" in refused.stderr
    assert f"iconv -f LATIN1 -t UTF-8 {latin_file} | kenning import -" in refused.stderr
    assert refused.stderr.count("\n") == 1, refused.stderr
    utf16_file = tmp_path / "utf16.jsonl"
    utf16_file.write_bytes("".join(lines).encode("utf-16"))
    for args, stdin in (((str(utf16_file),), None), (("-",), utf16_file.read_bytes())):
        refused = run_cli(project, "import", *args, stdin=stdin)
        assert refused.returncode == 1, refused.stderr
        assert "it is UTF-16 (it starts with the byte order mark FF FE)" in refused.stderr
        assert "iconv -f UTF-16 -t UTF-8" in refused.stderr, refused.stderr


def test_import_blames_the_line_that_is_not_json(project: Path, tmp_path: Path) -> None:
    """qa81 F5: a file whose line 3 (after two blank lines) is not JSON was said to have
    had "its first line" cut or edited."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n\n{not json\n")
    refused = run_cli(project, "import", str(bad))
    assert refused.returncode == 1 and "line 3 is not JSON" in refused.stderr, refused.stderr
    assert "line 3, its first not blank, was cut" in refused.stderr, refused.stderr
    assert "first line" not in refused.stderr
    bad.write_text("{not json\n")
    refused = run_cli(project, "import", str(bad))
    assert "its first line was cut or edited" in refused.stderr, refused.stderr


def test_text_after_an_option_and_dashes_is_told_to_join_the_option(project: Path) -> None:
    """qa81 F5: `recall --error -- "--- FAIL…"`: click took the -- as --error's value, and
    the advice ("put -- before it", its example without --error) had been followed."""
    text = "--- FAIL: TestLoad (0.00s)"
    refused = run_cli(project, "recall", "--error", "--", text)
    assert refused.returncode == 2, refused.stderr
    said = refused.stderr
    assert "--error took the -- as its value" in said, said
    assert "recall '--error=--- FAIL: TestLoad (0...'" in said, said
    assert "pass --error - and give the text on standard input" in said
    assert "put -- before it" not in said
    joined = run_cli(project, "recall", f"--error={text}")
    assert joined.returncode in (0, 1) and "No such option" not in joined.stderr, joined
    # an option whose value is one of a list is not joined to the text (qa83 F7)
    typed = run_cli(project, "remember", "--type", "--", "--- a note")
    assert typed.returncode == 2, typed.stderr
    assert "give --type its value before the -- (" in typed.stderr, typed.stderr
    assert "remember --type VALUE -- '--- a note')" in typed.stderr, typed.stderr
    assert "join them" not in typed.stderr and "--type -" not in typed.stderr, typed.stderr


def test_a_command_users_guess_is_pointed_to_the_one_that_does_it(project: Path) -> None:
    """qa81 F5: `kenning list` (an agent's guess) was click's "No such command 'list'."
    alone; the commands that list notes are named, exit 2 kept."""
    for guess, said in (
        ("list", "To list notes: kenning export (every note), kenning ui or kenning search QUERY."),
        ("LS", "To list notes:"),
        ("delete", "To delete a note: kenning forget ID."),
    ):
        refused = run_cli(project, guess)
        assert refused.returncode == 2, refused.stderr
        assert f"No such command '{guess}'. {said}" in refused.stderr, refused.stderr
    other = run_cli(project, "frobnicate")
    assert other.returncode == 2 and "No such command 'frobnicate'." in other.stderr
    assert "To " not in other.stderr
