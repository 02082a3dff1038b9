"""Installers: register kenning with an agent's configuration files (``kenning install``).

One module per agent. They write configuration, never memories; the core never imports them.
"""

from __future__ import annotations
