"""Which project a memory belongs to (``group_id``) and where its embedded store lives.

Rules (SPEC §2):

* ``group_id``: an explicit argument, else ``KENNING_PROJECT``, else the normalised
  ``owner/repo`` of the git ``origin`` remote, else the name of the main checkout's top-level
  folder. Never the bare current folder: a clone and its worktrees share one id.
* The embedded store is ``<main checkout>/.kenning/memory.db``; worktrees resolve the main
  checkout through ``git rev-parse --git-common-dir`` so they share one store.
* The store-location guard: a write is refused when the store path, symlinks resolved, is
  outside the project root it claims to serve (the seeds' "global-store pollution guard").
"""

from __future__ import annotations

import functools
import os
import re
import shlex
import stat
import subprocess
import threading
import time
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from .errors import KenningError, StoreLocationError, UserInputError
from .lazyre import lazy

STORE_DIRNAME = ".kenning"
STORE_FILENAME = "memory.db"


@dataclass(frozen=True)
class Project:
    """A resolved project: its root (main checkout), id and embedded store path."""

    root: Path
    group_id: str
    store_path: Path
    remote: str | None = None
    #: A server store (``postgresql://…``, ``http(s)://…``) instead of the embedded file.
    store_url: str | None = None
    #: The git work tree the project was found from (a linked work tree has its own files;
    #: its store is the main checkout's); None outside git.
    work_tree: Path | None = None
    #: The secrets redacted from the id as it was given (``--project``, ``KENNING_PROJECT``),
    #: kind by kind: every note written under it reports them with its own.
    id_redactions: tuple[tuple[str, int], ...] = ()
    #: The folder whose ``.env`` is read (:attr:`Checkout.settings_root`); None: ``root``.
    settings_root: Path | None = None
    #: The folder of the work tree the project was found from, from its top (``src/api``);
    #: None at the top or outside git. A path a note names is looked for there too.
    subfolder: str | None = None

    @property
    def checkout_root(self) -> Path | None:
        """The root of the checkout kenning runs in; None outside one, where ``root`` is only
        where the given store (or the current folder) is, not a project's."""
        return self.root if self.work_tree is not None else None

    @property
    def dotenv_root(self) -> Path | None:
        """The folder whose ``.env`` the project's settings are read from; None outside a
        checkout (a store given there has no project's ``.env``)."""
        return (self.settings_root or self.root) if self.work_tree is not None else None

    @property
    def on_a_server(self) -> bool:
        """Whether the store is a server (PostgreSQL, a Qdrant server) that other people's
        checkouts may share, not a file or folder of this machine's."""
        return not guards_a_path(self.store_url)

    @property
    def files_root(self) -> Path:
        """Where the project's files are read from (``source`` paths of memories are
        relative to it): the work tree, else the root."""
        return self.work_tree or self.root


def normalise_remote(url: str) -> str | None:
    """Turn a git remote URL into a lowercase ``owner/repo`` slug (nested groups kept).

    ``git@github.com:Owner/Repo.git``, ``https://user:pw@github.com/owner/repo``,
    ``ssh://git@host:22/group/sub/repo.git`` and ``/srv/git/repo.git`` all work; credentials,
    host, port and a trailing ``.git`` or ``/`` are dropped.
    """
    url = url.strip()
    # git's "helper::address" ("hg::https://…", "gcrypt::git@host:repo"): a remote helper
    # fetches the address, which names the repository (as git reads it: scheme characters,
    # then "::")
    helper = re.match(r"^([A-Za-z][A-Za-z0-9+.-]*)::(.*)$", url)
    if helper:
        url = helper.group(2)
    codecommit = _codecommit_repository(helper.group(1) if helper else "", url)
    if codecommit:
        return _shown_only(f"v1/repos/{codecommit}".lower()) or None
    if not url:
        return None
    path: str
    host = scheme = user = ""
    # a folder (not a server's path) is named by its last two names, wherever it is
    local = url.startswith(("/", "file:"))
    m = re.match(r"^([a-z][a-z0-9+.-]*)://(?:([^@/]*)@)?([^/]*)(/.*)?$", url, re.IGNORECASE)
    if m:
        # no path ("https://token@host"): no repository to name, and never the credentials
        # (the user is read only where it is a name: Azure's older SSH form, below)
        scheme, user, host, path = (
            m.group(1).lower(),
            m.group(2) or "",
            m.group(3),
            m.group(4) or "",
        )
        if scheme == "file":  # file:///C:/work/x.git: the drive is no folder's name
            path = re.sub(r"^/?[A-Za-z]:(?![^/])", "", path)
    elif re.match(r"^(?:[A-Za-z]:|\\\\)", url):
        # a folder on a Windows drive or share ("C:\work\x.git", "\\server\share\x.git"),
        # its separators backslashes: named as a POSIX folder is, the drive left out
        path, local = re.sub(r"^[A-Za-z]:", "", url).replace("\\", "/"), True
    else:
        # scp-like "host:path", the path relative or absolute ("git@host:/srv/git/x.git"
        # is the repository ssh://git@host/srv/git/x.git names); one letter before the
        # colon and no user is a Windows drive, not a host; a host in brackets is an IPv6
        # address ("git@[::1]:x.git") or a host with its port ("[git@host:2222]:x.git"),
        # whose colons are not the one before the path
        scp = re.match(
            r"^(?:(?:[^@/\[]*@)?\[(?P<bracketed>[^\]/]+)\]|[^@/]+@(?P<host>[^:/]+)"
            r"|(?P<alone>[^:/]{2,})):(?P<path>.+)$",
            url,
        )
        if scp:
            bracketed = (scp["bracketed"] or "").rsplit("@", 1)[-1]
            host, path = bracketed or scp["host"] or scp["alone"], scp["path"]
        else:
            path = url
    if not local:
        # a server's query and fragment name no repository, and hold what a URL should not
        # (…/app.git?access_token=…, #<token>); a credential in the path is redacted below
        path = re.split(r"[?#]", path, maxsplit=1)[0]
    path = path.strip("/")
    path = re.sub(r"\.git$", "", path, flags=re.IGNORECASE).strip("/")
    parts = [p for p in path.split("/") if p and p not in (".", "..")]
    if parts[:1] == ["~"] and not local:
        # ssh://host/~/repo.git and host:~/repo.git are the ssh user's home, as the relative
        # host:repo.git is: one repository (a "~user" folder names a user, and stays)
        parts = parts[1:]
    if not parts:
        return None
    host = host.rsplit(":", 1)[0].lower()
    parts = (
        _azure_devops_parts(host, parts, user.split(":", 1)[0] if scheme == "ssh" else "")
        or _bitbucket_server_parts(scheme, host, parts)
        or _gerrit_parts(scheme, host, parts)
        or parts
    )
    slug = "/".join(parts[-2:]) if len(parts) <= 2 or local else "/".join(parts)
    return _lowered_outside_markers(_shown_id(_shown_only(slug))) or None


def _lowered_outside_markers(text: str) -> str:
    """``text`` in lower case but for its redaction markers (``[REDACTED:github_token]``):
    a remote's slug is redacted before it is lowered, as a token's rules read its case."""
    if "[REDACTED:" not in text:
        return text.lower()
    from .redaction import marker_spans  # (loaded already: the text was redacted)

    parts, at = [], 0
    for start, end in marker_spans(text):
        parts += [text[at:start].lower(), text[start:end]]
        at = end
    return "".join([*parts, text[at:].lower()])


