"""``kenning ui``: a local web page over a project's memory (browse, search, curate, plots).

:func:`serve` binds 127.0.0.1 only, prints the address with its access token as the first
line of output, and serves :func:`~kenning.ui.app.create_app` with uvicorn until stopped.
"""

from __future__ import annotations

from .app import PageFilters, StoreSource, create_app, memory_facts
from .server import serve

__all__ = ["PageFilters", "StoreSource", "create_app", "memory_facts", "serve"]
