"""The plumbing every part of :class:`~kenning.store.MemoryStore` stands on, the first part
of its chain (:mod:`kenning.store` lists them): the store's backend, project and settings
(read again when their files change), whether the store exists or was replaced, its embedder
and the provenance check of its vectors, the read path's lexical worker thread, and
closing. The input checks every part shares live here too.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any, Self, TypeVar, cast

import numpy as np

from .backends.base import (
    Backend,
    KnowsItIsReadOnly,
    MarksAReembed,
    UpgradesSchema,
    forks_so_far,
    renew_after_fork,
)
from .config import Settings, SettingsFiles
from .embedders.base import Embedder
from .errors import (
    CredentialOnlyContent,
    KenningError,
    ProvenanceMismatch,
    StoreClosed,
    UserInputError,
)
from .model import Provenance
from .project import (
    GROUP_ID_ARGUMENT,
    STORE_DIRNAME,
    Project,
    check_group_id,
    check_store_location,
    guards_a_path,
    means_every_project,
)
from .reembed import REEMBED_STATE_KEY, reembed_running

_T = TypeVar("_T")


def check_list_of(values: object, kind: type[_T], method: str, hint: str) -> list[_T]:
    """``values`` as ``method`` takes them, a list of ``kind``, refused with
    :class:`~kenning.errors.UserInputError` otherwise (a text, an id where a ``Memory`` is
    meant, a plain string where a ``NewMemory`` is); ``hint`` says what to pass."""
    if isinstance(values, str | bytes) or not isinstance(values, Sequence):
        raise UserInputError(
            f"{method} takes a list of {kind.__name__} objects, not a {type(values).__name__}; "
            f"{hint}"
        )
    for index, item in enumerate(values):
        if not isinstance(item, kind):
            raise UserInputError(
                f"{method} takes {kind.__name__} objects, and item {index} is a "
                f"{type(item).__name__}; {hint}"
            )
    return list(values)


def _check_text(text: object, what: str, error: type[UserInputError] = UserInputError) -> str:
    """``text`` as a str that encodes as UTF-8 (the CLI decodes bad bytes to surrogates)."""
    if not isinstance(text, str):
        raise error(f"{what} must be text, got {type(text).__name__}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise error(_not_unicode(what, text[exc.start])) from None
    return text


def check_not_only_credentials(text: str) -> None:
    """Refuse (the write path, :meth:`~kenning.store_write.StoreWrites.prepare`) a redacted
    ``text`` that is nothing but credentials
    (:func:`kenning.redaction.only_credentials`): stored, it said nothing, ranked first for
    any query naming its kind ("github token"), and made the next such note, with another
    secret, an "identical content" duplicate of it (qa-s67a F3). The refusal names the kinds
    only, never a secret."""
    from .redaction import only_credentials, redaction_markers
    from .render import redaction_counts

    if only_credentials(text):
        kinds = redaction_markers(text)
        what = "a credential" if sum(kinds.values()) == 1 else "credentials"
        raise CredentialOnlyContent(
            f"content is nothing but {what} ({redaction_counts(kinds)}), which kenning "
            "never stores: redacted, the note would say nothing. Remember "
            "what someone needs to know about it instead (what it is for, where it is kept "
            "— a secret manager, an environment variable's name —, how to rotate it), "
            "without the secret itself",
            kinds,
        )


def read_only_reason_of(backend: object) -> str | None:
    """:meth:`StoreBase.read_only_reason` of the store ``backend`` holds open, for what has
    a backend and no store (``kenning doctor`` of a server's store opens only the backend):
    the backend's own check (:class:`~kenning.backends.base.KnowsItIsReadOnly`), never
    told again elsewhere."""
    if not isinstance(backend, KnowsItIsReadOnly):
        return None
    try:
        backend.check_writable()
    except KenningError as exc:
        return str(exc)
    return None


def _not_unicode(what: str, surrogate: str) -> str:
    """Why ``what`` holding ``surrogate`` (a lone one) is refused. Python decodes undecodable
    bytes (a CLI argument, a file) to U+DC80-U+DCFF; any other lone surrogate came from an
    escape such as JSON's ``\\ud800`` (an import line, an MCP call), which re-encoding the
    file as UTF-8 would not change."""
    code = ord(surrogate)
    escape = f"\\u{code:04x}"
    if 0xDC80 <= code <= 0xDCFF:
        return (
            f"{what} is not valid UTF-8 (it contains undecodable bytes, or a lone surrogate "
            f"escape {escape}); re-encode it as UTF-8, or remove the escape"
        )
    return (
        f"{what} holds a lone UTF-16 surrogate ({escape}, an escape written without its "
        "pair), which is not Unicode text; remove it, or write the character itself"
    )


def _check_memory_id(memory_id: object) -> str:
    if not isinstance(memory_id, str) or not memory_id.strip():
        raise UserInputError("pass the id of a memory (see `kenning search --json`)")
    return _check_text(memory_id, "the memory id").strip()


class _ClosedBackend:
    """What a closed store's backend becomes: every use says the store is closed (instead of
    the database driver's own error, outside kenning's exception tree)."""

    def __init__(self, location: str) -> None:
        self.location = location

    def close(self) -> None:
        pass

    def __getattr__(self, name: str) -> Any:
        raise StoreClosed.at(self.location)


def _stamped_before_weight_hashes(stored: Provenance, mine: Provenance) -> bool:
    """Whether ``stored`` is the stamp an older kenning wrote for the model folder ``mine``
    describes: its name without ``@sha256:…`` (and without a token limit, which those stamps
    did not carry), everything else the same."""
    from .embedders.minilm import MINILM_MODEL_ID

    name, hashed, _ = mine.model_id.partition("@sha256:")
    # the canonical id always meant the packaged weights: a fine-tune that kept the name in
    # its config.json is another model
    return bool(hashed) and name != MINILM_MODEL_ID and stored == replace(mine, model_id=name)


class StoreBase:
    """The plumbing part of :class:`~kenning.store.MemoryStore` (use that: open it with
    :func:`~kenning.store.open_store`)."""

    def __init__(
        self,
        backend: Backend,
        project: Project,
        settings: Settings | None,
        embedder: Embedder | None = None,
        embedder_name: str = "minilm",
        settings_files: SettingsFiles | None = None,
        resolve: Callable[[], Project] | None = None,
    ) -> None:
        self.backend = backend
        self.project = project
        if settings is None and settings_files is None:
            raise ValueError("pass the settings, or the files to read them from")
        self._settings = settings
        #: Where ``settings`` came from: read again when a file changed (None: never). None
        #: settings are read from them at first use: a value that cannot be read fails what
        #: reads settings (a recall, a search), not an export or a write, which read none.
        self._settings_files = settings_files
        self._settings_signature = (
            settings_files.signature() if settings_files and settings is not None else None
        )
        #: The project resolved again as :func:`open_store` resolved it (None: never), and
        #: the settings files' state when it last matched ``project``.
        self._resolve = resolve
        self._resolved_signature = self._identity_signature()
        self._embedder = embedder
        self._embedder_name = embedder_name
        self._lexical_worker: ThreadPoolExecutor | None = None
        self._worker_forks = forks_so_far()
        self._worker_lock = threading.Lock()
        renew_after_fork(self)
        #: Check on every read whether the files memories name changed (``stale``); off
        #: only to measure what the check costs.
        self.check_freshness = True

    # -- plumbing ---------------------------------------------------------------------------

    @property
    def settings(self) -> Settings:
        """The project's settings, read again when ``config.toml`` or ``.env`` changed since
        they were read: a store kept open (the MCP server, the web page) uses what ``kenning
        calibrate --write`` just wrote, as the next command does."""
        files = self._settings_files
        if files is not None:
            signature = files.signature()
            if signature != self._settings_signature:
                from .config import log_key_warnings

                self._settings = files.load()  # a broken file fails the call, as a command
                self._settings_signature = signature
                log_key_warnings(self._settings)  # once a read of the files (qa77 F10)
        assert self._settings is not None  # (given, or read above)
        return self._settings

    @settings.setter
    def settings(self, value: Settings) -> None:
        """Settings given by the caller: kept as they are (no file is read again)."""
        self._settings = value
        self._settings_files = None

    @property
    def group_id(self) -> str:
        return self.project.group_id

    def files_are_here(self, group_id: str) -> bool:
        """Whether the files project ``group_id``'s memories name are the ones kenning runs
        beside: this project's, in a checkout of it. Outside a checkout (a server store
        reached with ``KENNING_PROJECT`` from any folder) the folder is no project's, and a
        note's paths are neither recorded, checked nor read there: every one of them would
        read as gone, and a file of that folder passed for the note's."""
        return group_id == self.group_id and self.project.checkout_root is not None

    @property
    def missing_reason(self) -> str | None:
        """Why there is no store, for a store opened with ``missing_ok`` that was never
        created (it reads as empty and refuses writes); None when the store exists."""
        from .backends.missing import MissingBackend

        return self.backend.reason if isinstance(self.backend, MissingBackend) else None

    @property
    def exists(self) -> bool:
        return self.missing_reason is None

    @property
    def replaced(self) -> bool:
        """True when the store file this store has open was deleted, moved aside or
        replaced since, or when the project's ``.env`` (or the environment) now names
        another project id or store (``KENNING_PROJECT``, ``KENNING_STORE``), or the id
        worked out from its remote changed (a remote added or renamed): a process that
        keeps the store open (the MCP server, the web page) opens it again, or its reads and
        writes would go to a file, or under an id, that nobody else sees."""
        return self.backend.replaced() or self._project_changed()

    def _identity_signature(self) -> tuple[Any, ...] | None:
        """What changes when the project may resolve to another id or store: ``.env`` and
        ``config.toml`` (:meth:`SettingsFiles.signature`), and the checkout's git config
        (a remote added, renamed or removed changes the id worked out from it)."""
        if self._resolve is None or self._settings_files is None:
            return None
        try:
            st = os.stat(self.project.root / ".git" / "config")
            git_config: tuple[int, ...] | None = (
                st.st_mtime_ns,
                st.st_ctime_ns,
                st.st_size,
                st.st_ino,
            )
        except OSError:
            git_config = None
        return (*self._settings_files.signature(), git_config)

    def _project_changed(self) -> bool:
        """Whether the project resolves to another id or store now; resolved again only
        once ``.env``, ``config.toml`` or the git config changed (a ``stat`` each
        otherwise)."""
        signature = self._identity_signature()
        if self._resolve is None or signature == self._resolved_signature:
            return False
        try:
            now = self._resolve()
        except KenningError:
            return True  # opened again, the error says what is wrong (a bad KENNING_PROJECT)
        was = self.project
        if (now.group_id, now.store_path, now.store_url) != (
            was.group_id,
            was.store_path,
            was.store_url,
        ):
            return True
        self._resolved_signature = signature
        return False

    @property
    def schema_upgraded(self) -> str | None:
        """What a write said when it upgraded the schema of a shared store an older kenning
        wrote (logged once as a warning; a surface that answers in a result, MCP, gives it
        there too), else None."""
        backend = self.backend
        return backend.schema_upgraded if isinstance(backend, UpgradesSchema) else None

    @property
    def location(self) -> str:
        """Where the memories are (``intel_path``): the resolved store file, or the server
        URL without credentials."""
        if self.project.store_url is None:
            return str(Path(self.backend.location).resolve())
        return self.backend.location

    def own_files(self) -> set[Path]:
        """The files of this store (resolved): its database and every file kenning keeps
        beside it (none for a server's store), its settings file and the ``.gitignore``
        kenning keeps in the project's ``.kenning`` folder. An export or any other output
        must not be one of them: over ``config.toml`` every later command failed, and over
        the ``.gitignore`` the store showed up in ``git status``."""
        from .config import CONFIG_FILENAME

        kenning_dir = self.project.root / STORE_DIRNAME
        files = {kenning_dir / CONFIG_FILENAME, kenning_dir / ".gitignore"}
        if self._settings_files is not None and self._settings_files.config_toml is not None:
            files.add(self._settings_files.config_toml)
        if self.project.store_url is None:
            from .backends.sqlite import store_files

            files.update(store_files(Path(self.location)))
        return {f.resolve() for f in files}

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            from .embedders import load_embedder

            self._embedder = load_embedder(self._embedder_name)
        return self._embedder

    def embedder_provenance(self) -> Provenance:
        """The provenance of this store's embedder: what its vectors are made with, and what a
        store not written yet will be stamped with. Loads no model (the embedder's configs
        and weights' hash say it)."""
        if self._embedder is not None:
            return self._embedder.provenance
        from .embedders import expected_provenance

        return expected_provenance(self._embedder_name)

    def close(self) -> None:
        """Release the store; closing twice is harmless, any other use afterwards raises
        :class:`~kenning.errors.StoreClosed`."""
        with self._worker_lock:
            worker, self._lexical_worker = self._lexical_worker, None
            backend = self.backend
            if not isinstance(backend, _ClosedBackend):
                # from here on every call says StoreClosed, also one that races this close
                self.backend = cast(Backend, _ClosedBackend(backend.location))
        if worker is not None and self._worker_forks == forks_so_far():
            worker.shutdown(wait=True)
        if not isinstance(backend, _ClosedBackend):
            backend.close()

    def own_group_id(self) -> str:
        """This store's project, for a write that gives it its notes (a new note, a seeding).
        Refused for a store opened for every project with no project of its own
        (``--project all`` outside a checkout: :func:`~kenning.project.resolve_project`):
        nothing may be written under the word for every project."""
        if means_every_project(self.group_id):
            raise UserInputError(
                f"the store {self.location} was opened for every project (--project all) "
                "outside a checkout, so there is no project to write for; name the project "
                "(--project owner/repo), or run the command inside its checkout"
            )
        return self.group_id

    def check_location(self) -> None:
        """The store-location guard, for the embedded file store and a local Qdrant folder
        (a server has no path)."""
        if guards_a_path(self.project.store_url):
            check_store_location(self.project)

    def check_embedding_writes(self) -> None:
        """Raise what a write that embeds would raise for this store before anything is
        written: the store-location guard, and :class:`~kenning.errors.ProvenanceMismatch`
        when the store was embedded with another model (or is half re-embedded). For a
        change of several steps (retire, then add) that must not stop after its first.
        A store that is read-only here is refused first: the check of the vectors loads
        the model."""
        self.check_can_write()
        self._check_provenance(stamp=False)

    def check_can_write(self) -> None:
        """Where a write starts (remember, import, edit, forget, mark reviewed, reembed): the
        store-location guard, then the refusal of a store that is read-only here (a
        read-only file, folder or mount; a PostgreSQL standby, a role whose sessions are
        read-only or that may not write the store's tables), with its reason and fix as
        :meth:`read_only_reason` says it. Before anything is embedded: the model is not
        loaded (a second, for nothing) to be told the write was never possible, and the
        write does not fail later with a vaguer cause. Costs nothing on a writable store
        (a few ``stat`` calls for a file; a server asks again only a store its open found
        read-only)."""
        self.check_location()
        if isinstance(self.backend, KnowsItIsReadOnly):
            self.backend.check_writable()

    def read_only_reason(self) -> str | None:
        """Why a write to this store would be refused here because it is read-only (its
        file, folder or mount; a PostgreSQL standby, a read-only role or one without the
        right to write, as its open found it), as the write would say it; None when it is
        writable, when there is no store yet, or when the backend can only tell at the
        write (Qdrant).
        For a surface that offers changes (``kenning ui``): it says so before someone types
        one, as ``kenning doctor`` does ("can be read but not written")."""
        return read_only_reason_of(self.backend) if self.exists else None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check_provenance(self, *, stamp: bool) -> None:
        """Refuse vectors from another embedder; stamp an unstamped store on first write."""
        mine = self.embedder.provenance
        if self.backend.get_meta(REEMBED_STATE_KEY) is not None:
            database = getattr(self.backend, "path", None)
            running = (
                self.backend.reembed_running()
                if isinstance(self.backend, MarksAReembed)
                else isinstance(database, Path) and reembed_running(database)
            )
            if running:
                # "run kenning reembed to finish" said of a running one is refused: one runs
                raise ProvenanceMismatch(
                    f"a `kenning reembed` of the store at {self.backend.location} is running: "
                    "the store is half re-embedded until it ends; wait for it to finish, then "
                    "run this again"
                )
            if running is None:  # a standby: a reembed here is refused, and may be running
                raise ProvenanceMismatch(
                    f"the store at {self.backend.location} is half re-embedded, and this "
                    "server is a standby, which cannot tell whether a `kenning reembed` still "
                    "runs on the primary: wait for it to finish, then run this again; if it "
                    "was stopped, run `kenning reembed` against the primary's URL to finish it"
                )
            raise ProvenanceMismatch(
                f"the store at {self.backend.location} is half re-embedded; "
                "run `kenning reembed` to finish"
            )
        stored = self.backend.read_provenance()
        if stored is None:
            if stamp:
                self.backend.write_provenance(mine)
            return
        if stored != mine and _stamped_before_weight_hashes(stored, mine):
            # the same model folder, stamped by a kenning whose stamp held its name alone:
            # stamped again with its weights' hash by the first write
            if stamp:
                self.backend.write_provenance(mine)
            return
        if stored != mine:
            from .embedders import variables_said

            chosen, back = variables_said(mine, stored)
            raise ProvenanceMismatch(
                f"the store at {self.backend.location} was embedded with {stored.describe()}, "
                f"but this kenning uses {mine.describe()}{chosen}; mixing them would make "
                f"scores meaningless — {back}run `kenning reembed` to re-embed the store with "
                "the current model"
            )

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.embedder.embed(list(texts))

    def resolve_group(self, group_id: str | None) -> str | None:
        """``None`` → this project; ``"all"`` → every project (explicitly)."""
        if group_id is None:
            return self.group_id
        if not isinstance(group_id, str):
            raise UserInputError(f"a project id must be text, got {type(group_id).__name__}")
        if means_every_project(group_id):
            return None
        # blank, control characters, undecodable bytes: refused for reads as for writes
        return check_group_id(group_id, GROUP_ID_ARGUMENT)

    # -- the read path's lexical worker: started by a recall, reset in a forked child, shut
    # down by close ------------------------------------------------------------------------

    def after_fork(self) -> None:
        """In a forked child: a lock of its own, and no executor (its thread stayed in the
        parent; the next recall starts one here)."""
        self._worker_lock = threading.Lock()
        self._lexical_worker = None

    def _lexical_executor(self) -> ThreadPoolExecutor:
        with self._worker_lock:
            if isinstance(self.backend, _ClosedBackend):
                raise StoreClosed.at(self.backend.location)
            if self._lexical_worker is None or self._worker_forks != forks_so_far():
                # a process forked from this one has no thread behind the parent's executor:
                # waiting on it would hang for ever
                self._lexical_worker = ThreadPoolExecutor(1, thread_name_prefix="kenning-lexical")
                self._worker_forks = forks_so_far()
            return self._lexical_worker