def _azure_devops_parts(host: str, parts: list[str], ssh_user: str = "") -> list[str] | None:
    """``organisation/project/_git/repository`` of an Azure DevOps (cloud) remote, None for
    any other host or path. Its clone dialogs spell one repository as
    ``dev.azure.com/ORG/PROJ/_git/REPO`` and ``ORG.visualstudio.com[/DefaultCollection]/
    PROJ/_git/REPO`` over HTTPS but ``ssh.dev.azure.com:v3/ORG/PROJ/REPO`` and
    ``vs-ssh.visualstudio.com:v3/ORG/PROJ/REPO`` over SSH: without this, two clones of one
    repository had two ids and did not share their notes. Every form gets the id the
    default HTTPS form always had (its ``_git`` kept), so the notes of the clones most
    teams make stay where they are. Visual Studio Team Services' SSH form before ``v3``,
    ``ssh://ORG@vs-ssh.visualstudio.com:22[/DefaultCollection]/PROJ/_ssh/REPO`` (or with
    ``ORG.visualstudio.com`` as the host), names the organisation as the ssh user
    (``ssh_user``) and ``_ssh`` where HTTPS has ``_git``. A repository named as its project
    (the one Azure makes with each project) is also cloned without the project over HTTPS
    (``dev.azure.com/ORG/_git/REPO``), never over SSH: its project is the repository's name.
    A self-hosted Azure DevOps Server keeps ``_git`` over both protocols, so its ids are
    left as they were."""
    lowered = [p.lower() for p in parts]
    if host in ("ssh.dev.azure.com", "vs-ssh.visualstudio.com"):
        if len(parts) == 4 and lowered[0] == "v3":
            return [parts[1], parts[2], "_git", parts[3]]
        rest = parts[1:] if lowered[0] == "defaultcollection" else parts
        if host == "vs-ssh.visualstudio.com" and ssh_user and len(rest) == 3:  # no v3
            return [ssh_user, rest[0], "_git", rest[2]] if rest[1].lower() == "_ssh" else None
        return None
    if host == "dev.azure.com":
        org, rest = parts[0], parts[1:]
    elif host.endswith(".visualstudio.com"):
        # the organisation is the host's first label; DefaultCollection is the only
        # collection an organisation has
        org = host.removesuffix(".visualstudio.com")
        rest = parts[1:] if lowered[0] == "defaultcollection" else parts
    else:
        return None
    if len(rest) == 2 and rest[0].lower() == "_git":  # no project: the repository's own
        rest = [rest[1], *rest]
    if len(rest) == 3 and rest[1].lower() == "_ssh" and host.endswith(".visualstudio.com"):
        rest = [rest[0], "_git", rest[2]]  # the older SSH form of the same path
    return [org, *rest] if len(rest) == 3 and rest[1].lower() == "_git" else None


def _codecommit_repository(helper: str, url: str) -> str | None:
    """The repository an AWS git-remote-codecommit remote names (``codecommit://[profile@]
    REPO``, or ``codecommit::REGION://[profile@]REPO``: the helper's prefix already left
    out), None for any other remote. Its HTTPS and SSH forms name it
    ``git-codecommit.REGION.amazonaws.com/v1/repos/REPO``, whose id it gets: the URL has no
    path, so such a clone had its folder's name as its id (or ``:region:/repo``), and did
    not share notes with a teammate's."""
    if helper.lower() == "codecommit":
        m = re.match(r"^[A-Za-z0-9-]+://(?:[^@/]*@)?([^@/]+)/*$", url)
    else:
        m = re.match(r"^codecommit://(?:[^@/]*@)?([^@/]+)/*$", url, re.IGNORECASE)
    return m.group(1) if m else None


#: Hosts whose paths are ``owner/repo`` (nested groups on GitLab): a group named ``scm``
#: there is the project's, not Bitbucket Server's route.
_HOSTED = frozenset({"github.com", "gitlab.com", "bitbucket.org"})


def _gerrit_parts(scheme: str, host: str, parts: list[str]) -> list[str] | None:
    """The project of a Gerrit HTTP(S) remote that takes the authenticated route, None for
    any other. Gerrit serves one project as ``https://HOST/PROJECT`` (anonymous),
    ``https://HOST/a/PROJECT`` (authenticated: ``/a/`` is its route, as ``/scm/`` is
    Bitbucket Server's) and ``ssh://USER@HOST:29418/PROJECT``: without this an
    authenticated clone had the id ``a/project`` and did not share its notes with the
    others. Self-hosted, so known by that path alone: a top-level group named ``a`` on
    another self-hosted server loses it over HTTP(S), as one named ``scm`` does."""
    if scheme not in ("http", "https") or host in _HOSTED or len(parts) < 2:
        return None
    return parts[1:] if parts[0].lower() == "a" else None


def _bitbucket_server_parts(scheme: str, host: str, parts: list[str]) -> list[str] | None:
    """``project/repository`` of a Bitbucket Server (Data Center) HTTP(S) remote, None for
    any other. Its clone dialog spells one repository ``https://HOST[/CONTEXT]/scm/PROJ/
    REPO.git`` over HTTPS (``/scm/`` is the server's route to git, after its context path,
    such as ``/bitbucket``, when it has one) and ``ssh://git@HOST:7999/PROJ/REPO.git`` over
    SSH: without this, an HTTPS clone had the id ``scm/proj/repo`` and an SSH one
    ``proj/repo``, and they did not share their notes. The server is self-hosted, so it is
    known by that path alone: ``scm`` first, or after one folder, before exactly the
    project and the repository."""
    if scheme not in ("http", "https") or host in _HOSTED or len(parts) not in (3, 4):
        return None
    return parts[-2:] if parts[-3].lower() == "scm" else None


def _hidden_in_an_id(gid: str) -> str | None:
    """The first character a project id may not hold, if any: what :func:`_shown_only`
    drops (controls, bidi overrides, zero-width and other invisible characters) and the
    line and paragraph separators (U+2028, U+2029), at which a reader breaks a line: an id
    is printed in a result's line and written into the recall block's attributes. The rule
    of every name kenning stores (:func:`kenning.safety.hidden_character`)."""
    from .safety import hidden_character

    return hidden_character(gid)


def _shown_only(name: str) -> str:
    """``name`` without control and format characters (escape sequences, bidi overrides,
    zero-width characters) and the other characters that show nothing (variation selectors,
    Hangul fillers): a remote URL or a folder name is not checked by anyone, and the id it
    gives is printed (stats, doctor, the page) and written into every memory."""
    from .safety import is_invisible, is_spelling_joiner

    return "".join(
        c
        for i, c in enumerate(name)
        if (unicodedata.category(c) not in ("Cc", "Cf") and not is_invisible(c))
        or is_spelling_joiner(name, i)
    )


#: What git answered so far in one command (:func:`git_asked_once`), by folder and question.
_ASKED: ContextVar[dict[tuple[str, tuple[str, ...]], str | None] | None] = ContextVar(
    "kenning_git_asked", default=None
)


@contextmanager
def git_asked_once() -> Iterator[None]:
    """Within it, git is asked each question about a folder once: ``kenning install`` asked
    it for the same folder's checkout six or seven times (its key in Claude Code's file, the
    one the hooks and each file it plans are filed under, the note on a folder outside git)
    and ``kenning remember`` found its project twice (the store is looked at before it is
    created), ~2.5 ms of CPU a git. Only for a command that moves no checkout and changes
    no remote while it runs; a process that lives on (the MCP server, the page) asks again
    for each call, but where a folder is and its remote, which it keeps while nothing they
    rest on changed (:func:`_discovered`)."""
    token = _ASKED.set({})
    try:
        yield
    finally:
        _ASKED.reset(token)


def _git(cwd: Path, *args: str) -> str | None:
    asked = _ASKED.get()
    if asked is None:
        return _ask_git(cwd, *args)
    key = (os.path.abspath(cwd), args)
    if key not in asked:
        asked[key] = _ask_git(cwd, *args)
    return asked[key]


def _ask_git(cwd: Path, *args: str) -> str | None:
    out = _run_git(cwd, *args)
    if out is None or out.returncode != 0:
        return None
    return out.stdout


