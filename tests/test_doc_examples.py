"""The docs' and ``--help``'s examples return their memory.

Every ``kenning search`` / ``kenning recall`` example in the shell blocks of the README and
of the pages of ``docs/``, and in the help of ``kenning``, ``kenning recall`` and ``kenning
search`` (and the docs' Python ``recall`` / ``search_memories`` examples) is run, with the
defaults, against a store that holds the memories the docs' own examples remember, and must
return the memory it is about. The search threshold once hid the README's example (0.7,
calibrated for another model); this keeps the docs and the defaults from drifting apart again.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from kenning import cli, protocol

from .case_table import each_case
from .conftest import make_repo

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
#: The README and every page of docs/, by path: the examples of each are run (the README's
#: reference sections moved to docs/ pages, and their examples with them).
PAGES = {
    "README.md": README,
    **{f"docs/{p.name}": p.read_text() for p in sorted((ROOT / "docs").glob("*.md"))},
}
DOCS = "\n".join(PAGES.values())


def page(name: str) -> str:
    """A page of docs/, read by the test of a passage it holds."""
    return PAGES[f"docs/{name}"]


#: Each example query the docs show, and a phrase of the docs' memory it must return (None:
#: an example of a query that must return nothing).
#: A new example must be added here (the test says so): say which memory it is about.
EXPECTED = {
    "database is locked when two agents write": "database is locked",
    "how do we handle sqlite locking": "database is locked",
    "sqlite3.OperationalError: database is locked": "database is locked",
    "which timezone do we store timestamps in": "timestamps are stored in UTC",
    "naming conventions for python functions": "snake_case",
    "what case do we use for function names": "snake_case",
    "how to fix a locked sqlite database": "database is locked",
    "why do we store timestamps in UTC": "timestamps are stored in UTC",
    "why do we keep one index": "one HNSW index",
    # the README's example of a question no memory answers: recall prints nothing
    "how do we deploy to production": None,
}


def _shell_blocks(text: str) -> Iterator[str]:
    for block in re.findall(r"```(?:bash|sh)\n(.*?)```", text, re.S):
        # a trailing backslash continues the command on the next line
        yield from block.replace("\\\n", " ").splitlines()
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        # a session: the commands follow a "$ " prompt, the other lines are their output
        for line in block.replace("\\\n", " ").splitlines():
            if line.startswith("$ "):
                yield line[2:]


def _commands(lines: Iterator[str], verb: str) -> list[list[str]]:
    """``kenning <verb> …`` commands (``.venv/bin/kenning`` too), as argv after the verb;
    placeholders (``…``) and stdin (``-``) examples are left out."""
    found = []
    for line in lines:
        if "kenning" not in line:
            continue
        lexer = shlex.shlex(line, posix=True, punctuation_chars="|&;")
        lexer.whitespace_split = True
        parts: list[list[str]] = [[]]
        try:
            tokens = list(lexer)  # "#" starts a comment; |, && and ; separate commands
        except ValueError:  # prose that mentions kenning (an apostrophe), not a command
            continue
        for token in tokens:
            if token and set(token) <= set("|&;"):
                parts.append([])
            else:
                parts[-1].append(token)
        for words in parts:
            while words and not words[0].endswith("kenning"):
                words.pop(0)
            if len(words) < 2 or words[1] != verb:
                continue
            args = words[2:]
            if any("…" in a for a in args) or "-" in args:
                continue
            found.append(args)
    return found


def _help_lines(*command: str) -> Iterator[str]:
    result = CliRunner().invoke(cli.main, [*command, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    yield from result.output.replace("\\\n", " ").splitlines()


def _query(args: list[str]) -> str:
    """The positional query of a recall/search argv (options with a value skipped)."""
    flags = {"--errors", "--error", "--json", "--no-decay", "--decay", "--cascade", "--no-cascade"}
    rest = list(args)
    while rest:
        word = rest.pop(0)
        if word.startswith("--"):
            if word not in flags and "=" not in word:
                rest.pop(0)
            continue
        return word
    raise AssertionError(f"no query in {args}")


def readme_memories() -> list[list[str]]:
    memories = _commands(_shell_blocks(DOCS), "remember")
    python = re.findall(r'remember\("([^"…]+)", "(\w+)"\)', DOCS)
    memories += [["--type", kind, content] for content, kind in python]
    unique = []  # a page may show another's example again (docs/cli.md, the README's tour)
    for memory in memories:
        if memory not in unique:
            unique.append(memory)
    return unique


def examples() -> list[tuple[str, list[str]]]:
    out = []
    for verb in ("recall", "search"):
        for name, text in PAGES.items():
            for args in _commands(_shell_blocks(text), verb):
                out.append((f"{name}: kenning {verb}", [verb, *args]))
        for where in ((), (verb,)):
            for args in _commands(_help_lines(*where), verb):
                out.append((f"kenning {' '.join(where)} --help".replace("  ", " "), [verb, *args]))
    return out


def test_the_docs_show_examples_of_both_commands() -> None:
    shown = examples()
    assert {e[1][0] for e in shown} == {"recall", "search"}
    assert len(readme_memories()) >= 3
    unknown = sorted({_query(args[1:]) for _, args in shown} - set(EXPECTED))
    assert not unknown, f"examples this test does not know (add them to EXPECTED): {unknown}"


@pytest.fixture(scope="module")
def readme_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_repo(tmp_path_factory.mktemp("readme") / "proj")
    runner = CliRunner()
    with _cwd(root):
        for args in readme_memories():
            result = runner.invoke(cli.main, ["remember", "--json", *args])
            assert result.exit_code == 0, result.output
            # the README shows dedup: a note said again is a near-duplicate, not stored
            assert json.loads(result.output)["status"] in {"stored", "near-duplicate"}, (
                result.output
            )
    return root


class _cwd:
    def __init__(self, path: Path) -> None:
        self.path, self.old = path, Path.cwd()

    def __enter__(self) -> None:
        import os

        os.chdir(self.path)

    def __exit__(self, *exc: object) -> None:
        import os

        os.chdir(self.old)


@each_case(("where", "argv"), examples(), ids=lambda v: str(v))
def test_every_example_returns_its_memory(
    where: str, argv: list[str], readme_project: Path
) -> None:
    expected = EXPECTED[_query(argv[1:])]
    with _cwd(readme_project):
        result = CliRunner().invoke(cli.main, argv, terminal_width=200)
    assert result.exit_code == 0, (where, argv, result.output)
    if expected is None:
        assert not result.stdout.strip(), (where, argv, result.stdout)
    else:
        assert expected in result.output, (where, argv, result.output)


def test_the_python_examples_return_their_memory(
    readme_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import kenning

    monkeypatch.chdir(readme_project)
    calls = re.findall(r'(recall|search_memories)\("([^"…]+)"([^)\n]*)\)', DOCS)
    assert len(calls) >= 3, calls
    for function, query, rest in calls:
        keywords = dict(re.findall(r'(\w+)="?([\w]+)"?', rest))
        limit = int(keywords.pop("limit", 5))
        if function == "recall":
            contents = [h.memory.content for h in kenning.recall(query).hits]
        else:
            found = kenning.search_memories(query, limit=limit, **keywords)
            contents = [r.memory.content for r in found]
        assert query in EXPECTED, f"add the Python example {query!r} to EXPECTED"
        expected = EXPECTED[query]
        assert expected is not None, query
        assert any(expected in c for c in contents), (function, query, contents)


def test_the_readme_quotes_the_hook_speeds_docs_benchmarks_records() -> None:
    """The hook and MCP speed figures docs/agents.md quotes are the run ``docs/benchmarks.md``
    records.

    A rerun of ``bench/mcp.py`` re-renders the benchmarks page; the README once kept quoting
    the replaced run (0.27 s, 4 ms, 6 ms), figures no record held any more.
    """
    bench = (ROOT / "docs" / "benchmarks.md").read_text()

    def median(row: str) -> float:
        found = re.search(rf"^{re.escape(row)}\s+([\d.]+)", bench, re.M)
        assert found, f"docs/benchmarks.md has no row {row!r}"
        return float(found.group(1))

    prompt = median("hook prompt-submit s (cold process)")
    start = median("hook session-start s (cold process)")
    own = median("hook session-start ms, in-process")
    mcp = median("MCP hooks_recall ms, warm @ 10000")
    baseline = re.search(
        r"^MCP hooks_recall ms.*?\s([\d.]+) \(same recall in-process\)", bench, re.M
    )
    assert baseline, "docs/benchmarks.md has no in-process baseline for hooks_recall"
    inproc = float(baseline.group(1))
    agents = page("agents.md")
    speed = " ".join(agents[agents.index("Speed (`.venv/bin/python -m bench.mcp`") :].split())
    for figure in (
        f"takes {prompt:.2f} s p50",
        f"takes {own:.0f} ms of its process's {start:.2f} s",
        f"takes {mcp:.0f} ms p50",
        f"plus about {mcp - inproc:.0f} ms",
    ):
        assert figure in speed, (figure, speed)


def test_the_readme_names_what_install_test_installs() -> None:
    """``./install.sh --test`` installs npm packages and, as root, Debian's chromium: the
    account of it in docs/install.md names each pinned package and version, and the apt-get."""
    script = (ROOT / "install.sh").read_text()
    pinned = re.search(r"^\s*packages=\(([^)]*)\)", script, re.M)
    assert pinned, "install.sh pins no npm packages any more: update this test"
    install = page("install.md")
    start = install.index("`--test` also installs")
    account = " ".join(install[start : install.index("Put `.venv/bin`", start)].split())
    for package in re.findall(r'"([^"]+)"', pinned.group(1)):
        name, version = package.rsplit("@", 1)
        label = {"@anthropic-ai/claude-code": "Claude Code", "@openai/codex": "Codex"}
        assert f"{label.get(name, name)} {version}" in account, (package, account)
    assert "apt-get install chromium" in script
    assert "chromium" in account, account


def _declared_mcp_tools() -> dict[str, set[str]]:
    """Each tool ``kenning mcp`` declares, with its argument names (no store is opened)."""
    import anyio
    from mcp import Client

    from kenning.mcp_server import KenningTools, build_server

    async def declared() -> dict[str, set[str]]:
        tools = KenningTools(ROOT)
        try:
            async with Client(build_server(tools)) as client:
                listed = await client.list_tools()
        finally:
            tools.close()
        return {t.name: set(t.input_schema.get("properties", {})) for t in listed.tools}

    return anyio.run(declared)


def test_the_readme_lists_every_argument_of_each_mcp_tool() -> None:
    """docs/agents.md's table of MCP tools gives each tool's arguments as the server declares
    them; only ruvector's aliases, documented under "Coming from ruvector", and ``types``
    (search's older name of ``memory_type``) are left out."""
    server = _declared_mcp_tools()
    table = dict(re.findall(r"^\| `(\w+)\(([^`]*)\)` \|", page("agents.md"), re.M))
    assert set(table) == set(server), (sorted(table), sorted(server))
    aliases = {"k", "semantic", "types"}
    for tool, arguments in table.items():
        shown = {a.strip() for a in re.split(r",|\\\|", arguments) if a.strip()}
        assert shown == server[tool] - aliases, (tool, shown, server[tool])


def test_forget_json_says_on_stderr_why_it_exits_1(tmp_path: Path) -> None:
    """README: exit 1 is a user error, and "one line on stderr says what and how to fix it".
    ``kenning forget --json ID`` of an id the project does not hold (or with no store yet)
    exited 1 with ``{"deleted": false}`` and nothing else: no word of why, nor of
    ``--project`` for another project's memory. stderr says why, and the JSON's ``reason``."""
    root = make_repo(tmp_path / "proj")
    runner = CliRunner()
    with _cwd(root):
        for setup in ([], ["remember", "--type", "rule", "All timestamps are stored in UTC"]):
            if setup:
                assert runner.invoke(cli.main, setup).exit_code == 0
            result = runner.invoke(cli.main, ["forget", "--json", "0123"])
            assert result.exit_code == 1, result.output
            lines = result.stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
            assert "0123" in lines[0] or "no kenning store" in lines[0], lines
            # the reason is in the JSON too, as remember's, edit's and source's (qa76 F7)
            reason = lines[0].removeprefix("error: ")
            assert json.loads(result.stdout) == {"id": "0123", "deleted": False, "reason": reason}


def test_the_agents_md_section_names_every_mcp_tool() -> None:
    """``kenning install codex|cursor`` writes the protocol into AGENTS.md, saying what the
    ``kenning`` server offers; it named five of its seven tools, leaving out ``read_source``
    (how an agent over MCP reads a SOURCE: document, checked) and ``hooks_capabilities``."""
    from kenning.installers.agents_md import section

    text = " ".join(section().split())
    offered = text[text.index("offers") : text.index("Nothing recalls")]
    named = set(re.findall(r"`(\w+)`", offered))
    assert named == set(_declared_mcp_tools()), (named, offered)
    assert "`read_source`" in text[text.index("Check a `SOURCE:` path") :]


def _every_command() -> Iterator[tuple[str, ...]]:
    for name, command in cli.main.commands.items():
        if not command.hidden:
            yield (name,)
            yield from ((name, sub) for sub in getattr(command, "commands", {}))


@each_case("path", list(_every_command()), ids=" ".join)
def test_every_help_shows_examples_with_options_it_takes(path: tuple[str, ...]) -> None:
    """README: "Every command takes ``--help`` with examples". Each command's help has
    examples, and every option an example of it passes is one the command declares, so a
    renamed option cannot leave its example behind."""
    lines = list(_help_lines(*path))
    assert any("Examples" in line for line in lines), (path, lines)
    _assert_options_declared(path, _commands(iter(lines), path[0]))


@each_case("name", sorted(n for n, c in cli.main.commands.items() if not c.hidden))
def test_the_readmes_shell_examples_pass_options_the_command_takes(name: str) -> None:
    """Every option a ``kenning`` command of the docs' shell blocks passes is declared."""
    _assert_options_declared((name,), _commands(_shell_blocks(DOCS), name))


def _assert_options_declared(path: tuple[str, ...], examples: list[list[str]]) -> None:
    for args in examples:
        command = cli.main.commands[path[0]]
        while args and args[0] in getattr(command, "commands", {}):
            command = command.commands[args.pop(0)]  # type: ignore[attr-defined]
        declared = {o for p in command.params for o in (*p.opts, *p.secondary_opts)}
        for word in args:
            option = word.split("=", 1)[0]
            assert not option.startswith("-") or option == "-" or option in declared, (
                path,
                args,
                option,
            )


def _fake_python(path: Path, version: str) -> Path:
    """A ``python`` that answers any ``-c`` check as Python ``version`` would, failing it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho {version}\nexit 1\n")
    path.chmod(0o755)
    return path


def test_install_sh_names_the_python_it_needs_before_installing(tmp_path: Path) -> None:
    """README: "Python ≥ 3.11". ``./install.sh`` with an older ``python3`` made its venv and
    let pip fail with pages of "No matching distribution found for regex==…"; run again
    with a newer ``PYTHON``, it reused that venv and failed the same way. It says which
    Python it needs and how to point at one, before it creates or installs anything."""
    import subprocess

    old = _fake_python(tmp_path / "old" / "python3", "3.10.13")
    venv = tmp_path / "venv"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "KENNING_VENV": str(venv)}
    run = subprocess.run(
        [str(ROOT / "install.sh")],
        env={**env, "PYTHON": str(old)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode != 0
    assert "3.11" in run.stderr and "3.10.13" in run.stderr and "PYTHON=" in run.stderr, run.stderr
    assert "No matching distribution" not in run.stderr and not venv.exists()

    _fake_python(venv / "bin" / "python", "3.10.13")  # a venv an older run left behind
    import sys

    run = subprocess.run(
        [str(ROOT / "install.sh")],
        env={**env, "PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode != 0
    assert str(venv) in run.stderr and "3.10.13" in run.stderr, run.stderr
    assert "No matching distribution" not in run.stderr


def test_install_sh_refuses_an_argument_it_does_not_take(tmp_path: Path) -> None:
    """`./install.sh --tests` (or `-t`, `--help`) made a plain install, exit 0, without the
    test tools the suite then missed (qa76 F3): refused with the usage before anything is
    made; `--help` prints it."""
    import subprocess

    venv = tmp_path / "venv"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "KENNING_VENV": str(venv)}
    for args in (["--tests"], ["-t"], ["--test", "--test"]):
        run = subprocess.run(
            [str(ROOT / "install.sh"), *args], env=env, capture_output=True, text=True, timeout=60
        )
        assert run.returncode == 2, (args, run.stderr)
        assert args[-1] in run.stderr and "usage: ./install.sh [--test]" in run.stderr
        assert not venv.exists()
    run = subprocess.run(
        [str(ROOT / "install.sh"), "--help"], env=env, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0 and "--test" in run.stdout and not venv.exists(), run.stdout


def test_the_reliability_page_describes_every_check_doctor_runs(tmp_path: Path) -> None:
    """docs/reliability.md's table of ``kenning doctor``'s checks has a row per check it
    runs (the ``settings`` check, which fails a run for a misspelt key, had none)."""
    from kenning.doctor import run_doctor

    ran = {check.name for check in run_doctor(cwd=make_repo(tmp_path / "proj")).checks}
    page = (ROOT / "docs" / "reliability.md").read_text()
    start = page.index("### 5. `kenning doctor`")
    table = page[start : page.index("\n#", start + 1)]
    described = set(re.findall(r"^\| `(\w+)` \|", table, re.M))
    assert ran == described, (sorted(ran), sorted(described))


def test_kenning_help_lists_the_exit_codes_the_readme_lists() -> None:
    """``kenning --help`` stopped at exit code 3; the docs (docs/cli.md) also document 130 (Ctrl-C)
    and 141 (the reader closed the output), which a script sees as well."""
    cli_page = page("cli.md")
    start = cli_page.index("**Exit codes**")
    readme = set(re.findall(r"`(\d+)`", cli_page[start:].split("\n\n")[0]))
    shown = " ".join(_help_lines())
    listed = set(re.findall(r"\b(\d+) [a-zA-Z(]", shown[shown.index("Exit codes") :]))
    assert readme and readme == listed, (sorted(readme), sorted(listed))


def test_the_command_remember_help_names_for_the_dedup_cosine_shows_it(tmp_path: Path) -> None:
    """`kenning remember --help` said the dedup cosine is what "`kenning stats` shows", but
    stats' listing has no such line (its --json does)."""
    from .cli_runner import run_cli

    helped = " ".join(CliRunner().invoke(cli.main, ["remember", "--help"]).output.split())
    (named,) = re.findall(r"dedup cosine \(`(kenning [^`]+)` shows it\)", helped)
    project = make_repo(tmp_path / "proj")
    env = {"KENNING_EMBEDDER": "hashing"}
    assert run_cli(project, "remember", "Releases are cut on Mondays.", env=env).returncode == 0
    shown = run_cli(project, *shlex.split(named)[1:], env=env)
    assert shown.returncode == 0, shown.stderr
    assert str(protocol.DEDUP_THRESHOLD) in shown.stdout, (named, shown.stdout)


def test_kenning_helps_first_example_shows_its_line_break_as_the_shell_reads_it() -> None:
    """`kenning --help`'s first example printed as `remember --type error_fix     "ERROR-FIX…`
    (the source's backslash ended the Python line, not the shell's): it shows the two lines
    with the shell's continuation, and the lines joined are the command."""
    output = CliRunner().invoke(cli.main, ["--help"], terminal_width=200).output
    lines = output.splitlines()
    (first,) = [i for i, line in enumerate(lines) if "kenning remember --type error_fix" in line]
    assert lines[first].rstrip().endswith("\\"), lines[first]
    assert lines[first + 1].strip().startswith('"ERROR-FIX: '), lines[first + 1]
    joined = lines[first].rstrip()[:-1] + lines[first + 1]
    assert shlex.split(joined)[:3] == ["kenning", "remember", "--type"], joined


def test_seed_solutions_json_fields_are_the_ones_docs_cli_names() -> None:
    """`seed-solutions --json`'s fields were documented nowhere (its `unreadable` key was
    added without a word): every key a report can have is named in docs/cli.md's paragraph,
    and the paragraph names no key a report does not have."""
    from kenning.seeding import FileReport, SeedReport

    start = page("cli.md").index("**`seed-solutions --json`**")
    paragraph = page("cli.md")[start:].split("\n\n")[0]
    named = set(re.findall(r"`([a-z_]+)`", paragraph))
    report = SeedReport(
        "docs/solutions",
        1,
        1,
        0,
        0,
        0,
        (FileReport("db/db.md", "seeded", None, 1, ("id",)),),
        error="not a folder",
        unreadable=(("secret", "may not be listed"),),
    ).to_dict()
    keys = set(report) | set(report["documents"]) | set(report["entries"])
    keys |= set(report["files"][0]) | set(report["unreadable"][0])
    assert keys <= named, sorted(keys - named)
    statuses = {"seeded", "updated", "retired", "duplicate", "unchanged", "pending"}
    statuses |= {"skipped", "failed", "kept"}
    assert named - keys <= statuses, sorted(named - keys - statuses)
    assert statuses <= named, sorted(statuses - named)


def test_the_docs_give_every_default_half_life() -> None:
    """The default half-lives were in no doc (qa76 F2): a user setting
    KENNING_DECAY_HALF_LIFE could not see what each type starts from. The configuration
    page's decay row and how-it-works' decay paragraph name each one the scoring uses."""
    from kenning.scoring import DEFAULT_COLLECTION_HALF_LIFE, DEFAULT_TYPE_HALF_LIFE

    (row,) = [r for r in page("configuration.md").splitlines() if r.startswith("| decay half")]
    start = page("how-it-works.md").index("The half-life, in days,")
    paragraph = page("how-it-works.md")[start:].split("\n\n")[0]
    for said in (row, paragraph):
        for name, days in {**DEFAULT_COLLECTION_HALF_LIFE, **DEFAULT_TYPE_HALF_LIFE}.items():
            assert re.search(rf"\b{re.escape(name)}\s+{days:g}\b", said), (name, days, said)
