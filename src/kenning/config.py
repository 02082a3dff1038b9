"""Settings and their precedence.

Highest first:

1. an explicit argument (CLI flag or Python keyword),
2. the process environment (``KENNING_*``),
3. the project's ``.env`` file (``<project root>/.env``; only ``KENNING_*`` keys are read),
4. the project's ``.kenning/config.toml``,
5. built-in defaults (:mod:`kenning.protocol`).

Keys:

=====================  ===============================  =====================================
setting                environment / ``.env``           ``config.toml``
=====================  ===============================  =====================================
similarity threshold   ``KENNING_SIMILARITY_THRESHOLD``  ``similarity_threshold = 0.7``
decay half-lives       ``KENNING_DECAY_HALF_LIFE``       ``[decay] half_life = {error_fix = 7}``
                       (``"error_fix:7,decision:90"``)   (or the same string form)
store                  ``KENNING_STORE``                 ``store = "postgresql://…"``
=====================  ===============================  =====================================
"""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import UserInputError
from .protocol import SEARCH_DEFAULT_THRESHOLD

CONFIG_FILENAME = "config.toml"


@dataclass(frozen=True)
class Settings:
    similarity_threshold: float = SEARCH_DEFAULT_THRESHOLD
    half_life_overrides: Mapping[str, float] = field(default_factory=dict)
    #: Where each value came from, for ``kenning stats`` and error messages.
    sources: Mapping[str, str] = field(default_factory=dict)


def _read_toml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UserInputError(f"cannot read {path}: {exc}; fix or remove the file") from exc


def _read_dotenv(path: Path) -> dict[str, str]:
    if not path.is_file():
        return {}
    from dotenv import dotenv_values

    values = dotenv_values(path)
    return {k: v for k, v in values.items() if k.startswith("KENNING_") and v is not None}


def parse_threshold(value: Any, origin: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise UserInputError(
            f"similarity threshold from {origin} is {value!r}; expected a number between 0 and 1"
        ) from None
    if not math.isfinite(number) or not 0.0 <= number <= 1.0:
        raise UserInputError(
            f"similarity threshold from {origin} is {value!r}; expected a number between 0 and 1"
        )
    return number


def load_settings(
    project_root: Path | None,
    store_dir: Path | None = None,
    threshold: float | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Merge the layers above into one :class:`Settings`."""
    from .scoring import parse_half_life_overrides

    env = os.environ if environ is None else environ
    toml: dict[str, Any] = {}
    dotenv: dict[str, str] = {}
    toml_path = store_dir or ((project_root / ".kenning") if project_root else None)
    if toml_path is not None:
        toml = _read_toml(toml_path / CONFIG_FILENAME)
    if project_root is not None:
        dotenv = _read_dotenv(project_root / ".env")

    sources: dict[str, str] = {}
    value: Any = SEARCH_DEFAULT_THRESHOLD
    origin = "default"
    if "similarity_threshold" in toml:
        value, origin = toml["similarity_threshold"], f"{toml_path}/{CONFIG_FILENAME}"
    if "KENNING_SIMILARITY_THRESHOLD" in dotenv:
        value, origin = dotenv["KENNING_SIMILARITY_THRESHOLD"], ".env"
    if "KENNING_SIMILARITY_THRESHOLD" in env:
        value, origin = env["KENNING_SIMILARITY_THRESHOLD"], "environment"
    if threshold is not None:
        value, origin = threshold, "argument"
    similarity = parse_threshold(value, origin)
    sources["similarity_threshold"] = origin

    half: Any = None
    origin = "default"
    decay_section = toml.get("decay", {})
    if isinstance(decay_section, Mapping) and "half_life" in decay_section:
        half, origin = decay_section["half_life"], f"{toml_path}/{CONFIG_FILENAME}"
    if "KENNING_DECAY_HALF_LIFE" in dotenv:
        half, origin = dotenv["KENNING_DECAY_HALF_LIFE"], ".env"
    if "KENNING_DECAY_HALF_LIFE" in env:
        half, origin = env["KENNING_DECAY_HALF_LIFE"], "environment"
    overrides: dict[str, float] = {}
    if half is not None:
        try:
            overrides = parse_half_life_overrides(half)
        except UserInputError as exc:
            raise UserInputError(f"decay half-life from {origin}: {exc}") from None
    sources["half_life_overrides"] = origin
    return Settings(similarity_threshold=similarity, half_life_overrides=overrides, sources=sources)
