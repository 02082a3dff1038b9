"""``python -m kenning`` runs the CLI."""

from .cli import main

main()
