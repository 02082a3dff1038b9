"""Write docs/img/ui.png: the `kenning ui` page of a small demo project, for the README.

Creates a throwaway git project, stores a few dozen notes through `MemoryStore.remember`
(spread over twelve weeks), runs some recalls with the recall log on, starts the real
`kenning ui`, and has Debian's headless chromium (driven by Playwright, as in
tests/test_ui.py) search and take the screenshot. Run from the repository:

    .venv/bin/python scripts/screenshot_ui.py [--out docs/img/ui.png]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

NOTES = [
    ("ERROR-FIX: sqlite3.OperationalError: database is locked | FIX: enable WAL mode and set "
     "busy_timeout=5000 on every connection | SOURCE: docs/solutions/db/locked.md — two agents "
     "writing at once", "error_fix", 2),
    ("ERROR-FIX: psycopg.errors.UniqueViolation: duplicate key value violates unique constraint "
     "\"users_email_key\" | FIX: upsert with ON CONFLICT (email) DO UPDATE | SOURCE: "
     "docs/solutions/db/upsert.md — signup race", "error_fix", 9),
    ("ERROR-FIX: npm ERR! code ERESOLVE unable to resolve dependency tree | FIX: align the "
     "peer dependency versions of react and react-dom; never use --force | SOURCE: "
     "docs/solutions/build/eresolve.md — CI install", "error_fix", 23),
    ("ERROR-FIX: TimeoutError: page.goto: Timeout 30000ms exceeded | FIX: start the dev server "
     "before the browser tests and wait for /healthz | SOURCE: docs/solutions/ci/e2e.md — flaky "
     "e2e", "error_fix", 40),
    ("Retry failed HTTP requests with exponential backoff and jitter; give up after 5 tries.",
     "implementation", 5),
    ("HTTP client: on a 503 or 429, back off exponentially before retrying the request.",
     "guideline", 33),
    ("ERROR-FIX: requests.exceptions.ConnectionError: Max retries exceeded with url | FIX: retry "
     "with urllib3 Retry(backoff_factor=0.5) and a timeout | SOURCE: "
     "docs/solutions/http/retries.md — flaky upstream", "error_fix", 15),
    ("Outgoing HTTP calls always set a timeout: 5 s connect, 30 s read.", "rule", 4),
    ("Background jobs are idempotent: they look up the job id in job_runs before doing work.",
     "implementation", 17),
    ("Split the payment module into gateway adapters behind one PaymentGateway protocol.",
     "refactor", 31),
    ("Use snake_case for Python function names and PascalCase for classes.", "naming", 60),
    ("All timestamps are stored in UTC and rendered in the user's time zone.", "rule", 12),
    ("Every public function has a docstring that says what it is for.", "guideline", 45),
    ("The API server listens on port 8080 in development, 443 behind the proxy.", "port", 20),
    ("Frontend components live in src/components, one folder per component.", "structure", 70),
    ("We chose PostgreSQL with pgvector for the team store: one server to run, and HNSW.",
     "decision", 3),
    ("We deploy on Tuesdays and Thursdays only, after the QA sign-off.", "decision", 52),
    ("Session: moved the importer to batches of 64; ingest is 4x faster.", "session", 1),
    ("Blocked: the staging database needs a pgvector upgrade before the HNSW index.",
     "blocker", 8),
    ("The team prefers small pull requests with one reason each.", "preference", 26),
]  # fmt: skip
QUERIES = [
    "database is locked when two agents write",
    "sqlite3.OperationalError: database is locked",
    "how do we retry http calls",
    "which port does the api use",
    "npm ERR! code ERESOLVE",
    "why postgres for the team",
    "chocolate cake recipe",
    "deploy schedule",
    "flaky browser tests in CI",
    "naming convention for classes",
]
SEARCH = "how do we retry http requests"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "img" / "ui.png")
    args = parser.parse_args()

    from tests.conftest import make_repo
    from tests.test_ui import CHROMIUM, CHROMIUM_ARGS, kenning_env, start_ui

    from kenning import open_store
    from kenning.model import utc_now

    with tempfile.TemporaryDirectory(prefix="kenning-shot-") as tmp:
        root = make_repo(Path(tmp) / "widgets", "git@github.com:acme/widgets.git")
        os.environ.update(kenning_env(KENNING_RECALL_LOG="1"))
        now = utc_now()
        with open_store(cwd=root) as store:
            for text, kind, age in NOTES:
                store.remember(text, kind, stored_at=now - timedelta(days=age, hours=3))
            for query in QUERIES:
                store.recall(query)
        (root / ".kenning" / "config.toml").write_text("recall_log = true\n")
        server = start_ui(root, Path(tmp) / "ui.log")
        try:
            from playwright.sync_api import sync_playwright

            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.goto(server.url)
                page.fill("input[name=q]", SEARCH)
                page.click("button:has-text('Search')")
                page.wait_for_url("**/?q=*")
                args.out.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(args.out))
                browser.close()
        finally:
            server.stop()
    subprocess.run(["ls", "-l", str(args.out)], check=False)


if __name__ == "__main__":
    main()