def _run_git(
    cwd: Path, *args: str, given: str | None = None
) -> subprocess.CompletedProcess[str] | None:
    """git's answer (``given`` on its stdin), or None where ``cwd`` is no folder to run in;
    :class:`KenningError` when git itself cannot run."""
    try:
        return subprocess.run(
            ["git", *args],
            cwd=cwd,
            input=given,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except FileNotFoundError as exc:
        if exc.filename != "git":  # the folder to run in is gone: not a checkout
            return None
        raise KenningError(
            "cannot run git: it is not installed or not on PATH; kenning finds the project "
            "and its store with git, so install it (or put it on PATH)"
        ) from None
    except (NotADirectoryError, PermissionError):
        return None  # the folder to run in is no folder, or may not be entered
    except (OSError, subprocess.SubprocessError) as exc:
        # not "not a git repository": git itself could not run (no file descriptors left,
        # no memory, a git that hangs)
        raise KenningError(f"cannot run git in {cwd}: {exc}") from None


@dataclass(frozen=True)
class Checkout:
    """Where a folder sits in git: ``toplevel`` is the work tree it belongs to (where an
    agent's configuration files live); ``root`` is the folder every work tree of the
    repository shares, where the store lives: the main checkout, or for work trees of a
    bare repository, the bare repository itself."""

    toplevel: Path
    root: Path
    #: ``root`` is a bare repository (work trees of it, each with its own files).
    bare: bool = False

    @property
    def settings_root(self) -> Path:
        """The folder whose ``.env`` holds the project's settings (``KENNING_PROJECT``,
        ``KENNING_STORE``, …): the main checkout, which every work tree of it shares, or for a
        work tree of a bare repository (which has no files, so no ``.env``) the work tree."""
        return self.toplevel if self.bare else self.root


def is_folder(path: Path) -> bool:
    """Whether ``path`` is a folder; False, not an error, for a path the OS refuses to look
    up (one too long for it: ``Path.is_dir`` raises ``File name too long`` there), as for
    any other path that names no folder. A folder named by an agent's input or the
    environment is checked with it before git is run there."""
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def in_a_checkout(path: Path) -> bool:
    """Whether ``path`` is a folder inside a git work tree (what a folder an agent, a client
    or the environment names must be to be served in place of another)."""
    return is_folder(path) and find_checkout(path) is not None


def find_checkout(cwd: Path) -> Checkout | None:
    """The git work tree containing ``cwd`` and its repository's shared root; None outside
    git. This is the one way kenning finds a project's folders."""
    found = _discovered(cwd)
    return found.checkout if found is not None else None


def shared_git_folder(cwd: Path) -> Path | None:
    """The shared git folder (``git rev-parse --git-common-dir``, resolved) of the work tree
    ``cwd`` is in, from the answer that finds checkouts (:func:`_discovered`: a process
    that lives on asks git again only once what it rests on changed); None where that
    answer has none (outside a work tree)."""
    found = _discovered(cwd)
    return found.common if found is not None else None


#: git's answer to where a folder is: its work tree's top, the repository's shared git
#: folder and the work tree's own (the two differ in a linked work tree).
_WHERE = (
    "rev-parse",
    "--path-format=absolute",
    "--show-toplevel",
    "--git-common-dir",
    "--absolute-git-dir",
)

#: At most this many folders' checkouts are kept: a long-lived process serves a few
#: checkouts, a test run makes thousands.
_MOST_KEPT = 256

#: A file whose time is this close (ns) to when git was asked may have changed after git
#: read it, within one tick of the file system's clock: what git said then is not kept (git
#: treats its index's "racy" entries so). Above the kernel's coarse clock tick (10 ms at
#: most) and a file system's 10 ms steps (exFAT's); one that keeps whole seconds gets 2 s.
_RACY_NS = 30_000_000
_RACY_WHOLE_SECONDS_NS = 2_000_000_000


@dataclass
class _Discovered:
    """What git said of the checkout a folder is in (:data:`_WHERE`), and the state of the
    files and folders that answer rests on (:func:`_discovery_state`, None where it is not
    kept)."""

    checkout: Checkout
    common: Path
    own: Path
    state: tuple[object, ...] | None
    #: Kept in :data:`_KEPT` (else found again by the next call).
    kept: bool = False
    #: ``git remote get-url --all origin`` run in the checkout's root, once asked. It rests
    #: on the repository's config, which ``state`` holds, and is asked after ``state`` was
    #: taken: a change made since is a change of ``state``, which asks again.
    origin: str | None = None
    origin_asked: bool = False

    def origin_urls(self) -> str | None:
        """The ``origin`` remote's URLs as git fetches them (``url.<base>.insteadOf``
        rewrites applied), one a line; None without that remote."""
        if not self.origin_asked:
            # kept: asked now, not taken from what the command asked before ``state``
            ask = _ask_git if self.kept else _git
            self.origin = ask(self.checkout.root, "remote", "get-url", "--all", "origin")
            self.origin_asked = True
        return self.origin


#: Checkouts found so far (:func:`_discovered`), by folder and the environment git ran in.
_KEPT: dict[tuple[str, tuple[tuple[str, str | None], ...]], _Discovered] = {}
#: Held to change :data:`_KEPT` (the MCP server finds checkouts in several threads).
_KEPT_LOCK = threading.Lock()


def _git_environment() -> tuple[tuple[str, str | None], ...]:
    """What of the environment may change git's answers: ``GIT_DIR``, ``GIT_WORK_TREE``,
    ``GIT_CEILING_DIRECTORIES`` and every other ``GIT_*``, where the user's config files are
    (``HOME``, ``XDG_CONFIG_HOME``) and which git runs (``PATH``)."""
    env = os.environ
    named = sorted(name for name in env if name.startswith("GIT_"))
    return (
        *((name, env[name]) for name in named),
        *((name, env.get(name)) for name in ("HOME", "XDG_CONFIG_HOME", "PATH")),
    )


def _discovered(cwd: Path) -> _Discovered | None:
    """Where git says ``cwd`` is, asked again only once a file or folder that answer rests
    on changed (:func:`_discovery_state`): a process that lives on (the MCP server, the
    page, a program using kenning) found the checkout with git each time it opened a store,
    ~2 ms of CPU and ~5 ms of wall a git. git still finds the checkout; what is kept is only
    its answer for a folder in the same environment. None (outside git) is not kept."""
    folder = os.path.abspath(cwd)
    key = (folder, _git_environment())
    kept = _KEPT.get(key)
    if kept is not None:
        now = _discovery_state(cwd, kept.checkout.toplevel, kept.common, kept.own)
        if now is not None and now == kept.state:
            return kept
        with _KEPT_LOCK:
            _KEPT.pop(key, None)
    asked = _ASKED.get()
    # an answer the command took earlier (git_asked_once) is older than the state taken now
    fresh = asked is None or (folder, _WHERE) not in asked
    asked_at = time.time_ns()
    out = _git(cwd, *_WHERE)
    if not out:
        return None
    lines = out.strip().splitlines()
    if lines and lines[0] == "--path-format=absolute":
        # git before 2.31 (Debian 11's 2.30) does not know the option and prints it back,
        # as any it does not know: taken for the top level, it put the store in a folder
        # of that name. Its common dir is then relative to the folder git ran in.
        lines = lines[1:]
    if len(lines) < 2:
        return None
    toplevel, common = Path(lines[0]).resolve(), (cwd / lines[1]).resolve()
    own = Path(lines[2]).resolve() if len(lines) > 2 else common
    times: list[int] = []
    state = _discovery_state(cwd, toplevel, common, own, times)
    found = _Discovered(_checkout_of(toplevel, common), common, own, state)
    if fresh and state is not None and _settled(times, asked_at):
        found.kept = True
        with _KEPT_LOCK:
            if len(_KEPT) >= _MOST_KEPT:
                del _KEPT[next(iter(_KEPT))]
            _KEPT[key] = found
    return found


def _checkout_of(toplevel: Path, common: Path) -> Checkout:
    """The checkout whose work tree is ``toplevel`` and shared git folder ``common``."""
    if common.name == ".git":  # a normal clone, or a linked work tree of one
        return Checkout(toplevel, common.parent)
    # --bool: every spelling git takes for true (yes, on, 1, a key without a value)
    bare = _git(common, "--git-dir", str(common), "config", "--bool", "core.bare")
    if bare is not None and bare.strip() == "true":  # work trees of a bare repository
        return Checkout(toplevel, common, bare=True)
    main = (_git(common, "--git-dir", str(common), "config", "core.worktree") or "").strip()
    checkout = (common / main).resolve() if main else None
    if checkout is not None and checkout.is_dir():
        # a submodule (its repository under the superproject's .git/modules names its work
        # tree): a work tree added from it shares the submodule checkout's store
        return Checkout(toplevel, checkout)
    return Checkout(toplevel, toplevel)  # a repository kept apart (--separate-git-dir)


def _state_of(path: str, times: list[int], *, whole: bool = False) -> tuple[int, ...] | None:
    """What ``stat`` says of ``path`` (None where nothing is): which file or folder it is,
    its mode and owner (git refuses another user's repository, and one it may not read) and,
    for a file (or any, ``whole``), its size and times, which any write to it changes. A
    folder's times change with every file made in it: a folder is known by the rest. The
    times taken go in ``times``."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    if stat.S_ISDIR(st.st_mode) and not whole:
        return (st.st_dev, st.st_ino, st.st_mode, st.st_uid)
    times += (st.st_mtime_ns, st.st_ctime_ns)
    return (st.st_dev, st.st_ino, st.st_mode, st.st_uid, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _user_config_files() -> tuple[str, ...]:
    """The config files of this user and of the system git reads besides the repository's
    (its ``safe.directory`` and ``url.<base>.insteadOf`` among them)."""
    env = os.environ
    home = env.get("HOME", "")
    xdg = env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    return (
        env.get("GIT_CONFIG_GLOBAL", ""),
        os.path.join(xdg, "git", "config"),
        os.path.join(home, ".gitconfig"),
        env.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig",
    )


def _discovery_state(
    cwd: Path, toplevel: Path, common: Path, own: Path, times: list[int] | None = None
) -> tuple[object, ...] | None:
    """The state of what git's answer of where ``cwd`` is rests on (the times of the files
    in it go in ``times``); None where it cannot be told (``cwd`` not inside the work tree
    git named: ``GIT_WORK_TREE``, a ``core.worktree``). It is: the folder itself (and where
    it leads through links), the ``.git`` of it and of each folder above it up to the work
    tree's top (a repository made in a subfolder, a work tree's ``.git`` file), the work
    tree, the git folders (moved, another user's, unreadable: with their ``HEAD``,
    ``objects`` and ``refs``) and the config files (``core.bare``, ``core.worktree``, the
    remotes, ``safe.directory``, ``insteadOf``). A file a config includes is not in it: a
    change there alone is seen once another one changes."""
    here = os.path.realpath(cwd)
    top = str(toplevel)
    if here != top and not here.startswith(top.rstrip(os.sep) + os.sep):
        return None
    taken: list[int] = [] if times is None else times
    above: list[object] = []
    folder = here
    while folder != top:
        above.append(_state_of(os.path.join(folder, ".git"), taken, whole=True))
        folder = os.path.dirname(folder)
    shared, separate = str(common), str(own)
    return (
        here,
        _state_of(here, taken),
        tuple(above),
        _state_of(top, taken),
        _state_of(os.path.join(top, ".git"), taken),
        _state_of(separate, taken),
        _state_of(os.path.join(separate, "HEAD"), taken),
        _state_of(os.path.join(separate, "commondir"), taken),
        _state_of(os.path.join(separate, "config.worktree"), taken),
        _state_of(shared, taken),
        _state_of(os.path.join(shared, "HEAD"), taken),
        _state_of(os.path.join(shared, "config"), taken),
        _state_of(os.path.join(shared, "config.worktree"), taken),
        _state_of(os.path.join(shared, "objects"), taken),
        _state_of(os.path.join(shared, "refs"), taken),
        tuple(_state_of(path, taken) if path else None for path in _user_config_files()),
    )


def _settled(times: list[int], asked_at: int) -> bool:
    """Whether every file time in ``times`` is well before ``asked_at`` (when git was run):
    a file changed while git ran may have changed after git read it, with no time of its own
    to tell."""
    for at in times:
        margin = _RACY_WHOLE_SECONDS_NS if at % 1_000_000_000 == 0 else _RACY_NS
        if at >= asked_at - margin:
            return False
    return True


class RepositoryRefused(UserInputError):
    """Git will not work in the repository (another user's, not in ``safe.directory``): the
    folder is in a checkout, which a caller must not report as "not inside a git
    repository"."""


class NoProjectHere(UserInputError):
    """The folder kenning runs in is in no checkout and nothing names the project (no
    ``KENNING_PROJECT``, no ``--project``), a store named or not: a command that needs the
    checkout itself (``kenning stale``) says so instead of suggesting those (qa77 F7, qa79
    F5)."""


def _check_not_refused_by_git(cwd: Path) -> None:
    """Raise when git will not work in the repository at ``cwd``: it belongs to another
    user (a container's mounted volume, a shared folder) and is not in ``safe.directory``
    (:func:`find_checkout` then finds no checkout, as outside git)."""
    run = _run_git(cwd, "rev-parse", "--git-dir")
    if run is None or run.returncode == 0 or "safe.directory" not in run.stderr:
        return
    m = re.search(r"dubious ownership in repository at '([^\n]*)'", run.stderr)
    where = _shown_only(m.group(1)) if m else "this folder"
    raise RepositoryRefused(
        f"git refuses to work in the repository at {where}: it is owned by another user "
        "(git's safe.directory check), so kenning cannot tell which project this is; if you "
        f"trust it, run `git config --global --add safe.directory {where}` and try again"
    )


def _check_repository_readable(cwd: Path) -> None:
    """Raise when the nearest ``.git`` folder at or above ``cwd`` cannot be read by this
    user (its ``objects``, ``refs`` or ``HEAD``, or an ``objects`` or ``refs`` it may list
    and not search, mode 644: a checkout copied as another user, a ``chmod`` gone wrong):
    git then takes it for no repository at all, and kenning said "not inside a git
    repository", whose ``git init`` would make a second one. Called once git found no
    checkout: it costs nothing on the usual path."""
    here = Path(os.path.abspath(cwd))
    for folder in (here, *here.parents):
        dot_git = folder / ".git"
        try:
            if not dot_git.is_dir():
                if dot_git.exists():
                    return  # a linked work tree's or a submodule's .git file: git's to say
                continue
            for part in ("objects", "refs"):
                os.scandir(dot_git / part).close()
                try:  # and searched: git takes one listed and not searched (644) for none
                    os.stat(os.path.join(dot_git, part, "."))  # (pathlib drops a ".")
                except PermissionError as exc:
                    raise PermissionError(exc.errno, exc.strerror, str(dot_git / part)) from None
            (dot_git / "HEAD").open("rb").close()
        except FileNotFoundError:
            return  # not a repository git would take: not this check's
        except OSError as exc:
            where = _shown_only(str(folder))
            raise RepositoryRefused(
                f"{where} holds a git repository this user cannot read ({exc.strerror}: "
                f"{_shown_only(str(exc.filename))}), so git sees no repository there and kenning "
                "cannot tell which project this is; give this user read access to its .git "
                f"folder (as its owner: chmod -R u+rwX {shlex.quote(str(dot_git))}), or run "
                "kenning as the user who owns it"
            ) from None
        return
    return


def repository_refused(cwd: Path) -> RepositoryRefused | None:
    """Once :func:`find_checkout` found no checkout at ``cwd``: the repository there that
    git will not work in (another user's) or this user cannot read, as the error that says
    which and how to fix it; None when ``cwd`` is outside git. Every place that tells the
    user a folder is "not inside a git repository" asks this first (its ``git init`` would
    make a second repository)."""
    try:
        _check_not_refused_by_git(cwd)
        _check_repository_readable(cwd)
    except RepositoryRefused as refused:
        return refused
    return None


def in_repository_without_work_tree(cwd: Path) -> bool:
    """Is ``cwd`` a bare repository or inside a ``.git`` folder (git works there, but there
    is no work tree to find a project's files and store by)?"""
    out = _git(cwd, "rev-parse", "--is-bare-repository", "--is-inside-git-dir")
    return out is not None and "true" in out.split()


def _name_of(root: Path) -> str:
    """The project name a root folder stands for (``repo.git`` and ``proj/.bare`` → the
    repository's name)."""
    name = root.name.removesuffix(".git")
    if name in ("", ".bare"):
        name = root.parent.name
    return name


#: The project id of a checkout whose remote or (no remote) folder is named ``all``: ``all``
#: means every project where a command reads several, and an export of it could not be
#: imported.
RESERVED_NAME_PROJECT = "all-project"


#: The project id of a checkout (no remote) whose folder's name shows nothing (only spaces
#: or invisible characters), which gave the empty id: a project id is never blank (an
#: export of its notes could not be imported, nor written whole).
UNNAMED_PROJECT = "unnamed-project"


#: The project id of a store opened for every project (``--project all``) where no project
#: of its own can be found: the reserved word, so that it is no project's.
EVERY_PROJECT = "all"


def group_id_from_name(name: str) -> str:
    return re.sub(r"\s+", "-", _shown_only(name).strip().lower())


#: The longest project id, in bytes of UTF-8: every backend indexes it with the content hash
#: (PostgreSQL's btree takes at most 2,704 bytes a row), so one id works on all of them.
MAX_GROUP_ID_BYTES = 1024


#: How the error of a project id given as an argument names where it came from.
GROUP_ID_ARGUMENT = "the group_id argument"


def check_group_id(value: str, origin: str) -> str:
    """A project id given by a user: not blank, not ``all`` (which means every project where
    a command reads several), UTF-8 text without control characters, at most
    :data:`MAX_GROUP_ID_BYTES`. From :data:`GROUP_ID_ARGUMENT`, the error is the
    ``group_id`` parameter's (a surface names its own option for it)."""

    def refused(before: str, after: str) -> UserInputError:
        if origin == GROUP_ID_ARGUMENT:
            return UserInputError.of_parameter("group_id", origin, after, before=before)
        return UserInputError(f"{before}{origin}{after}")

    gid = value.strip()
    try:
        size = len(gid.encode("utf-8"))
    except UnicodeEncodeError:
        raise refused(
            "the project id from ", " is not valid UTF-8 text; pass a name like owner/repo"
        ) from None
    if size > MAX_GROUP_ID_BYTES:
        # the start shown is cut, then redacted (what redacting all of it gives): redacting
        # a 1 MB id to show 40 characters of it cost ~0.5 CPU-s
        from .render import redacted_text_start

        start = redacted_text_start(gid, 40)
        raise refused(
            "the project id from ",
            f" ({start!r}…) is {size} bytes, over the limit: a project id is at most "
            f"{MAX_GROUP_ID_BYTES} bytes; pass a name like owner/repo",
        )
    hidden = _hidden_in_an_id(gid)
    if hidden is not None:
        raise refused(
            f"{_shown_id(value)!r} (from ",
            f") cannot be a project id: it holds U+{ord(hidden):04X} "
            f"({unicodedata.name(hidden, 'a control character').lower()}), which shows as "
            "nothing or breaks a line where the id is shown; pass a name like owner/repo "
            "without control or invisible characters",
        )
    if not gid or means_every_project(gid):  # (all it shows: no hidden character above)
        raise refused(
            f"{_shown_id(value)!r} (from ",
            ") cannot be a project id: it must be a non-blank name like owner/repo without "
            "control or invisible characters, and 'all' is reserved for every project",
        )
    # a project id is stored with every note, and said in messages: a credential pasted
    # into one (a CI variable, an export's group_id) is redacted, for a read as for a write
    return _shown_id(gid)


#: A project id of short names (owner/repo, my-team/app-v2) that names no secret holds no
#: credential: every token redaction finds has a longer run, and a password a '=', ':', '@'
#: or its name. Only another id loads the redaction rules (~0.15 s), which a recall does
#: not otherwise need.
_PLAIN_ID = lazy(r"(?:[A-Za-z0-9.\-]{0,15}[/_ ])*[A-Za-z0-9.\-]{0,15}")
_NAMES_A_SECRET = lazy(r"pass|pw|secret|token|key|auth|cred|bearer", re.IGNORECASE)


def _shown_id(value: str) -> str:
    """``value`` with any credential in it redacted."""
    return _redacted_id(value)[0]


def group_id_redactions(value: str) -> tuple[tuple[str, int], ...]:
    """The secrets :func:`check_group_id` redacts from the project id ``value``, kind by
    kind (none for an id it keeps as it is)."""
    return _redacted_id(value.strip())[1]


@functools.lru_cache(maxsize=256)
def _redacted_id(value: str) -> tuple[str, tuple[tuple[str, int], ...]]:
    """``value`` with any credential in it redacted, and what was (once per id: an import
    checks the id of every line, and ids repeat; a long one cost ~40 µs a line to redact
    again)."""
    if _PLAIN_ID.fullmatch(value) and not _NAMES_A_SECRET.search(value):
        return value, ()
    from .redaction import redact_secrets

    text, found = redact_secrets(value)
    return text, tuple(sorted(found.items()))


def means_every_project(group_id: str | None) -> bool:
    """Whether a project argument is ``all``: the word for every project of the store (any
    case, spaces around it), reserved so that no project can be called so."""
    return isinstance(group_id, str) and group_id.strip().lower() == "all"


def case_variants(group_id: str | None, ids: Iterable[str]) -> tuple[str, ...]:
    """Those of ``ids`` that differ from ``group_id`` only in letter case: project ids are
    case-sensitive (``--project Acme/Widgets`` reads none of ``acme/widgets``'s notes), and
    an empty answer names such an id as the likely one meant."""
    if group_id is None:
        return ()
    folded = group_id.casefold()
    return tuple(other for other in ids if other != group_id and other.casefold() == folded)


def same_repository_ids(group_id: str | None, ids: Iterable[str]) -> tuple[str, ...]:
    """Those of ``ids`` (other than ``group_id``) that end in the same repository name:
    the id an earlier kenning made of this checkout's remote (``scm/proj/repo`` for
    ``proj/repo``, ``v3/org/proj/repo`` for ``org/proj/_git/repo``, ``a/project`` for
    ``project``) or a former remote gave it. Notes under such an id are likely this
    project's, stranded by the change: nothing reads them once the new id has notes."""
    if group_id is None:
        return ()

    def repository(gid: str) -> str:
        last = gid.rstrip("/").rsplit("/", 1)[-1].casefold()
        return last.removesuffix(".git")

    name = repository(group_id)
    return tuple(o for o in ids if o != group_id and name and repository(o) == name)


def others_to_name(group_id: str, counts: Mapping[str, int], limit: int) -> dict[str, int]:
    """Of a store's project ids and their memories (``counts``, the most first): {} when
    ``group_id`` has memories, else the ids that differ from it only in letter case (the id
    most likely meant, however few its memories), then the ones with the most memories,
    ``limit`` in all (or the case variants alone, should they be more)."""
    if counts.get(group_id):
        return {}
    found = {gid: counts[gid] for gid in case_variants(group_id, counts)}
    for gid, n in counts.items():
        if len(found) >= limit:
            break
        found.setdefault(gid, n)
    return found


def folder_group_id(root: Path) -> str:
    """The id the checkout at ``root`` gets from its folder's name alone, as it had before
    an ``origin`` remote was added (``git init``, notes, then ``git remote add``)."""
    gid = group_id_from_name(_name_of(root))
    return RESERVED_NAME_PROJECT if gid == "all" else gid or UNNAMED_PROJECT


def earlier_group_id(project: Project) -> str | None:
    """The id ``project``'s checkout had before its ``origin`` remote was added (its
    folder's name: :func:`folder_group_id`), when its id now comes from that remote and is
    another; None outside a checkout, without a remote, or when the two are one. What
    recall, stats, session start and doctor look for notes under."""
    root = project.checkout_root
    if root is None or not project.remote or normalise_remote(project.remote) != project.group_id:
        return None  # (an id given by --project or KENNING_PROJECT was never the folder's)
    earlier = folder_group_id(root)
    return None if earlier == project.group_id else earlier


def alike_to_name(group_id: str, counts: Mapping[str, int], limit: int) -> dict[str, int]:
    """Of a store's project ids and their memories (``counts``, the most first): the other
    ids that end in ``group_id``'s repository name (:func:`same_repository_ids`), ``limit``
    at most."""
    return {gid: counts[gid] for gid in same_repository_ids(group_id, counts)[:limit]}


def where_searched(group_id: str | None) -> str:
    """How a message names where a memory was looked for: this project, another one, or
    every project."""
    if group_id is None:
        return "this project"
    return "any project" if means_every_project(group_id) else f"project {group_id}"


def configured_store(root: Path | None) -> tuple[str | None, str]:
    """``KENNING_STORE`` (the environment's, else the ``.env`` of the checkout at ``root``)
    and where it came from, as :func:`~kenning.config.project_variable` gives them; a value
    no store can be read from (a URL without its //, libpq's key=value form, a scheme kenning
    does not speak) is a :class:`UserInputError`, which names the .env that holds it."""
    from . import config

    configured, origin = config.project_variable("KENNING_STORE", root)
    if configured:
        try:
            server = config.is_store_url(configured) and _qdrant_local_folder(configured) is None
            if server:
                # (imported for a server alone: the backends' package loads numpy, which a
                # hook in a project without a store has no use for)
                from .backends.registry import backend_kind

                backend_kind(configured)
        except UserInputError as exc:
            if origin != ".env" or root is None:
                raise
            # a file the user may not think of (the value is not in their shell): named
            raise UserInputError(f"KENNING_STORE in {root / '.env'}: {exc}") from None
        if server and origin == ".env" and root is not None and _tracked(root, ".env"):
            from .redaction import redact_url

            raise UserInputError(
                f"KENNING_STORE in {root / '.env'} names a server ({redact_url(configured)}), "
                "and that .env is committed to the repository: a repository you clone could "
                "send every prompt your hooks and agents recall for to a server it chose, so "
                "kenning does not take a server from a committed file. Set KENNING_STORE in "
                "your environment (or in an .env git does not track), or remove it from the "
                ".env to use the project's own store"
            )
    return configured, origin


def _refuse_a_committed_project_on_a_server(gid: str, root: Path, store_url: str | None) -> None:
    """A committed ``.env``'s ``KENNING_PROJECT`` on a server store: a repository you clone
    would choose which project's memories of your team's server its sessions read and write
    (qa-s65b B1). The project's own store holds only what was written in this checkout, so
    there it is taken."""
    if store_url is None or _qdrant_local_folder(store_url) is not None:
        return
    if not _tracked(root, ".env"):
        return
    raise UserInputError(
        f"KENNING_PROJECT in {root / '.env'} names the project {gid!r}, and that .env is "
        "committed to the repository: on a server store a repository you clone could read "
        "and write another project's memories (its notes in your agent's sessions, its "
        "sessions' notes in that project's), so kenning does not take a project id from a "
        "committed file there. Set KENNING_PROJECT in your environment (or in an .env git "
        "does not track), or remove it from the .env to use the checkout's own id"
    )


def settings_committed(root: Path) -> bool:
    """Whether the ``.env`` of the checkout at ``root`` came with the repository (git tracks
    it): a clone's settings, not this machine's user's (kenning takes no server from it)."""
    return _tracked(root, ".env")


def _tracked(root: Path, name: str) -> bool:
    """Whether the file ``name`` of the checkout at ``root`` is committed (in git's index):
    it came with the repository, as a clone gets it, not from this machine's user."""
    return _git(root, "ls-files", "--error-unmatch", "--", name) is not None


def resolve_project(
    cwd: Path | None = None,
    group_id: str | None = None,
    store_path: Path | None = None,
    store_url: str | None = None,
    every_project: bool = False,
) -> Project:
    """Resolve the project for ``cwd``: its root, id and store.

    Without ``store_path`` / ``store_url``, ``KENNING_STORE`` (environment, then the
    project's ``.env``) may name the store; without ``group_id``, ``KENNING_PROJECT`` may
    name the project. Raises :class:`UserInputError` outside a git repo unless both a
    project id and a store are given (explicitly or by environment).

    ``every_project`` (a command given ``--project all``, which names no project of its own):
    where no project can be found (outside git, no ``KENNING_PROJECT``), a named store is
    opened for every project — ``group_id`` :data:`EVERY_PROJECT`, which no project can be
    called, so nothing takes it for a write (:meth:`MemoryStore.own_group_id`)."""
    from . import config

    cwd = Path(cwd or Path.cwd())
    found = _discovered(cwd)
    checkout = found.checkout if found is not None else None
    root = checkout.root if checkout is not None else None
    # the .env read: the main checkout's (a path in it is relative to root all the same)
    env_root = checkout.settings_root if checkout is not None else None

    def said(origin: str) -> str:
        """Where a refused value came from: the .env by its path, as every setting's error
        names it (run from a subfolder, ".env" reads as the one beside the user)."""
        return str(env_root / ".env") if origin == ".env" and env_root is not None else origin

    if store_path is None and store_url is None:
        configured, origin = configured_store(env_root)
        if configured and config.is_store_url(configured):
            store_url = configured
            local = _qdrant_local_folder(configured)
            if origin != "default" and root is not None and local and not local.is_absolute():
                # relative to the project, as a store path in .env or the environment is (not
                # to the folder kenning runs in: a subfolder would get a second store)
                store_url = f"{configured.strip()[: len('qdrant-local:')]}{root / local}"
        elif configured:
            store_path = config.expand_home(configured, f"KENNING_STORE ({said(origin)})")
            if root is not None and not store_path.is_absolute():
                # in .env, or exported by the shell (direnv's .envrc exports it as written):
                # the project's, wherever in it kenning runs; each subfolder had a store
                store_path = root / store_path
    remote = None
    if found is not None:
        # the first URL, which git fetches from: a second one (`set-url --add`, to push to
        # a mirror as well) must not change the project
        # (as git fetches them: `url.<base>.insteadOf` rewrites applied, so an alias
        # such as "me:widgets" gives the project a plain clone of the same URL has)
        remote_out = found.origin_urls()
        urls = (remote_out or "").strip().splitlines()
        remote = urls[0].strip() if urls else None
    id_redactions: tuple[tuple[str, int], ...] = ()
    if group_id is not None:
        # the argument open_store was given (the CLI's --project: it says so itself)
        gid = check_group_id(group_id, GROUP_ID_ARGUMENT)
        id_redactions = group_id_redactions(group_id)
    else:
        configured, origin = config.project_variable("KENNING_PROJECT", env_root)
        if configured:
            gid = check_group_id(configured, f"KENNING_PROJECT ({said(origin)})")
            if origin == ".env" and env_root is not None:
                _refuse_a_committed_project_on_a_server(gid, env_root, store_url)
            id_redactions = group_id_redactions(configured)
        elif root is not None:  # (there is a remote only in a checkout)
            gid = (remote and normalise_remote(remote)) or group_id_from_name(_name_of(root))
            if remote and "[REDACTED:" in gid:  # a credential the remote's path held
                from .redaction import redaction_markers

                id_redactions = tuple(sorted(redaction_markers(gid).items()))
            if gid == "all":
                # the word for every project: a remote ("git@server:all.git") or a folder
                # named so gets its own
                gid = RESERVED_NAME_PROJECT
            elif not gid:  # a folder named only with spaces or invisible characters
                gid = UNNAMED_PROJECT
        else:
            # "all" outside git: a store named to read every project of needs no project
            gid = EVERY_PROJECT if every_project and (store_path or store_url) else ""
    if root is None and store_url is not None and gid:
        here = cwd.resolve()
        return Project(
            here,
            gid,
            here / STORE_DIRNAME / STORE_FILENAME,
            None,
            store_url,
            id_redactions=id_redactions,
        )
    if root is None:
        if store_path is None or not gid:
            if not is_folder(cwd):
                # a mistyped folder inside a checkout is no "not inside a git repository",
                # whose `git init` there would make a second repository (qa-s70a F5)
                raise UserInputError(
                    f"{_shown_only(str(cwd))} does not exist or is not a folder, so kenning "
                    "cannot tell which project it is in; give a folder of your project's "
                    "checkout"
                )
            refused = repository_refused(cwd)
            if refused is not None:
                raise refused
            if in_repository_without_work_tree(cwd):
                raise UserInputError(
                    f"{cwd} is inside a git repository with no work tree here (a bare "
                    "repository or a .git folder); run kenning in one of its work trees "
                    "(`git worktree list` shows them)"
                )
            if store_path is not None or store_url is not None:
                # the store is given: the project is all that is missing
                raise NoProjectHere(
                    f"{cwd} is not inside a git repository, so kenning cannot tell which "
                    "project of the store this is; set KENNING_PROJECT, or give a command "
                    "--project ID (`--project all` reads every project of the store), or run "
                    "kenning inside the project's checkout"
                )
            raise NoProjectHere(
                f"{cwd} is not inside a git repository, so kenning cannot tell which project "
                "this is; run it inside your project's checkout (or `git init`), or set both "
                "KENNING_PROJECT and KENNING_STORE"
            )
        store = store_path if names_a_file(store_path) else store_path / STORE_FILENAME
        return Project(
            root=store.parent.resolve(),
            group_id=gid,
            store_path=store,
            remote=None,
            id_redactions=id_redactions,
        )
    if store_path is None:
        store = root / STORE_DIRNAME / STORE_FILENAME
    else:
        store = store_path if names_a_file(store_path) else store_path / STORE_FILENAME
    return Project(
        root=root,
        group_id=gid,
        store_path=store,
        remote=remote,
        store_url=store_url,
        work_tree=checkout.toplevel if checkout is not None else None,
        id_redactions=id_redactions,
        settings_root=env_root,
        subfolder=_subfolder(cwd, checkout.toplevel) if checkout is not None else None,
    )


def _subfolder(cwd: Path, toplevel: Path) -> str | None:
    """``cwd`` from the top of the work tree at ``toplevel`` (None at the top, or outside)."""
    try:
        inner = cwd.resolve().relative_to(toplevel.resolve()).as_posix()
    except (OSError, ValueError):
        return None
    return None if inner in ("", ".") else inner


def store_named_by(store_path: str | None, project: Project) -> str | None:
    """What named the store ``project`` was opened with: ``--store`` (``store_path``, the
    option's value), ``KENNING_STORE`` (the environment) or ``KENNING_STORE in <root>/.env``;
    None for the default store. A store the user names is one they expect to be there (an
    export of a mistyped one must not pass for a backup of an empty store)."""
    from . import config

    if store_path is not None and store_path.strip():
        return "--store"
    root = project.dotenv_root  # .env: a checkout's only
    value, origin = config.project_variable("KENNING_STORE", root)
    if value is None:
        return None
    if origin == "environment" or root is None:
        return "KENNING_STORE"
    return f"KENNING_STORE in {root / '.env'}"


#: What ``.kenning/.gitignore`` says (as pytest's and ruff's caches do): the store and its
#: derived files are this machine's data, never source; the settings file may be shared.
STORE_GITIGNORE = """\
# Written by kenning: the store (memory.db and the files beside it) is local data, not
# source; share memories with `kenning export`. config.toml (thresholds, floors) may be
# committed.
*
!config.toml
"""


def ignore_store_files(project: Project) -> None:
    """Put :data:`STORE_GITIGNORE` in the project's ``.kenning`` folder when the store is
    there (the default location; or a Qdrant local-mode folder inside it) and the folder has
    no ``.gitignore`` of its own. Best effort: an unwritable folder is the store's problem,
    reported when it is written."""
    folder = project.root / STORE_DIRNAME
    if project.store_url is not None:
        local = _qdrant_local_folder(project.store_url)
        if local is None or not local.resolve().is_relative_to(folder.resolve()):
            return
    else:
        # a store given by a relative path (`--store .kenning/memory.db`) is there too, and
        # one in a folder under it (`.kenning/team/alt.db`): the `*` ignores every file below
        try:
            if not project.store_path.parent.resolve().is_relative_to(folder.resolve()):
                return
        except OSError:
            return
    try:
        with open(folder / ".gitignore", "x", encoding="utf-8") as out:
            out.write(STORE_GITIGNORE)
    except OSError:  # there already (the user's own is kept), or the folder is not writable
        pass


@dataclass(frozen=True)
class UnignoredStore:
    """A store kept inside the checkout whose files git does not ignore
    (:func:`unignored_store`): ``git status`` lists them and ``git add -A`` commits them."""

    #: The store's file (or Qdrant local-mode folder) from the top of the checkout.
    shown: str
    #: The line of ``.gitignore`` (at the top of the checkout) that ignores it and the files
    #: kenning keeps beside it, and nothing else.
    line: str
    #: The ``.gitignore`` the line goes in.
    gitignore: Path
    #: git tracks the store already (committed or staged): an ignore rule does not untrack it.
    tracked: bool = False
    #: A Qdrant local-mode folder, not an SQLite store file.
    folder: bool = False

    @property
    def message(self) -> str:
        """What is wrong, as a warning says it (without its fix)."""
        what = f"the Qdrant store folder {self.shown}" if self.folder else f"the store {self.shown}"
        files = "its files" if self.folder else "its -wal and -shm files with it"
        if self.tracked:
            return (
                f"{what} is tracked by git: every commit that takes it takes this machine's "
                f"notes ({files}); share memories with `kenning export`"
            )
        return (
            f"{what} is not ignored by git: `git status` lists it and `git add -A` would "
            f"commit the notes ({files}); share memories with `kenning export`"
        )

    @property
    def fix(self) -> str:
        """The lines that fix it."""
        untrack = (
            f"`git rm -r --cached {shlex.quote(self.shown)}` (the files stay), then "
            if self.tracked
            else ""
        )
        return (
            f"{untrack}add the line {self.line} to {self.gitignore} (or to .git/info/exclude, "
            "for this clone only)"
        )


#: Characters a ``.gitignore`` pattern gives a meaning: escaped in a line kenning suggests.
_GITIGNORE_SPECIAL = lazy(r"([\\*?\[])")


def _gitignore_line(relative: str) -> str:
    """An anchored ``.gitignore`` pattern naming ``relative`` (from the top) literally."""
    line = "/" + _GITIGNORE_SPECIAL.sub(r"\\\1", relative)
    stripped = line.rstrip(" ")
    return stripped + "\\ " * (len(line) - len(stripped))  # trailing spaces are dropped


def unignored_store(project: Project) -> UnignoredStore | None:
    """The store's files when they lie inside the checkout and git does not ignore every one
    of them (a ``KENNING_STORE=data/team.db``, or a ``qdrant-local:`` folder there), else
    None: a server's store, one outside the checkout or outside git, one git ignores (the
    default ``.kenning/``, whose own ``.gitignore`` kenning writes), or git could not say.
    An SQLite store is asked with the files kenning keeps beside it (``-wal``, ``-shm``, the
    vector and ANN files): ``*.db`` in a ``.gitignore`` leaves its ``-wal`` listed. One or
    two git calls; callers ask once (at the store's creation) or when asked (doctor)."""
    root = project.checkout_root
    if root is None:
        return None
    folder = False
    if project.store_url is not None:
        local = _qdrant_local_folder(project.store_url)
        if local is None:
            return None
        target, folder = local, True
    else:
        target = project.store_path
    try:
        top = root.resolve()
        resolved = target.resolve()  # as the store-location guard reads it
    except (OSError, RuntimeError):
        return None
    if resolved == top or not resolved.is_relative_to(top):
        return None
    relative = resolved.relative_to(top).as_posix()
    if relative.split("/", 1)[0] == ".git":
        return None
    if folder:  # a file in it: `/data/qdrant/` and `/data/qdrant/*` both ignore it
        asked = [f"{relative}/meta.json"]
    else:
        from .backends.sqlite import STORE_FILE_SUFFIXES

        asked = [relative + suffix for suffix in STORE_FILE_SUFFIXES]
    out = _run_git_quietly(top, ["check-ignore", "--stdin", "-z"], "\0".join(asked) + "\0")
    if out is None or out.returncode not in (0, 1):
        return None  # not a repository git reads here, a path in a submodule: not known
    ignored = set(out.stdout.split("\0"))
    if all(path in ignored for path in asked):
        return None
    listed = _run_git_quietly(top, ["ls-files", "-z", "--", f":(literal){relative}"], "")
    tracked = listed is not None and listed.returncode == 0 and bool(listed.stdout)
    line = _gitignore_line(relative) + ("/" if folder else "*")
    return UnignoredStore(relative, line, top / ".gitignore", tracked, folder)


def _run_git_quietly(
    cwd: Path, args: list[str], given: str
) -> subprocess.CompletedProcess[str] | None:
    """:func:`_run_git`, None where git cannot run (a warning's question never fails)."""
    try:
        return _run_git(cwd, *args, given=given)
    except KenningError:
        return None


def store_is_there(project: Project) -> bool:
    """Whether the store's file (or its Qdrant local-mode folder) exists; False for a
    server's store."""
    try:
        if project.store_url is not None:
            local = _qdrant_local_folder(project.store_url)
            return local is not None and local.is_dir()
        return project.store_path.exists()
    except OSError:
        return False


def _under_kenning_own_gitignore(project: Project) -> bool:
    """Whether the store lies in the project's ``.kenning`` folder and the ``.gitignore``
    there is kenning's own (:data:`STORE_GITIGNORE`: every file but config.toml)."""
    folder = project.root / STORE_DIRNAME
    local = _qdrant_local_folder(project.store_url) if project.store_url else None
    target = local if local is not None else project.store_path
    try:
        if not target.resolve().is_relative_to(folder.resolve()):
            return False
        return (folder / ".gitignore").read_text(encoding="utf-8") == STORE_GITIGNORE
    except (OSError, UnicodeDecodeError, RuntimeError):
        return False


def say_if_not_ignored(project: Project) -> None:
    """Log (once, as a warning) that the store just created inside the checkout is not
    ignored by git, with the line that ignores it (:func:`unignored_store`): kenning writes
    a ``.gitignore`` only in ``.kenning/``, its own folder, never in a folder of the user's.
    Never raises."""
    import logging

    try:
        if _under_kenning_own_gitignore(project):
            return  # `*` there: a new store cannot be tracked yet (no git call: the default)
        found = unignored_store(project)
    except Exception:  # a warning's question: never a reason for a write to fail
        return
    if found is not None:
        logging.getLogger("kenning.project").warning("kenning: %s; %s", found.message, found.fix)


def keep_store_out_of_git(project: Project, *, new: bool) -> None:
    """What a store just opened gets, by every command that makes one (remember, import,
    migrate's target): the ``.kenning/.gitignore`` when it lies there
    (:func:`ignore_store_files`; a read's too: a store made before kenning wrote it), then,
    when it was made now (``new``: not there before the open), the warning of a store
    elsewhere in the checkout that git does not ignore (:func:`say_if_not_ignored`). Never
    raises."""
    ignore_store_files(project)
    if new and store_is_there(project):
        say_if_not_ignored(project)


def guards_a_path(store_url: str | None) -> bool:
    """Whether the store-location guard applies to a store named so: a store file's path, or
    the folder of Qdrant's local mode (written as a store file is), not a server's URL."""
    return store_url is None or _qdrant_local_folder(store_url) is not None


def _qdrant_local_folder(url: str) -> Path | None:
    """The folder of a ``qdrant-local:<folder>`` store (None for a server URL)."""
    from . import config

    text = url.strip()
    prefix = config.QDRANT_LOCAL_PREFIX
    if not text.lower().startswith(prefix) or not text[len(prefix) :].strip():
        return None

    try:
        return config.expand_home(text[len(prefix) :].strip(), "the Qdrant store folder")
    except KenningError:
        return None


def names_a_file(store_path: Path) -> bool:
    """Whether ``--store``/``KENNING_STORE`` names the database file itself (a ``.db`` path,
    or any file that exists: a damaged store moved aside as ``memory.db.damaged`` is read
    out with ``kenning export --store``), rather than the folder it is in."""
    return store_path.suffix == ".db" or store_path.is_file()


def store_location_fix(project: Project) -> str:
    """What to do about a store the store-location guard refuses (:func:`check_store_location`):
    name one inside the project; and of a link out of it (a store file, its folder, a Qdrant
    local-mode folder), how to keep the memories it holds: removing the link alone gave the
    project a new, empty store while they stayed where the link led (qa-s69b F6, qa-s69c F5)."""
    root = project.root.resolve()
    local = _qdrant_local_folder(project.store_url) if project.store_url else None
    named = Path(os.path.abspath(local if local is not None else project.store_path))
    resolved = named.resolve()
    what = "a folder" if local is not None else "a file"
    fix = f"point --store, --to or KENNING_STORE at {what} inside {root}"
    if named == resolved:
        return fix
    store = f"qdrant-local:{resolved}" if local is not None else str(resolved)
    return (
        f"{fix}; or, to keep the memories it holds in this project, copy them in and drop the "
        f"link: `kenning export --store {shlex.quote(store)} -o memories.jsonl`, remove the "
        f"link ({_link_of(named)}), `kenning import memories.jsonl`, then delete "
        "memories.jsonl (removing the link alone leaves them where it led, and the project a "
        "new, empty store)"
    )


def _link_of(path: Path) -> Path:
    """The symlink on ``path``'s way: itself or its nearest folder that is one."""
    for part in (path, *path.parents):
        if part.is_symlink():
            return part
    return path


def file_in_the_way(path: Path) -> Path | None:
    """The first folder on the way to ``path`` that exists as something else (a file named
    ``.kenning``), or None."""
    for folder in reversed(path.parents):
        if folder.exists() and not folder.is_dir():
            return folder
    return None


def surely_no_store(cwd: Path) -> bool:
    """Whether ``open_store(cwd=cwd, create=False, missing_ok=True)`` (:mod:`kenning.store`)
    would surely raise nothing and open no store: the project resolves, and its store is a
    SQLite file that is not there, found by the steps ``open_store`` takes to find that out.
    False when anything else may happen (a server's store, a file there, an error on the
    way), which ``open_store`` then says. A hook in a project without a store (any project,
    where the plugin is installed user-wide) asks this first and is spared ``kenning.store``'s
    import (numpy, the backends: ~0.06 CPU-s of the hook's 0.21). Keep it in step with
    ``open_store``: tests/test_project.py holds the two to the same answers."""
    from . import config

    try:
        if "\x00" in os.fspath(cwd):  # (open_store refuses it)
            return False
        project = resolve_project(cwd)
        if project.store_url is not None:
            return False
        path = config.expand_home(project.store_path, "the store path")
        if path.exists():
            return False
        # the looks open_store takes at a missing file (the SQLite backend's at ``path``, to
        # say why it is missing; its own at the path as named), for the errors they may raise
        blocking = file_in_the_way(path)
        if path != project.store_path:
            blocking = file_in_the_way(project.store_path)
        if blocking is None:
            with suppress(StoreLocationError):
                check_store_location(project)
    except Exception:
        return False
    return True


def check_store_location(project: Project) -> Path:
    """The store-location guard: return the resolved store path (or the folder of a
    ``qdrant-local:`` store), or refuse.

    The path is resolved through symlinks (of ``.kenning`` or any ancestor); it must lie
    inside the project root, which is resolved the same way. A server's store has no path:
    nothing to check (callers check only a store with one, :func:`guards_a_path`).
    """
    root = project.root.resolve()
    local = _qdrant_local_folder(project.store_url) if project.store_url else None
    resolved = (local if local is not None else project.store_path).resolve()
    if not resolved.is_relative_to(root):
        raise StoreLocationError(
            f"refusing to write: the store resolves to {resolved}, which is outside the project "
            f"root {root} (a symlinked or external store would mix projects' memories); "
            f"{store_location_fix(project)}"
        )
    home = Path.home().resolve()
    if resolved.parent == home / STORE_DIRNAME and root == home:
        raise StoreLocationError(
            f"refusing to write: the store would be the global {resolved} (your home folder "
            "is a git repository); run kenning inside a project checkout"
        )
    return resolved
