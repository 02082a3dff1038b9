"""Write src/kenning/data/gitleaks_rules.json: the parts of gitleaks' rules redaction reads.

kenning.redaction runs gitleaks' rule set (src/kenning/data/gitleaks.toml, vendored
unmodified). Parsing that TOML cost every process that redacts ~17 ms (tomllib, pure
Python): every hook run, most CLI commands. The JSON holds only what the redaction reads
(each rule's id, regex, secret group, entropy floor, keywords and allowlists' regexes,
stopwords, target and condition; the global allowlist), in the TOML's order, and loads in
well under a millisecond. Run from the project's root after replacing the TOML:

    .venv/bin/python scripts/make_gitleaks_rules.py

tests/test_redaction.py checks that the JSON was made from the TOML beside it and that both
give the same rule set.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent / "src" / "kenning" / "data"
SOURCE = DATA / "gitleaks.toml"
TARGET = DATA / "gitleaks_rules.json"

#: The fields of a rule, and of an allowlist, that kenning.redaction reads.
RULE_FIELDS = ("id", "regex", "secretGroup", "entropy", "keywords")
ALLOWLIST_FIELDS = ("regexTarget", "regexes", "stopwords", "condition")


def allowlist(spec: Mapping[str, Any]) -> dict[str, Any]:
    return {name: spec[name] for name in ALLOWLIST_FIELDS if name in spec}


def compact(source: bytes) -> dict[str, Any]:
    """What kenning.redaction reads of the gitleaks TOML ``source``: the rules that match
    a text by a regex (not a file's path), and the global allowlist."""
    config = tomllib.loads(source.decode("utf-8"))
    rules = []
    for spec in config["rules"]:
        if "regex" not in spec or "path" in spec:
            continue
        rule = {name: spec[name] for name in RULE_FIELDS if name in spec}
        if "allowlists" in spec:
            rule["allowlists"] = [allowlist(a) for a in spec["allowlists"]]
        rules.append(rule)
    return {
        "generated_from": {
            "file": SOURCE.name,
            "sha256": hashlib.sha256(source).hexdigest(),
            "by": "scripts/make_gitleaks_rules.py",
        },
        "allowlist": allowlist(config.get("allowlist", {})),
        "rules": rules,
    }


def main() -> None:
    text = json.dumps(compact(SOURCE.read_bytes()), indent=0, ensure_ascii=False)
    TARGET.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
