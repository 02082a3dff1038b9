"""Pick a storage engine from a store location (SPEC §3).

* ``postgresql://…`` / ``postgres://…`` — :class:`~kenning.backends.postgres.PostgresBackend`
* ``http://…`` / ``https://…`` — :class:`~kenning.backends.qdrant.QdrantBackend` (server)
* ``qdrant-local:<folder>`` / ``:memory:`` — Qdrant local mode (tests, CI)
* anything else but another ``scheme://`` — a path: :class:`~kenning.backends.sqlite.SQLiteBackend`

Any other ``scheme://`` (``postgresql+asyncpg://`` as SQLAlchemy writes it, ``mysql://``,
``redis://``) is refused: taken as a path, it would become folders named after the URL,
its password among them, inside the checkout.

Server backends are imported only when selected, so the embedded default never pays for
``psycopg`` or ``qdrant-client``.
"""

from __future__ import annotations

from pathlib import Path

from ..config import QDRANT_LOCAL_PREFIX
from ..errors import UserInputError
from ..lazyre import lazy
from .base import Backend

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
QDRANT_SCHEMES = ("http://", "https://")
_SCHEME = lazy(r"^([A-Za-z][A-Za-z0-9+.\-]*)://")


def backend_kind(location: str) -> str:
    """``postgres``, ``qdrant``, ``qdrant-local`` or ``sqlite``."""
    lowered = location.strip().lower()
    if lowered.startswith(POSTGRES_SCHEMES):
        return "postgres"
    if lowered.startswith(QDRANT_SCHEMES):
        return "qdrant"
    if lowered.startswith(QDRANT_LOCAL_PREFIX) or location.strip() == ":memory:":
        return "qdrant-local"
    scheme = _SCHEME.match(location.strip())
    if scheme is not None:
        from ..redaction import redact_url

        hint = (
            " (write a SQLAlchemy URL without its +driver part)"
            if lowered.startswith("postgres")
            else ""
        )
        raise UserInputError(
            f"kenning cannot use the store {redact_url(location.strip())!r}: "
            f"{scheme.group(1)}:// is not a store kenning speaks (postgresql:// or "
            f"postgres:// for PostgreSQL, http(s):// for Qdrant, qdrant-local:<folder>, or a "
            f"file path){hint}"
        )
    return "sqlite"


def local_qdrant_folder(location: str) -> Path | None:
    """The folder a ``qdrant-local:<folder>`` location names, resolved (``~`` expanded,
    relative to the current folder): one store however it is spelled; None for any other
    location (or one naming no folder, which opening refuses)."""
    text = location.strip()
    if not text.lower().startswith(QDRANT_LOCAL_PREFIX):
        return None
    named = text[len(QDRANT_LOCAL_PREFIX) :].strip()
    if not named:
        return None
    from ..config import expand_home

    return expand_home(named, "the Qdrant store folder").resolve()


def open_backend(
    location: str | Path,
    *,
    create: bool,
    dimension: int | None,
    project_root: Path | None = None,
    warn_missing_index: bool = True,
    connect_timeout: int | None = None,
    try_creation: bool = False,
    only_if_there: bool = False,
) -> Backend:
    """Open (``create=True``: create if missing) the store at ``location``.

    ``dimension`` is the embedder's vector size when known; server backends need it to
    create their vector column/collection (without it they create it on the first write).
    ``project_root`` locates ``.env.secrets`` for the Qdrant API key.
    ``warn_missing_index``: False for a caller that builds the vector index a bulk load
    left missing itself (a migration into the store): PostgreSQL warns of it as it opens.
    ``connect_timeout``: at most this many seconds waiting for a server store to answer,
    whatever its URL says (a hook's budget: :func:`~kenning.config.connect_timeout_within`);
    None: the URL's, or the backend's default.
    ``try_creation`` (PostgreSQL, ``create=False``): where there is no store yet, the
    StoreNotFound raised says why this role could not create it (``kenning doctor``).
    ``only_if_there`` (a server's store, ``create=True``): opened as a writer where it is
    there; where it is not, the StoreNotFound a reader's open raises, and nothing made.
    """
    text = str(location).strip()
    kind = backend_kind(text) if not isinstance(location, Path) else "sqlite"
    if kind == "postgres":
        from .postgres import PostgresBackend

        return PostgresBackend(
            text,
            create=create,
            dimension=dimension,
            warn_missing_index=warn_missing_index,
            max_connect_timeout=connect_timeout,
            try_creation=try_creation,
            only_if_there=only_if_there,
        )
    if kind in ("qdrant", "qdrant-local"):
        from .qdrant import TIMEOUT_S, QdrantBackend

        return QdrantBackend(
            text,
            create=create,
            dimension=dimension,
            project_root=project_root,
            timeout=min(TIMEOUT_S, connect_timeout or TIMEOUT_S),
            only_if_there=only_if_there,
        )
    from ..config import expand_home
    from .sqlite import SQLiteBackend

    path = expand_home(location, "the store path")
    return SQLiteBackend(path, create=create, dimension=dimension)


__all__ = ["backend_kind", "local_qdrant_folder", "open_backend"]
