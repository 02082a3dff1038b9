"""Secret redaction: nothing kenning stores, logs or prints in an error may hold a credential.

:func:`redact_secrets` replaces each credential in a text with ``[REDACTED:<kind>]`` and
returns ``{kind: count}`` (kinds only, never values). :func:`redact_value` applies it to a
stored field of any shape (tags, metadata: keys and values, recursively). :func:`redact_url`
is the same function for a server URL shown in messages and logs.

Two layers find the credentials; their hits are merged, so a token inside an assignment is
replaced once, under the more specific kind:

1. **Token formats** — gitleaks' curated rule set (``data/gitleaks.toml``: ~220 providers,
   MIT licence in ``data/gitleaks.LICENSE``; vendored unmodified from gitleaks commit
   b58d3f10, 2026-07-22; read from ``data/gitleaks_rules.json``, the parts of it used, which
   loads in a fraction of the TOML's parse; to update, replace the TOML, run
   ``scripts/make_gitleaks_rules.py`` and re-run ``tests/test_redaction.py``).
   Its patterns are RE2 syntax and run on RE2 (``google-re2``), the engine they were written
   for, which matches in time linear in the input whatever the pattern. Rules are compiled
   when one of their keywords first appears, with gitleaks' own entropy floors, allowlists
   and stopwords. Three adaptations, because notes are prose and markdown rather than source
   files: a token may end before any non-alphanumeric character (gitleaks requires a quote,
   space, ``;`` or the end, so ``sk_live_…,`` or ``AKIA…_old`` was missed), a leading
   ``\\b`` also accepts ``_`` (``__token__`` in markdown), and a rule of one length that
   matched the start of a longer run of letters and digits takes the whole run (``ghp_``
   and 40; ``AKIA…``/``AIza…`` glued to letters or digits before or after them, and
   ``sk-ant-api03-``/``sk-proj-`` to ones before them, by layer 2's glued patterns; a rule's
   whole match where its first group is a part of the token's syntax:
   ``jwt-base64``, the Teams webhook). Rules scoped to file paths are skipped (a note has
   no path); ``generic-api-key`` and ``private-key`` are replaced by
   layer 2's assignment rule (which knows placeholders and references instead of relying on
   an entropy floor) and key-block rule (which also removes unterminated blocks).
2. **Context** — kenning's rules for credentials whose value has no recognisable form, so
   only its surroundings say it is a secret: PEM/PGP private-key blocks (also unterminated),
   passwords in URLs (``scheme://user:pa/ss+w@host``), ``password=``/``*_SECRET=``/
   ``*_CREDENTIALS=`` assignments in env, code, JSON (also escaped in a string) and YAML
   (also a block scalar, ``password: |`` and the lines below), a service's ``*_PASS``
   also glued (``SSHPASS=``, ``DBPASS=``), a Java keystore's (``storepass=``,
   ``KEYSTOREPASS=``), a random value under an ``*_AUTH`` or ``*_DSN``
   key (``REDIS_AUTH=``, ``SENTRY_DSN=``),
   XML settings named by a key or name attribute (``<add key="Password" value="…"/>``),
   ``Authorization:`` headers, a bearer token outside one, session cookies (``Cookie:`` and
   ``Set-Cookie:`` values), ``curl -u user:pass``, a Docker config's or ``.npmrc``'s base64
   ``auth`` (when it decodes to ``user:password``), AWS secret keys by their key name (JSON,
   CLI, credentials file, ``aws configure``'s prompt),
   Azure ``AccountKey=`` and SAS ``sig=``, a presigned S3 or signed GCS URL's signature
   (``X-Amz-Signature=``, ``X-Goog-Signature=``, a random ``Signature=``), every value of
   a Kubernetes Secret's ``data:``/
   ``stringData:`` (YAML or JSON) and of ``kubectl create secret --from-literal``, passwords
   set in SQL (``CREATE USER … PASSWORD '…'``, ``IDENTIFIED BY '…'``, ``SET PASSWORD``,
   ``PASSWORD('…')``), PHP's ``define('DB_PASSWORD', …)``, redis.conf's ``requirepass``,
   tools' own options (``mysql -p``, ``openssl … pass:…``, ``ldapsearch -w``, ``gh secret
   set --body``, ``setx``, ``htpasswd -b``, ``keytool -storepass``, ``sqlcmd -P``,
   ``rabbitmqctl add_user``, ``az login -p``, ``zip -P``, ``7z -p…``, ``smbclient -U user%…``,
   ``xfreerdp /p:``, PuTTY's ``-pw``, Oracle's ``sqlplus user/password@db``, Windows' ``net
   user``/``net use``, ``cmdkey /pass:``, ``psexec -p``, ``ssh-keygen -N``, ``lftp -u``,
   ``wpa_passphrase``, ``ConvertTo-SecureString``, the ``-p`` of hydra, medusa, ncftp,
   evil-winrm and netexec, winrm's and winrs' ``-p:``, cqlsh, racadm, twine, rabbitmqadmin,
   ipmitool, bcp, vsql, schtasks, SNMPv3, jarsigner, DB2's ``connect … using``, ``openssl
   passwd``, ``mkpasswd``, ``--account-key``, ``--secret-string``, an SSM SecureString), the
   MinIO client's keys, Bundler's gem server credentials, a login's token argument (``cargo
   login``, ``vault login``, ``bw unlock``, ``rclone obscure``…), a secret variable set
   without ``=`` (``set -gx``, ``setenv``, ``ENV``), a random token as a URL's only user, a
   registry's token set
   with ``npm``/``yarn``/``poetry``/``composer``/``git config [set] KEY VALUE``, a password
   echoed into a command that reads one (``| chpasswd``, ``| sudo -S``, ``--password-stdin``,
   ``--with-token``, a secret store's ``--data-file=-``); and token formats gitleaks
   lacks or pins to one length (OpenAI ``sk-``, Anthropic ``sk-ant-``, Google OAuth
   ``GOCSPX-`` and ``ya29.``, Stripe ``whsec_``, a Discord webhook's token, Doppler's
   ``dp.st.``/``dp.ct.``/``dp.sa.``…, Tailscale ``tskey-``, Groq ``gsk_``, xAI ``xai-``,
   Replicate ``r8_``, Supabase ``sbp_``/``sb_secret_``, Buildkite ``bkua_``, Pinecone
   ``pcsk_``, LangSmith ``lsv2_``, PostHog ``phx_``, Figma ``figd_``, Apify ``apify_api_``).
   These are Python ``re`` patterns, each linear: a candidate starts only at a distinctive
   prefix or keyword, quantifiers are over disjoint classes or bounded, and PEM blocks are
   found with ``str.find`` so that unterminated ``BEGIN`` lines cannot make the scan
   quadratic (``tests/test_redaction.py`` times 1 MB adversarial inputs).

Both layers also read the text percent-decoded (a credential in a logged URL or form body:
``password%3D…``), with its string escapes and character references decoded (what an encoder
wrote: ``\\u0041KIA…``, PHP's ``postgresql:\\/\\/app:…@db``, ``\\x67hp_…``, ``&#103;hp_…``),
and every base64 blob in it that decodes to text (``echo … | base64 -d``; such a blob
holding a credential is redacted whole); an escaped ``=`` or ``:`` separates a key from its
value as written (``password\\u003d\\u003cHy6t…\\u003e``). A value read unquoted ends at an
HTML closing tag or ``<br>`` (``<p>password: …</p>`` keeps its ``</p>``). A secret a
terminal or a mail client hard-wrapped at a line's end is redacted with its tail on the next
line (a token cut inside its prefix is read across the break; a quoted value, or one in
escaped angle brackets, may close on the next line).

Placeholders and references keep their text (see :func:`redact_secrets`).
"""

from __future__ import annotations

import base64
import bisect
import functools
import html
import json
import math
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from html.entities import html5 as _HTML5
from itertools import accumulate, chain, pairwise
from pathlib import Path
from typing import Any

from .lazyre import lazy

__all__ = [
    "REDACTION_KINDS",
    "password_needs_encoding",
    "query_secrets",
    "redact_secrets",
    "redact_url",
    "redact_value",
    "redaction_marker",
    "redaction_markers",
]

#: The kinds kenning names itself. A provider that only gitleaks knows is reported under its
#: gitleaks rule id, lower-cased with ``_`` (``twilio_api_key``, ``databricks_api_token``).
REDACTION_KINDS: tuple[str, ...] = (
    "private_key",
    "connection_string",
    "password_assignment",
    "authorization_header",
    "basic_auth",
    "aws_access_key",
    "aws_secret",
    "azure_storage_key",
    "azure_sas",
    "google_api_key",
    "google_oauth_secret",
    "github_token",
    "gitlab_token",
    "npm_token",
    "pypi_token",
    "huggingface_token",
    "slack_token",
    "slack_webhook",
    "stripe_key",
    "stripe_webhook_secret",
    "sendgrid_key",
    "openai_key",
    "anthropic_key",
    "jwt",
)


def redaction_marker(kind: str) -> str:
    """The text that replaces a secret of ``kind``: ``[REDACTED:<kind>]``."""
    return f"[REDACTED:{kind}]"


@dataclass(frozen=True)
class _Hit:
    start: int
    end: int
    kind: str
    #: 0: the value's own form says what it is (a token format, a key block); 1: only the
    #: context does (an assignment, a URL). Overlapping hits keep the kind of the lower rank.
    rank: int


# --------------------------------------------------------------------------------------------
# Layer 1: gitleaks' rules on RE2
# --------------------------------------------------------------------------------------------

#: The parts of ``gitleaks.toml`` the rules below read, made by scripts/make_gitleaks_rules.py:
#: tomllib's parse of the TOML cost each process's first redaction ~17 ms (every hook run).
_GITLEAKS_FILE = Path(__file__).with_name("data") / "gitleaks_rules.json"
#: Rules not run, and why.
_GITLEAKS_SKIPPED = {
    # Replaced by _find_assignments: gitleaks decides by entropy (so "hunter2" passes and a
    # UUID request id is caught); kenning decides by placeholders and references.
    "generic-api-key",
    # Replaced by _find_private_keys, which also removes unterminated blocks and does not
    # join two short blocks and the text between them (gitleaks needs 64+ body characters).
    "private-key",
}
#: Rules whose own allowlists are not applied. gitleaks lets AWS's documentation key id
#: (``AKIA…EXAMPLE``) pass, as source files quote it; in a note a credential-shaped string
#: costs nothing to hide, and kenning's tests and users paste exactly that one.
_GITLEAKS_ALLOWLISTS_DROPPED = {"aws-access-token"}
#: Rules whose groups are parts of the token's syntax, not the secret: gitleaks' secret is
#: the first group that matched (``jwt-base64``'s name of the header's first field, the
#: Teams webhook's last ``xxxx-`` of a GUID), and the rest of the token was left in clear.
#: The whole match is the secret.
_GITLEAKS_WHOLE_MATCH = {"jwt-base64", "microsoft-teams-webhook"}
#: gitleaks' rule-id prefixes and the kenning kind each is reported as.
_KIND_OF_RULE = (
    ("private-key", "private_key"),
    ("aws-access-token", "aws_access_key"),
    ("gcp-api-key", "google_api_key"),
    ("github-", "github_token"),
    ("gitlab-", "gitlab_token"),
    ("npm-", "npm_token"),
    ("pypi-", "pypi_token"),
    ("huggingface-", "huggingface_token"),
    ("slack-webhook", "slack_webhook"),
    ("slack-", "slack_token"),
    ("stripe-", "stripe_key"),
    ("sendgrid-", "sendgrid_key"),
    ("openai-", "openai_key"),
    ("anthropic-", "anthropic_key"),
    ("jwt", "jwt"),
    ("curl-auth-header", "authorization_header"),
    ("curl-auth-user", "basic_auth"),
)
# gitleaks ends most tokens with a quote, whitespace, ';', an escaped newline or the end. In
# prose a token is as often followed by '.', ',', ')', '*', '_' or '-'. Zero-width \b first,
# so that the character after a token can start the next one.
_GITLEAKS_TAIL = r"""(?:[\x60'"\s;]|\\[nr]|$)"""
_PROSE_TAIL = r"(?:\b|[^0-9A-Za-z]|$)"


def _kind_of_rule(rule_id: str) -> str:
    for prefix, kind in _KIND_OF_RULE:
        if rule_id.startswith(prefix):
            return kind
    return rule_id.replace("-", "_")


def _adapt(pattern: str) -> str:
    pattern = pattern.replace(_GITLEAKS_TAIL, _PROSE_TAIL)
    if pattern.startswith(r"\b("):
        pattern = r"(?:\b|_)(" + pattern[3:]
    if pattern.endswith(r"\b"):
        pattern = pattern[:-2] + r"(?:\b|_)"
    return pattern


def _entropy(text: str) -> float:
    """Shannon entropy in bits per character, as gitleaks computes it."""
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values()) if n else 0.0


@dataclass(frozen=True)
class _Allowlist:
    target: str  # "secret", "match" or "line"
    regex: str | None  # gitleaks' list of regexes as one alternation: one search, not many
    stopwords: tuple[str, ...]
    all_of: bool  # condition = "AND"


class _Rule:
    """One gitleaks rule; its RE2 pattern is compiled on first use."""

    def __init__(self, spec: Mapping[str, Any]) -> None:
        self.id: str = spec["id"]
        self.kind = _kind_of_rule(self.id)
        self.source = _adapt(spec["regex"])
        self.secret_group = int(spec.get("secretGroup", 0))
        self.entropy = float(spec.get("entropy", 0.0))
        self.keywords = tuple(k.lower() for k in spec.get("keywords", ()))
        self.allowlists = (
            ()
            if self.id in _GITLEAKS_ALLOWLISTS_DROPPED
            else tuple(_allowlist(a) for a in spec.get("allowlists", ()))
        )
        self._compiled: Any = None

    def pattern(self) -> Any:
        if self._compiled is None:
            self._compiled = _re2().compile(self.source)
        return self._compiled

    def allowed(
        self, secret: str, match: str, line: Callable[[], str], global_allow: _Allowlist
    ) -> bool:
        for allowlist in (global_allow, *self.allowlists):
            if allowlist.target == "line":
                target = line()
            else:
                target = match if allowlist.target == "match" else secret
            regex_hit = allowlist.regex is not None and bool(
                self._allow(allowlist.regex).search(target)
            )
            lowered = secret.lower()
            stop_hit = any(word in lowered for word in allowlist.stopwords)
            if allowlist.all_of:
                checks = [regex_hit] if allowlist.regex else []
                checks += [stop_hit] if allowlist.stopwords else []
                if checks and all(checks):
                    return True
            elif regex_hit or stop_hit:
                return True
        return False

    @staticmethod
    def _allow(source: str) -> Any:
        compiled = _allow_compiled.get(source)
        if compiled is None:
            compiled = _allow_compiled[source] = _re2().compile(source)
        return compiled


_allow_compiled: dict[str, Any] = {}


def _allowlist(spec: Mapping[str, Any]) -> _Allowlist:
    regexes = spec.get("regexes", ())
    return _Allowlist(
        target=spec.get("regexTarget", "secret"),
        regex="|".join(f"(?:{r})" for r in regexes) or None,
        stopwords=tuple(w.lower() for w in spec.get("stopwords", ())),
        all_of=str(spec.get("condition", "OR")).upper() == "AND",
    )


def _re2() -> Any:
    import re2  # google-re2: imported on the write path only

    return re2


@dataclass(frozen=True)
class _RuleSet:
    rules: tuple[_Rule, ...]
    global_allow: _Allowlist
    keywords: tuple[str, ...]
    #: An RE2 set of every keyword: one linear pass says which occur (250 ``in`` tests cost
    #: 40 times as much on a long text).
    keyword_set: Any
    #: For each keyword (by its index in ``keywords``), the rules that name it, and the rules
    #: that name none (always run): a text runs only the rules of the keywords it holds,
    #: without a test per rule (a bulk import redacts 100k notes).
    rules_of_keyword: tuple[tuple[int, ...], ...]
    rules_always: tuple[int, ...]


_rules_lock = threading.Lock()
_rule_set: _RuleSet | None = None


def _gitleaks() -> _RuleSet:
    global _rule_set
    with _rules_lock:
        if _rule_set is None:
            _rule_set = _rule_set_of(json.loads(_GITLEAKS_FILE.read_bytes()))
        return _rule_set


def _rule_set_of(config: Mapping[str, Any]) -> _RuleSet:
    """The rule set of a gitleaks configuration (``gitleaks.toml`` as parsed, or the parts
    of it ``gitleaks_rules.json`` holds: the same rule set)."""
    rules = tuple(
        _Rule(spec)
        for spec in config["rules"]
        if "regex" in spec and "path" not in spec and spec["id"] not in _GITLEAKS_SKIPPED
    )
    keywords = tuple(sorted({k for rule in rules for k in rule.keywords}))
    keyword_set = _word_set(keywords)
    global_allow = _allowlist(config.get("allowlist", {}))
    # (one pass over the rules, not one per keyword: ~7 ms of every process's first
    # redaction)
    of_keyword: dict[str, list[int]] = {keyword: [] for keyword in keywords}
    for i, rule in enumerate(rules):
        for keyword in dict.fromkeys(rule.keywords):
            of_keyword[keyword].append(i)
    rules_of_keyword = tuple(tuple(of_keyword[keyword]) for keyword in keywords)
    rules_always = tuple(i for i, rule in enumerate(rules) if not rule.keywords)
    return _RuleSet(rules, global_allow, keywords, keyword_set, rules_of_keyword, rules_always)


def _word_set(words: tuple[str, ...]) -> Any:
    """An RE2 set of ``words`` (substrings, in their case), compiled: one pass of a text
    tells which of them it holds (``Match``: their indices)."""
    found = _re2().Set.SearchSet()
    for word in words:
        found.Add(_re2().escape(word))
    found.Compile()
    return found


#: A run of ASCII letters and digits: what a token glued to more of them runs on over.
_ALNUM_RUN = lazy(r"[A-Za-z0-9]+")


class _RunEnds:
    """Where the run of letters and digits that goes on at a place ends (:data:`_ALNUM_RUN`),
    each run read once: a rule of one length finds a hit every few characters of a long run
    (``SK`` and 32 hex digits, again and again), each of which runs on to the same end."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.start = self.end = -1  # a stretch of the run read last: [start, end) all its own

    def __call__(self, pos: int) -> int:
        if not self.start <= pos <= self.end:
            m = _ALNUM_RUN.match(self.text, pos)
            self.start, self.end = pos, m.end() if m else pos
        return self.end


def _whole_token(text: str, run_ends: _RunEnds, start: int, end: int) -> int:
    """Where a token format's hit ``text[start:end]`` ends once the run of letters and digits
    it ends inside is taken with it: a rule of one length (``ghp_`` and 36, ``github_pat_``
    and 82, ``sbp_`` and 40) matched the first characters of a longer run and left its tail
    in clear (``ghp_`` and 40: ``[REDACTED:github_token]qrst``, QA F9). A hit that ends
    where the run does, or before a ``-``, ``_`` or ``.``, is as found."""
    if end >= len(text) or end <= start or not text[end - 1].isascii():
        return end
    if not (text[end - 1].isalnum() and text[end].isascii() and text[end].isalnum()):
        return end
    return run_ends(end)


def _find_gitleaks(text: str) -> Iterator[_Hit]:
    rule_set = _gitleaks()
    run_ends = _RunEnds(text)
    chosen = set(rule_set.rules_always)
    for keyword in rule_set.keyword_set.Match(text.lower()) or ():
        chosen.update(rule_set.rules_of_keyword[keyword])
    for index in sorted(chosen):  # in the file's order, as gitleaks runs them
        rule = rule_set.rules[index]
        for m in rule.pattern().finditer(text):
            group = rule.secret_group
            if not group and rule.id not in _GITLEAKS_WHOLE_MATCH:
                # gitleaks: the first non-empty group, else the whole match
                group = next((i for i in range(1, len(m.groups()) + 1) if m.group(i)), 0)
            start, end = m.span(group)
            secret = text[start:end]
            if not secret.strip("\n"):
                continue
            if rule.entropy and _entropy(secret) <= rule.entropy:
                continue

            def line(start: int = start, end: int = end) -> str:
                first = text.rfind("\n", 0, start) + 1
                last = text.find("\n", end)
                return text[first : len(text) if last < 0 else last]

            if rule.allowed(secret, m.group(0), line, rule_set.global_allow):
                continue
            named_id = _NAMES_AN_ID.search(text, max(0, start - 40), start)
            if named_id and _HEX_OR_UUID.fullmatch(secret):
                continue  # "heroku release id: <uuid>", "codecov … commit: <sha>": no key
            if rule.id == "curl-auth-user":
                # curl -u user:password: the password only, the user's name kept (as in a
                # URL), and the quotes around the pair kept as written; with no password
                # ("-u KEY:", as Stripe and others take an API key) the user is the secret
                quote = secret[:1] if secret[:1] in ("'", '"') else ""
                bare = secret[
                    len(quote) : len(secret) - 1 if quote and secret.endswith(quote) else None
                ]
                colon = bare.find(":")
                if 0 <= colon < len(bare) - 1:
                    start += len(quote) + colon + 1
                    end = start + len(bare) - colon - 1
            yield _Hit(start, _whole_token(text, run_ends, start, end), rule.kind, 0)


# A provider's rule that takes any hex string or UUID after its name also takes the ids,
# commits and hashes written after it; what the value is named says which it is.
_HEX_OR_UUID = lazy(r"[0-9A-Fa-f]{8}(?:-?[0-9A-Fa-f]{4}){3}-?[0-9A-Fa-f]{12}|[0-9A-Fa-f]{7,64}")
_NAMES_AN_ID = lazy(
    r"(?i)(?:\b|_)(?:ids?|sha(?:1|256)?|commit|uuid|hash|digest|rev(?:ision)?|index|pixel|portal"
    r"|build|run|release|pipeline)[\s\"'`]*(?:=>|:=|[:=])?[\s\"'`]*$"
)


# --------------------------------------------------------------------------------------------
# Layer 2: context rules
# --------------------------------------------------------------------------------------------

# -- private-key blocks ------------------------------------------------------------------------

_PEM_BEGIN = lazy(r"-----BEGIN ((?:[A-Z0-9]+ ){0,4})PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = lazy(r"-----END ((?:[A-Z0-9]+ ){0,4})PRIVATE KEY(?: BLOCK)?-----")
# Body lines of an unterminated block: base64 runs, RFC 1421/4880 headers (Proc-Type: ...,
# Version: ...), and the blank line after PGP armour headers (only before a whole-line run).
# The lines of a key pasted as a string are not apart on lines of the text: a JSON string
# (a service-account file cut short) separates them by an escaped newline ("\n", "\\n" once
# escaped again), a URL by "%0A", a wrapped one-line copy by spaces (there only a run of 16
# or more, so that the prose after a lone BEGIN line is kept).
_PEM_BODY = lazy(
    r"(?:[ \t]*\r?\n(?:[ \t]*\r?\n(?=[ \t]*[A-Za-z0-9+/=]{8,}[ \t]*(?:\r?\n|$)))?[ \t]*"
    r"(?:[A-Za-z0-9+/=]{5,}|[A-Za-z][A-Za-z-]*:[^\n]*)"
    r"|(?:(?:\\+r)?\\+n){1,2}(?:[A-Za-z0-9+/=]{5,}|[A-Za-z][A-Za-z-]*:[^\\\n\"']*)"
    r"|(?:(?:%0[Dd])?%0[Aa]){1,2}(?:[A-Za-z0-9+/=]|%2[BbFf]|%3[Dd]){5,}"
    r"|[ \t]+[A-Za-z0-9+/=]{16,})*"
)


def _find_private_keys(text: str) -> Iterator[_Hit]:
    pos = 0
    no_end_after = len(text) + 1  # once an END search fails, none after that point succeeds
    while True:
        begin = _PEM_BEGIN.search(text, pos)
        if begin is None:
            return
        end = None if begin.end() >= no_end_after else _PEM_END.search(text, begin.end())
        if end is not None:
            # Key material between the markers is all secret: everything in between goes.
            yield _Hit(begin.start(), end.end(), "private_key", 0)
            pos = end.end()
            continue
        # Unterminated (pasted partly): the BEGIN line and the body lines that follow it.
        no_end_after = min(no_end_after, begin.end())
        body = _PEM_BODY.match(text, begin.end())
        pos = body.end() if body else begin.end()
        yield _Hit(begin.start(), pos, "private_key", 0)


# A PuTTY private key (.ppk): after "Private-Lines: N", the private key's base64 lines and
# the MAC that checks them (the header, the comment and the public lines are kept; with
# "Encryption: none" the lines are the key itself). A key pasted partly loses what is there.
_PPK_PRIVATE = lazy(
    r"^[ \t]*Private-Lines:[ \t]*\d{1,4}[ \t]*\r?\n"
    r"(?P<body>[ \t]*[A-Za-z0-9+/=]{4,}[ \t]*(?=\r?\n|$)"
    r"(?:\r?\n[ \t]*[A-Za-z0-9+/=]{4,}[ \t]*(?=\r?\n|$))*"
    r"(?:\r?\n[ \t]*Private-(?:MAC|Hash):[ \t]*[0-9A-Fa-f]*)?)",
    re.MULTILINE,
)


def _find_putty_keys(text: str) -> Iterator[_Hit]:
    if "Private-Lines:" not in text:
        return
    for m in _PPK_PRIVATE.finditer(text):
        yield _Hit(m.start("body"), m.end("body"), "private_key", 0)


# -- values that are placeholders or references, not secrets -----------------------------------

_PLACEHOLDER = lazy(
    r"""
    \$ .*                          # $VAR, ${VAR}, ${{ secrets.X }}, $(cmd), $1
    | < .*                         # <your-token>, <password>
    | \{ .*                        # {{ jinja }}, {password}, {0}, {}
    | [%#]\{ .* | @\{ .*           # %{x}, #{ruby}, @{x}
    | %\( .*                       # %(name)s
    | %[-+ #0-9.]*[sdifrxXeEgGbco] # printf: %s, %d, %r
    | %[A-Za-z_][A-Za-z0-9_]*%     # %WINDOWS_VAR%
    | :[A-Za-z_][A-Za-z0-9_]*      # SQL named parameter :password
    | @[A-Za-z_][A-Za-z0-9_]*      # SQL parameter @password
    | \? | \?\d+                   # SQL positional parameter
    | \*+ | [xX]{3,} | \.{3,} | …  # masks (a single "x" is a value)
    | (?:[A-Za-z]{1,12}[_\-]){1,3}(?:\.{3,}|…|\*{3,}|[xX]{4,})  # a prefix, masked: sk-..., ghp_xxxx
    | replace[_\-]?me | replace[_\-]with[_\-][\w\-]* | todo | fixme | tbd
    | put[_\-\ ]your[_\-\ ][A-Za-z_\-\ ]*  # WordPress's "put your unique phrase here"
    | \[REDACTED.*                 # already redacted
    # where the secret is kept, not the secret (qa-s67c F4): 1Password's op://vault/item/field,
    # HashiCorp Vault's path, an env: indirection, AWS Secrets Manager's and SSM's ARNs and
    # names, Google Secret Manager's resource name, an Azure Key Vault secret's URL
    | op://\S+ | vault:\S+ | env:[A-Za-z_][A-Za-z0-9_]*
    | arn:aws[\w-]*:(?:secretsmanager|ssm):\S+ | ssm:/\S+ | secretsmanager:\S+
    | projects/[\w-]+/secrets/\S+ | https://[\w-]+\.vault\.azure\.net/secrets/\S+
    | (?:your|my)[_\-\ ][A-Za-z_\-\ ]*  # your_token_here, my-password (no digits)
    | [\w\-]*[_\-]here             # token_here, API_KEY_HERE
    | none | null | nil | true | false | undefined | empty | required | optional
    | changeme | change[_\-]me | redacted | example | secret | password | token
    # a synopsis's names for it: wpa_passphrase SSID PASSPHRASE, -N NEW_PASSPHRASE, -P PASS,
    # an optional argument [passphrase]
    | (?:(?:new|old)[_\-])?pass(?:word|phrase)? | \[ [A-Za-z][\w\-]* \]
    # and in capitals, as argparse and man pages name an option's value: --api-key API_KEY,
    # --password PASSWD, --client-secret CLIENT_SECRET, KEY=VALUE
    | (?-i:(?:[A-Z][A-Z0-9]*_)*(?:KEY|TOKEN|SECRET|PASS(?:WORD|PHRASE|WD)?|PWD|VALUE
           |CREDENTIALS?|CREDS))
    # what became of a credential, as error messages say it ("token: expired")
    | expired | invalid | incorrect | wrong | missing | revoked | malformed | rejected
    | denied | unset | blank | mismatch(?:ed)?
    """,
    re.IGNORECASE | re.VERBOSE | re.DOTALL,
)
_IDENT_CHAIN = lazy(r"(?:[A-Za-z_][A-Za-z0-9_]*\.)*(?P<last>[A-Za-z_][A-Za-z0-9_]*)")
_SNAKE = lazy(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
_CAMEL = lazy(r"[a-z]+(?:[A-Z][a-z]+)+")
_PATH = lazy(r"(?:~|\.{1,2})?/[\w./\-]*")
# A file's name: GOOGLE_APPLICATION_CREDENTIALS=key.json and ssl's private_key: server.key
# name the file that holds the secret, as a path does (a password ending in ".json" is the
# price).
_FILE_NAME = lazy(
    r"[\w\-]+(?:\.[\w\-]+)*\.(?:json|ya?ml|pem|key|crt|cer|der|p12|pfx|jks|keystore|ini|toml"
    r"|cfg|conf|properties|txt|gpg|asc)"
)
_ENV_KEY = lazy(r"[A-Z][A-Z0-9_]*")


#: A sentence's punctuation after a value: "wpa_passphrase SSID PASSPHRASE, then …" names the
#: argument, its comma the sentence's ("!" and "?" may end a password: "Password!"); and the
#: bracket closing a usage line's optional part: "[--token TOKEN]".
_SENTENCE_PUNCTUATION = ",.;:)]"


#: A value in angle brackets whose closing one only is written as an escape
#: (``<Hy6t…\\u003e``, and HTML's ``<Hy6t…&gt;`` as :func:`_found_in_character_references`
#: reads it): as written it is in no brackets, so no ``<your-token>``; its decoded reading
#: judges it (:func:`_judged`), as it does ``\\u003cHy6t…\\u003e``.
_ESCAPED_CLOSING_BRACKET = lazy(r"<[^>]*?\\+(?:u003[eE]|x3[eE])")


#: A string's escape sequence, as C, Python, JavaScript, Java, C#, Go and Rust write one:
#: ``\\n``, ``\\r``, ``\\t``, ``\\\\``, ``\\0``, ``\\033``, ``\\x1b``, ``\\u0000``, ``\\U0001F600``,
#: Rust's ``\\u{1b}``, a quote's; and a run of whitespace or punctuation between them.
_ESCAPE_OR_PUNCTUATION = lazy(
    r"\\(?P<esc>[abefnrtv\\'\"?]|[0-7]{1,3}|x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}"
    r"|u\{[0-9A-Fa-f]{1,6}\})|(?P<other>[^\w\\]+|_+)"
)
_SIMPLE_ESCAPES = {"a": 7, "b": 8, "e": 27, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11}


def _escapes_alone(value: str) -> bool:
    """``value`` is written with escape sequences and whitespace or punctuation only, and
    what they stand for holds no letter nor digit, and punctuation of 3 kinds at most (a
    tokenizer's delimiter ``"\\r\\n"``, a separator ``"\\t"``, a terminal's ``"\\x1b"``, a
    NUL ``"\\u0000"``, ``"\\\\"``): no secret. Escapes that stand for letters or digits
    (``"\\x68\\x75\\x6e…"``, a password hidden so) are read as what they stand for."""
    if "\\" not in value:
        return False
    kinds: set[str] = set()
    pos = 0
    escaped = False
    for m in _ESCAPE_OR_PUNCTUATION.finditer(value):
        if m.start() != pos:
            return False
        pos = m.end()
        esc = m.group("esc")
        if esc is None:
            kinds.update(c for c in m.group("other") if not c.isspace())
            continue
        escaped = True
        if esc in _SIMPLE_ESCAPES:
            continue
        if esc[0] in "xuU":
            code = int(esc.strip("xuU{}"), 16)
        elif esc[0].isdigit():
            code = int(esc, 8)
        else:
            code = ord(esc)
        char = chr(code) if code <= 0x10FFFF else "a"
        if char.isalnum():
            return False
        if not char.isspace() and char.isprintable():
            kinds.add(char)
    return escaped and pos == len(value) and len(kinds) <= 3


#: How many values the pure judgements of a value (_is_placeholder, _looks_random,
#: _said_secret, _password_after_its_word, _may_be_secret) keep their answers for: a page, a
#: log or a hostile text repeats the same values after its keys ("password reset", the
#: same placeholder on every line), each judged once (~8% of test_redaction's hostile
#: inputs' CPU). Bounded: a value is at most a few thousand characters.
_JUDGED_VALUES = 4096


@functools.lru_cache(maxsize=_JUDGED_VALUES)
def _is_placeholder(value: str) -> bool:
    if _PLACEHOLDER.fullmatch(value) is not None:
        return value[:1] != "<" or _ESCAPED_CLOSING_BRACKET.match(value) is None
    if _escapes_alone(value):
        return True
    if not any(c.isalnum() for c in value) and len(set(value)) <= 3:
        # punctuation alone, of few kinds, is no password: the '", "' between two quoted
        # phrases in a list ('"Password:", "password …"'), a line continuation's '\'
        # written in prose, a '---' rule; a password of symbols has more ('!@#$%^&*')
        return True
    bare = value.rstrip(_SENTENCE_PUNCTUATION)
    return bare != value and bool(bare) and _PLACEHOLDER.fullmatch(bare) is not None


_OBJECT_NAME = lazy(r"[A-Za-z_]+")
_JS_ENVIRONMENT = lazy(r"(?:process|import\.meta|Deno)\.env\.")


def _is_reference(
    value: str, keyword: str, key_name: str, key_quoted: bool, separator: str
) -> bool:
    """``value`` (unquoted) names a variable or attribute rather than being a secret."""
    ident = _IDENT_CHAIN.fullmatch(value)
    if ident is None:
        return False
    last = ident.group("last").lower()
    if last in (keyword.lower(), key_name.rsplit(".", 1)[-1].lower()):
        return True  # password=password, self.api_key = api_key, db_pass = db_pass
    if key_quoted:
        return True  # {'password': pw}: JSON and dict literals quote a literal value
    if (
        "." in value
        and _looks_random(value)
        and not _OBJECT_NAME.fullmatch(value[: value.find(".")])
    ):
        # password=Hy6t.B1qZr0: a generated password may hold a dot; a reference starts at
        # an object's name (cfg.pw, self.dbPass1, Settings.Pw2Hash), which is letters only
        return False
    if "." in value and _SECRET_KEY_END.search(ident.group("last")[-24:]):
        # password: settings.db_password, token: ctx.secrets.githubToken: the setting that
        # holds the secret, in YAML as in code (no generated password reads as a dotted name
        # ending in a secret's name)
        return True
    if _JS_ENVIRONMENT.match(value):
        # new OpenAI({ apiKey: process.env.OPENAI_API_KEY }): JavaScript reading the
        # environment, in an object literal's "key: value" that looks like YAML's
        return True
    if separator == ":" or _ENV_KEY.fullmatch(key_name):
        return False  # YAML and KEY=value files hold literals: "db_pass_2024" is a password
    # In code, a dotted, snake_case or camelCase name is a variable: pw_input, cfg.token.
    return "." in value or bool(_SNAKE.fullmatch(value) or _CAMEL.fullmatch(value))


# -- assignments: password=..., DB_SECRET=..., "token": "...", password: ... ------------------

#: "Password" in the languages teams often write notes in (German, Dutch, French, Spanish,
#: Portuguese, Italian, Polish, Russian, Ukrainian, Turkish, Japanese, Chinese, Korean).
_LOCAL_PASSWORD = (
    r"passwort|kennwort|wachtwoord|mot[_ ]de[_ ]passe|contrase(?:ñ|n)a|senha|parola|has(?:ł|l)o"
    r"|пароль|şifre|sifre|パスワード|密码|密碼|口令|비밀번호"
)
#: _SECRET_KEYWORD's two alternatives that read case (below), kept apart so that
#: :data:`_KEY_AT_LOWER` can read them in a ``lower()``.
_UPPER_PASS = r"(?-i:(?<=[A-Z0-9]_)PASS)(?![A-Za-z])"
_PW = r"(?-i:(?<![A-Za-z0-9])(?:pw|PW|Pw)|(?<=[a-z0-9])Pw)(?![A-Za-z])"
#: The words glued to "pass" (or joined by '_' or '-') that make a service's password (DB_PASS,
#: SMTP_PASS, DBPASS, ROOTPASS, smtpPass): and Ansible's ansible_ssh_pass, ansible_become_pass,
#: ansible_sudo_pass; and a Java keystore's and its key's (Ant's and jarsigner's storepass,
#: keypass; KEYSTOREPASS, TRUSTSTOREPASS, keyPass; KEYSTORE_PASS already). None holds a stem
#: of _KEYWORD_STEMS but "key" (:func:`_key_starts` finds a key's start from its stem).
_PASS_PREFIXES = (
    "db", "database", "smtp", "mail", "email", "mysql", "pg", "postgres", "redis",
    "rabbitmq_default", "rabbitmq", "mongo", "mongodb", "amqp", "ftp", "sftp", "ldap", "admin",
    "root", "user", "proxy", "auth", "basic_auth", "http", "ssh", "become", "sudo", "store", "key",
)  # fmt: skip
#: The words glued to "key" (or joined by '_' or '-') that make a secret key (API_KEY,
#: privateKey, signing-key, functions_key); none holds a stem of _KEYWORD_STEMS.
_KEY_PREFIXES = (
    "api", "private", "encryption", "signing", "master", "app", "subscription", "access", "auth",
    "session", "consumer", "hmac", "client", "shared", "webhook", "jwt", "license", "functions",
)  # fmt: skip
# The keyword must end the key's name: DB_PASSWORD= and clientSecret: yes; password_file=,
# max_tokens= and tokenizer: no.
_SECRET_KEYWORD = (
    r"(?:pass(?:word|wd|phrase|code)|pwd"
    # a service's password written PASS (DB_PASS, SMTP_PASS), or glued to its name as
    # sshpass reads it from SSHPASS (DBPASS, ROOTPASS, smtpPass): never a bare "_pass", which
    # is as often a counter or a compiler pass (MAX_PASS=5, first_pass = 1), nor a word's
    # "pass" (bypass, compass, passes)
    rf"|(?:{'|'.join(_PASS_PREFIXES)})[_\-]?pass(?![A-Za-z])"
    # and an environment variable's (APP_PASS, MINIO_PASS): upper case, and not a number
    # (MAX_PASS=5), which _assignment_hit leaves
    rf"|{_UPPER_PASS}"
    # "pw" as a name of its own or its last word (pw, DB_PW, adminPw), never inside a word
    # (npw, upw) nor the unit pW (picowatts)
    rf"|{_PW}"
    r"|secret(?:[_\-]?(?:access[_\-]?)?key)?"
    rf"|(?:{'|'.join(_KEY_PREFIXES)})[_\-]?key"
    r"|apikey|token|credentials?|creds"
    # "password" as teams write it in their own language
    rf"|{_LOCAL_PASSWORD})"
)
#: Words after a key's secret word, up to its separator: DB_PASSWORD_PROD, ADMIN_PASSWORD_2,
#: SECRET_KEY_BASE, apiTokenProd, password2, PASSWORD_MIN_LENGTH, tokenExpiry,
#: db.password.prod (dotted: a setting's, _says_which_secret). Up to six,
#: each a '_', '-' or '.' and a run of letters and digits, or in camelCase a capital after a
#: lower-case letter or a digit (so TOKENIZER holds no word after TOKEN), or a number after
#: a letter. Each read whole (possessive), so a long run of them stays linear.
_QUALIFIER = (
    r"(?:[_\-.][A-Za-z0-9]{1,24}+"
    r"|(?-i:(?<=[a-z0-9])[A-Z][a-z0-9]{0,23}+|(?<=[A-Za-z])[0-9]{1,8}+)){1,6}+"
)
#: The words of a sentence that say what a secret is or was (English, German, French,
#: Spanish, Portuguese, Italian: "das Passwort lautet …", "a senha é …", "la password è …").
_IS_WORDS = ("is", "was", "ist", "war", "lautet", "est", "était", "es", "era", "é", "foi", "è")
#: The words that say what a password is for, before its "is" or a colon ("the password for
#: staging is …", "das Passwort für staging ist …", "a senha do servidor é …", "la password
#: per staging è …").
_FOR_WORDS = (
    "for", "of", "on", "to", "für", "von", "vom", "pour", "de", "du", "para", "del", "do",
    "da", "per", "di", "della",
)  # fmt: skip
_FOR = "|".join(_FOR_WORDS)
#: Adverbs between "is" and the value: "the password is now hunter2" (after a rotation),
#: "… is still s3cr3tpass99".
_NOW_WORDS = ("now", "still", "currently", "also", "just", "jetzt", "noch", "maintenant")
#: A dash or an arrow between a secret's word and its value, as a note's list writes it.
_DASHES = ("-", "--", "–", "—", "→", "->")
_DASH = "|".join(_DASHES)
_IS = "|".join(_IS_WORDS)
#: What a password becomes: "the password was changed to …", "… should be …" (the last word,
#: "to" or "be", is in _SAID_VERBS).
_BECOMES = (
    r"(?:will|should|must|would|can|could)[ \t]+be"
    r"|(?:(?:is|was|has[ \t]+been|got)[ \t]+)?(?:changed|set|reset|updated|rotated)[ \t]+to"
)
_NOW = "|".join(_NOW_WORDS)
# The key may close a quoted subscript: os.environ["OPENAI_API_KEY"] = "…"; and JSON kept
# in a JSON string (a log line, a request body) escapes its quotes: {\"password\": \"…\"},
# and kept in a JSON string again, their backslashes too: {\\\"password\\\": \\\"…\\\"}.
_ASSIGNMENT = lazy(
    # (words may follow the secret's word, before the separator only: DB_PASSWORD_PROD=…,
    # "SECRET_KEY_BASE": …, apiTokenProd: …; see _says_which_secret)
    rf"(?P<key>{_SECRET_KEYWORD})(?P<qual>{_QUALIFIER})?(?P<kq>(?:(?:\\\\)*+\\?[\"']\]?)?)"
    # or said in a sentence: "the admin password is Hy6tB1…" (taken only when random)
    # (also of something: "the password for staging is …", "… on db-2 was …")
    # (an encoder may escape the '=' or ':' too, as JSON kept in JSON does: password\u003d…;
    # and HTML's &#61; as _found_in_character_references reads it)
    r"(?P<sep>[ \t]*(?:=>|:=|[:=：]|\\+(?:u003[dDaA]|x3[dDaA]))[ \t]*"
    # ("the password to the staging DB is …")
    # (or in German, French, Spanish, Portuguese or Italian: "das Passwort ist …", "le mot de
    # passe est …", "la contraseña es …", "a senha é …", "la password è …")
    rf"|(?:[ \t]+(?:{_FOR})(?:[ \t]+[\w.\-]{{1,64}}){{1,3}})?[ \t]+"
    rf"(?:{_BECOMES}|{_IS})(?:[ \t]*:)?[ \t]+(?:(?:{_NOW})[ \t]+)?"
    # or a colon after what it is for: "password for the admin user: …" (taken only when
    # random, as after "is")
    rf"|[ \t]+(?:{_FOR})(?:[ \t]+[\w.\-]{{1,64}}){{1,3}}[ \t]*[:：][ \t]+"
    # or what it was set to: "set the staging password to …" (likewise)
    r"|[ \t]+to[ \t]+"
    # or a dash or an arrow in a note's list: "Password - Hy6tq9…", "staging pw → …"
    # (likewise)
    rf"|[ \t]+(?:{_DASH})[ \t]+"
    # or, for a password, only a space after it: "login admin, password Hy6tq9…" (taken only
    # when random)
    r"|[ \t]+)"
    # a Python string may carry a prefix (app.secret_key = b'…', r'…', f"…"), a Rust raw
    # string its hashes (r#"…"#)
    r"(?:(?P<pre>[bB]?[rR]#{1,3}|[bBrRuUfF]{1,2})?"
    # (Python's, Kotlin's and Groovy's triple quotes, on one line or around a value alone on
    # the line between them: password = """…""", API_TOKEN = ''' then the token then ''')
    r"(?:(?P<tqq>\"\"\"|''')(?:(?P<tq>(?:(?!(?P=tqq))[^\r\n]){1,1024}?)"
    r"|[ \t]*\r?\n[ \t]*(?P<tb>[^\s\"'`]{1,1024})[ \t]*\r?\n[ \t]*)(?P=tqq)"
    r"|"
    # (a JSON or C string escapes a quote inside it: "q7Vw2Lx9\"Rz4M" is one value; read
    # so when it closes, as it was written when it does not: "C:\temp\" in a .bat)
    r"(?:\"(?P<dq>[^\"\\\r\n]{1,1024}(?=\")|(?:[^\"\\\r\n]|\\[^\r\n]){1,1024}(?=\")"
    r"|[^\"\r\n]{1,1024})\"|'(?P<sq>[^'\r\n]{1,1024})'))"
    # a quoted value a wrap (or YAML's folding) carried past its line's end: it closes on
    # the next line ("password": "Xk9m… then …Qe4" there)
    r"|\"(?P<dw>[^\"\r\n]{1,1024}\r?\n[^\"\r\n]{1,1024})\"|'(?P<sw>[^'\r\n]{1,1024}\r?\n[^'\r\n]{1,1024})'"
    # a JavaScript template literal or a Go raw string
    r"|`(?P<bq>[^`\r\n]{1,1024})`"
    # a value an encoder wrote in escaped quotes (\u0022, and HTML's &quot;, which
    # _found_in_character_references reads so), read as written up to its closing one and
    # on through what is glued to it, for the decoded reading to judge (_judged): a space
    # inside does not end it (password=\u0022\u003cyour password\u003e\u0022Hy6t…)
    r"|(?P<uq>\\u0022[^\"\r\n]{0,1024}?\\u0022[^\s\"'`,;&]{0,1024})"
    # a value in angle brackets an encoder escaped (\u003c, and so HTML's &lt; and a URL's
    # %3C as their readings write them) that a wrap carried past its line's end: it closes
    # on the next line, for the decoded reading to judge (\u003cHy6t… then …W3mR\u003e)
    r"|(?P<aw>(?:\\u003[cC]|\\x3[cC]|<)[^\s\"'`<>\\]{1,1024}\r?\n[ \t]{0,256}"
    r"[^\s\"'`<>\\]{1,1024}(?:\\u003[eE]|\\x3[eE]|>))"
    # JSON kept in a JSON string: a value's quotes follow an odd run of backslashes (eb),
    # and inside it a quote of its own the longer run that escapes eb and the quote again
    # (\"q7Vw\\\"Rz4M\"), a backslash of its own twice eb and two more (\"ab\\\\\" ends in
    # one); any other run is the value's (\\/, \\u0041). A run is read whole (possessive),
    # so a long run of backslashes stays linear.
    r"|(?P<eb>(?:\\\\)*+\\)\"(?P<eq>(?:[^\"\\\r\n]|\\++(?!\")"
    r"|(?:(?P=eb)\\(?P=eb)\\)++(?=(?P=eb)\")"
    r"|(?!(?:(?P=eb)\\(?P=eb)\\)*+(?P=eb)\")(?=(?P=eb)\\)\\++\"){0,1024})(?P=eb)\""
    r"|(?P<val>[^\s\"'`,;&]{1,1024}))",
    re.IGNORECASE,
)
# The key's whole name, read backwards from the keyword (bounded).
_KEY_NAME = lazy(r"[A-Za-z0-9_.\-]{0,64}$")
_KEY_NAME_CHARACTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-"


def _key_name_start(text: str, start: int) -> int:
    """Where ``_KEY_NAME.search(text, start - 64, start)`` starts: the run of a name's
    characters before ``start``, found by ``rstrip`` (a search tried the pattern at each of
    the 64 places, a tenth of _assignment_hit's time on test_redaction's hostile inputs).
    As the search does, a line break just before ``start`` is passed over (``$`` matches
    before a string's last line break), so a key that starts a line is named from the run
    of name characters that ends the line above it."""
    low = max(0, start - 64)
    before = text[low:start]
    if before.endswith("\n"):
        before = before[:-1]
    return low + len(before.rstrip(_KEY_NAME_CHARACTERS))


# After an unquoted ``key: value`` that is not a YAML line, the rest of the line must be
# empty, a comment or the end of an inline mapping; otherwise it is prose ("the token: it
# expires daily").
_COLON_TAIL = lazy(r"[ \t]*(?:$|#|,|\})", re.MULTILINE)
# A YAML mapping line: indentation, an optional "- ", the key, ": ", one run of non-space
# characters, then an optional comment. The whole run is the value (commas, '&' included).
_YAML_LINE = lazy(r"[ \t]*(?:-[ \t]+)?[A-Za-z0-9_.\-]*$")
_YAML_VALUE = lazy(r"[^\s\"'][^\s]{0,1023}(?=[ \t]*(?:#[^\n]*)?(?:\r?\n|$))")
_MAX_INDENT = 256
# In a URL query a value ends at '&'; elsewhere '&' is part of it (DB_PASSWORD=Tr0ub4dor&3,
# "the password is abc&Def123xyz"), up to a '&' that starts the next parameter of a form
# body or a query written without its '?' ("password=abc&user=bob").
#: The '&'-separated parts that go on a value (see :func:`_value_end`), one after another:
#: each a '&' that does not start another parameter's or assignment's ``name=`` (also
#: spaced or a Go/Pascal ``:=``: ``password=hunter2&token = …``, ``sshpass := x&$secret :=
#: …``, where the next key's value is its own), then up to 1024 characters up to the next
#: separator. A part holds no '&' but its first, so the parts start at the '&'s of the match.
_AMP_PARTS = lazy(
    r"(?:&(?![ \t]{0,64}\$?[A-Za-z_][\w.\-\[\]]{0,64}[ \t]{0,64}:?=)[^\s\"'`,;&]{0,1024})*"
)
#: One of those parts: a match at a '&' is the part that starts there, None where the next
#: parameter's name starts instead.
_AMP_PART = lazy(r"&(?![ \t]{0,64}\$?[A-Za-z_][\w.\-\[\]]{0,64}[ \t]{0,64}:?=)[^\s\"'`,;&]{0,1024}")


class _AmpParts(threading.local):
    """The parts that the values of one text read on over (:func:`_value_end`), kept from
    one value to the next: in ``&(password=a&(password=a…`` each value read the ~2,000
    characters of parts after it that the one before it had read (a fifth of redacting the
    hostile inputs that hold them). A part holds no '&' but its first, so the parts read on
    from a '&' start at the text's '&'s one after another, up to where no part follows:
    ``starts`` are such a run's '&'s, in order, and ``end`` where it ends (None: not read
    that far yet). A run is kept only from a '&' that the value before read on over
    (``read``: where that value's parts started and ended); any other value's parts are
    read by one match of :data:`_AMP_PARTS`, as cheap as it gets where nothing is read
    again. One for each thread, as each redacts its own texts."""

    def __init__(self) -> None:
        self.text = ""
        self.starts: list[int] = []
        self.end: int | None = None
        self.read = (0, 0)

    def read_on(self, until: int) -> None:
        """Read parts on from the last start until one starts at ``until`` or later, or the
        run ends (each part is read once while the values come in order)."""
        starts, text = self.starts, self.text
        while self.end is None and starts[-1] < until:
            last = starts[-1]
            part = _AMP_PART.match(text, last)
            if part is None:
                self.end = last  # the next parameter's name follows this '&'
            elif text.startswith("&", part.end()):
                starts.append(part.end())
            else:
                self.end = part.end()


_amp_parts = _AmpParts()


def _value_end(text: str, end: int, name_start: int) -> int:
    """Where an unquoted value that stopped at ``end`` ends: at a '&' when its name follows
    '?' or '&' (a parameter of a URL's query or a form body) or when another parameter's
    ``name=`` follows the '&' (``password=abc&user=bob``), else past it."""
    if not text.startswith("&", end) or text[max(0, name_start - 1) : name_start] in ("?", "&"):
        return end  # (no '&' after it: no part to read on over)
    # the parts that start within 1024 characters of the first '&', as a value is read:
    # each match of a secret's word then reads a bounded stretch, so a long run of them
    # stays linear. One match reads every part that can start there (a part is at most 1025
    # characters, its lookahead 66); the first part that starts later is cut where it starts
    # (a loop over the parts in Python cost 0.1 ms a value in "&(password=a&(password=a…",
    # where the parts kept from the value before are read on instead).
    limit = end + 1024
    kept = _amp_parts
    if kept.text is text:
        starts: list[int] | None = kept.starts
        if not (starts and starts[0] <= end <= starts[-1]):  # (then one of them: in order)
            if not kept.read[0] < end < kept.read[1]:
                starts = None
            else:  # read by the value before: read its parts once, for this and the next
                starts = kept.starts = [end]
                kept.end = None
        if starts is not None:
            # what the match below finds: the first part that starts at the limit or
            # later, or where the parts end before one does (a part that starts before
            # the limit reads no further than 1,025 characters past it, nor does its
            # lookahead, so the match's end cuts none of them)
            kept.read_on(limit)
            later = bisect.bisect_left(starts, limit)
            return starts[later] if later < len(starts) else kept.end  # type: ignore[return-value]
    parts_end = _AMP_PARTS.match(text, end, limit + 1025).end()  # type: ignore[union-attr]
    kept.text, kept.starts, kept.read = text, [], (end, parts_end)
    if parts_end <= limit:
        return parts_end
    later = text.find("&", limit, parts_end)
    return parts_end if later < 0 else later


_QUOTED_VALUE = r"\"(?P<dq>[^\"\r\n]{1,1024})\"|'(?P<sq>[^'\r\n]{1,1024})'"
# A value given after a command-line flag and a space: --password S3cret, --token abc.
#: A command-line option whose next argument is a credential (``--password``, ``--api-key``).
_SECRET_OPTION = (
    r"(?:[a-z0-9]+-)*(?:password|passwd|pass|token|secret|api-key|apikey|secret-(?:access-)?key"
    # the Azure CLI's storage account key (az storage … --account-key), the AWS CLI's
    # Secrets Manager value (--secret-string)
    r"|account-key|secret-string)"
)
_FLAG = lazy(
    rf"(?<![\w\-])--{_SECRET_OPTION}"
    # the value follows a space, or is the next item of a JSON/TOML argument list (on the
    # next line too, as a formatter writes it — in a diff, after its +/-/space column)
    rf"(?:[ \t]+|(?<=[a-z])[\"'],(?:[ \t]*|[ \t]*\r?\n[ \t+\-]*)(?=[\"']))"
    rf"(?:{_QUOTED_VALUE}|(?P<val>[^\s\"'`;]{{1,1024}}))",
    re.IGNORECASE,
)
# A .netrc entry: "machine <host> login <user> password <value>", on one line or several
# (the login is required: "machine learning password reset" is prose).
_NETRC = lazy(
    r"\bmachine[ \t]+[^\s]{1,256}\s{1,64}login[ \t]+[^\s]{1,256}\s{1,64}password[ \t]+"
    rf"(?:{_QUOTED_VALUE}|(?P<val>[^\s\"'`]{{1,1024}}))"
)
# An environment list entry in Kubernetes, compose or CI YAML: "name: DB_PASSWORD" and, on the
# next line, "value: ...".
_NAME_VALUE = lazy(
    rf"name:[ \t]*[\"']?[A-Za-z0-9_.\-]{{0,64}}(?P<word>{_SECRET_KEYWORD})(?P<qual>{_QUALIFIER})?"
    r"[\"']?[ \t]*\r?\n[ \t]*value:[ \t]*"
    rf"(?:{_QUOTED_VALUE}|(?P<val>[^\s\"'`#]{{1,1024}}))",
    re.IGNORECASE,
)

# A setting of an XML configuration file, named by its key or name attribute: .NET's
# <add key="Password" value="…"/>, Spring's and Ant's <property name="db.password" value="…"/>
# (either attribute first), and an element holding the value as its text
# (<entry key="db.password">…</entry>). A tag is read up to 1024 characters.
_XML_NAMED = (
    rf"\b(?:key|name)[ \t]*=[ \t]*(?P<nq>[\"'])[A-Za-z0-9_.:\-]{{0,64}}(?P<word>{_SECRET_KEYWORD})"
    rf"(?P<qual>{_QUALIFIER})?(?P=nq)"
)
_XML_VALUE = r"\bvalue[ \t]*=[ \t]*(?:\"(?P<dq>[^\"<>\r\n]{1,1024})\"|'(?P<sq>[^'<>\r\n]{1,1024})')"
_XML_TAG = r"<[A-Za-z][\w:.\-]{0,64}[ \t\r\n][^<>]{0,1024}?"
_XML_SETTINGS = (
    lazy(rf"{_XML_TAG}{_XML_NAMED}[^<>]{{0,1024}}?{_XML_VALUE}", re.IGNORECASE),
    lazy(rf"{_XML_TAG}{_XML_VALUE}[^<>]{{0,1024}}?{_XML_NAMED}", re.IGNORECASE),
    lazy(
        rf"{_XML_TAG}{_XML_NAMED}[^<>]{{0,1024}}(?<!/)>[ \t]*(?P<val>[^<\s][^<\r\n]{{0,1023}})</",
        re.IGNORECASE,
    ),
)


def _find_xml_settings(text: str) -> Iterator[_Hit]:
    for pattern in _XML_SETTINGS:
        for m in pattern.finditer(text):
            group = next(
                g for g in ("dq", "sq", "val") if g in pattern.groupindex and m.group(g) is not None
            )
            value = m.group(group)
            end = m.start(group) + len(value.rstrip())
            value = value.strip()
            if (
                value
                and not (_is_placeholder(value) or _COUNT_OR_FLAG.fullmatch(value))
                and _qualified_name_holds(m, value)
            ):
                yield _Hit(m.start(group), end, "password_assignment", 1)


# A YAML value that starts on the line after its key: a block scalar ("password: |" or ">-",
# then the indented lines) or a plain scalar continued there ("password:", then the value).
# Its lines are those indented more than the key's line (blank lines between them kept).
_YAML_BLOCK = lazy(
    r"^(?P<indent>[ \t]{0,256})(?:-[ \t]+)?[\"']?"
    rf"(?P<key>[A-Za-z0-9_.\-]{{0,64}}{_SECRET_KEYWORD}(?:{_QUALIFIER})?)"
    r"[\"']?[ \t]*:[ \t]*(?P<style>[|>][+\-]?[1-9]?[+\-]?)?[ \t]*(?:#[^\n]*)?\r?\n"
    r"(?P<body>(?:[ \t]*\r?\n)*(?P=indent)[ \t]+[^\s#][^\n]*"
    r"(?:(?:\r?\n[ \t]*)*\r?\n(?P=indent)[ \t]+[^\s][^\n]*)*)",
    re.IGNORECASE | re.MULTILINE,
)
# A line that starts a mapping or a list, not a scalar: "min_length: 12", "- item".
_YAML_NOT_SCALAR = lazy(r"-(?:[ \t]|$)|[^\s:\"']{1,256}:(?:[ \t]|$)|[|>!&*%@`]")


def _yaml_blocks(text: str, stem_places: list[int]) -> Iterator[re.Match[str]]:
    """``_YAML_BLOCK.finditer(text)``, tried only at the start of each line that holds one of
    ``stem_places`` (:func:`_stem_places`, in order): a block's key is on its first line and
    holds a stem. The search tried its key's pattern, a name of up to 64 characters and a
    secret's word at each split of it, at every line of a text (a tenth of redacting the
    eval corpora's documents, 0.35 of 5 CPU-s)."""
    pos = 0  # where the last match ended: the search goes on from there
    line_end = -1  # the end of the line of the last place tried
    for place in stem_places:
        if place < line_end or place < pos:
            continue  # (on a line tried already, or inside the last block)
        line_start = text.rfind("\n", 0, place) + 1  # (back to line_end at most: linear)
        line_end = text.find("\n", place)
        if line_end < 0:
            line_end = len(text)
        if line_start < pos:
            continue  # the line starts inside the last block: no match starts there
        m = _YAML_BLOCK.match(text, line_start)
        if m is not None:
            yield m
            pos = m.end()


def _find_yaml_blocks(text: str, stem_places: list[int]) -> Iterator[_Hit]:
    for m in _yaml_blocks(text, stem_places):
        body_start = m.start("body")
        lines = [
            (body_start + line.start(), line.group().rstrip())
            for line in re.finditer(r"[^\r\n]+", m.group("body"))
            if line.group().strip()
        ]
        block = m.group("style") is not None
        if not lines or (
            not block and (len(lines) > 1 or _YAML_NOT_SCALAR.match(lines[0][1].strip()))
        ):
            continue
        start, first = lines[0]
        start += len(first) - len(first.lstrip())
        first = first.strip()
        # judged as "key: value" on one line is (prose, a placeholder, a reference are kept)
        said = f"{m.group('key')}: {first}"
        found = _next_assignment(said, 0, _assignment_starts(said, said.lower()))
        hit = _assignment_hit(said, found) if found else None
        if hit is None:
            continue
        offset = start - len(m.group("key")) - 2
        if block and len(lines) > 1:
            last_start, last = lines[-1]
            yield _Hit(start, last_start + len(last), "password_assignment", 1)
        else:
            yield _Hit(hit.start + offset, hit.end + offset, "password_assignment", 1)


# A key named in words, as a person writes it: "the API key is …", "secret key = …",
# "the staging deploy key: …" (the value taken only when random: "the API key is required").
_SPOKEN_KEY = lazy(
    r"\b(?:api|secret|access|private|deploy|license|encryption|signing|master|client|app)"
    rf"[ \t]+key\b(?:[ \t]+(?:{_FOR})(?:[ \t]+[\w.\-]{{1,64}}){{1,3}})?"
    # (its "is" and "for" words those of a password said so, "the API key is now …")
    rf"(?:[ \t]*[:=][ \t]*|[ \t]+(?:{_IS})[ \t]+(?:(?:{_NOW})[ \t]+)?)"
    # (a value in a sentence holds its '&': no URL's query separates parameters there)
    rf"(?:{_QUOTED_VALUE}|(?P<val>[^\s\"'`,;]{{1,1024}}))",
    re.IGNORECASE,
)


def _find_spoken_keys(text: str) -> Iterator[_Hit]:
    for m in _SPOKEN_KEY.finditer(text):
        group = next(g for g in ("dq", "sq", "val") if m.group(g) is not None)
        value = m.group(group).rstrip(".!?:)") if group == "val" else m.group(group)
        if _looks_random(value):
            yield _Hit(m.start(group), m.start(group) + len(value), "password_assignment", 1)


# A value said before what it is, "use … as the (staging DB) password", or a login's user /
# password, "login with admin / …", "credentials: deploy / …" (taken only when random, or for
# a password when a person's: letters and digits).
_USED_AS = lazy(
    rf"\buse[ \t]+(?:{_QUOTED_VALUE}|(?P<val>[^\s\"'`,;]{{1,1024}}))[ \t]+as[ \t]+"
    rf"(?:[\w.\-]{{1,64}}[ \t]+){{0,4}}?(?P<key>{_SECRET_KEYWORD})(?![\w\-])",
    re.IGNORECASE,
)
# ... or "… is the (staging DB) password", the value first: a word of its own (after a space,
# a quote or a bracket, so a long run is read once), and the password's word ending the
# clause ("Hy6tB1qZr0 is the password.", "abc123 is the password for staging"), where a name
# would be followed by the noun it qualifies ("python3 is the password manager").
_IS_THE = lazy(
    rf"(?<![^\s\"'`(\[])(?:{_QUOTED_VALUE}|(?P<val>[^\s\"'`,;]{{1,1024}}))[ \t]+(?:is|was)[ \t]+"
    rf"(?:the|my|our|your)[ \t]+(?:[\w.\-]{{1,64}}[ \t]+){{0,4}}?(?P<key>{_SECRET_KEYWORD})"
    r"(?=[.,;:!?)]|[ \t]*(?:\r?\n|$)|[ \t]+(?:for|of|on|to|here|now)\b)",
    re.IGNORECASE,
)
_LOGIN_PAIR = lazy(
    r"\b(?:log[ \t\-]?in|sign[ \t\-]?in|credentials|creds)(?:[ \t]+(?:with|as|using|are|is))?"
    # a user's name in lower case: "sign in with Google / Microsoft365" names two providers
    r"(?:[ \t]*:)?[ \t]+(?-i:[a-z0-9_])[^\s/:]{0,63}[ \t]*/[ \t]*"
    r"(?P<val>[^\s\"'`,;/]{1,1024})(?!/)",
    re.IGNORECASE,
)


#: What _LOGIN_PAIR's words are in an ASCII text's ``lower()``: one of them is in every text
#: it matches ("log" or "sign" alone is in every "design", "assignment", "catalog" and
#: "[REDACTED:password_assignment]", each a scan of the whole text for nothing).
_LOGIN_WORDS = (
    *(f"{verb}{gap}in" for verb in ("log", "sign") for gap in ("", " ", "\t", "-")),
    "cred",
)


def _find_said_credentials(text: str, lower: str, stem: bool) -> Iterator[_Hit]:
    """The credentials said in a sentence: "use … as the password", "log in with user /
    …", "… is the password"; ``stem`` is whether ``text`` holds a stem of a secret's word
    (:data:`_SECRET_STEM`), without which no secret's word is in it (_SECRET_KEYWORD holds
    one in any case), so neither of the sentences that name one (most notes name none, and
    " is " is in most: a scan of _IS_THE was a twelfth of redacting the eval corpora)."""
    # (match, its value's group, the secret's word, whether the value ends its clause)
    found: list[tuple[re.Match[str], str, str, bool]] = []
    if stem and "use" in lower and " as " in lower:
        for m in _USED_AS.finditer(text):
            group = next(g for g in ("dq", "sq", "val") if m.group(g) is not None)
            found.append((m, group, m.group("key"), False))
    # (in a text that is not ASCII, case-insensitive matching reads other letters as these)
    if ("log" in lower or "sign" in lower or "cred" in lower) and (
        not text.isascii() or any(word in lower for word in _LOGIN_WORDS)
    ):
        found.extend((m, "val", "password", False) for m in _LOGIN_PAIR.finditer(text))
    if stem and (" is " in lower or " was " in lower):
        for m in _IS_THE.finditer(text):
            group = next(g for g in ("dq", "sq", "val") if m.group(g) is not None)
            said = m.group(group)
            if _HOLDS_SECRET_WORD.search(said) or "." in said or _SNAKE.fullmatch(said):
                # a parameter's documentation ("password2 is the password for the backup
                # user", "args.pw is the password to use"): a name, where a value is no code
                continue
            # "… is the password." ends its clause at the password's word (:data:`_IS_THE`),
            # so a chosen one in lower case is taken there, as after "is"
            # (_short_chosen_password)
            found.append((m, group, m.group("key"), True))
    for m, group, key, ends in found:
        value = m.group(group).rstrip(".!?:)") if group == "val" else m.group(group)
        if _said_secret(key, value, ends):
            yield _Hit(m.start(group), m.start(group) + len(value), "password_assignment", 1)


# An HTTP client's basic-auth pair, the password a literal: requests' auth=('user', '…') and
# HTTPBasicAuth('user', '…'), httpx's and aiohttp's BasicAuth, a client's basic_auth(…).
_BASIC_AUTH_PAIR = lazy(
    r"(?:\bauth[ \t]*=[ \t]*\(|\b(?:HTTP)?(?:Basic|Digest)Auth\(|\bbasic_auth\()[ \t]*"
    r"(?:\"[^\"\r\n]{0,256}\"|'[^'\r\n]{0,256}'|[A-Za-z_][\w.]{0,128})[ \t]*,[ \t]*"
    rf"(?:{_QUOTED_VALUE})[ \t]*\)",
    re.IGNORECASE,
)


def _find_basic_auth_pairs(text: str) -> Iterator[_Hit]:
    for m in _BASIC_AUTH_PAIR.finditer(text):
        group = "dq" if m.group("dq") is not None else "sq"
        if not _is_placeholder(m.group(group).strip()):
            yield _Hit(m.start(group), m.end(group), "password_assignment", 1)


# Every pattern of _find_assignments holds one of these stems of _SECRET_KEYWORD under the same
# case-insensitive matching, so a text without any has no assignment to find; one scan for
# them costs half of _ASSIGNMENT's search, and most notes hold none.
_COUNT_OR_FLAG = lazy(r"\d+(?:\.\d+)?|true|false|yes|no|on|off", re.IGNORECASE)

_CJK_TEXT = lazy(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff66-\uff9f]")
#: The stems of _SECRET_KEYWORD: each of its keys holds one.
_KEYWORD_STEMS = rf"pass|pw|secret|key|token|cred|{_LOCAL_PASSWORD}"
_STEMS = rf"{_KEYWORD_STEMS}|sshpass|mysql|mariadb|redis-cli|docker"
_SECRET_STEM = lazy(_STEMS, re.IGNORECASE)
#: _SECRET_STEM for an ASCII text's ``lower()`` (its stems are lower case): the same answer,
#: without the case-insensitive scan's cost (~6× slower in Python's re).
_SECRET_STEM_LOWER = lazy(_STEMS)


def _split_alternation(pattern: str) -> list[str]:
    """The alternatives of ``pattern`` at its top level (a ``|`` inside a group or a class
    belongs to it)."""
    branches, depth, start, i = [], 0, 0, 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 1
        elif char == "[":
            i = pattern.index("]", i + 2)  # (a class of these patterns never opens with ']')
        elif char in "()":
            depth += 1 if char == "(" else -1
        elif char == "|" and depth == 0:
            branches.append(pattern[start:i])
            start = i + 1
        i += 1
    return [*branches, pattern[start:]]


def _first_characters_read(alternation: str) -> str:
    """A pattern that matches one character wherever ``(?=alternation)`` matches, and only
    there: the alternatives grouped by their first character, each group a lookahead after
    it (``p(?=ass|w)|s(?=ecret)``). A search then skips in C every character that starts
    none of them, where the lookahead tried the whole alternation at each (2.5x faster over
    test_redaction's hostile inputs). Each alternative must start with a character of its
    own, no class, group or quantifier."""
    groups: dict[str, list[str]] = {}
    for branch in _split_alternation(alternation):
        if not branch or branch[0] in "\\[(.^$|?*+{" or branch[1:2] in ("?", "*", "+", "{"):
            raise ValueError(f"{branch!r} starts with no character of its own")
        groups.setdefault(branch[0], []).append(branch[1:])
    return "|".join(
        first if "" in rests else f"{first}(?={'|'.join(rests)})" for first, rests in groups.items()
    )


#: Where _SECRET_KEYWORD's stems start in an ASCII text's ``lower()``, each of them: their
#: first character, read one at a time (one stem's match does not hide another inside it).
_KEYWORD_STEM_AT = lazy(_first_characters_read(_KEYWORD_STEMS))
#: The same places in a text that is not ASCII, found in the text itself and as
#: _ASSIGNMENT matches its key, case-insensitively: ``lower()`` may change such a text's
#: length (İ), and Python's case-insensitive matching pairs letters ``lower()`` does not
#: (the Kelvin sign with k, ſ with s). ~5x the scan of ``lower()``, ~1/4 of a search of
#: the text with _ASSIGNMENT itself.
_KEYWORD_STEM_AT_ANY_CASE = lazy(f"(?={_KEYWORD_STEMS})", re.IGNORECASE)
#: Every spelling of those stems (the local words' ``[_ ]`` and ``(?:ñ|n)`` spelled out), less
#: those that start with another ("passwort": "pass"): where one starts, a stem does.
_STEM_SPELLINGS = (
    "pass", "pw", "secret", "key", "token", "cred", "kennwort", "wachtwoord", "mot_de_passe",
    "mot_de passe", "mot de_passe", "mot de passe", "contraseña", "contrasena", "senha",
    "parola", "hasło", "haslo", "пароль", "şifre", "sifre", "パスワード", "密码", "密碼", "口令",
    "비밀번호",
)  # fmt: skip
#: Each character that Python's case-insensitive matching reads as a letter of those
#: spellings, as that letter: its upper case, and the letters ``re`` pairs besides (İ and ı
#: with i, the Kelvin sign with k, ſ with s, Cyrillic's narrow ᲂ with о). Every such
#: character is here (test_redaction reads every code point).
_AS_STEM_LETTERS = str.maketrans(
    {
        **{
            letter.upper(): letter
            for letter in {*"".join(_STEM_SPELLINGS)} - {" ", "_"}
            if len(letter.upper()) == 1 and letter.upper() != letter
        },
        "\u0130": "i", "\u0131": "i", "\u212a": "k", "\u017f": "s", "\u1c82": "\u043e",
    }
)  # fmt: skip
#: One of those stems, in an ASCII text's ``lower()`` or in any text.
_KEYWORD_STEM = lazy(_KEYWORD_STEMS)
_KEYWORD_STEM_ANY_CASE = lazy(_KEYWORD_STEMS, re.IGNORECASE)
#: How far before the stem it holds a match of _SECRET_KEYWORD may start: its longest
#: prefix is the 17 characters of rabbitmq_default_pass's "rabbitmq_default_" (and the 13
#: of subscription_key's), with room.
_KEY_BEFORE_STEM = 24


class _AnyOf:
    """Whether a text holds one of some words (substrings, in its case): one pass of an RE2
    set of them (:func:`_word_set`), compiled on first use. A substring test for each word
    read the text once a word: the 53 tools below cost ~50 µs on a note of 300 characters
    and 1.4 ms on 60k (the hostile inputs of tests/test_redaction.py), the set 4 µs and
    0.1 ms."""

    def __init__(self, words: tuple[str, ...]) -> None:
        self.words = words
        self._set: Any = None

    def __call__(self, text: str) -> bool:
        if self._set is None:
            self._set = _word_set(self.words)
        return bool(self._set.Match(text))


#: The stems of the patterns that need none of _SECRET_STEM's (IDENTIFIED BY, masterauth,
#: openssl -k, mongosh -p, ldapsearch -w, zip -P, smbclient -U): substring tests, as each
#: more word in the stem's alternation slows its scan of every note.
_RARE_STEMS = ("identified", "masterauth", "openssl", "mongo", "ldap", "setx", "sqlcmd",
               "rabbitmqctl", "az login", "zip", "7z", "rar", "smb", "rpcclient",
               "freerdp", "sqlplus", "sqlldr", "expdp", "impdp", "dgmgrl", "rman",
               "userid", "net use", "cmdkey", "psexec", "paexec", "mosquitto", "lftp",
               "rdesktop", "securestring", "nuget", "config", "hydra", "medusa", "ncftp",
               "winrm", "winrs", "crackmapexec", "netexec", "nxc", "alias set", "host add",
               "user add", "bundle", "cqlsh", "ipmitool", "racadm", "twine", "rabbitmqadmin",
               "vsql", "bcp", "schtasks", "snmp", "connect to", "cargo", "vault", "snyk",
               "ngrok", "bw ", "mkpasswd", "put-parameter", "obscure",
               "encrypt_string", "bcrypt.")  # fmt: skip
_HOLDS_RARE_STEM = _AnyOf(_RARE_STEMS)
#: The tools _TOOL_PASSWORD knows (its scan, an alternation at every position, runs only in a
#: note that names one of them).
_TOOLS = ("mysql", "mariadb", "sshpass", "docker", "podman", "redis-cli", "secret", "openssl",
          "mongo", "ldap", "setx", "setenvironmentvariable", "keytool", "sqlcmd", "az login",
          "zip", "7z", "rar", "smb", "rpcclient", "freerdp", "pscp", "plink", "psftp", "cmdkey",
          "psexec", "paexec", "ssh-keygen", "mosquitto", "lftp", "rdesktop", "wpa_passphrase",
          "securestring", "nuget", "hydra", "medusa", "ncftp", "winrm", "winrs", "crackmapexec",
          "netexec", "nxc", "cqlsh", "ipmitool", "racadm", "twine", "rabbitmqadmin", "vsql",
          "bcp", "jarsigner", "schtasks", "snmp", "connect to")  # fmt: skip
_NAMES_A_TOOL = _AnyOf(_TOOLS)
#: A tool's short option whose argument is its password: ``mysql -pS3cret`` (attached, as
#: mysql and mariadb take it), ``sshpass -p 'x'``, ``redis-cli -a x``, ``docker login -p x``;
#: within 160 characters of the tool's name and in the same command (not past ``; & |``;
#: unbounded, a line of "mysql mysql …" took time quadratic in its length).
_TOOL_PASSWORD = lazy(
    r"\b(?:(?:mysql(?:dump|admin|import|check)?|mariadb(?:-dump|-admin)?)\b[^\n;&|]{0,160}?"
    r"(?<=\s)-p(?=[^\s=-])"
    # sshpass's own options come before the command it runs (whose -p is a port)
    r"|sshpass(?:[ \t]+-(?:[fdP][ \t]*\S+|[ev]))*[ \t]+-p[ \t]*"
    r"|(?:docker|podman)[ \t]+login\b[^\n;&|]{0,160}?(?<=\s)-p[ \t]+"
    r"|redis-cli\b[^\n;&|]{0,160}?(?<=\s)-a[ \t]+"
    # openssl's pass phrase (-passin/-passout/-pass pass:…, enc's -k …; env: and file: name
    # where it is), mongosh's -p, the OpenLDAP tools' -w
    r"|openssl\b[^\n;&|]{0,200}?(?<=\s)(?:-pass(?:in|out)?[ \t]+[\"']?pass:|-k[ \t]+)"
    r"|mongo(?:sh)?\b[^\n;&|]{0,160}?(?<=\s)-p[ \t]+"
    r"|ldap(?:search|modify|add|delete|passwd|whoami|compare|modrdn)\b[^\n;&|]{0,160}?"
    r"(?<=\s)-w[ \t]+"
    # a GitHub Actions secret set from the command line: whatever its name, it is one
    r"|gh[ \t]+secret[ \t]+set\b[^\n;&|]{0,160}?(?<=\s)(?:--body(?:[ \t]+|=)|-b[ \t]*)"
    # Windows' setx: a variable named for a secret, or the remote machine's password (/p);
    # and PowerShell's [Environment]::SetEnvironmentVariable("NAME", "value", …)
    rf"|(?i:setx(?:[ \t]+/m)?[ \t]+[\"']?[A-Za-z0-9_]{{0,64}}{_SECRET_KEYWORD}[\"']?[ \t]+)"
    r"|(?i:setx)\b[^\n;&|]{0,160}?(?<=\s)/[pP][ \t]+"
    rf"|SetEnvironmentVariable\([ \t]*[\"'][A-Za-z0-9_]{{0,64}}(?i:{_SECRET_KEYWORD})[\"'][ \t]*,"
    r"[ \t]*(?=[\"'])"
    # keytool's store and key passwords (-storepass:env NAME names where it is), sqlcmd -P
    r"|(?:keytool|jarsigner)\b[^\n;&|]{0,200}?(?<=\s)-(?:src|dest)?(?:store|key)pass[ \t]+"
    r"|sqlcmd\b[^\n;&|]{0,160}?(?<=\s)-P[ \t]*"
    # the Azure CLI's login -p; zip's -P; 7-Zip's and RAR's -p, attached (a bare -p prompts,
    # RAR's -p- asks for none)
    r"|az[ \t]+login\b[^\n;&|]{0,160}?(?<=\s)-p[ \t]+"
    r"|(?:un)?zip\b[^\n;&|]{0,160}?(?<=\s)-P[ \t]+"
    r"|(?:7z[arz]?|(?:un)?rar)\b[^\n;&|]{0,160}?(?<=\s)-p(?=[^\s-])"
    # Samba's -U user%password (also DOMAIN\\user%password), FreeRDP's /p:, PuTTY's -pw
    r"|(?:smbclient|rpcclient|smbcacls|smbget|smbmap)\b[^\n;&|]{0,160}?(?<=\s)"
    r"(?:-U|--user)(?:[ \t]*|=)[\"']?[^\s%\"']{1,256}%"
    r"|(?:[xw]freerdp3?|sdl-freerdp3?|freerdp)\b[^\n;&|]{0,200}?(?<=\s)[/+\-]p:"
    r"|(?:pscp|plink|psftp)(?:\.exe)?\b[^\n;&|]{0,160}?(?<=\s)-pw[ \t]+"
    # Windows' cmdkey /pass:, PsExec's -p
    r"|(?i:cmdkey)\b[^\n;&|]{0,200}?(?<=\s)/(?i:pass):"
    r"|(?i:ps|pa)(?i:exec)(?:64)?(?:\.exe)?\b[^\n;&|]{0,200}?(?<=\s)-p[ \t]+"
    # ssh-keygen's new and old passphrases (-N '' is none), mosquitto's -P, lftp's -u
    # user,password, rdesktop -p, wpa_passphrase SSID PASSPHRASE, PowerShell's
    # ConvertTo-SecureString "…" -AsPlainText
    r"|ssh-keygen\b[^\n;&|]{0,200}?(?<=\s)-[NP][ \t]*"
    r"|mosquitto_(?:pub|sub|rr)\b[^\n;&|]{0,200}?(?<=\s)-P[ \t]+"
    r"|lftp\b[^\n;&|]{0,160}?(?<=\s)-u[ \t]+[\"']?[^\s,\"']{1,256},"
    r"|rdesktop\b[^\n;&|]{0,160}?(?<=\s)-p[ \t]+"
    r"|wpa_passphrase[ \t]+(?:\"[^\"\n]{1,64}\"|'[^'\n]{1,64}'|[^\s\"']{1,64})[ \t]+"
    r"|(?i:ConvertTo-SecureString)(?:[ \t]+(?i:-String))?[ \t]+(?=[\"'])"
    # a NuGet source's password
    r"|dotnet[ \t]+nuget[ \t]+(?:add|update)[ \t]+source\b[^\n;&|]{0,300}?(?<=\s)-p[ \t]+"
    # the login tools whose -p is the password, by their names (ssh's, psql's and docker's -p
    # is a port, mkdir's and cp's a flag, git add's a mode): THC Hydra and Medusa (-P names a
    # list), NcFTP's clients, Evil-WinRM, CrackMapExec and NetExec, and Windows' winrm and
    # winrs (-p:PASS, -password:PASS)
    r"|(?:hydra|medusa|ncftp(?:get|put|ls|batch)?|evil-winrm(?:\.rb)?|crackmapexec|netexec"
    # (not a name before '.', '/' or '=': the Hydra config framework's overrides,
    # hydra.run.dir=… and hydra/launcher=…, whose -p is a config package)
    r"|nxc)(?:\.exe)?\b(?![./=])[^\n;&|]{0,200}?(?<=\s)(?:-p|--password)[ \t]+"
    r"|(?i:winrm|winrs)(?:\.cmd|\.exe)?\b[^\n;&|]{0,300}?(?<=\s)[\-/](?:p|password)(?::|[ \t]+)"
    # and the tools whose password option is their own letter: cqlsh's, racadm's, twine's and
    # rabbitmqadmin's -p (rabbitmqadmin's -P and ipmitool's -p are ports), ipmitool's and
    # bcp's -P, Vertica's vsql -w, schtasks' /RP, the net-snmp tools' SNMPv3 pass phrases
    # (-A, -X), and DB2's CONNECT TO db USER name USING password
    r"|(?:cqlsh|racadm|twine|rabbitmqadmin)(?:\.exe|\.py)?\b[^\n;&|]{0,200}?(?<=\s)"
    r"(?:-p|--password)[ \t]+"
    r"|(?:ipmitool|bcp)(?:\.exe)?\b[^\n;&|]{0,200}?(?<=\s)-P[ \t]+"
    r"|vsql\b[^\n;&|]{0,200}?(?<=\s)-w[ \t]+"
    r"|(?i:schtasks)(?:\.exe)?\b[^\n;&|]{0,300}?(?<=\s)/(?i:rp)[ \t]+"
    r"|snmp(?:walk|bulkwalk|get|getnext|bulkget|set|trap|inform|table|delta|status|df|netstat"
    r"|usm|vacm)\b[^\n;&|]{0,300}?(?<=\s)-[AX][ \t]+"
    # (after db2's name, or in SQL's capitals: "connect to prod user root using Okta" is prose)
    r"|\b(?:db2[ \t]+(?i:connect[ \t]+to[ \t]+[^\s;&|]{1,128}[ \t]+user[ \t]+[^\s;&|]{1,128}"
    r"[ \t]+using)|CONNECT[ \t]+TO[ \t]+[^\s;&|]{1,128}[ \t]+USER[ \t]+[^\s;&|]{1,128}"
    r"[ \t]+USING)[ \t]+)"
    rf"(?:{_QUOTED_VALUE}|(?P<val>[^\s\"'`;]{{1,1024}}))"
)


# kubectl create secret … --from-literal=KEY=VALUE: every literal of the command is stored as
# a secret, whatever KEY is named (a configmap's literals are not). The command runs to the
# end of its line (continued by a trailing backslash) or to ; & |.
_CREATE_SECRET = lazy(r"\bcreate[ \t]+secret\b")
_COMMAND_END = lazy(r"(?<!\\)(?<!\\\r)\r?\n|[;&|]")
_FROM_LITERAL = lazy(
    r"--from-literal[= ][\"']?[\w.\-]{1,253}="
    rf"(?:{_QUOTED_VALUE}|(?P<val>[^\s\"'`;]{{1,1024}}))"
)


def _find_secret_literals(text: str) -> Iterator[_Hit]:
    if "from-literal" not in text:
        return
    covered = 0  # each command is read once, however many "create secret" it holds
    for m in _CREATE_SECRET.finditer(text):
        if m.start() < covered:
            continue
        end_match = _COMMAND_END.search(text, m.end())
        covered = end = len(text) if end_match is None else end_match.start()
        for literal in _FROM_LITERAL.finditer(text, m.end(), end):
            group = next(g for g in ("dq", "sq", "val") if literal.group(g) is not None)
            if not _is_placeholder(literal.group(group)):
                yield _Hit(literal.start(group), literal.end(group), "password_assignment", 1)


#: redis.conf's password directives (requirepass, masterauth), on a line of their own.
_CONF_PASSWORD = lazy(
    rf"^[ \t]*(?:requirepass|masterauth)[ \t]+(?:{_QUOTED_VALUE}|(?P<val>[^\s\"'`]{{1,1024}}))",
    re.MULTILINE,
)
#: A password set in SQL: CREATE/ALTER USER|ROLE … PASSWORD '…' (PostgreSQL), … IDENTIFIED
#: [WITH plugin] BY '…' (MySQL, Oracle; GRANT too), within 200 characters of the statement's
#: start and before its ';' (bounded: a text of many "CREATE USER" stays linear).
_SQL_PASSWORD = lazy(
    r"\b(?:(?:create|alter)[ \t]+(?:user|role|login)|grant)\b[^;]{0,200}?"
    r"\b(?:password|identified(?:[ \t]+with[ \t]+[\w$]{1,64})?[ \t]+by)[ \t]+"
    r"'(?P<sq>[^'\r\n]{1,1024})'",
    re.IGNORECASE,
)
#: The IDENTIFIED BY clause on its own (MySQL, Oracle; however far from its CREATE/ALTER
#: USER or GRANT): a quoted literal, or Oracle's unquoted password after the clause in
#: upper case, as SQL is written (prose says "identified by their email"). Not alembic's
#: "Can't locate revision identified by 'a1b2c3d4e5f6'" (a user named revision is caught
#: by the statement's rule above).
_SQL_IDENTIFIED = lazy(
    r"(?<![Rr]evision[ \t])\b(?i:identified(?:[ \t]+with[ \t]+[\w$]{1,64})?[ \t]+by)[ \t]+"
    r"(?:'(?P<sq>[^'\r\n]{1,1024})'|\"(?P<dq>[^\"\r\n]{1,1024})\")"
    r"|(?<![\w'\"])IDENTIFIED(?:[ \t]+WITH[ \t]+[\w$]{1,64})?[ \t]+BY[ \t]+(?!VALUES\b)"
    # and the statement ends, or one of its clauses follows (Oracle's and MySQL's: ACCOUNT
    # UNLOCK, DEFAULT TABLESPACE, REPLACE old, …): any word in capitals is prose in capitals
    r"(?P<val>[^\s;'\"`]{1,1024})(?=[ \t]*(?:;|,|\r?$|(?:ACCOUNT|DEFAULT|TEMPORARY|QUOTA"
    r"|PROFILE|PASSWORD|CONTAINER|REPLACE|ENABLE|REQUIRE|WITH|COMMENT|ATTRIBUTE"
    r"|FAILED_LOGIN_ATTEMPTS|PASSWORD_LOCK_TIME|RETAIN|DISCARD|AND)\b))",
    re.MULTILINE,
)
#: MySQL's SET PASSWORD [FOR user] = '…', and its PASSWORD('…') function (an UPDATE of
#: mysql.user, a SET PASSWORD of old): a literal there is the password.
_SQL_SET_PASSWORD = lazy(
    r"\bset[ \t]+password\b(?:[ \t]+for[ \t]+[^=;\n]{1,200}?)?[ \t]*=[ \t]*"
    r"'(?P<sq>[^'\r\n]{1,1024})'"
    r"|(?<!\.)\b(?:old_)?password[ \t]*\([ \t]*'(?P<val>[^'\r\n]{1,1024})'[ \t]*\)",
    re.IGNORECASE,
)
#: A command that reads a password from its input: chpasswd (user:password lines), passwd,
#: kinit, sudo -S, smbpasswd -s, and any with --password-stdin or --passphrase-fd 0 (or gh
#: auth login's --with-token).
_PASSWORD_READER = (
    r"(?:sudo(?:[ \t]+-[A-Za-z]+)*[ \t]+)?(?:(?P<chpasswd>chpasswd)\b|passwd\b|kinit\b"
    r"|smbpasswd\b[^\n;&|]{0,80}?[ \t]-[A-Za-z]*s\b|sudo\b[^\n;&|]{0,80}?(?<=\s)-[A-Za-z]*S\b"
    r"|[^\n;&|]{0,200}?(?:--password-stdin|--passphrase-fd[ \t=]0|--with-token)\b"
    # and a secret store's command that reads the secret from its input: gcloud secrets
    # create/versions add --data-file=-, docker/podman secret create NAME -, gh secret set
    # NAME (no --body), a --from-file=…=/dev/stdin
    r"|[^\n;&|]{0,200}?(?:--data-file[ \t=]-|=/dev/stdin)(?![\w\-/])"
    r"|(?:docker|podman)[ \t]+secret[ \t]+create\b(?:[ \t]+--?[\w\-]+(?:=\S+)?)*[ \t]+[^\s;&|\-]\S*"
    r"[ \t]+-(?![\w\-])"
    r"|gh[ \t]+secret[ \t]+set[ \t]+[^\s;&|]+(?:[ \t]+--?(?!-|b\b|body\b|f\b|env-file\b)[\w\-]+"
    r"(?:[ \t=]+[^\s;&|\-]\S*)?)*[ \t]*(?:$|[;&|\r\n]))"
)
_ECHOED_VALUE = (
    r"(?:\"(?P<dq>[^\"\r\n]{1,1024})\"|'(?P<sq>[^'\r\n]{1,1024})'"
    r"|(?P<val>[^\s\"'`|;&<>]{1,1024}))"
)
#: What echo or printf pipes into such a command, or a here-string gives it, is the password.
_PIPED_PASSWORD = lazy(
    r"\b(?:echo(?:[ \t]+-[neE]{1,3})*|printf(?:[ \t]+(?:'%s(?:\\n)?'|\"%s(?:\\n)?\"))?)[ \t]+"
    rf"{_ECHOED_VALUE}[ \t]*\|[ \t]*(?={_PASSWORD_READER})"
)
_HERE_STRING_PASSWORD = lazy(
    rf"(?<![\w\-])(?={_PASSWORD_READER})[^\n;&|<]{{0,200}}<<<[ \t]*{_ECHOED_VALUE}"
)
_READERS = ("chpasswd", "passwd", "kinit", "sudo", "stdin", "passphrase-fd", "with-token",
            "data-file", "secret create", "secret set")  # fmt: skip


def _find_piped_passwords(text: str) -> Iterator[_Hit]:
    if ("|" not in text and "<<<" not in text) or not any(r in text for r in _READERS):
        return
    matches = _PIPED_PASSWORD.finditer(text) if "|" in text else iter(())
    if "<<<" in text:
        matches = chain(matches, _HERE_STRING_PASSWORD.finditer(text))
    for m in matches:
        group = next(g for g in ("dq", "sq", "val") if m.group(g) is not None)
        start, value = m.start(group), m.group(group)
        if m.group("chpasswd") is not None:
            colon = value.find(":")
            if colon < 0:
                continue
            start, value = start + colon + 1, value[colon + 1 :]
        if value and not _is_placeholder(value):
            yield _Hit(start, start + len(value), "password_assignment", 1)


#: An Oracle logon, user/password[@database]: the first argument of sqlplus, sqlldr, expdp,
#: impdp and dgmgrl (after their options), rman's after target, catalog or auxiliary, and
#: any tool's userid= (exp, imp, sqlldr and their parameter files), and a JDBC URL's
#: (jdbc:oracle:thin:user/password@host). Only there: a path or "client/server" elsewhere
#: on the line is no logon, nor one that more words follow.
_ORACLE_LOGON = lazy(
    r"(?:(?:\b(?:sqlplus|sqlldr|expdp|impdp|dgmgrl)(?:\.exe)?(?:[ \t]+-[A-Za-z]+(?:[ \t]+\d+)?)*"
    r"|\brman(?:\.exe)?\b[^\n;&|]{0,160}?(?<=\s)(?:target|catalog|auxiliary))[ \t]+(?:userid=)?"
    r"|\buserid[ \t]*=[ \t]*|\bjdbc:oracle:(?:thin|oci8?|kprb):)"
    r"[\"']?[A-Za-z][\w$#]{0,127}/(?P<val>[^\s/@\"']{1,1024})"
    # then its database, or the command goes on as one does (its end, an option, a script, a
    # parameter, "as sysdba"): more words are prose ("sqlplus and/or SQL Developer")
    r"(?=[@\"']|[ \t]*(?:[;&|<>\r\n]|$)|[ \t]+(?:[\-@]|[\w.]{1,64}=|as[ \t]))",
    re.IGNORECASE,
)
#: Windows' net user NAME PASSWORD and net use [DEVICE] \\HOST\SHARE PASSWORD (before or after
#: its /user:NAME): the command's own positional argument, never '*' (prompt) nor an option;
#: net user's only where options or the command's end follow ("net user admin is …" is prose).
_NET_PASSWORD = lazy(
    r"\bnet[ \t]+(?:user[ \t]+(?:\"[^\"\n]{1,256}\"|[^\s/\"']{1,256})[ \t]+"
    r"|use\b[^\n;&|]{0,160}?[ \t]\\\\[^\s]{1,512}(?:[ \t]+/[^\s]{1,512}){0,8}[ \t]+)"
    r"(?:\"(?P<dq>[^\"\r\n]{1,1024})\"|(?P<val>[^\s/*\"'`][^\s\"'`]{0,1023}))"
    r"(?=[ \t]*(?:/|[;&|]|\r?$))",
    re.IGNORECASE | re.MULTILINE,
)
_ORACLE_TOOLS = ("sqlplus", "sqlldr", "expdp", "impdp", "dgmgrl", "rman", "userid", "jdbc:oracle")
_NAMES_AN_ORACLE_TOOL = _AnyOf(_ORACLE_TOOLS)
#: rabbitmqctl add_user / change_password NAME PASSWORD, the command's last argument.
_RABBITMQCTL = lazy(
    r"\brabbitmqctl[ \t]+(?:add_user|change_password)[ \t]+[^\s;&|]{1,256}[ \t]+"
    rf"(?:{_QUOTED_VALUE}|(?P<val>[^\s\"'`;&|]{{1,1024}}))(?=[ \t]*(?:[\r\n;&|>]|$))"
)
#: htpasswd -b takes the password as its last argument: FILE USER PASSWORD, or USER
#: PASSWORD with -n (the hash printed, no file).
_HTPASSWD = lazy(
    r"\bhtpasswd(?P<flags>(?:[ \t]+-[A-Za-z]+(?:[ \t]+\d{1,3}(?=[ \t]))?){1,8})"
    r"(?P<args>(?:[ \t]+(?:\"[^\"\n]{1,1024}\"|'[^'\n]{1,1024}'|[^\s\"'`;&|>]{1,1024})){1,3})"
    r"(?=[ \t]*(?:[\r\n;&|>]|$))"  # the whole command: "htpasswd -b to pass it" is prose
)


def _find_htpasswd(text: str) -> Iterator[_Hit]:
    for m in _HTPASSWD.finditer(text):
        flags = "".join(f.lstrip("-") for f in m.group("flags").split() if f.startswith("-"))
        if "b" not in flags:
            continue
        args = list(re.finditer(r"\"([^\"\n]*)\"|'([^'\n]*)'|(\S+)", m.group("args")))
        wanted = 2 if "n" in flags else 3
        if len(args) != wanted:
            continue  # prose about the option, or not the whole command
        last = args[-1]
        group = next(g for g in (1, 2, 3) if last.group(g) is not None)
        value = last.group(group)
        if value and not _is_placeholder(value):
            start = m.start("args") + last.start(group)
            yield _Hit(start, start + len(value), "password_assignment", 1)


#: An environment variable named for a secret, set without '=': fish's set [-gxU] NAME VALUE,
#: csh's setenv NAME VALUE, launchctl setenv, a Dockerfile's ENV NAME VALUE, doppler secrets
#: set NAME VALUE. The name in capitals, as the environment's are ("set password reset …" in a
#: sentence is no variable).
_ENV_SET = lazy(
    r"(?:(?<![\w\-])set(?:[ \t]+-[A-Za-z]{1,8})*|\bsetenv|^[ \t]*ENV)[ \t]+"
    r"(?-i:(?=[A-Z])[A-Z0-9_]{0,64}(?P<word>PASSWORD|PASSWD|PASSPHRASE|_PASS|_PW|SECRET"
    r"|SECRET_KEY|TOKEN|API_KEY|APIKEY|PRIVATE_KEY|ACCESS_KEY|CREDENTIALS|_CREDS)"
    r"(?P<qual>(?:_[A-Z0-9]{1,24}+){1,6}+)?)[ \t]+"
    rf"(?:{_QUOTED_VALUE}|(?P<val>[^\s\"'`;&|=]{{1,1024}}))(?=[ \t]*(?:[;&|#\r\n]|$))",
    re.MULTILINE,
)


#: _ENV_SET's names hold one of these (a substring test: its scan runs on few notes).
_ENV_SECRET_WORDS = ("PASS", "_PW", "SECRET", "TOKEN", "KEY", "CRED")


#: An SSM parameter stored encrypted: aws ssm put-parameter … --type SecureString … --value V
#: (the type before or after the value); a String parameter's value is configuration.
_SSM_SECURE_VALUE = lazy(
    r"\bssm[ \t]+put-parameter\b(?=[^\n;&|]{0,400}?--type[ \t=]+[\"']?SecureString\b)"
    r"[^\n;&|]{0,400}?(?<=\s)--value(?:[ \t]+|=)"
    rf"(?:{_QUOTED_VALUE}|(?P<val>[^\s\"'`;]{{1,1024}}))"
)


#: A password hashed on the command line: openssl passwd [-6|-1|-apr1] [-salt S] PASSWORD, and
#: mkpasswd [-m METHOD] [-S SALT] PASSWORD (a /etc/shadow or htpasswd entry made by hand); the
#: whole command only ("openssl passwd -6 to hash it" is prose).
_HASHED_PASSWORD = lazy(
    r"\b(?:openssl[ \t]+passwd"
    r"(?:[ \t]+-(?:salt[ \t]+[^\s;&|]{1,256}|(?!salt\b|in\b)[A-Za-z0-9]{1,8}))*"
    r"|mkpasswd(?:[ \t]+(?:-[mSR]|--method|--salt|--rounds)(?:[ \t]+|=)[^\s;&|]{1,256}"
    r"|[ \t]+-(?![mSR]\b)[A-Za-z]{1,8})*)"
    rf"[ \t]+(?:{_QUOTED_VALUE}|(?P<val>[^\s\"'`;&|<>]{{1,1024}}))(?=[ \t]*(?:[;&|>\r\n]|$))"
)


#: PHP's define('DB_PASSWORD', '…'), as WordPress's wp-config.php sets the database password.
_PHP_DEFINE = lazy(
    rf"\bdefine\([ \t]*[\"'][A-Za-z0-9_]{{0,64}}(?P<word>{_SECRET_KEYWORD})(?P<qual>{_QUALIFIER})?"
    r"[\"'][ \t]*,[ \t]*"
    rf"(?:{_QUOTED_VALUE})",
    re.IGNORECASE,
)


#: A package manager's or git's ``config [set] KEY VALUE``, a space between them: a value under a
#: secret's name (npm's ``//registry/:_authToken``, yarn's ``npmAuthToken``, git's
#: ``github.token``), poetry's ``pypi-token.NAME``, composer's ``github-oauth.HOST``, and the
#: password after the user of ``http-basic.NAME USER PASSWORD`` (poetry, composer).
_CONFIG_SET = lazy(
    r"\bconfig(?:[ \t]+(?:set|--[\w\-]{1,32}(?:=[^\s]{1,256})?)){0,4}[ \t]+[\"']?"
    # a subcommand is no key: kubectl config set-credentials NAME names a user
    r"(?!set-)"
    rf"(?:[^\s\"'=]{{0,200}}?(?:{_SECRET_KEYWORD}|pypi-token\.[\w\-]{{1,64}}"
    r"|(?:github|gitlab|bitbucket)-oauth\.[\w.\-]{1,253})"
    r"|http-basic\.[\w.\-]{1,253}[ \t]+[^\s\"']{1,256})[\"']?[ \t]+"
    rf"(?:{_QUOTED_VALUE}|(?P<val>[^\s\"'`;]{{1,1024}}))",
    re.IGNORECASE,
)


def _argument(name: str) -> str:
    """A command's argument, quoted or bare, as the named group(s) ``name``, ``name_dq``,
    ``name_sq``."""
    return (
        rf"(?:\"(?P<{name}_dq>[^\"\r\n]{{1,1024}})\"|'(?P<{name}_sq>[^'\r\n]{{1,1024}})'"
        rf"|(?P<{name}>[^\s\"'`;&|]{{1,1024}}))"
    )


#: The MinIO client's keys: ``mc alias set ALIAS URL ACCESSKEY SECRETKEY`` (``config host add``
#: before it), both keys being the credential (an S3 access key pair), and the secret key of
#: ``mc admin user add ALIAS ACCESSKEY SECRETKEY`` (there the access key is the user's name).
#: The whole command only: its end or an option after the keys ("mc alias set x URL and then
#: …" is prose).
_MC_KEYS = lazy(
    r"\bmc(?:\.exe)?(?:[ \t]+--[\w\-]{1,32})*[ \t]+"
    r"(?:(?:alias[ \t]+set|config[ \t]+host[ \t]+add)[ \t]+[^\s;&|]{1,256}[ \t]+[\"']?"
    rf"(?i:https?)://[^\s\"';&|]{{1,2048}}[\"']?[ \t]+{_argument('access')}"
    r"|admin[ \t]+user[ \t]+add[ \t]+[^\s;&|]{1,256}[ \t]+[^\s;&|]{1,256})"
    rf"[ \t]+{_argument('secret')}(?=[ \t]*(?:[;&|\r\n]|$)|[ \t]+-)"
)
#: Bundler's credentials for a gem server: ``bundle config [set] [--global] HOST USER:PASSWORD``
#: (or a token alone), and the same setting in the environment or .bundle/config:
#: ``BUNDLE_GEMS__EXAMPLE__COM=user:password`` (the host's dots as ``__``). Bundler's other
#: dotted settings (mirror.URL, build.GEM, local.GEM, gem.test; gem.fury.io is a host) are
#: no host.
_BUNDLE_CREDENTIALS = lazy(
    r"\bbundle[ \t]+config(?:[ \t]+(?:set|--[\w\-]{1,32}))*[ \t]+[\"']?"
    r"(?!(?:mirror|build|local|timeout)\.|gem\.[a-z_]{1,32}[\"']?[ \t])"
    r"(?:(?i:https?)://[^\s\"']{1,2048}|[A-Za-z0-9\-]{1,63}(?:\.[A-Za-z0-9\-]{1,63}){1,8}/?)"
    r"[\"']?[ \t]+"
    r"|(?<![\w\-])BUNDLE_(?!(?:MIRROR|BUILD|LOCAL|TIMEOUT)__"
    r"|GEM__[A-Z]{1,32}(?:_[A-Z]{1,32})*[\"']?[ \t]*[=:])[A-Z0-9]{1,63}"
    r"(?:_{2,3}[A-Z0-9]{1,63}){1,8}[\"']?[ \t]*[=:][ \t]*"
)
_BUNDLE_VALUE = lazy(_argument("val"))


#: A CLI's login that takes the token (or the vault's password) as its argument: cargo login
#: TOKEN (crates.io), vault login TOKEN, snyk auth TOKEN, ngrok authtoken TOKEN (and ngrok
#: config add-authtoken), Bitwarden's bw unlock PASSWORD and bw login EMAIL PASSWORD; options
#: may come before it. The whole command only (its end or an option after the argument).
_LOGIN_ARGUMENT = lazy(
    r"\b(?:cargo[ \t]+login|vault[ \t]+login|snyk[ \t]+auth|ngrok[ \t]+(?:authtoken"
    r"|config[ \t]+add-authtoken)|bw[ \t]+(?:unlock|login[ \t]+[^\s;&|\-][^\s;&|]{0,255})"
    # and the commands that encrypt or obscure a secret given to them: rclone obscure
    # PASSWORD, ansible-vault encrypt_string 'PASSWORD' --name NAME
    r"|rclone[ \t]+obscure|ansible-vault[ \t]+encrypt_string)"
    r"(?:[ \t]+--?[\w\-]{1,32}"
    r"(?:=[^\s;&|]{0,256}|[ \t]+(?![\-\s])[^\s;&|]{1,256}(?=[ \t]+[^\s\-]))?)*"
    rf"[ \t]+{_argument('val')}(?=[ \t]*(?:[;&|\r\n]|$)|[ \t]+-)"
)
_LOGIN_COMMANDS = ("cargo login", "vault login", "snyk auth", "authtoken", "bw unlock", "bw login",
                   "rclone obscure", "encrypt_string")  # fmt: skip
_NAMES_A_LOGIN_COMMAND = _AnyOf(_LOGIN_COMMANDS)


def _find_command_keys(text: str, lower: str) -> Iterator[_Hit]:
    """The MinIO client's keys, Bundler's gem server credentials and a login's token given as
    its argument (see above)."""
    if _NAMES_A_LOGIN_COMMAND(lower):
        for m in _LOGIN_ARGUMENT.finditer(text):
            group = next(g for g in ("val_dq", "val_sq", "val") if m.group(g) is not None)
            value = m.group(group)
            # a token holds a digit ("cargo login TOKEN" names it; "vault login first" is
            # prose); an assignment after it is the auth method's (username=…, password=…)
            if len(value) >= 8 and _DIGIT.search(value) and "=" not in value:
                yield _Hit(m.start(group), m.end(group), "password_assignment", 1)
    if "mc" in lower and ("alias set" in lower or "host add" in lower or "user add" in lower):
        for m in _MC_KEYS.finditer(text):
            if m.group("access") in _PROSE_WORDS or m.group("secret") in _PROSE_WORDS:
                continue  # "mc alias set x URL then enter the keys": prose about the command
            for name in ("access", "access_dq", "access_sq", "secret", "secret_dq", "secret_sq"):
                if name in m.groupdict() and m.group(name) and not _is_placeholder(m.group(name)):
                    yield _Hit(m.start(name), m.end(name), "password_assignment", 1)
    if "bundle" not in lower:
        return
    for m in _BUNDLE_CREDENTIALS.finditer(text):
        arg = _BUNDLE_VALUE.match(text, m.end())
        if arg is None:
            continue
        group = next(g for g in ("val_dq", "val_sq", "val") if arg.group(g) is not None)
        start, value = arg.start(group), arg.group(group)
        if "://" in value:
            continue  # a URL (a mirror's), not a credential
        user, colon, password = value.partition(":")
        if colon:
            # user:password: the user's name is kept, as in a URL's user information
            start, value = start + len(user) + 1, password
        elif not _looks_random(value):
            continue  # a setting's value ("gem.test rspec"); a token alone is random
        if value and not (_is_placeholder(value) or _COUNT_OR_FLAG.fullmatch(value)):
            yield _Hit(start, start + len(value), "password_assignment", 1)


#: A string naming a secret as a call's argument, the value as the next one, a string too:
#: Java's ``props.put("password", "…")`` and ``System.setProperty("db.password", "…")``,
#: HikariCP's ``addDataSourceProperty``, ``Map.of(…, "password", "…")``, Python's
#: ``os.environ.setdefault("DB_PASSWORD", "…")``, ``os.putenv``, configparser's ``config.set(
#: "db", "password", "…")``, Go's ``os.Setenv``, Testcontainers' ``withEnv``. The name as the
#: assignment rule reads a key's (words after its secret's word: ``_QUALIFIER``;
#: ``"db.password.file"`` names a setting, a file), the value the next argument or the last; an
#: argument may start a line of its own (``Map.of(`` then ``"password", "…"`` below it).
_ARGUMENT_GAP = r"[ \t]{0,256}(?:\r?\n[ \t]{0,256})?"
#: A string's prefix before its quote, Python's (``b"…"``, ``r"…"``, ``f"…"``, ``rb"…"``,
#: ``u"…"``): the value is the string's (an f-string holding a field, ``f"{pw}"``, is an
#: expression: :func:`_formatted`).
_STRING_PREFIX = r"(?:[rR][bBfF]?|[bBfF][rR]?|[uU])"
_ARGUMENT_GAP_LENGTH = 514
_KEY_RUN = lazy(r"[A-Za-z0-9_.\-]*")
_SECRET_ARGUMENT = lazy(
    rf"(?P<open>[(,]){_ARGUMENT_GAP}(?P<q>[\"'])(?P<name>[A-Za-z0-9_.\-]{{0,64}}"
    rf"(?P<word>{_SECRET_KEYWORD})(?P<qual>{_QUALIFIER})?)(?P=q)[ \t]*,{_ARGUMENT_GAP}"
    rf"(?P<prefix>{_STRING_PREFIX})?(?:{_QUOTED_VALUE})(?P<after>{_ARGUMENT_GAP}[,)])",
    re.IGNORECASE,
)
#: A call whose name says it sets what its arguments name: ``put``, ``set``, ``setProperty``,
#: ``setdefault``, ``putenv``, Go's ``Setenv``, ``withEnv``, ``addDataSourceProperty``,
#: ``setItem``, ``add_header``.
_SETTER_CALL = lazy(r"(?:[Ss]et|[Pp]ut|[Ww]ith|[Aa]dd)(?:[A-Z_][\w$]{0,63}|env|default)?")
_CALL_NAME = lazy(r"[A-Za-z_$][\w$]{0,63}[ \t]*$")
#: A setter or a builder's method named after a secret, given a string: JDBC's and
#: HikariCP's ``setPassword("…")``, Testcontainers' ``withPassword``, Spring's
#: ``DataSourceBuilder…password("…")``, an SDK's ``.apiKey("…")``, OAuth's
#: ``.clientSecret("…")``, Go's ``WithToken``, Django's ``user.set_password("…")``. After its
#: object's dot: ``set``/``with`` and the setting's name, or the secret's name alone, with
#: at most a word saying whose it is before it (``accessToken``, ``clientSecret``) and in
#: lower case (``.Token(…)``, ``.Credentials(…)`` construct a class); a verb before it is
#: no setter (``check_password``, ``hashPassword``, ``getToken``), nor are words after it
#: other than which secret it is (``.token_count(…)``, ``.passwordEncoder(…)``). The value
#: may start the next line, as a formatter wraps a long call, and follow a ``/* … */``
#: comment of one line (_SETTER_GAP; a blank line between them ends the call) or a ``//`` or
#: ``#`` comment of up to 80 characters ending its line (``setPassword(`` then ``// prod``
#: on its own line, then the string).
_SETTER_GAP = (
    rf"{_ARGUMENT_GAP}(?:/\*[^*\r\n]{{0,80}}\*/{_ARGUMENT_GAP}"
    r"|(?://|#)[^\r\n]{0,80}\r?\n[ \t]{0,256})?"
)
_SECRET_SETTER = lazy(
    r"\.(?:(?P<set>set|with)_?[A-Za-z0-9_]{0,40}"
    r"|(?-i:(?=[a-z])(?:(?:access|refresh|id|auth|bearer|client|app|admin|root|db|user|master"
    r"|private|session|service|personal|oauth)(?:_|(?=[A-Z])))?))"
    rf"(?P<word>{_SECRET_KEYWORD})(?P<qual>{_QUALIFIER})?[ \t]*\({_SETTER_GAP}"
    rf"(?P<prefix>{_STRING_PREFIX})?(?:{_QUOTED_VALUE})",
    re.IGNORECASE,
)
#: The same setter called bare, at a statement's start (a line's, or after ';', '{' or '}':
#: an object's own ``setPassword("…");``, Kotlin's ``ds.apply { setPassword("…") }``), and
#: Kotlin DSL's builder function named after the secret alone on its line (Gradle's and
#: Ktor's ``credentials {`` then ``password("…")``: ``alone``; lower case, a password's
#: word and no words after it; ``hashed = password("…")`` is a function's call), or a
#: member of a C++ constructor's initializer list (``: password("…"), user("bob") {``;
#: after ':' or ',', a ',' or '{' after it) and a setting of syslog-ng's configuration
#: with a comment after it (``password("guest") # …``). A value
#: alone on its line is alone so too when ')' closes the call on the next (a formatter's
#: ``password(`` / ``"…"`` / ``)``, a trailing comma before the line break as Kotlin's).
_BARE_SECRET_SETTER = lazy(
    r"(?:^|(?<=[;{},])|(?<=[^:]:))[ \t]{0,64}"
    r"(?:(?P<set>set|with)_?[A-Za-z0-9_]{0,40}|(?-i:(?=[a-z])))"
    rf"(?P<word>{_SECRET_KEYWORD})(?P<qual>{_QUALIFIER})?[ \t]*\({_SETTER_GAP}"
    rf"(?P<prefix>{_STRING_PREFIX})?(?:{_QUOTED_VALUE})"
    r"(?P<alone>[ \t]*(?:,?[ \t]*\r?\n[ \t]{0,256})?\)[ \t]*;?[ \t]*(?:\r?$|[},{]|#|//))?",
    re.IGNORECASE | re.MULTILINE,
)
#: A password given to a hashing call, its first argument a string: Django's
#: ``make_password("…")``, an app's ``hash_password("…")`` or ``hashPassword``, Werkzeug's
#: ``generate_password_hash("…")``, PHP's ``password_hash("…", PASSWORD_DEFAULT)``,
#: bcrypt's ``hashpw(b"…", gensalt())`` and Node's ``bcrypt.hash("…", 10)``/``hashSync``:
#: the password in clear, as a setter's (a variable, ``make_password(raw)``, is kept; a
#: verb that checks one, ``check_password("…")``, is no hashing call).
_HASHING_CALL = lazy(
    r"(?<![\w$])(?:bcrypt\.(?:hashpw|hash|hashSync)|hashpw"
    r"|(?:make|hash|encrypt|encode)_?password(?:_?hash)?|generate_password_hash|password_hash)"
    rf"[ \t]*\({_SETTER_GAP}(?P<prefix>{_STRING_PREFIX})?(?:{_QUOTED_VALUE})(?=[ \t]*[,)])",
    re.IGNORECASE,
)
#: A map built of pairs, a key and its value: Java's ``Map.of(k, v, …)``, Guava's
#: ``ImmutableMap.of``, Kotlin's ``mapOf(k to v, …)``; a pair whose key is exactly a
#: secret's word takes any string of one word, as a JSON pair does, but a message (a
#: validation's errors: ``Map.of("password", "must not be blank")``) or the word in another
#: language (a translation's table: ``"Password" to "Kennwort"``); ``"password", password``,
#: an expression, ends nothing: the next pair is read after it.
_MAP_CALL = lazy(
    r"\b(?:(?:Immutable|Hash|Linked|Tree|Sorted)?Map\.of|(?:mutable|hash|linked|sorted)?[mM]apOf)"
    r"[ \t]*\("
)
_MAP_PAIR = lazy(
    rf"{_ARGUMENT_GAP}(?:(?P<q>[\"'])(?P<name>[A-Za-z0-9_.\-]{{1,64}})(?P=q)|[^,()\"'\r\n]{{1,256}})"
    rf"(?:[ \t]*,|[ \t]+to\b){_ARGUMENT_GAP}"
    rf"(?:{_QUOTED_VALUE}|[^,()\"'\r\n]{{1,256}})(?P<after>{_ARGUMENT_GAP}[,)])"
)
_SECRET_WORD_ALONE = lazy(rf"(?P<word>{_SECRET_KEYWORD})", re.IGNORECASE)
#: A passphrase of words given to a setter (``setPassword("correct horse battery staple")``),
#: no prompt, label or message: none ends in ':' or '?' (nor '.', '!', '…': a sentence),
#: none names the secret ("Enter your password"), _PROMPT_WORDS' none opens it.
_PHRASE_END = ":?.!…"
_PROMPT_WORDS = frozenset({"enter", "type", "paste", "please", "your", "the", "new", "confirm"})


#: A field's type by name, as a schema's or a form's map pairs one with a field's name
#: (``fieldTypes.put("password", "string")``, ``Map.of("password", "varchar")``): no secret.
_SCHEMA_TYPE = lazy(
    r"string|str|text|varchar|char|int|integer|long|number|float|double|decimal|bool|boolean"
    r"|bytes|date|datetime|timestamp|object|array|json",
    re.IGNORECASE,
)
#: A password of digits alone, a PIN's 4 or more (:func:`_argument_holds_secret`).
_PIN = lazy(r"\d{4,64}")


def _pin_may_stand(m: re.Match[str]) -> bool:
    """``m``'s name (a setter's, a call's argument's) is a password's word alone, no
    setting about it (``setPassword``, ``"password"``; not ``setPasswordLength``,
    ``"password.min.length"``): where a string of digits is the password, not a count."""
    return not m.group("qual") and bool(_PASSWORD_KEY.search(m.group("word")))


def _argument_holds_secret(
    m: re.Match[str], name: str, value: str, setter: bool, digits: bool = False
) -> bool:
    """``value``, a string given to a call after ``name`` or to a setter named ``name``
    (``m``: _SECRET_ARGUMENT's or _SECRET_SETTER's match), is the secret: never a prompt, a
    label or a message (a space in it, or a colon ending it: "Enter your password", "New
    password: "), a placeholder, a kind's name, a path, a file's name, a count or a switch,
    nor a setting about the secret that does not read as one (:func:`_qualified_name_holds`);
    where the call sets what it names (``setter``), any other string, as after an '=';
    elsewhere only a random one (:func:`_looks_random`, no algorithm's or variable's name:
    :func:`_said_secret`), as a call may pass a name and anything else (configparser's
    ``get("Credentials", "gs_host")``, ``translate("password", "Passwort")``,
    ``getString("token", "default")``), and a tuple's "password" may be the password
    itself, the host after it (urllib's tests: ``('http', 'joe', 'password',
    'proxy.example.com:3128')``). A field's type by name is none (_SCHEMA_TYPE: a schema's
    ``fieldTypes.put("password", "string")``). Given ``digits``, where only a password can stand (a
    hashing call's argument, a value set under a password's word alone: ``Map.of(
    "password", "12345")``, ``setPassword("1234")``), 4 digits or more are one, no count."""
    if not value.strip() or value.endswith(":") or _formatted(m, value):
        return False  # (blank: no secret, and no passphrase's first word to read)
    if any(c.isspace() for c in value) and not (setter and _passphrase(value)):
        return False
    if (
        _is_placeholder(value)
        or _names_a_kind(name, value)
        or _PATH.fullmatch(value)
        or _FILE_NAME.fullmatch(value)
        or (_COUNT_OR_FLAG.fullmatch(value) and not (digits and _PIN.fullmatch(value)))
        or _SCHEMA_TYPE.fullmatch(value)
        or not _qualified_name_holds(m, value)
    ):
        return False
    return setter or (_looks_random(value) and _said_secret(m.group("word"), value))


def _formatted(m: re.Match[str], value: str) -> bool:
    """``value``, the string of ``m`` (its ``prefix`` group, :data:`_STRING_PREFIX`), is an
    f-string holding a field (``f"{pw}"``, ``f"{user}-{suffix}"``): an expression."""
    prefix = m.groupdict().get("prefix")
    return prefix is not None and "f" in prefix.lower() and "{" in value


def _passphrase(value: str) -> bool:
    """``value``, holding a space, reads as a passphrase of words given to a setter, not as
    a prompt, a label or a message (see :data:`_PHRASE_END`)."""
    words = value.split()
    return (
        value[-1] not in _PHRASE_END
        and words[0].lower() not in _PROMPT_WORDS
        and not _KEYWORD_STEM_AT.search(value.lower())
        and not _is_placeholder(value)
    )


def _secret_arguments(
    text: str, lower: str, stem_places: list[int] | None = None
) -> Iterator[re.Match[str]]:
    """``_SECRET_ARGUMENT.finditer(text)``, tried only where a name holding a secret's word
    opens: the '(' or ',' before the quote before the run of a key's characters that holds a
    stem (a search tried the pattern, its name of up to 64 characters and the secret's words,
    at every '(' and ',' before a quote: 15% of the time of redacting code). ``stem_places``,
    when given, are :func:`_stem_places`' of ``text``."""
    done = 0
    for place in _stem_places(text, lower) if stem_places is None else stem_places:
        if place < done:
            continue
        low = max(done, place - _KEY_NAME_LENGTH - 1)
        quote = max(text.rfind('"', low, place), text.rfind("'", low, place))
        if quote < 0 or not _KEY_RUN.fullmatch(text, quote + 1, place):
            continue
        low = max(done, quote - _ARGUMENT_GAP_LENGTH)
        opened = low + len(text[low:quote].rstrip()) - 1
        if opened < low or text[opened] not in "(,":
            continue
        m = _SECRET_ARGUMENT.match(text, opened)
        if m is not None:
            done = m.end()
            yield m


def _find_secret_calls(
    text: str, lower: str, stem_places: list[int] | None = None
) -> Iterator[_Hit]:
    """A secret given to a call after its name (_SECRET_ARGUMENT) or to a setter named after
    it (_SECRET_SETTER); ``stem_places`` as :func:`_secret_arguments` takes them."""
    if "," in text:
        for m in _secret_arguments(text, lower, stem_places):
            group = "dq" if m.group("dq") is not None else "sq"
            setter = False
            if m.group("open") == "(" and m.group("after").strip() == ")":
                call = _CALL_NAME.search(text, max(0, m.start() - 64), m.start())
                setter = call is not None and bool(_SETTER_CALL.fullmatch(call.group().rstrip()))
            pin = setter and m.group("name") == m.group("word") and _pin_may_stand(m)
            if _argument_holds_secret(m, m.group("name"), m.group(group), setter, pin):
                yield _Hit(m.start(group), m.end(group), "password_assignment", 1)
    if "." in text:
        for m in _SECRET_SETTER.finditer(text):
            group = "dq" if m.group("dq") is not None else "sq"
            qualifier = m.group("qual")
            if qualifier and not m.group("set") and not _says_which_secret(qualifier):
                continue
            name = text[m.start() + 1 : m.end("qual") if qualifier else m.end("word")]
            if _argument_holds_secret(m, name, m.group(group), True, _pin_may_stand(m)):
                yield _Hit(m.start(group), m.end(group), "password_assignment", 1)
    for m in _bare_secret_setters(text, lower, stem_places):
        group = "dq" if m.group("dq") is not None else "sq"
        qualifier = m.group("qual")
        if not m.group("set") and (
            qualifier or m.group("alone") is None or not _PASSWORD_KEY.search(m.group("word"))
        ):
            # Kotlin DSL's password("…") alone on its line only (a secret("db-password") or
            # token("IDENT") alone names one, or a lexer's kind)
            continue
        if qualifier and not m.group("set") and not _says_which_secret(qualifier):
            continue
        name = text[m.start("word") : m.end("qual") if qualifier else m.end("word")]
        if _argument_holds_secret(m, name, m.group(group), True, _pin_may_stand(m)):
            yield _Hit(m.start(group), m.end(group), "password_assignment", 1)
    if "Map.of" in text or "apOf" in text:
        yield from _find_map_pairs(text)
    for m in _hashing_calls(text, lower, stem_places):
        group = "dq" if m.group("dq") is not None else "sq"
        if _argument_holds_secret(m, "password", m.group(group), True, digits=True):
            yield _Hit(m.start(group), m.end(group), "password_assignment", 1)


def _bare_secret_setters(
    text: str, lower: str, stem_places: list[int] | None
) -> Iterator[re.Match[str]]:
    """``_BARE_SECRET_SETTER.finditer(text)``, tried only at a statement's start before a
    stem of a secret's word: the line's start or the ';', '{' or '}' before the word holding
    it, and spaces (a search tried it at every line and statement: 4% of the time of
    redacting code)."""
    done = 0
    for place in _stem_places(text, lower) if stem_places is None else stem_places:
        if place < done:
            continue
        word = place
        while (
            word > 0 and place - word < 44 and (text[word - 1].isalnum() or text[word - 1] == "_")
        ):
            word -= 1
        start = word
        while start > 0 and word - start < 64 and text[start - 1] in " \t":
            start -= 1
        if start and (text[start - 1] not in "\n;{},:" or text[start - 2 : start] == "::"):
            continue
        m = _BARE_SECRET_SETTER.match(text, start)
        if m is not None:
            done = m.end()
            yield m


def _hashing_calls(text: str, lower: str, stem_places: list[int] | None) -> Iterator[re.Match[str]]:
    """``_HASHING_CALL.finditer(text)``, tried only at the start of a word holding a stem of
    a secret's word (``make_password``, ``hashpw``: "pass", "pw") and at ``bcrypt.``."""
    starts = []
    for place in _stem_places(text, lower) if stem_places is None else stem_places:
        if not lower.startswith(("pass", "pw"), place):
            continue  # (a key's, a token's, a secret's stem names no hashing call)
        word = place
        while (
            word > 0 and place - word < 24 and (text[word - 1].isalnum() or text[word - 1] == "_")
        ):
            word -= 1
        starts.append(word)
    at = lower.find("bcrypt.")
    if at >= 0:
        while at >= 0:
            starts.append(at)
            at = lower.find("bcrypt.", at + 7)
        starts.sort()
    done = 0
    for start in starts:
        if start < done:
            continue
        m = _HASHING_CALL.match(text, start)
        if m is not None:
            done = m.end()
            yield m


#: A string declared with a literal under a secret's name, C++'s direct or brace
#: initialization (``std::string password("…");``, ``std::string password{"…"};``, Qt's
#: ``QString``, MFC's ``CString``, Arduino's ``String``): the literal is the value, as after
#: ``std::string password = "…";``. Read from the type's "string" (_STRING_TYPE_HEAD says
#: what may stand before it: ``std::``, ``w``, ``u8``, ``Q``, ``C``, ``wx``, no more of a
#: word nor a member's ``.``), its name ending in a secret's word (and its words after).
_STRING_DECLARATION = lazy(
    r"string(?:_view)?(?:[ \t]+const)?(?:[ \t]*&[ \t]*|[ \t]+)(?:const[ \t]+)?"
    rf"(?P<name>[A-Za-z0-9_]{{0,40}}?(?P<word>{_SECRET_KEYWORD})(?P<qual>{_QUALIFIER})?)"
    rf"[ \t]*[({{][ \t]*(?P<prefix>u8|[uUL])?(?:{_QUOTED_VALUE})[ \t]*[)}}]",
    re.IGNORECASE,
)
_STRING_TYPE_HEAD = lazy(r"(?:^|[^\w$.:])(?:std::)?(?:w|u8|u16|u32|q|c|wx)?$", re.IGNORECASE)
_STRING_TYPE_HEAD_LENGTH = 12
#: C's array of characters declared with a literal under a secret's name (``char
#: password[] = "…";``, ``static const char kApiKey[64] = "…";``, ``wchar_t``, ``TCHAR``,
#: ``char16_t`` with ``u"…"``; Arduino's ``char pass[] = "…";``, the name ``pass`` alone):
#: the literal is the value, as after ``char *password = "…";``.
#: Read from the type's "char" (_CHAR_TYPE_HEAD: ``w``, ``t``, ``g``, ``gu``, ``unsigned``,
#: ``signed`` before it, no more of a word nor a member's ``.``).
_CHAR_ARRAY_DECLARATION = lazy(
    r"char(?:8_t|16_t|32_t|_t)?[ \t]+(?:const[ \t]+)?"
    rf"(?P<name>[A-Za-z0-9_]{{0,40}}?(?P<word>{_SECRET_KEYWORD}|(?<![\w$])pass(?=[ \t]*\[))"
    rf"(?P<qual>{_QUALIFIER})?)"
    r"[ \t]*\[[ \t]*[\w+* ]{0,32}\][ \t]*=[ \t]*"
    rf"(?P<prefix>u8|[uUL])?(?:{_QUOTED_VALUE})[ \t]*[;,]",
    re.IGNORECASE,
)
_CHAR_TYPE_HEAD = lazy(r"(?:^|[^\w$.:])(?:w|t|g|gu|(?:un)?signed[ \t]{1,8})?$", re.IGNORECASE)
_CHAR_TYPE_HEAD_LENGTH = 18


def _find_declarations(
    text: str,
    lower: str,
    type_word: str,
    declaration: re.Pattern[str],
    type_head: re.Pattern[str],
    head_length: int,
) -> Iterator[_Hit]:
    """A secret given to a declaration (_STRING_DECLARATION, _CHAR_ARRAY_DECLARATION), tried
    at each ``type_word`` ("string", "char") of ``lower`` (``text.lower()``) after a type's
    head (``type_head``, read in the ``head_length`` characters before it)."""
    at = lower.find(type_word)
    done = 0
    while at >= 0:
        m = declaration.match(text, at) if at >= done else None
        # ('^' matches at the text's start only: a window's start needs the character
        # before the type's head)
        if m is not None and type_head.search(text, max(0, at - head_length), at):
            done = m.end()
            group = "dq" if m.group("dq") is not None else "sq"
            if _argument_holds_secret(m, m.group("name"), m.group(group), True, _pin_may_stand(m)):
                yield _Hit(m.start(group), m.end(group), "password_assignment", 1)
        at = lower.find(type_word, at + len(type_word))


def _find_map_pairs(text: str) -> Iterator[_Hit]:
    """A string paired in a map with a key that is exactly a secret's word (_MAP_CALL); each
    map's pairs read once, in order, up to its closing ')' or what no pair reads."""
    done = 0
    for call in _MAP_CALL.finditer(text):
        pos = call.end()
        if pos <= done:
            continue
        while (p := _MAP_PAIR.match(text, pos)) is not None:
            pos = done = p.end()
            name = p.group("name")
            group = "dq" if p.group("dq") is not None else "sq"
            key = _SECRET_WORD_ALONE.fullmatch(name) if name else None
            value = p.group(group)
            if (
                key is not None
                and value is not None
                # a message ("must not be blank"), a translation's table ("Password" to
                # "Kennwort"): a map pairs a name with them as often
                and not any(c.isspace() for c in value)
                and _SECRET_WORD_ALONE.fullmatch(value) is None
                and _argument_holds_secret(key, name, value, True, bool(_PASSWORD_KEY.search(name)))
            ):
                yield _Hit(p.start(group), p.end(group), "password_assignment", 1)
            if p.group("after").strip() == ")":
                break


#: A bare "pass" before a separator ("user: admin / pass: Hy6tq9…", "&pass=…"): not a secret's
#: name ("pass: the test", "second pass: resolve"), so only a random value after it is taken.
_BARE_PASS = lazy(
    r"(?<![\w\-])pass[ \t]*[:=：][ \t]*"
    rf"(?:{_QUOTED_VALUE}|(?P<val>[^\s\"'`,;&]{{1,1024}}))",
    re.I,
)
#: PASS= at a line's start, as an env file or a shell script sets it: a password, as DB_PASS=
#: is, whatever it looks like (a test summary's PASS=3 is a count, kept as MAX_PASS=5 is).
_ENV_PASS = lazy(
    rf"^[ \t]*(?:export[ \t]+)?PASS=(?:{_QUOTED_VALUE}|(?P<val>[^\s\"'`;]{{1,1024}}))",
    re.MULTILINE,
)


def _stem_places(text: str, lower: str) -> list[int]:
    """Where a stem of a secret's word starts in ``text`` (``lower`` its ``lower()``), in
    order (see :func:`_assignment_starts`). In a text that is not ASCII, where
    :data:`_KEYWORD_STEM_AT_ANY_CASE` matches: each stem's spelling found in the text with
    every letter that matches a stem's letter in any case written as that letter
    (:data:`_AS_STEM_LETTERS`, one character for one: the places stay the text's). The
    pattern, tried at each place, was a seventh of redacting a solution document (most are
    not ASCII: a dash, a quote, an arrow)."""
    if text.isascii():
        return [m.start() for m in _KEYWORD_STEM_AT.finditer(lower)]
    folded = text.translate(_AS_STEM_LETTERS)
    places: list[int] = []
    for spelling in _STEM_SPELLINGS:
        at = folded.find(spelling)
        while at >= 0:
            places.append(at)
            at = folded.find(spelling, at + 1)
    return sorted(set(places))


def _assignment_starts(
    text: str, lower: str, near: list[int] | None = None, stem_places: list[int] | None = None
) -> list[int]:
    """Every place an _ASSIGNMENT match may start in ``text``, in order: up to
    :data:`_KEY_BEFORE_STEM` characters before each stem of its key (a match's key holds
    one). Trying the pattern at these places finds what a search finds, a scan of every
    place (~5 µs a character, with its case-insensitive alternation) costs 10–30 times
    more. A text that is not ASCII is scanned case-insensitively, in the text itself
    (:data:`_KEYWORD_STEM_AT_ANY_CASE`). Given ``near`` (places in order), only the stems
    in the run of a key's characters that holds one of them are (each run looked through
    once); ``stem_places``, when given, are :func:`_stem_places`' of ``text``. In an
    ASCII text only the places where a key starts are kept (:func:`_key_starts`)."""
    ascii_text = text.isascii()
    stem_at = _KEYWORD_STEM_AT if ascii_text else _KEYWORD_STEM_AT_ANY_CASE
    if near is None:
        places = _stem_places(text, lower) if stem_places is None else stem_places
    else:
        places = []
        done = 0
        for place in near:
            if place < done:
                continue  # (inside the last run)
            low = place  # the run of a key's characters holding it, each looked at once
            while low > done and place - low < _KEY_NAME_LENGTH and text[low - 1] in _KEY_SET:
                low -= 1
            done = _KEY_CHARACTERS.match(text, place).end()  # type: ignore[union-attr]
            places.extend(
                m.start() for m in stem_at.finditer(lower if ascii_text else text, low, done)
            )
    if ascii_text:
        return _key_starts(lower, places, every_stem=near is None)
    starts: set[int] = set()
    for place in places:
        starts.update(range(max(0, place - _KEY_BEFORE_STEM), place + 1))
    return sorted(starts)


#: _SECRET_KEYWORD as it reads an ASCII text's ``lower()``: its two alternatives that read
#: case read without it, so it matches wherever _SECRET_KEYWORD does and at a few places
#: more (MAX_pass's "pass", "pW"), which _ASSIGNMENT then turns down as before.
_KEYWORD_LOWER = _SECRET_KEYWORD.replace(_UPPER_PASS, r"(?<=[a-z0-9]_)pass(?![a-z])").replace(
    _PW, r"pw(?![a-z])"
)
#: Where such a key may start (a lookahead: one key's match does not hide another inside it).
_KEY_AT_LOWER = lazy(f"(?={_KEYWORD_LOWER})")
#: How far past a place the key starting there may read: its longest match (21 characters,
#: rabbitmq_default_pass) and the character after it its last lookahead reads, with room.
_KEYWORD_READS = 32


def _key_starts(lower: str, places: list[int], every_stem: bool = False) -> list[int]:
    """The places up to :data:`_KEY_BEFORE_STEM` characters before each of ``places`` (the
    stems of an ASCII text, in order; ``lower`` its ``lower()``) where a key may start
    (:data:`_KEY_AT_LOWER`), in order. _ASSIGNMENT was tried at each place before each stem,
    ~25 a stem, its case-insensitive alternation ~0.9 µs a place where no key starts; one
    scan of each run of those places in ``lower``, case-sensitive, costs ~0.15 µs a place
    and leaves 1 in 20 of them (test_redaction's hostile inputs at 60k characters: 4.9M
    places to 240k; test_redaction.py 41 -> 30 CPU-s).

    Given ``every_stem`` (``places`` are all of the text's stems), a key starts at its own
    stem, or before it by a word of :data:`_PASS_PREFIXES` ("pass") or :data:`_KEY_PREFIXES`
    ("key") and an optional '_' or '-': only those places are tried, the same ones found
    (a key starting before a place holds a stem at or after it), ~6x faster."""
    if every_stem:
        return _key_starts_at_stems(lower, places)
    found: list[int] = []
    i, count = 0, len(places)
    while i < count:
        low, high = max(0, places[i] - _KEY_BEFORE_STEM), places[i]
        i += 1
        while i < count and places[i] - _KEY_BEFORE_STEM <= high + 1:
            high = places[i]  # (runs that meet are one run)
            i += 1
        found.extend(
            m.start()
            for m in _KEY_AT_LOWER.finditer(lower, low, high + 1 + _KEYWORD_READS)
            if m.start() <= high
        )
    return found


def _by_last_two(words: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """``words`` by their last two characters."""
    ends: dict[str, list[str]] = {}
    for word in words:
        ends.setdefault(word[-2:], []).append(word)
    return {end: tuple(group) for end, group in ends.items()}


_PASS_PREFIX_ENDS = _by_last_two(_PASS_PREFIXES)
_KEY_PREFIX_ENDS = _by_last_two(_KEY_PREFIXES)


def _key_starts_at_stems(lower: str, stems: list[int]) -> list[int]:
    """:func:`_key_starts` of every stem of an ASCII text, in order: each stem's place, and
    the start of a prefix word (with its '_' or '-') that ends at a "pass" or a "key", where
    _KEY_AT_LOWER matches. Every other alternative of _SECRET_KEYWORD starts at its stem
    (a word of the prefixes holds none but "key", itself a stem)."""
    found: list[int] = []
    key_at = _KEY_AT_LOWER.match
    for stem in stems:
        if lower.startswith("pass", stem):
            prefixes = _PASS_PREFIX_ENDS
        elif lower.startswith("key", stem):
            prefixes = _KEY_PREFIX_ENDS
        else:
            prefixes = None
        if prefixes is not None:
            end = stem - 1 if stem and lower[stem - 1] in "_-" else stem
            words = prefixes.get(lower[end - 2 : end]) if end >= 2 else None
            if words:
                found.extend(
                    sorted(
                        end - len(word)
                        for word in words
                        if end >= len(word)
                        and lower.startswith(word, end - len(word))
                        and key_at(lower, end - len(word))
                    )
                )
        if key_at(lower, stem):
            found.append(stem)
    if any(later <= place for place, later in pairwise(found)):
        # (a key's prefix word before an earlier stem: keypass's "key", a stem itself)
        found = sorted(set(found))
    return found


#: The longest key's name (:data:`_KEY_NAME`), and the run of a key's characters at a
#: place (its first character, and up to that many more).
_KEY_NAME_LENGTH = 64
_KEY_CHARACTERS = lazy(r"[\s\S][A-Za-z0-9_.\-]{0,64}")
_KEY_SET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")


def _next_assignment(text: str, pos: int, starts: list[int]) -> re.Match[str] | None:
    """``_ASSIGNMENT.search(text, pos)``, trying only ``starts`` (:func:`_assignment_starts`).
    A key whose words after its secret's word hold another (TOKEN_SECRET_PROD) is the last
    one's, as a key ending in it is (TOKEN_SECRET: SECRET's): the match starting at it."""
    i = bisect.bisect_left(starts, pos)
    while i < len(starts):  # (a slice: quadratic)
        m = _ASSIGNMENT.match(text, starts[i])
        i += 1
        if m is None:
            continue
        while m.group("qual") and i < len(starts) and starts[i] < m.end("qual"):
            later = _ASSIGNMENT.match(text, starts[i]) if starts[i] >= m.end("key") else None
            i += 1
            if later is not None and later.end("sep") == m.end("sep"):
                m = later
        return m
    return None


#: A key whose last word is "auth" (REDIS_AUTH, HTTP_AUTH, basic_auth, proxy_auth, DBAUTH,
#: redisAuth, AUTH) or "dsn" (SENTRY_DSN): as often a setting's ("auth: jwt", AUTH=oauth2,
#: auth = "basic", auth: true) as a secret's, so only a random value after it is taken, as
#: after a bare "pass". A key starts after no key's character and reads at most 48 of them
#: before its word, so each run of them is read once (linear).
_AUTH_KEY = lazy(
    r"(?<![\w.\-])(?P<name>[\w.\-]{0,48}?(?:auth|dsn))(?![A-Za-z0-9])[\"']?[ \t]*"
    r"(?:=>|:=|[:=：])[ \t]*"
    rf"(?:{_QUOTED_VALUE}|(?P<val>[^\s\"'`,;&]{{1,1024}}))",
    re.IGNORECASE,
)


def _find_auth_keys(text: str) -> Iterator[_Hit]:
    for m in _AUTH_KEY.finditer(text):
        name = m.group("name").lower()
        if name == "auth" and text[m.start() - 1 : m.start()] in ("?", "&"):
            continue  # a URL query's auth parameter: _find_query_auth's
        group, value = _random_or_quoted_value(text, m)
        if name in ("auth", "_auth") and _base64_of_text(value):
            continue  # a Docker config's or an .npmrc's: _find_auth_blobs judges what it says
        password = _user_pair_password(value)
        if password is not None and not _is_placeholder(password):
            # a scheme and its algorithm (auth: jwt:HS256) read random as a whole: a password
            # too short to be one alone is taken only when it reads random itself
            if _looks_random(password) or (_looks_random(value) and len(password) >= 8):
                # (the whole pair, as one whose user reads random too is: HTTP_AUTH=bob:…)
                yield _Hit(m.start(group), m.start(group) + len(value), "password_assignment", 1)
        elif _looks_random(value) and not _is_placeholder(value):
            yield _Hit(m.start(group), m.start(group) + len(value), "password_assignment", 1)


#: An HTTP or basic auth key's ``user:password`` (HTTP_AUTH=admin:…, basic_auth: "elastic:…",
#: Traefik's, Elasticsearch's, nginx-proxy's): the user a login name, never a URL's scheme.
_USER_PAIR = lazy(r"(?P<user>[A-Za-z0-9_.@\-]{1,64}):(?!//)(?P<password>[^:\s]{1,1024})")


def _user_pair_password(value: str) -> str | None:
    """The password of an auth key's ``user:password`` value, or None when it is no pair:
    judged alone, as a common user's name (admin, elastic) made the whole value read as
    words and kept it where a short one's (bob) was redacted (qa83 F5)."""
    pair = _USER_PAIR.fullmatch(value)
    return None if pair is None else pair.group("password")


def _random_or_quoted_value(text: str, m: re.Match[str]) -> tuple[str, str]:
    """The group of ``m`` holding a value taken only when random (``dq``, ``sq`` or ``val``:
    _BARE_PASS's and _AUTH_KEY's) and the value: a quoted one as quoted, a bare one to its
    end (:func:`_value_end`) without a sentence's closing punctuation."""
    group = next(g for g in ("dq", "sq", "val") if m.group(g) is not None)
    if group != "val":
        return group, m.group(group)
    value = text[m.start(group) : _value_end(text, m.end(group), m.start())]
    return group, value.rstrip(".!?:)")


def _base64_of_text(value: str) -> bool:
    """``value`` is base64 that decodes to printable text (a random key decodes to bytes
    that are not: 24 of them all printable one time in ~10^12)."""
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
        return decoded.decode("utf-8").isprintable()
    except (ValueError, UnicodeDecodeError):
        return False


def _find_assignments(text: str) -> Iterator[_Hit]:
    lower = text.lower()
    if "auth" in lower:  # (a pair names no secret: HTTPBasicAuth('admin', '…'))
        yield from _find_basic_auth_pairs(text)
    if "auth" in lower or "dsn" in lower:
        yield from _find_auth_keys(text)
    stem = _SECRET_STEM_LOWER.search(lower) if text.isascii() else _SECRET_STEM.search(text)
    # (a login's pair names none either)
    yield from _find_said_credentials(text, lower, stem is not None)
    if stem is None and not _HOLDS_RARE_STEM(lower):
        return
    yield from _find_assignment_rule(text, lower)


def _outside_marker_spans(text: str, places: list[int]) -> list[int]:
    """``places`` (in order) without those inside a ``[REDACTED:<kind>]`` marker of ``text``
    (a second pass reads the first's markers, and each holds a stem: "password_assignment").
    No _ASSIGNMENT match starts inside one: "REDACTED" starts no key, and a key starting in
    the kind ends before its ``]`` (a key, its qualifier and its quote hold no ``]``) and is
    followed by one of the kind's characters or that ``]``, neither of which starts a
    separator (a blank, ``=``, ``:``, ``：`` or a backslash), so leaving them out finds the
    same matches. Nor does a key holding a marker's stem start outside it (a key holds no
    ``[``), so a marker's stems are left out before the places of keys are found from them
    (a key that starts before a marker holds a stem of its own, whose places are tried)."""
    kept: list[int] = []
    pos = 0
    for marker in _MARKER.finditer(text):
        start, end = marker.span()
        low = bisect.bisect_left(places, pos)
        high = bisect.bisect_left(places, start, low)
        kept.extend(places[low:high])
        pos = end
    kept.extend(places[bisect.bisect_left(places, pos) :])
    return kept


def _find_assignment_rule(
    text: str, lower: str, resume: list[int] | None = None, near: list[int] | None = None
) -> Iterator[_Hit]:
    """_ASSIGNMENT's hits in ``text`` (``lower`` its ``lower()``); after a hit, the next one
    is looked for from the first of ``resume`` (places in order) inside it, if any. Given
    ``near`` (places in order), only keys whose name holds one of them are tried
    (:func:`_assignment_starts`)."""
    stem_places = _stem_places(text, lower) if near is None else None
    places = stem_places
    marked = "[REDACTED:" in text
    if marked and stem_places is not None:
        places = _outside_marker_spans(text, stem_places)
    starts = _assignment_starts(text, lower, near, places)
    if marked:
        starts = _outside_marker_spans(text, starts)
    pos = 0
    quotes = _LineQuotes(text)
    while (m := _next_assignment(text, pos, starts)) is not None:
        hit = _assignment_hit(text, m, quotes)
        if hit is not None:
            yield hit
            after = max(m.end(), hit.end)
            if resume:
                i = bisect.bisect_right(resume, hit.start)  # the first one after its start
                if i < len(resume) and resume[i] < after:
                    after = resume[i]  # (after hit.start, so after pos: each read once)
            pos = after
        else:
            # Not a secret ("the token: it expires…"): a key inside the rejected value may
            # still start one ("…abc PASSWORD = hunter2"), so look again right after the key;
            # but past a name read whole (an ARN's ":secret:prod/db-AbCdEf" is no assignment)
            # (a value that took part is never empty)
            value = next(filter(None, m.group("tq", "tb", "dq", "sq", "bq", "val")), "")
            pos = m.end() if _KIND_NAME.fullmatch(value.strip()) else m.end("key")
    if "config" in lower:
        for m in _CONFIG_SET.finditer(text):
            group = next(g for g in ("dq", "sq", "val") if m.group(g) is not None)
            value = m.group(group)
            if _PATH.fullmatch(value) or _FILE_NAME.fullmatch(value):
                continue  # the file that holds it (git's user.signingkey ~/.ssh/id_ed25519.pub)
            if group == "val" and _LOWER_WORD.fullmatch(value.rstrip(".,!?:;)")):
                continue  # prose: "the config token refresh, ticket 4411", no credential
            key = text[m.start() : m.start(group)].rstrip(" \t\"'").split()[-1].strip("\"'")
            if _names_a_kind(key, value):
                continue  # user.signingkey's public key id, as after an '='
            if not (_is_placeholder(value) or _COUNT_OR_FLAG.fullmatch(value)):
                yield _Hit(m.start(group), m.end(group), "password_assignment", 1)
    yield from _find_command_keys(text, lower)
    if "pass" in lower:
        for m in _BARE_PASS.finditer(text):
            group, value = _random_or_quoted_value(text, m)
            if _looks_random(value):
                yield _Hit(m.start(group), m.start(group) + len(value), "password_assignment", 1)
    if "PASS=" in text:
        for m in _ENV_PASS.finditer(text):
            group = next(g for g in ("dq", "sq", "val") if m.group(g) is not None)
            value = m.group(group)
            if not (
                _is_placeholder(value)
                or _COUNT_OR_FLAG.fullmatch(value)
                or _PATH.fullmatch(value)
                or _FILE_NAME.fullmatch(value)
            ):
                yield _Hit(m.start(group), m.end(group), "password_assignment", 1)
    if "(" in text and ('"' in text or "'" in text):
        yield from _find_secret_calls(text, lower, stem_places)
    if "string" in lower and ('"' in text or "'" in text):
        yield from _find_declarations(
            text, lower, "string", _STRING_DECLARATION, _STRING_TYPE_HEAD, _STRING_TYPE_HEAD_LENGTH
        )
    if "char" in lower and "[" in text and ('"' in text or "'" in text):
        yield from _find_declarations(
            text, lower, "char", _CHAR_ARRAY_DECLARATION, _CHAR_TYPE_HEAD, _CHAR_TYPE_HEAD_LENGTH
        )
    if "<" in text and ("key" in lower or "name" in lower):
        yield from _find_xml_settings(text)
    if " key" in lower:
        yield from _find_spoken_keys(text)
    if ":\n" in text or ":\r\n" in text or ": |" in text or ": >" in text:
        yield from _find_yaml_blocks(
            text, _stem_places(text, lower) if stem_places is None else stem_places
        )
    # each scanned for only where its literal part is (a substring test costs ~0.1 µs, a
    # scan 2-5 µs, and an import checks 100k notes)
    patterns = [_FLAG] if "--" in text else []
    if "name:" in lower and "value:" in lower:  # (no other letter matches these, any case)
        patterns.append(_NAME_VALUE)
    if _NAMES_A_TOOL(lower):
        patterns.append(_TOOL_PASSWORD)
    if "machine" in text:
        patterns.append(_NETRC)
    # the rarer statements are scanned for only in a text that names them (a substring test
    # costs a tenth of a scan with Python's re, and most notes hold none)
    if "create" in lower or "alter" in lower or "grant" in lower:
        patterns.append(_SQL_PASSWORD)
    if "define(" in lower:
        patterns.append(_PHP_DEFINE)
    if "identified" in lower:
        patterns.append(_SQL_IDENTIFIED)
    if "password" in lower and ("set" in lower or "password(" in lower):
        patterns.append(_SQL_SET_PASSWORD)
    if "rabbitmqctl" in lower:
        patterns.append(_RABBITMQCTL)
    if "net use" in lower:
        patterns.append(_NET_PASSWORD)
    if _NAMES_AN_ORACLE_TOOL(lower):
        patterns.append(_ORACLE_LOGON)
    if "htpasswd" in lower:
        yield from _find_htpasswd(text)
    if "openssl passwd" in lower or "mkpasswd" in lower:
        patterns.append(_HASHED_PASSWORD)
    if ("set" in lower or "env " in lower) and any(word in text for word in _ENV_SECRET_WORDS):
        patterns.append(_ENV_SET)
    if "put-parameter" in lower:
        patterns.append(_SSM_SECURE_VALUE)
    if "requirepass" in lower or "masterauth" in lower:
        patterns.append(_CONF_PASSWORD)
    for pattern in patterns:
        for m in pattern.finditer(text):
            if pattern is _TOOL_PASSWORD:
                yield from _more_tool_passwords(text, m)
            group = next(
                g for g in ("dq", "sq", "val") if g in pattern.groupindex and m.group(g) is not None
            )
            value = m.group(group).strip()
            if value.startswith("-"):
                continue  # the next option ("--no-password", "--host"), not a value
            if pattern is _TOOL_PASSWORD and (len(value) < 4 or _says_what_it_does(text, m, group)):
                continue  # prose about the option ("sshpass -p to pass it"), not a value
            end = m.end(group)
            if pattern in (_ENV_SET, _HASHED_PASSWORD) and group == "val":
                if _LOWER_WORD.fullmatch(value.rstrip(".,!?:")):
                    continue  # a sentence's word: "don't set API_KEY manually", "… first."
                value = value.rstrip(".,!?:")  # and its full stop ends the sentence
                end = m.start(group) + len(value)
            if pattern is _FLAG and _says_what_it_does(text, m, group):
                continue  # prose about the flag ("the --password option is deprecated")
            if pattern in (_FLAG, _SSM_SECURE_VALUE) and value.startswith(
                ("{", "file://", "fileb://")
            ):
                continue  # a JSON document (its own keys say what is secret) or a file's URL
            if pattern in (_FLAG, _ENV_SET) and (
                _PATH.fullmatch(value) or _FILE_NAME.fullmatch(value)
            ):
                continue  # the file that holds it (openvpn's --auth-user-pass creds.txt)
            if value and not _is_placeholder(value) and _qualified_name_holds(m, value):
                yield _Hit(m.start(group), end, "password_assignment", 1)


#: A tool with two password options takes both in one command (keytool's and jarsigner's
#: -storepass and -keypass, ssh-keygen's old -P and new -N, SNMPv3's -A and -X): the tool's
#: name is before the first only, so the rest of its command is read for the others.
_MORE_PASSWORD_OPTIONS = (
    (("keytool", "jarsigner"), lazy(r"(?<=\s)-(?:src|dest)?(?:store|key)pass[ \t]+")),
    (("ssh-keygen",), lazy(r"(?<=\s)-[NP][ \t]*")),
    (("snmp",), lazy(r"(?<=\s)-[AX][ \t]+")),
)
_OPTION_VALUE = lazy(rf"(?:{_QUOTED_VALUE}|(?P<val>[^\s\"'`;]{{1,1024}}))")
_MAX_COMMAND = 300


def _more_tool_passwords(text: str, m: re.Match[str]) -> Iterator[_Hit]:
    """The password options after the first in ``m``'s command (see above)."""
    head = m.group(0)[:12].lower()
    option = next((o for tools, o in _MORE_PASSWORD_OPTIONS if head.startswith(tools)), None)
    if option is None:
        return
    end = _COMMAND_END.search(text, m.end(), m.end() + _MAX_COMMAND)
    for o in option.finditer(text, m.end(), end.start() if end else m.end() + _MAX_COMMAND):
        v = _OPTION_VALUE.match(text, o.end())
        if v is None:
            continue
        group = next(g for g in ("dq", "sq", "val") if v.group(g) is not None)
        value = v.group(group).strip()
        if value.startswith("-") or len(value) < 4 or _says_what_it_does(text, v, group):
            continue
        if not _is_placeholder(value):
            yield _Hit(v.start(group), v.end(group), "password_assignment", 1)


#: Words that carry a sentence on: after a tool's password option, a lower-case word they
#: follow (or one of them) says what the option does ("-p followed by the password", "-P
#: takes the password", "use zip -P with care"); a password is followed by the command's next
#: argument.
_PROSE_WORDS = frozenset({
    "a", "an", "the", "its", "their", "your", "this", "that", "it", "by", "for", "to", "with",
    "in", "on", "at", "of", "from", "into", "via", "and", "or", "then", "as", "when", "if",
    "but", "so", "is", "are", "was", "can", "will", "must", "should", "not", "only",
})  # fmt: skip
_NEXT_WORD = lazy(r"[ \t]+([a-z]+)\b")
#: What prose calls an option, after its name: "pass the --token flag", "the --password
#: argument leaks into ps".
_OPTION_NOUNS = frozenset({
    "flag", "flags", "option", "options", "argument", "arguments", "arg", "parameter", "param",
    "switch", "value", "instead",
})  # fmt: skip


def _says_what_it_does(text: str, m: re.Match[str], group: str) -> bool:
    """Whether the unquoted word after a tool's password option is prose, not the password."""
    value = m.group(group)
    if (
        group == "val"
        and value[-1:] in (".", ",", ";", ":", "!", "?")
        and _LOWER_WORD.fullmatch(value[:-1])
    ):
        return True  # a lower-case word ending the sentence: "psexec needs -p first."
    if group != "val" or not _LOWER_WORD.fullmatch(value):
        return False
    following = _NEXT_WORD.match(text, m.end(group))
    return (
        value in _PROSE_WORDS
        or value in _OPTION_NOUNS
        or (following is not None and following[1] in _PROSE_WORDS)
    )


#: The Fetch API's credentials modes (``fetch(url, {credentials: "include"})``): a request
#: option that notes about cookies and CORS name all the time, never a secret. Redacted, a fix
#: lost its point, and two notes naming two modes became one.
_FETCH_CREDENTIALS = lazy(r"omit|same-origin|include", re.IGNORECASE)


def _is_fetch_credentials_mode(key_name: str, value: str) -> bool:
    return (
        key_name.rsplit(".", 1)[-1].lower() == "credentials"
        and _FETCH_CREDENTIALS.fullmatch(value) is not None
    )


#: A lexer's token kind (``token: 'IDENT'``) or an auth scheme (``token: 'Bearer'``): an
#: upper-case identifier or one capitalised word, without digits, as no issued token is.
_TOKEN_KIND = lazy(r"[A-Z]+(?:_[A-Z]+)*|[A-Z][a-z]+")
#: A credentials profile or provider (``credentials = 'default'``, ``creds: 'aws-profile-dev'``):
#: lower-case words without digits. What a credentials key holds when it is a secret is a
#: blob, user:password or a token; a passphrase of plain words there is the price.
_PROFILE_NAME = lazy(r"[a-z]+(?:[\-_][a-z]+)*")
#: Names that are never secrets under any key: tiktoken's encodings (``token = 'cl100k_base'``),
#: Kubernetes Secret types (``secret: kubernetes.io/tls``), and AWS ARNs and KMS aliases
#: (``encryption_key: arn:aws:kms:…``, ``master_key: alias/prod``), which say where a key is.
_KIND_NAME = lazy(
    r"(?:cl100k|o200k|p50k|r50k)_(?:base|edit|harmony)|(?:[a-z0-9\-]+\.)*kubernetes\.io/[a-z\-]+"
    r"|arn:aws(?:-cn|-us-gov)?:[a-z0-9\-]{1,64}:[a-z0-9\-]{0,32}:\d{0,12}:\S{1,900}"
    r"|alias/[A-Za-z0-9/_\-]{1,256}"
)


#: A type in a field's or a parameter's annotation (Python, TypeScript, Rust, Go): a string or
#: secret type by name, or a generic one (Option<String>, Vec<u8>, Secret<String>).
_TYPE_NAME = lazy(
    r"str|bytes|string|number|boolean|any|unknown|String|Secret(?:Str|String|Bytes|Box)?"
    r"|PathBuf|Buffer|Uint8Array|Bytes|\[\]byte|&str"
    # a number's or a flag's (typeshed's ``TokenPrimary: int``, Rust's ``token_len: usize``)
    r"|int|float|bool|[iu](?:8|16|32|64|128|size)|f32|f64"
    r"|[A-Z][A-Za-z0-9_]*(?:::[A-Z][A-Za-z0-9_]*)*<[A-Za-z0-9_:&'<>,\[\]]{1,256}>"
)


#: A web page's address without user information or query: where a secret is issued or
#: used, never the secret itself. One with a query may be the credential (a signed URL:
#: X-Goog-Signature, sig=…, which no rule knows all of), so it is held to the rules as before.
_WEB_PAGE = lazy(r"https?://[^\s@?#]{1,1000}", re.IGNORECASE)
_SWITCH = lazy(r"yes|no|on|off", re.IGNORECASE)
_PERMISSION = lazy(r"read|write", re.IGNORECASE)


#: git's commit-signing key (``user.signingkey``, ``signingkey =`` under ``[user]``) names a
#: public key: a GPG key id or fingerprint (8, 16 or 40 hex digits, ``0x`` before and ``!``
#: after as gpg accepts them) or an SSH public key (``key::`` before it as git accepts it).
#: Only under git's own name: a hex ``SIGNING_KEY`` or ``signing_key`` is an HMAC secret.
_GIT_SIGNING_KEY = lazy(r"(?:user\.)?signingkey", re.IGNORECASE)
_PUBLIC_SIGNING_KEY = lazy(
    r"(?:0x)?(?:[0-9A-Fa-f]{8}|[0-9A-Fa-f]{16}|[0-9A-Fa-f]{40})!?"
    r"|(?:key::)?(?:ssh-(?:ed25519|rsa|dss)|ecdsa-sha2-nistp(?:256|384|521)"
    r"|sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com)(?:[ \t]+[A-Za-z0-9+/]{1,4096}={0,2})?"
    r"(?:[ \t]+[^\s]{1,256})?"
)


def _names_a_kind(key_name: str, value: str) -> bool:
    """``value`` names a kind of thing (a token kind, a profile, an encoding, a Secret type)
    or a setting (a switch, a permission level) rather than being the secret its key's name
    suggests."""
    if _is_fetch_credentials_mode(key_name, value) or _KIND_NAME.fullmatch(value):
        return True
    if _GIT_SIGNING_KEY.fullmatch(key_name) and _PUBLIC_SIGNING_KEY.fullmatch(value):
        return True  # git config user.signingkey 3AA5C34371567BD2: a public key's id
    if _WEB_PAGE.fullmatch(value):
        return True  # "Get your token: https://devin.ai/settings/api": where to get one
    if _SWITCH.fullmatch(value):
        return True  # MySQL's "Access denied … (using password: YES)": a switch, not a password
    if key_name.lower().endswith("token") and _PERMISSION.fullmatch(value):
        return True  # GitHub Actions' "permissions: id-token: write" (OIDC): a permission level
    # Only a bare key is a client's option or a lexer's field; a qualified one (api_token,
    # AWS_CREDENTIALS, DB_CREDS) names the credential of something and holds it.
    bare = key_name.rsplit(".", 1)[-1].lower()
    if bare == "token":
        # a lexer's field is code's "token"; an environment's TOKEN=ABCDEFGH is a value
        return not _ENV_KEY.fullmatch(key_name) and _TOKEN_KIND.fullmatch(value) is not None
    if bare in ("credentials", "credential", "creds"):
        return _PROFILE_NAME.fullmatch(value) is not None
    return False


# A .env value runs to the end of its line (dotenv and compose read it so): a passphrase of
# words (DB_PASSWORD=correct horse battery staple) is one value. Taken only on a line of its
# own, for a password's key, when every word is a lower-case word, three to eight of them,
# and the second is no command (PGPASSWORD=x psql is the shell's prefix form).
#: A PowerShell cmdlet's name (Verb-Noun, no digits): what a bare word after "$name =" is.
_CMDLET = lazy(r"[A-Za-z]{2,32}-[A-Za-z]{2,64}")
_PASSWORD_KEY = lazy(rf"pass|pwd|{_LOCAL_PASSWORD}", re.IGNORECASE)
_LOWER_WORD = lazy(r"[a-z]{2,24}")
_ENV_LINE_HEAD = lazy(r"[ \t]*(?:export[ \t]+)?")
_PASSPHRASE_TAIL = lazy(
    r"[ \t]+(?P<second>[a-z]{2,24})(?:[ \t]+[a-z]{2,24}){1,6}(?=[ \t]*(?:#[^\n]*)?(?:\r?\n|$))"
)
_COMMANDS = frozenset({
    "npm", "npx", "yarn", "pnpm", "node", "bun", "deno", "python", "python3", "pip", "uv",
    "poetry", "go", "cargo", "make", "psql", "mysql", "mongosh", "docker", "podman", "kubectl",
    "helm", "terraform", "ansible", "bundle", "rails", "ruby", "rake", "php", "java", "gradle",
    "mvn", "dotnet", "sh", "bash", "zsh", "exec", "sudo", "env", "pytest", "tox", "git", "flask",
    "uvicorn", "gunicorn", "celery", "manage", "alembic",
})  # fmt: skip


#: A language's keyword that opens an expression, an operand after it (each language's
#: grammar): Python's await, lambda, not, yield; JavaScript's and TypeScript's await, new,
#: typeof, void, delete, yield, async, function, class; C#'s await, new, stackalloc, ref,
#: throw, from (a query); Java's new, switch; Kotlin's when, if, try, object; Swift's try
#: (try?, try!), await; Rust's match, if, loop, unsafe, move, async; Go's range, func; PHP's
#: new, clone, yield, include, require; Ruby's not, yield, lambda, proc, if, unless, case,
#: begin; C's and C++'s sizeof, alignof, new, throw, co_await, co_yield. Lower case only, as
#: the languages write them. After a secret's word and its '=' with more of its expression
#: on the line, no password (:func:`_assignment_hit`); alone, the lone word it is.
_EXPRESSION_KEYWORD = lazy(
    r"await|new|yield|typeof|void|delete|not|sizeof|alignof|lambda:?|async|function|class"
    r"|stackalloc|ref|throw|from|switch|when|if|try[?!]?|object|match|loop|unsafe|move|range"
    r"|func|clone|include|require|proc|unless|case|begin|co_await|co_yield"
)
#: What follows such a keyword on its line: the next word of its expression (no comment),
#: or a string, given to a call or not (lambda: "…", new String("…")).
_AFTER_KEYWORD = lazy(
    r"[ \t]+(?!#|//|/\*|--)(?:[A-Za-z_$][\w.$]{0,64}\()?"
    r"(?:\"(?P<dq>[^\"\r\n]{1,1024})\"|'(?P<sq>[^'\r\n]{1,1024})'|(?P<next>[^\s\"'`,;&]+))"
)


#: Java's and C#'s string constructor before its literal's quote: ``new String(``.
_STRING_CONSTRUCTOR = lazy(r"(?<![\w$.])(?:java\.lang\.)?[Ss]tring\($")


def _quoted_value_is_none(key_name: str, value: str) -> bool:
    """``value``, a quoted value under ``key_name``, is no secret: blank, a placeholder, a
    kind's name, a path or a file's name."""
    value = value.strip()
    return (
        not value
        or _is_placeholder(value)
        or _names_a_kind(key_name, value)
        or _PATH.fullmatch(value) is not None
        or _FILE_NAME.fullmatch(value) is not None
    )


#: A statement's end after a word: ';' or nothing, then a comment or nothing, then the line's.
_STATEMENT_END = lazy(r"[ \t]*;?[ \t]*(?:(?://|#)[^\r\n]*)?(?:\r?\n|$)")


def _passphrase_end(text: str, name_start: int, start: int, end: int) -> tuple[int, str]:
    """Where an unquoted password of one lower-case word ends, should more words follow it on
    its line (``end`` and the value as they are otherwise)."""
    line_start = text.rfind("\n", max(0, name_start - _MAX_INDENT), name_start) + 1
    if (line_start == 0 and name_start > _MAX_INDENT) or not _ENV_LINE_HEAD.fullmatch(
        text, line_start, name_start
    ):
        return end, text[start:end]
    words = _PASSPHRASE_TAIL.match(text, end)
    if words is None or words.group("second") in _COMMANDS:
        return end, text[start:end]
    return words.end(), text[start : words.end()]


#: Words after a key's secret word that say which secret it holds, not a setting about it:
#: an environment or a stage (DB_PASSWORD_PROD, STRIPE_API_KEY_LIVE), which of several
#: (ADMIN_PASSWORD_2, JWT_SECRET_V2, PASSWORD_OLD), or that the value is the secret itself
#: (Rails' SECRET_KEY_BASE, PASSWORD_OVERRIDE, PASSWORD_VALUE, TOKEN_PLAIN). With a number or
#: a version (2, V2) and any words after a "for" (GITHUB_TOKEN_FOR_CI), such a key is the
#: secret's, read as if the words were not there.
_WHICH_SECRET_WORDS = frozenset({
    "prod", "production", "prd", "live", "stage", "staging", "stg", "dev", "develop",
    "development", "test", "testing", "qa", "uat", "sandbox", "local", "ci", "preprod",
    "preview", "demo", "old", "new", "current", "curr", "prev", "previous", "next", "primary",
    "secondary", "backup", "default", "main", "alt", "orig", "original", "tmp", "temp",
    "base", "value", "val", "override", "raw", "plain", "plaintext", "literal", "string", "str",
    "actual", "real", "b64", "base64", "hex",
})  # fmt: skip
#: A qualifier's words: split at '_' and '-', and a camelCase run at its capitals.
_QUALIFIER_WORD = lazy(r"[A-Za-z]*[0-9]+|[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_VERSION_WORD = lazy(r"v?[0-9]+")


def _says_which_secret(qualifier: str) -> bool:
    """The words after a key's secret word (``qualifier``: ``_PROD``, ``_FOR_CI``, ``Base``)
    say which secret the key holds (:data:`_WHICH_SECRET_WORDS`), not a setting about it."""
    if "." in qualifier:
        # an object's attribute as often as a name's words (token.prev = prev, pygments'
        # Token.String: "#AB0909"): read as a setting's, the value taken when it reads as a
        # secret (db.password.prod=Hy6t…)
        return False
    words: list[str] = []
    for part in re.split(r"[_\-]", qualifier):
        one_case = part.isupper() or part.islower()
        words.extend(w.lower() for w in ([part] if one_case else _QUALIFIER_WORD.findall(part)))
    words = [w for w in words if w]
    if words[:1] == ["for"]:
        return True
    return all(w in _WHICH_SECRET_WORDS or _VERSION_WORD.fullmatch(w) for w in words)


#: A number, or a duration, a size or a count with its unit ("3600", "30m", "1h30m", "64kb",
#: "12_000"): what a setting about a secret is set to (TOKEN_TTL=3600, PASSWORD_RESET_TIMEOUT=
#: 86400000), never the secret under such a key.
_SETTING_NUMBER = lazy(r"(?:[0-9][0-9_.,]{0,16}+[a-z]{0,7}+){1,4}+", re.IGNORECASE)


def _setting_holds_secret(key: str, value: str) -> bool:
    """Under a key whose words after its secret's word name a setting about it
    (PASSWORD_MIN_LENGTH, TOKEN_EXPIRY, api_key_header, token_url, SECRET_KEY_ROTATION_DAYS),
    ``value`` is the secret only when it reads as a secret handed over in a sentence
    (:func:`_said_secret`): a generated one, or for a password's key one a person chose in a
    form a setting's value does not take, a capital or a symbol among its letters and
    digits (:func:`_password_after_its_word` after the bare word: "Hy6tq9B1…", "Summer2024!";
    not "examplecorp2", AWS MediaLive's PasswordParam, the name of the parameter holding
    it); never a number, a duration, a URL, a path, a header's or an algorithm's name, a
    word ("strict", "stripe"), words ("bold #08547A", pygments' Token.Name.Builtin.Clef:
    a style) or a variable's name (OPENAI_API_KEY)."""
    if _SETTING_NUMBER.fullmatch(value) and not _HEX_KEY.fullmatch(value):
        return False
    if any(c.isspace() for c in value):
        return False
    if not _said_secret(key, value):
        return False
    if _PASSWORD_KEY.search(key) or key.lower() == "pw":
        return _password_after_its_word(value)
    return True


def _qualified_name_holds(m: re.Match[str], value: str) -> bool:
    """A value under a name that ``m`` (with groups ``word``, its secret's word, and
    ``qual``, the words after it) read, in a form other than _ASSIGNMENT's (a Kubernetes
    env list's ``name:``/``value:``, an XML setting, PHP's ``define``, fish's ``set -gx``, a
    Dockerfile's ``ENV``): the secret, as :func:`_assignment_hit` judges it after such a key
    (:func:`_says_which_secret`, :func:`_setting_holds_secret`)."""
    qualifier = m.group("qual") if "qual" in m.re.groupindex else None
    return (
        not qualifier
        or _says_which_secret(qualifier)
        or _setting_holds_secret(m.group("word"), value)
    )


#: An ARN up to its resource type, where a secret's word is that type (Secrets Manager's
#: "…:secret:NAME"), not a key: the ARN says where the secret is.
_ARN_HEAD = lazy(r"arn:aws(?:-cn|-us-gov)?:[a-z0-9\-]{1,64}:[a-z0-9\-]{0,32}:\d{0,12}:$")


#: A quote that opens or closes a string: not one inside a word, an apostrophe ("don't").
_DOUBLE_QUOTE = lazy(r'(?<!\w)"|"(?!\w)')
_SINGLE_QUOTE = lazy(r"(?<!\w)'|'(?!\w)")


class _LineQuotes:
    """How many quotes of a kind stand on a key's line before it in ``text``: whether the
    key is inside a string opened before it. Counted on from the last place asked about
    (_find_assignment_rule asks in order), so each character of a line is read once: many
    keys on one long line stay linear. Every double quote counts (one glued to a word opens
    a string too: f"…", b"…"); a single quote inside a word is an apostrophe ("don't")."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.counted: dict[str, tuple[int, int]] = {}  # quote -> (place, quotes on its line)

    def odd_before(self, pos: int, quote: str) -> bool:
        text = self.text
        last, count = self.counted.get(quote, (-1, 0))
        if 0 <= last <= pos:
            newline = text.rfind("\n", last, pos)
            if newline >= 0:
                last, count = newline + 1, 0  # a line after the last place's
        else:
            last, count = text.rfind("\n", 0, pos) + 1, 0
        if quote == '"':
            count += text.count('"', last, pos)
        else:  # (the character after the last one read tells an apostrophe: endpos + 1)
            count += sum(1 for q in _SINGLE_QUOTE.finditer(text, last, pos + 1) if q.start() < pos)
        self.counted[quote] = (pos, count)
        return count % 2 == 1


#: The words of _ASSIGNMENT's sentence that say what a secret is or was set to (the last
#: word of its separator: the verb, an adverb after it, a dash, or the "to" or "be" of
#: what it became).
_SAID_VERBS = frozenset({*_IS_WORDS, *_NOW_WORDS, *_DASHES, "to", "be"})


#: An angle bracket opened or closed by a string escape (``\\u003c``, ``\\x3e``).
_ESCAPED_OPENING_BRACKET = lazy(r"\\+(?:u003[cC]|x3[cC])")
_ESCAPED_CLOSING_BRACKET_ANYWHERE = lazy(r"\\+(?:u003[eE]|x3[eE])")
_OPENING = {")": "(", "]": "[", "}": "{", ">": "<"}
_BRACKETS = (*_OPENING, *_OPENING.values())


def _without_closing_brackets(value: str) -> str:
    """``value`` without the closing brackets at its end that close more than it opens (an
    escaped angle bracket counted as one): they belong to the code around it."""
    if value[-1:] not in _OPENING:
        return value
    # (only the brackets are counted: a count of every character cost a long value ~25 µs)
    counts = {bracket: value.count(bracket) for bracket in _BRACKETS}
    if "\\" in value:
        counts["<"] += len(_ESCAPED_OPENING_BRACKET.findall(value))
        counts[">"] += len(_ESCAPED_CLOSING_BRACKET_ANYWHERE.findall(value))
    end = len(value)
    while end and value[end - 1] in _OPENING:
        closing = value[end - 1]
        if counts[closing] <= counts[_OPENING[closing]]:
            break
        counts[closing] -= 1
        end -= 1
    return value[:end]


#: A separator an encoder escaped (``\\u003d``, ``\\x3a``), and what it stands for.
_ESCAPED_SEPARATOR = lazy(r"\\+(?:u003|x3)([dDaA])")


def _nested_in_its_string(text: str, m: re.Match[str]) -> bool:
    """_ASSIGNMENT's quoted value (``m``'s ``dq`` or ``sq``) is nested in the string its key
    is in: glued to the key's '=' and to that string's closing quote, one word (a shell's
    ``echo "DB_PASSWORD="…"" >> .env``, whose inner quotes close and reopen the outer
    string). Not a concatenation's operand (``"password="+pw+""``)."""
    group = "dq" if m.group("dq") is not None else "sq"
    quote = '"' if group == "dq" else "'"
    start, end = m.start(group), m.end(group)
    value = m.group(group)
    return (
        start >= 3
        and text[start - 2 : start] == "=" + quote
        and (text[start - 3].isalnum() or text[start - 3] == "_")
        and text[end : end + 2] == quote * 2
        and not any(c.isspace() for c in value)
        and value[0] not in "+.,"
        and value[-1] not in "+.,("
    )


#: _ASSIGNMENT's groups of a value, in the order they are read: quoted (or escaped, or
#: wrapped), then bare; one of them holds the value (each read in one call of ``group``).
_QUOTED_GROUPS = ("tq", "tb", "dq", "sq", "eq", "uq", "bq", "dw", "sw", "aw")
_VALUE_GROUPS = (*_QUOTED_GROUPS, "val")


def _first_given(values: tuple[str | None, ...]) -> int:
    """The index of the first of a match's ``values`` (its groups) that took part in it."""
    for i, value in enumerate(values):
        if value is not None:
            return i
    raise ValueError("no group took part")


@functools.lru_cache(maxsize=64)
def _is_password_word(key: str) -> bool:
    """Whether a key's secret word (_ASSIGNMENT's ``key``) is a password's, not a token's or
    a key's (kept: a text repeats the same few words)."""
    return bool(_PASSWORD_KEY.search(key)) or key.lower() == "pw"


def _assignment_hit(text: str, m: re.Match[str], quotes: _LineQuotes | None = None) -> _Hit | None:
    sep = m.group("sep").strip().replace("：", ":")  # the full-width colon of CJK text
    if "\\" in sep:  # '=' or ':' escaped: read as what it stands for
        sep = _ESCAPED_SEPARATOR.sub(lambda e: "=" if e.group(1) in "dD" else ":", sep)
    code = False  # a YAML-looking line that is an object literal's property
    # words after the secret's word (DB_PASSWORD_PROD=…): a key, before a separator only (no
    # sentence's "password-reset link is …"); one naming a setting about the secret
    # (PASSWORD_MIN_LENGTH) holds it only when its value reads as one (_setting_holds_secret)
    qualifier = m.group("qual") or ""
    # an environment variable's name with such words, said in a sentence to be a random
    # value ("The DB_PASSWORD_PROD is Hy6t… for now"), as _said_secret reads any key's
    said_variable = False
    if qualifier and sep not in ("=", ":", "=>", ":="):
        name = text[_key_name_start(text, m.start()) : m.end("qual")]
        if not sep or _UPPER_NAME.fullmatch(name) is None:
            return None
        said_variable = True
    setting = bool(qualifier) and not _says_which_secret(qualifier)
    key = m.group("key")
    password_word = _is_password_word(key)
    words = sep.lower().split()
    # (a colon may follow the verb: "password is: …")
    if not sep or words[-1].rstrip(":") in _SAID_VERBS or words[0] in _FOR_WORDS:
        # prose ("the token is valid", "the password was reset") unless the word is random
        group = _VALUE_GROUPS[_first_given(m.group(*_VALUE_GROUPS))]
        said_end = _value_end(text, m.end(group), m.start()) if group == "val" else m.end(group)
        said = text[m.start(group) : said_end].rstrip(".!?:)")
        # a password said so ("the staging password is hunter2_Zx91kq") is one a person
        # chose as often as a generated one: words and digits, where a key is random
        # (after the bare word, "password Hy6tq9…", a chosen one only in a form that no
        # name of what the password is for takes: "the password reset2fa flow"; one in
        # lower case, as after "is" one shorter than 8, where the clause ends after it:
        # after its closing quote, when quoted, "the password is 'hunter2'.")
        at = m.start(group) + len(said) if group == "val" else m.end()
        ends = _ends_clause(text, at, bool(sep))
        if sep:
            reads = _said_secret(key, said, ends)
        elif password_word:
            reads = _password_after_its_word(said, ends)
        else:
            # after the bare word "token" or "secret" ("Token 9f8a…", "our secret Hy6t…"), a
            # generated key of letters and digits alone: a word or a name qualifies it ("the
            # token refresh flow"), a token of a known form ("token ghp_…_old") is its own
            # rule's, to where it ends, and a key's word names a public one as often ("git
            # config user.signingkey 0xA1B2…", "DeepL-Auth-Key …", an Authorization scheme)
            reads = (
                key.lower() in ("token", "secret")
                and len(said) >= _GENERATED_KEY_MIN_CHARS
                and said.isascii()
                and said.isalnum()
                and _looks_random(said)
            )
        if said_variable and not _looks_random(said) and (setting or not _PASSWORD_KEY.search(key)):
            # a setting's value, a person's word: only a generated one is said, but a
            # password's, said as the bare word's is ("The DB_PASSWORD_PROD is hunter2" as
            # "the password is hunter2"; not "… is set in the vault", "… is 12")
            return None
        if not reads or "=" in said.rstrip("="):
            # an assignment after the word ("change the password DB_PASSWORD=…") is read on
            # its own, its name kept
            return None
        return _Hit(m.start(group), m.start(group) + len(said), "password_assignment", 1)
    key_quoted = bool(m.group("kq"))
    name_start = _key_name_start(text, m.start())
    if text[name_start - 1 : name_start] == ":" and _ARN_HEAD.search(
        text, max(0, name_start - 200), name_start
    ):
        return None  # arn:aws:secretsmanager:…:secret:prod/db-AbCdEf names where a secret is
    opened = text[name_start - 1 : name_start] if name_start else ""
    if (
        not key_quoted
        and opened in ("'", '"')
        and m.group("sq" if opened == "'" else "dq")
        and not _nested_in_its_string(text, m)
    ):
        # a quoted phrase ending in the separator ('"Password:", "password …"', '"secret:"
        # and "api_key:"'): the quote after it closes the phrase, no value opens there (in
        # code and data a quote inside the same quotes would have ended the string)
        return None
    wrapped = _DOUBLE_QUOTE if m.group("dw") is not None else _SINGLE_QUOTE
    if (
        (m.group("dw") is not None or m.group("sw") is not None)
        and not key_quoted
        and len(wrapped.findall(text, text.rfind("\n", 0, name_start) + 1, name_start)) % 2
    ):
        # the label is inside a string its line opened ('logger.info("token: " + token)'):
        # the quote after the separator closes that string, and the next line's first quote
        # opens another, so no value runs between them
        return None
    quoted = m.group("dq") if m.group("dq") is not None else m.group("sq")
    if (
        quoted is not None
        and not key_quoted
        and (quotes or _LineQuotes(text)).odd_before(
            name_start, '"' if m.group("dq") is not None else "'"
        )
        and (
            any(c.isspace() for c in quoted)
            or not _said_secret(key, quoted, _ends_clause(text, m.end(), True))
        )
        and not _nested_in_its_string(text, m)
    ):
        # a label inside its own quotes, words before the key ('"Enter password:" and
        # reads it with getpass("Password: ")', "New password:" … "Confirm password:"):
        # the quote after the separator closes the label, and what runs up to the next
        # quote is the text around it, no value; taken only when it reads as the secret
        # said, glued to that quote ("the admin password: "Hy6t…"), as in a sentence
        return None
    key_name = text[name_start : m.end("key")]
    quoted_values = m.group(*_QUOTED_GROUPS)
    if quoted_values.count(None) < len(quoted_values):  # (alternatives: one takes part)
        index = _first_given(quoted_values)
        name, value = _QUOTED_GROUPS[index], quoted_values[index]
        if (
            name == "sq"
            and m.group("sep")[:1].isspace()
            and m.group("sep").endswith(":")
            and _IDENT_CHAIN.fullmatch(value)
        ):
            return None  # psql's variable, interpolated: PASSWORD :'pw'
        if "f" in (m.group("pre") or "").lower() and "{" in value:
            return None  # an f-string's value is built from expressions: f"{prefix}_{id}"
        if name == "bq" and ("${" in value or any(c.isspace() for c in value)):
            # a template literal built from expressions (`Bearer ${token}`), or a shell's
            # command substitution (PASSWORD=`cat /run/secrets/db`)
            return None
        if name == "bq" and (
            # markdown's inline code after a secret's word: code, as in a source file
            # ("pass the password: `--password-stdin`", "token = `process.env.TOKEN`")
            value.startswith("-")
            or "(" in value
            or _is_reference(value, key, key_name, False, "=")
            or _TYPE_NAME.fullmatch(value)
            or _PATH.fullmatch(value)
            or _FILE_NAME.fullmatch(value)
        ):
            return None
        if _quoted_value_is_none(key_name, value):
            return None  # os.environ["GOOGLE_APPLICATION_CREDENTIALS"] = "key.json": the file
        if setting and not _setting_holds_secret(key, value.strip()):
            return None  # "api_key_header": "X-Api-Key", "TOKEN_TTL": "3600"
        return _Hit(m.start(name), m.end(name), "password_assignment", 1)
    if m.group("kq").endswith("]"):
        return None  # a subscript's unquoted value: a count or a variable (vocab["token"] = 5)
    if key.lower().endswith("pass") and _COUNT_OR_FLAG.fullmatch(m.group("val")):
        return None  # MAX_PASS=5, SSL_PASS=yes: a count or a switch, not a password
    start, end = m.span("val")
    end = _value_end(text, end, name_start)
    value = text[start:end]
    if text[max(0, name_start - 3) : name_start] == "://" and "@" in value:
        # a URL's user info (https://x-access-token:<token>@github.com/acme/repo): the
        # secret ends at '@', the host and path after it are no secret
        end = start + value.index("@")
        value = value[: value.index("@")]
    # A YAML key is indented by at most _MAX_INDENT characters (searching further back for the
    # line start would make many keys on one long line quadratic).
    window = max(0, name_start - _MAX_INDENT)
    line_start = text.rfind("\n", window, name_start) + 1 or (0 if window == 0 else -1)
    yaml_line = line_start >= 0 and _YAML_LINE.match(text, line_start, name_start) is not None
    if sep == ":" and not key_quoted and yaml_line:
        run = _YAML_VALUE.match(text, start)
        if run is not None:
            end = run.end()
            value = run.group(0)
        else:
            # words after the value: prose ("Password: must be at least 12 characters
            # long") unless its first word is random, as after the word in a sentence
            # ("Password: Hy6tB1qZr0 (rotated monthly)")
            value = value.rstrip(".!?:)")
            end = start + len(value)
            if not _said_secret(key, value, _ends_clause(text, end, True)):
                return None
        if len(value) > 1 and value[-1] in ",;":
            # one property a line in an object literal, as formatters write it ("apiKey:
            # process.env.OPENAI_API_KEY,", "password: hashedPassword,"): code, whose value
            # ends before the comma (a YAML value would not end in one)
            value = value[:-1]
            end -= 1
            code = True
    elif sep == ":" and not key_quoted and _COLON_TAIL.match(text, end) is None:
        # prose such as "the token: it expires daily", unless the word after the colon is a
        # random string ("Use Password: Pm4wQ9… to log in")
        value = value.rstrip(".!?:")
        end = start + len(value)
        if not _said_secret(key, value, _ends_clause(text, end, True)):
            return None
    elif (
        sep == "="
        and _PASSWORD_KEY.search(key)
        and _ENV_KEY.fullmatch(key_name)
        and _LOWER_WORD.fullmatch(value)
        and not _is_placeholder(value)  # DB_PASSWORD=none for local dev: a note about it
    ):
        end, value = _passphrase_end(text, name_start, start, end)
    if _EXPRESSION_KEYWORD.fullmatch(value):
        after = _AFTER_KEYWORD.match(text, end)
        if after is not None:
            # code: a keyword opening an expression, the expression after it ('token =
            # await res.json()', 'password = lambda: x'); a random word after it is the
            # secret said so ('password = new Xq7vR2pLk9mZ'), not code
            group = next(g for g in ("dq", "sq", "next") if after.group(g) is not None)
            word = after.group(group)
            if group == "next":
                word = word.rstrip(".,:!?)")
            at = after.start(group)
            if (
                value == "new"
                and group != "next"
                and _STRING_CONSTRUCTOR.search(text, max(0, at - 24), at - 1)
                and not _quoted_value_is_none(key_name, word)
                and not (setting and not _setting_holds_secret(key, word))
            ):
                # Java's 'String password = new String("…");': the literal, as after '='
                return _Hit(at, at + len(word), "password_assignment", 1)
            if _looks_random(word) and "(" not in word:
                return _Hit(at, at + len(word), "password_assignment", 1)
            if (
                value == "new"
                and group == "next"
                and _PASSWORD_KEY.search(key)
                and _short_chosen_password(
                    word, _STATEMENT_END.match(text, at + len(word)) is not None
                )
            ):
                # 'password = new hunter2': "new" constructs a type (a class's name, no
                # digits in lower case: 'new Contrasenia' then '{' on the next line, C#'s);
                # a person's word with digits ending the statement is the new password
                return _Hit(at, at + len(word), "password_assignment", 1)
            return None
    if ">" in value and text[max(0, name_start - 1) : name_start] in ("?", "&"):
        # a URL's query ends at '>' (an autolink's <…>, an HTML tag's end: a URL escapes its own)
        end = start + value.index(">")
        value = value[: value.index(">")]
    # Keep closing brackets that belong to the surrounding code: f(password=pw) -> "pw". An
    # angle bracket an escape opened is the value's ('\u003cHy6t…>', and so '&lt;Hy6t…>'
    # as _found_in_character_references reads it): the marker takes its closing one too.
    trimmed = _without_closing_brackets(value)
    end -= len(value) - len(trimmed)
    value = trimmed
    if not value or _is_placeholder(value) or _names_a_kind(key_name, value):
        return None
    if sep == ":" and _TYPE_NAME.fullmatch(value.rstrip(",;")):
        return None  # a field's or a parameter's type: password: String, token: Option<String>
    if "(" in value or "[" in value:
        return None  # an expression: getpass(), os.environ["X"], settings["db"]
    if sep == "=" and text[name_start - 1 : name_start] == "$" and _CMDLET.fullmatch(value):
        return None  # PowerShell's $password = Read-Host …: a command, as getpass() is
    # optional chaining (session?.access_token) and TypeScript's non-null assertion
    # (process.env.JWT_SECRET!) read as the plain reference; only on a dotted name, as an
    # INI's "password = secretPass!" is a literal
    reference = value.replace("?.", ".").removesuffix("!") if "." in value else value
    in_query = text[max(0, name_start - 1) : name_start] in ("?", "&") and sep == "="
    if not in_query and _is_reference(reference, key, key_name, key_quoted, "=" if code else sep):
        # (a URL's query holds literals: ?access_token=gho_abc123 names no variable)
        return None
    if _PATH.fullmatch(value) or _FILE_NAME.fullmatch(value):
        return None  # GOOGLE_APPLICATION_CREDENTIALS=/etc/key.json or =key.json, PWD=/home/user
    if _CJK_TEXT.search(value):
        return None  # Chinese or Japanese words after the key: prose ("パスワード：8文字以上")
    if setting and not _setting_holds_secret(key, value):
        return None  # PASSWORD_MIN_LENGTH=12, token_url: https://…, API_KEY_NAME=stripe
    return _Hit(start, end, "password_assignment", 1)


# -- passwords in URLs ---------------------------------------------------------------------------

_URL_HEAD = lazy(r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]{1,30}://(?P<user>[^\s:/@]{0,256}):")
_NON_SPACE = lazy(r"[^\s\"'<>`]{0,1024}")
# What follows the '@' that ends the password: a host, an optional port, then the end of the
# authority. "u:p@ss@db.example.com/x" ends the password at the second '@'.
# A host or port may be a template (``@${POSTGRES_HOST}:5432``, ``@redis:${REDIS_PORT}``,
# ``@{{ .Values.host }}``), as in compose files and charts, where such URLs are written.
_URL_HOST = lazy(
    r"(?:\[[0-9A-Fa-f:.]{2,64}\]|[A-Za-z0-9_${%](?:[A-Za-z0-9_.\-${}%]{0,253}))"
    r"(?::[A-Za-z0-9_.\-${}%]{1,64})?"
    r"(?=[/?#\s\"'<>)\],;]|$)"
)
_PORT_PATH = lazy(r"\d{1,5}(?:/.*)?", re.DOTALL)
_MAX_AT_SIGNS = 4  # '@' characters tried per URL: passwords with more are not worth a scan


#: A URL whose user information is a token alone, without a password after it: GitHub's
#: "https://<token>@github.com/owner/repo.git", a classic 40-hex OAuth token or any random
#: one (a user's name, git@ or deploy-bot@, is no random string).
_URL_TOKEN_USER = lazy(
    r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]{1,30}://(?P<user>[A-Za-z0-9_\-.~]{16,256})@"
)


_SENTRY_KEY = lazy(r"[0-9a-f]{32}")


def _find_url_passwords(text: str) -> Iterator[_Hit]:
    if "@" in text and "://" in text:
        for m in _URL_TOKEN_USER.finditer(text):
            host = _URL_HOST.match(text, m.end())
            if host is None or not _looks_random(m.group("user")):
                continue
            if _SENTRY_KEY.fullmatch(m.group("user")) and "sentry" in host.group().lower():
                continue  # a Sentry DSN's public key: made to ship in a browser's code
            yield _Hit(m.start("user"), m.end("user"), "connection_string", 1)
    if "://" not in text:
        return  # (each match holds one: its scan tries every place, ~6% of a hostile text's)
    covered = 0
    for m in _URL_HEAD.finditer(text):
        if m.start() < covered:
            continue
        start = m.end()
        limit = _NON_SPACE.match(text, start).end()  # type: ignore[union-attr]
        at = start
        for _ in range(_MAX_AT_SIGNS):
            at = text.find("@", at, limit)
            if at < 0:
                break
            if _URL_HOST.match(text, at + 1):
                password = text[start:at]
                host_port = _PORT_PATH.fullmatch(password) or ("/" in password and "." in m["user"])
                if password and not _is_placeholder(password) and not host_port:
                    yield _Hit(start, at, "connection_string", 1)
                    covered = at
                break
            at += 1


# -- headers and command lines -------------------------------------------------------------------

_AUTH_HEADER = lazy(
    r"(?<![A-Za-z0-9_\-])(?:proxy-)?authorization[\"']?[ \t]*[:=][ \t]*[\"']?"
    r"(?:(?P<scheme>basic|bearer|token|digest|apikey|api-key|sso-key|key)[ \t]+"
    # or another's scheme (Discord's Bot, Okta's SSWS, Opsgenie's GenieKey, Zoho-oauthtoken)
    r"|(?P<other>[A-Za-z][A-Za-z0-9_\-]{1,31})[ \t]+)?"
    r"(?P<pw>[A-Za-z0-9._~+/=\-]{8,4096})(?![A-Za-z0-9._~+/=\-])",
    re.IGNORECASE,
)
# A bearer token outside an Authorization header ("call it with Bearer eyJ…", an HTTP client's
# bearer argument): long, with a digit, as generated tokens are ("Bearer tokens expire" is
# prose).
_BEARER = lazy(
    r"(?<![A-Za-z0-9_\-])bearer[ \t]+[\"']?(?P<pw>[A-Za-z0-9._~+/=\-]{16,4096})"
    r"(?![A-Za-z0-9._~+/=\-])",
    re.IGNORECASE,
)
# A Cookie or Set-Cookie header: a cookie's value of 8 characters or more on its line is a
# session credential, whatever it looks like ("theme=dark" is not), except Set-Cookie's
# attributes (Path=/, Domain=…, SameSite=Lax).
_COOKIE_HEADER = lazy(r"(?<![A-Za-z0-9_\-])(?:set-)?cookie[\"']?[ \t]*:[ \t]*", re.IGNORECASE)
_COOKIE_PAIR = lazy(r"[ \t]*(?P<name>[^=;,\s\"']{1,256})=(?P<val>[^;,\s\"']{1,4096})[ \t]*[;,]?")
_COOKIE_ATTRIBUTES = frozenset(
    {"path", "domain", "expires", "max-age", "samesite", "priority", "partitioned", "version"}
)
_CURL = lazy(r"(?<![A-Za-z0-9_\-])curl(?![A-Za-z0-9_\-])")
_CURL_USER = lazy(
    r"(?<![\w\-])(?:-u|--user)(?:[ \t]+|=)[\"']?(?P<user>[^\s:\"']{0,256}):"
    # an unquoted '`' is the shell's command substitution, or markdown's code closing
    r"(?P<pw>[^\s\"'`]{0,1024})"
)
_DIGITS = lazy(r"\d+")
_NEWLINE = lazy(r"\n")


def _find_headers(text: str) -> Iterator[_Hit]:
    # (each match holds the word, in any case: a scan tries every place; in a text that is
    # not ASCII a letter lower() keeps may match, ı as i)
    headers = not text.isascii() or "authorization" in text.lower()
    for m in _AUTH_HEADER.finditer(text) if headers else ():
        pw, group = m.group("pw"), "pw"
        if m.group("other") is not None and ("=" in pw.rstrip("=") or not _looks_random(pw)):
            # no scheme's token after the word: prose ("Authorization: required for …"),
            # AWS's signed header (AWS4-HMAC-SHA256 Credential=…, its scope no secret), or
            # the word is itself the token ("Authorization: Hy6t… sometimes_expires")
            pw, group = m.group("other"), "other"
        if m.group("scheme") is None and (len(pw) < 16 or not any(c.isdigit() for c in pw)):
            continue  # "authorization: disabled" is a setting; a bare token is long and random
        if group == "other" and not _looks_random(pw):
            continue  # a scheme's name (AWS4-HMAC-SHA256), not a token
        if not _is_placeholder(pw):
            yield _Hit(m.start(group), m.end(group), "authorization_header", 1)
    if "earer" in text or "EARER" in text:
        for m in _BEARER.finditer(text):
            pw = m.group("pw")
            if any(c.isdigit() for c in pw) and not _is_placeholder(pw):
                yield _Hit(m.start("pw"), m.end("pw"), "authorization_header", 1)
    if "ookie" not in text and "OOKIE" not in text:
        return
    for m in _COOKIE_HEADER.finditer(text):
        at = m.end()
        while (pair := _COOKIE_PAIR.match(text, at)) is not None:
            at = pair.end()
            value = pair.group("val")
            if (
                len(value) >= 8
                and pair.group("name").lower() not in _COOKIE_ATTRIBUTES
                and not _is_placeholder(value)
            ):
                yield _Hit(pair.start("val"), pair.end("val"), "authorization_header", 1)


#: A curl command may continue over this many lines ("\\" at the end of a line).
_CURL_LINES = 5


def _find_curl_users(text: str) -> Iterator[_Hit]:
    if "-u" not in text:
        return  # (-u and --user hold it: the scan tries every place)
    curl_lines: list[int] | None = None
    newlines: list[int] = []
    for m in _CURL_USER.finditer(text):
        if curl_lines is None:
            newlines = [n.start() for n in _NEWLINE.finditer(text)]
            curl_lines = [bisect.bisect_left(newlines, c.start()) for c in _CURL.finditer(text)]
        # only in a curl command: "docker run -u 1000:1000" is a user and group
        line = bisect.bisect_left(newlines, m.start())
        before = bisect.bisect_right(curl_lines, line)
        if before == 0 or line - curl_lines[before - 1] > _CURL_LINES:
            continue
        pw, user = m.group("pw"), m.group("user")
        if not pw:
            # "-u KEY:" — the API key as the user with no password, as Stripe, Mailgun and
            # others take it: the user is the secret when it looks generated, not a name
            if _looks_like_a_key(user) and not _is_placeholder(user):
                yield _Hit(m.start("user"), m.end("user"), "basic_auth", 1)
            continue
        if _is_placeholder(pw) or (_DIGITS.fullmatch(pw) and _DIGITS.fullmatch(user)):
            continue
        yield _Hit(m.start("pw"), m.end("pw"), "basic_auth", 1)


def _looks_like_a_key(value: str) -> bool:
    """A generated key rather than a user's name: random-looking (:func:`_looks_random`), or
    long with many digits, as a one-case key is ("3ax6xnjp29jd6fds4gc373sgvjxteol0");
    "admin" and "myverylongusername2024" are names."""
    digits = sum(c.isdigit() for c in value)
    return _looks_random(value) or (len(value) >= 24 and digits >= 4 and len(value) - digits >= 4)


#: A URL query's ``auth`` parameter (Firebase's REST API, webhooks): "auth" is no secret's
#: word in prose or code, so only its value in a query, and only a random-looking one
#: (``?auth=true``, ``&auth=oauth2`` are settings).
_QUERY_AUTH = lazy(r"[?&]auth=(?P<val>[A-Za-z0-9._~%+/\-]{8,1024})")


def _find_query_auth(text: str) -> Iterator[_Hit]:
    if "auth=" not in text:
        return
    for m in _QUERY_AUTH.finditer(text):
        value = m.group("val")
        if _looks_random(value) and not _is_placeholder(value):
            yield _Hit(m.start("val"), m.end("val"), "authorization_header", 1)


# -- cloud keys named by their key, and token formats gitleaks lacks -------------------------------

#: The pattern below that finds an AWS secret key by its access key id (reported as
#: ``aws_secret``).
_AWS_SECRET_BESIDE_ITS_KEY = "aws_secret beside its key"

#: The kind of a pattern below that finds a token glued to more letters and digits starts
#: with this (:func:`_glued_token`).
_GLUED = "glued "

# RE2 patterns (no look-behind: a consumed character outside the group stands in for it).
_RE2_CONTEXT: tuple[tuple[str, str], ...] = (
    (
        "aws_secret",
        # the key's words joined by '_', '-' or a space, "access" left out after "aws" (as people
        # say it: "aws secret key"), and in `aws configure`'s prompt the value it had before
        # in brackets: "AWS Secret Access Key [****************Lk9W]: …"; then a separator,
        # a space or "is" ("the aws secret key is …")
        r"(?i)(?:^|[^A-Za-z0-9])"
        r"""(?:(?:aws[_ \-]?)?secret[_ \-]?access|aws[_ \-]?secret)[_ \-]?key["']?"""
        r"""(?:[ \t]*\[[^\]\n]{0,40}\])?"""
        r"""(?:[ \t]*(?:=>|:=|[:=])[ \t]*|[ \t]+(?:(?:is|was)[ \t]+)?)["']?"""
        # AWS's keys are 40 characters; an S3-compatible store's (MinIO, R2, Spaces, B2,
        # Wasabi) or a key cut short in a paste are of other lengths, and the key's name says
        # what they are all the same (a digit and a letter, as the next word of prose has not)
        r"(?P<pw>[A-Za-z0-9/+=]{16,128})(?:[^A-Za-z0-9/+=]|$)",
    ),
    (
        # ...and a secret key written after its access key id, named by nothing but its place:
        # IAM's credentials.csv ("deploy,,AKIA…,<secret>"), "AKIA…:<secret>", "key AKIA… and
        # secret <secret>" (on the id's line, within a few words; in both cases, below)
        # (the id glued to more letters and digits too, "AKIA…Q8:<secret>", as the glued
        # id's own rule below takes it: _id_beside_its_secret)
        _AWS_SECRET_BESIDE_ITS_KEY,
        r"(?P<id>(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}[A-Za-z0-9]*)[^A-Za-z0-9/+=\n]"
        r"(?:[^\n]{0,60}?[^A-Za-z0-9/+=\n])?"
        r"(?P<pw>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)",
    ),
    (
        "azure_storage_key",
        r"(?i)(?:^|[^A-Za-z0-9])(?:AccountKey|SharedAccessKey|PrimaryKey|SecondaryKey)"
        r"[ \t]*=[ \t]*(?P<pw>[A-Za-z0-9+/]{20,}={0,2})",
    ),
    ("azure_sas", r"(?i)[?&;]sig=(?P<pw>[A-Za-z0-9%+/=]{16,})"),
    # A presigned S3 or signed GCS URL reads (or writes) its object for anyone holding it
    # until it expires: the signature goes, the bucket, object and parameters stay. Named
    # for what it is (X-Amz-/X-Goog-Signature), the value is always one; a bare Signature=
    # (a V2 or CloudFront URL's, a SigV4 Authorization header's) only when it reads as
    # generated (below), as "signature=compute_signature(body)" in code does not.
    ("url_signature", r"(?i)[?&]x-(?:amz|goog)-signature=(?P<pw>[A-Za-z0-9%+/=_~.\-]{16,})"),
    ("url_signature", r"(?:^|[?&,\s])Signature=(?P<pw>[A-Za-z0-9%+/=_~\-]{16,})"),
    # Token formats gitleaks lacks (GOCSPX-, whsec_, below) or pins to one length (sk-ant-).
    ("anthropic_key", r"(?:^|[^A-Za-z0-9_\-])(?P<pw>sk-ant-[A-Za-z0-9_\-]{20,})"),
    ("google_oauth_secret", r"(?:^|[^A-Za-z0-9])(?P<pw>GOCSPX-[A-Za-z0-9_\-]{24,40})"),
    # A Telegram bot's token in the Bot API's URL, the form a curl line or an error logs it
    # in (gitleaks takes it only after "telegram" and an "=" or ":", before a space or quote)
    (
        "telegram_bot_api_token",
        r"(?i)api\.telegram\.org/(?:file/)?bot(?P<pw>[0-9]{5,16}:A[A-Za-z0-9_\-]{34})"
        r"(?:[^A-Za-z0-9_\-]|$)",
    ),
    ("stripe_webhook_secret", r"(?:^|[^A-Za-z0-9])(?P<pw>whsec_[A-Za-z0-9+/=]{24,128})"),
    # OpenAI: sk-, sk-proj-, sk-svcacct-, sk-admin- and a random body of any length.
    ("openai_key", r"(?:^|[^A-Za-z0-9_\-])(?P<pw>sk-[A-Za-z0-9_\-]{20,})"),
    # A Discord webhook's token (anyone holding the URL posts as the hook): gitleaks has
    # Slack's and Teams' webhooks, not Discord's. The webhook's id stays.
    (
        "discord_webhook",
        r"(?i)discord(?:app)?\.com/api(?:/v\d{1,2})?/webhooks/\d{17,20}/"
        r"(?P<pw>[A-Za-z0-9_\-]{60,100})",
    ),
    # Prefixed formats gitleaks lacks: Doppler's service, CLI, service-account, SCIM and
    # audit tokens (gitleaks has dp.pt. of one length; a service token names its config:
    # dp.st.dev.…), and the keys of Tailscale, Groq, xAI, Replicate, Supabase, Buildkite,
    # Pinecone, LangSmith, PostHog (a personal key; phc_ is a project's public key), Figma
    # and Apify. Each prefix is the provider's own, then a random body of its length.
    (
        "doppler_api_token",
        r"(?:^|[^A-Za-z0-9_.\-])(?P<pw>dp\.(?:pt|st|ct|sa|scim|audit)\.(?:[a-z0-9_\-]{2,35}\.)?"
        r"[A-Za-z0-9]{40,})",
    ),
    (
        "tailscale_key",
        r"(?:^|[^A-Za-z0-9_\-])(?P<pw>tskey-[a-z]{3,10}-[A-Za-z0-9]{6,24}-[A-Za-z0-9]{16,})",
    ),
    ("groq_api_key", r"(?:^|[^A-Za-z0-9_\-])(?P<pw>gsk_[A-Za-z0-9]{52})(?:[^A-Za-z0-9]|$)"),
    ("xai_api_key", r"(?:^|[^A-Za-z0-9_\-])(?P<pw>xai-[A-Za-z0-9]{80})(?:[^A-Za-z0-9]|$)"),
    (
        "replicate_api_token",
        r"(?:^|[^A-Za-z0-9_\-])(?P<pw>r8_[A-Za-z0-9]{37})(?:[^A-Za-z0-9]|$)",
    ),
    (
        "supabase_token",
        r"(?:^|[^A-Za-z0-9_\-])(?P<pw>sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_\-]{24,})",
    ),
    ("buildkite_token", r"(?:^|[^A-Za-z0-9_\-])(?P<pw>bkua_[a-f0-9]{40})(?:[^A-Za-z0-9]|$)"),
    (
        "pinecone_api_key",
        r"(?:^|[^A-Za-z0-9_\-])(?P<pw>pcsk_[A-Za-z0-9]{4,10}_[A-Za-z0-9]{40,})",
    ),
    (
        "langsmith_api_key",
        r"(?:^|[^A-Za-z0-9_\-])(?P<pw>lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10})",
    ),
    ("posthog_personal_key", r"(?:^|[^A-Za-z0-9_\-])(?P<pw>phx_[A-Za-z0-9]{40,})"),
    ("figma_token", r"(?:^|[^A-Za-z0-9_\-])(?P<pw>figd_[A-Za-z0-9_\-]{40,})"),
    ("apify_token", r"(?:^|[^A-Za-z0-9_\-])(?P<pw>apify_api_[A-Za-z0-9]{36})(?:[^A-Za-z0-9]|$)"),
    # A Google OAuth access token (ya29.…, an hour's access to the account's APIs), its
    # newer forms with dots inside ("ya29.c.b0Aaek…"); a sentence's full stop after it stays.
    (
        "google_oauth_token",
        r"(?:^|[^A-Za-z0-9_\-.])(?P<pw>ya29\.[A-Za-z0-9_\-]+(?:\.[A-Za-z0-9_\-]+){0,8})",
    ),
    # A token of a distinctive prefix glued to more letters and digits, which the rules that
    # end at a word's end (AKIA…, AIza…) or start at one (sk-ant-api03-, sk-proj-) let pass
    # in clear (QA F3: "key=AKIA" and 18, "idAKIA…", "AIza" and 36, "Bearersk-proj-…"):
    # after the token, the run of letters and digits goes with it; before it, the letters
    # stay. Taken only where glued (_glued_token); the plain sk- keeps its start (task-…).
    (
        _GLUED + "aws_access_key",
        r"(?P<pw>(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}[A-Za-z0-9]*)",
    ),
    (_GLUED + "google_api_key", r"(?P<pw>AIza[A-Za-z0-9_\-]{35}[A-Za-z0-9]*)"),
    (
        _GLUED + "openai_key",
        r"[A-Za-z0-9_\-](?P<pw>sk-(?:proj|svcacct)-[A-Za-z0-9_\-]{40,})",
    ),
    (
        _GLUED + "anthropic_key",
        r"[A-Za-z0-9_\-](?P<pw>sk-ant-[a-z]{3,6}[0-9]{2}-[A-Za-z0-9_\-]{20,})",
    ),
)
#: The formats above whose body is random base62 (a digit, an upper- and a lower-case letter).
_RANDOM_BODY_KINDS = frozenset(
    {
        "doppler_api_token",
        "tailscale_key",
        "groq_api_key",
        "xai_api_key",
        "replicate_api_token",
        "supabase_token",
        "pinecone_api_key",
        "posthog_personal_key",
        "figma_token",
        "apify_token",
    }
)
_re2_context_compiled: list[tuple[str, Any] | None] = []
#: An RE2 set of the patterns above: one pass says which can match at all, so a text
#: without any of them costs one scan instead of one per pattern.
_re2_context_set: list[Any] = []


def _is_random(token: str) -> bool:
    # Real keys are random base62: a digit, an upper- and a lower-case letter. This keeps
    # hyphenated words such as "sk-learn-compatible-estimator-wrapper" untouched.
    return (
        any(c.isdigit() for c in token)
        and any(c.isupper() for c in token)
        and any(c.islower() for c in token)
    )


#: A run of five lower-case letters: a word ("OAuth2Client", "Base64Encoded"), which a random
#: string holds rarely.
_WORD_RUN = lazy(r"[a-z]{5}")
#: A four-letter lower-case word as a part of its own in a short name: a model's or a
#: product's ("GPT4o-mini", "Phi3-mini"), where a generated password's parts are mixed.
_NAME_PART = lazy(r"(?:^|[\-_.])[a-z]{4}(?:[\-_.]|$)")


#: A key of 32+ hex digits, or a UUID (Heroku's API keys): one case only, so the mixed-case
#: test below never takes it; digits and letters both, so a long number is not one.
_HEX_KEY = lazy(
    r"(?=[^0-9]*[0-9])(?=[^A-Fa-f]*[A-Fa-f])"
    r"(?:[0-9A-Fa-f]{32,1024}|[0-9A-Fa-f]{8}(?:-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12})"
)


#: A cipher's, a hash's or a key derivation's name as Java (JCA) and others spell it:
#: PBKDF2WithHmacSHA256, HmacSHA512, SHA256withRSA, PBEWithHmacSHA256AndAES_256,
#: AES/GCM/NoPadding. Its capitals and digits read as random, and it is said after the word
#: it is for ("the password is PBKDF2WithHmacSHA256-hashed"). Two of these names at least, and
#: nothing else but digits and separators; possessive, so a long run of them stays linear.
_ALGORITHM_PART = (
    r"PBKDF|PBE|HMAC|Hmac|SHA|MD|AES|DESede|DES|RSA|DSA|ECDSA|ECDHE|ECDH|ECIES|ECB|EC|Ed"
    # (Argon2's variants first: the repetition is possessive, "Argon" would keep "id" out)
    r"|ChaCha|Poly|Curve|GCM|CBC|CTR|CCM|OAEP|PSS|PKCS|MGF|NoPadding|Padding|Argon2id|Argon2i"
    r"|Argon2d|Argon|Scrypt"
    r"|Bcrypt|Blake|Blowfish|Twofish|RC|HKDF|KDF|With|with|And|and"
)
_ALGORITHM_NAME = lazy(rf"(?:{_ALGORITHM_PART}|[0-9]+|[\-_/])++")
_ALGORITHM_WORD = lazy(_ALGORITHM_PART)
#: And as prose writes one, in lower case with its number ("bcrypt12", "aes256gcm").
_ALGORITHM_NAME_ANY_CASE = lazy(rf"(?:{_ALGORITHM_PART}|[0-9]+|[\-_/])++", re.IGNORECASE)


#: A part of a name as its case and digits cut it: a word (``Client``, ``client``), an
#: initialism (``HTTP`` before ``Server``), a number.
_NAME_RUN = lazy(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
#: The longest a long key's parts are on average, cut as :data:`_NAME_RUN` cuts a name.
#: Calibrated on 3,000 random base62 keys of each of 16, 20, 24, 32, 40 and 64 characters
#: against the 7,890 tokens of 16+ characters with a digit, an upper- and a lower-case
#: letter in Python 3.11's library and kenning's dependencies: at 2.6 the keys that a
#: five-letter run kept from :func:`_looks_random` (14-38% of them, the longer the more)
#: are taken but for 0.2-5.5%, and every token taken besides is itself random or base64
#: (test vectors, certificates); at 2.8 names come in ("testIPv4toString"). Of keys of
#: letters alone it takes about half; of the 83,716 such tokens in both cases there, 12,
#: each random or base64 itself.
_KEY_MEAN_RUN = 2.6


#: What a base64 or base64url key holds besides letters and digits.
_KEY_SEPARATORS = str.maketrans("", "", "-_+/")


def _short_runs(value: str) -> bool:
    """``value`` is 16+ letters and digits (a ``-``, ``_``, ``+`` or ``/`` in ten at most,
    as base64url and base64 keys have: an AWS secret access key is 40 of base64's) whose
    case and digits change as a random key's do: its parts cut as a name's
    (:data:`_NAME_RUN`) average :data:`_KEY_MEAN_RUN` characters or fewer, where a name's
    are words ("AllowS3ListAllMyBuckets": 3.3)."""
    core = value.translate(_KEY_SEPARATORS)
    if len(core) < 16 or not (core.isascii() and core.isalnum()):
        return False
    if len(value) - len(core) > len(value) // 10:
        return False
    return len(core) <= _KEY_MEAN_RUN * len(_NAME_RUN.findall(core))


@functools.lru_cache(maxsize=_JUDGED_VALUES)
def _looks_random(value: str) -> bool:
    """``value`` reads as a generated password or key rather than a word or a name (never
    an algorithm's name): a hex key or UUID; 8+ characters with a digit, an upper- and a
    lower-case letter, no five-letter word and (under 16 characters) no four-letter word as
    a part of their own; or 16+ characters in both cases whose case and digits change as
    often as a random key's (:func:`_short_runs`: a random 40-character key holds a run of
    five lower-case letters one time in four)."""
    if _HEX_KEY.fullmatch(value):
        return True
    if _ALGORITHM_NAME.fullmatch(value) and len(_ALGORITHM_WORD.findall(value)) >= 2:
        return False
    if len(value) < 8:
        return False
    if _is_random(value) and _WORD_RUN.search(value) is None:
        return len(value) >= 16 or _NAME_PART.search(value) is None
    # (a key of letters alone too: one in sixteen random 16-character keys has no digit)
    return not value.islower() and not value.isupper() and _short_runs(value)


#: A version ("v1.2.3", "2.0.1-rc1"): its digits and letters are no password.
_VERSION = lazy(r"v?\d+(?:\.\d+)+[\w.+\-]*", re.IGNORECASE)


#: A number of 8 digits or more: said to be a password, it is one ("the password is
#: 12345678"), as a PIN or a numeric code is.
_LONG_NUMBER = lazy(r"[0-9]{8,}")


#: Words and a number joined by hyphens, as a person makes a password memorable
#: ("purple-42-monkey", "blue-7-sky-river"): three parts or more, words of 3+ letters.
_HYPHENED_PHRASE = lazy(r"[a-z]{3,24}(?:-(?:[a-z]{3,24}|[0-9]{1,8})){2,6}")


#: Words that say how long a password is or how it is written, in a phrase of hyphened
#: words and a number ("min-8-chars", "rot-13-style"): a rule about it, not a password.
_MEASURE_WORDS = frozenset({
    "min", "max", "chars", "char", "characters", "letters", "digits", "symbols", "times",
    "bits", "bit", "bytes", "rounds", "style", "only", "long",
})  # fmt: skip


def _hyphened_phrase(value: str, head: str, tail: str) -> bool:
    """``value`` (``head``-``tail``) is a phrase a person chose (:data:`_HYPHENED_PHRASE`)
    with a number in it: not a word saying what was done to a name ("utf-8-encoded",
    "sha-256-hashing"), an algorithm's name with a word after it ("aes-256-cipher"), nor
    words naming what a password is for or its rules ("reset-2-times", "min-8-chars")."""
    return (
        _HYPHENED_PHRASE.fullmatch(value) is not None
        and any(c.isdigit() for c in value)
        and not tail.endswith(("ed", "ing"))
        and _ALGORITHM_NAME_ANY_CASE.fullmatch(head) is None
        and not any(w in _NAMING_WORDS or w in _MEASURE_WORDS for w in value.split("-"))
    )


def _chosen_password(value: str) -> bool:
    """``value``, said to be a password, reads as one a person chose or a generated one: 8+
    characters with letters and digits ("hunter2_Zx91kq", "purple42monkey") or 8+ digits
    ("12345678"), not a placeholder, a path, a file's name, a URL, a version, an algorithm's
    name, nor a word saying what was done to it ("sha256-hashed", "base64-encoded"; words
    and a number joined by hyphens are a phrase a person chose: "purple-42-monkey")."""
    if _looks_random(value) or _LONG_NUMBER.fullmatch(value):
        return True
    if len(value) < 8 or not any(c.isdigit() for c in value):
        return False
    if not any(c.isalpha() for c in value):
        return False  # a date, a number written with separators: "2024-05-01", "1,234,567"
    head, _, tail = value.rpartition("-")
    return not (
        (head and _LOWER_WORD.fullmatch(tail) and not _hyphened_phrase(value, head, tail))
        or _is_placeholder(value)
        or "://" in value
        or _PATH.fullmatch(value)
        or _FILE_NAME.fullmatch(value)
        or _VERSION.fullmatch(value)
        or _ALGORITHM_NAME_ANY_CASE.fullmatch(value)
    )


#: What a chosen password after the bare word ("login admin, password Hunter2_Zx9") must look
#: like: a capital or a symbol among its letters and digits. A lower-case name with digits
#: ("the password reset2fa flow", "password bcrypt12 hashing", "password hash_v2 column") is
#: what the password is for, as is code (a call, a path, a dotted name); and so is a number
#: ("password 12345678 is on the banned list": the password talked about, not handed over).
#: (Letters and digits in lower case are taken where the clause ends after them:
#: :func:`_short_chosen_password`.)
_BARE_PASSWORD = lazy(r"(?=[^A-Z!@#$%^&*+~]*[A-Z!@#$%^&*+~])[A-Za-z0-9_!@#$%^&*+~\-]+")
#: In capitals, an environment variable's name ("password DB_PASSWORD_V2 is read") and a
#: ticket's or an error's code before its number ("password SEC-1234 fix", "ORA-28001").
_UPPER_NAME = lazy(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_CODE_PREFIX = lazy(r"[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*")


#: What follows a password handed over in a sentence, where a name would be followed by
#: the noun it qualifies ("the password reset2fa flow", "add the password x9 check"): the
#: clause's end (punctuation, the line's or the text's end), an aside in brackets
#: ("Password: hunter2 (rotated)"), or a word said of the password itself ("the new
#: password purple42monkey works", "password hunter2 for the admin").
_CLAUSE_END = lazy(
    r"[.,;:!?)]*[ \t]*(?:\r?\n|$)|[.,;:!?)]+\s|[ \t]+[(\[]"
    r"|[ \t]+(?:works|worked|expires|expired|until|for|on)\b"
)
#: After a colon or "is" the value is what the password is, not a name qualifying it, so
#: a verb, a conjunction or a preposition after it also ends the clause ("Password: hunter2
#: is what I use", "the password was hunter2 in 2019", "pw is hunter2 now", "das Passwort
#: ist hunter2 und der User admin"), in the languages _ASSIGNMENT reads. After the bare
#: word it does not: there the word and a name are a subject ("password option3 is
#: deprecated", "the password python3 in docker").
_SAID_CLAUSE_END = lazy(
    r"[ \t]+(?:in|and|at|but|or|so|then|now|since|from|because"
    r"|und|im|et|dans|y|en|e|em|no|na|nel"
    rf"|{_IS}|{_FOR})\b"
)


def _ends_clause(text: str, at: int, said: bool) -> bool:
    """The clause ends at ``at``, after a password's value (:data:`_CLAUSE_END`); ``said``:
    after a colon or a verb ("Password: …", "the password is …"), also where a verb or a
    preposition follows (:data:`_SAID_CLAUSE_END`)."""
    return _CLAUSE_END.match(text, at) is not None or (
        said and _SAID_CLAUSE_END.match(text, at) is not None
    )


#: A password a person chose, in lower case: letters and digits, 6 or more ("hunter2",
#: "purple42monkey").
_LOWER_CHOSEN = lazy(r"(?=[a-z]*[0-9])(?=[0-9]*[a-z])[a-z0-9]{6,64}")
_LETTER_RUN = lazy(r"[a-z]+")
#: Words that name what a password is for, or an encoding, in a lower-case name with digits
#: ("reset2fa", "field1", "hash2", "utf8mb4"): such a value is a name even where a clause
#: ends after it. A person's chosen password is other words ("hunter2", "test123").
_NAMING_WORDS = frozenset({
    "reset", "hash", "hashed", "field", "input", "form", "check", "policy", "rule", "flow",
    "column", "col", "step", "phase", "version", "ver", "rev", "page", "view", "screen",
    "handler", "manager", "hint", "length", "len", "expiry", "salt", "storage", "migration",
    "ticket", "issue", "bug", "fix", "hook", "module", "util", "utils", "helper", "validator",
    "encoder", "schema", "model", "table", "spec", "fa", "mfa", "otp", "totp", "auth",
    "utf", "mb", "base", "latin", "crc", "md", "sha",
})  # fmt: skip


def _short_chosen_password(value: str, ends_clause: bool) -> bool:
    """``value``, said to be the password, reads as one a person chose in lower case
    ("password hunter2", "the new password purple42monkey works"): letters and digits, 6 or
    more, none of its words naming what a password is for, and the clause ends after it."""
    return (
        ends_clause
        and _LOWER_CHOSEN.fullmatch(value) is not None
        and not any(w in _NAMING_WORDS for w in _LETTER_RUN.findall(value))
    )


#: A generated key's least length after the bare word "token" or "secret" ("Token 9f8a7b6c…",
#: "our secret Hy6tq9…"): 16 characters, as :func:`_looks_random` asks of a key of letters
#: alone (a shorter word with digits is a name as often: "token v2fix").
_GENERATED_KEY_MIN_CHARS = 16


@functools.lru_cache(maxsize=_JUDGED_VALUES)
def _password_after_its_word(value: str, ends_clause: bool = False) -> bool:
    """``value``, after the bare word "password" (no "is", no colon), reads as the password:
    a generated one, or one a person chose (:func:`_chosen_password`) in a form
    (:data:`_BARE_PASSWORD`) that prose does not give what the password is for, or in lower
    case where the clause ends after it (:func:`_short_chosen_password`)."""
    if _ALGORITHM_NAME_ANY_CASE.fullmatch(value):
        return False  # "password Argon2id hashing": random-looking, one algorithm's name
    if _looks_random(value) or _short_chosen_password(value, ends_clause):
        return True
    prefix, _, number = value.rpartition("-")
    return (
        _chosen_password(value)
        and _BARE_PASSWORD.fullmatch(value) is not None
        and _UPPER_NAME.fullmatch(value) is None
        and not (number.isdigit() and _CODE_PREFIX.fullmatch(prefix))
    )


#: An environment variable's name, in words (a version's ``V2`` or a ``S3``-like number
#: after a word allowed): ``DB_PASSWORD_V2``, ``AWS_SECRET_ACCESS_KEY``. Said to be the
#: password and naming a secret's word, it says where the password is, not what it is.
_VARIABLE_NAME = lazy(r"(?:[A-Z]{2,}[0-9]*|V[0-9]+)(?:_(?:[A-Z]{2,}[0-9]*|V[0-9]+))+")
_HOLDS_SECRET_WORD = lazy(_SECRET_KEYWORD, re.IGNORECASE)


@functools.lru_cache(maxsize=_JUDGED_VALUES)
def _said_secret(key: str, value: str, ends_clause: bool = False) -> bool:
    """``value``, said in a sentence to be the ``key``, reads as its secret: a password one a
    person chose or a generated one, any other key a generated one; never an algorithm's name
    ("the password is Argon2id") nor the variable that holds it ("… is DB_PASSWORD_V2").
    A password in lower case shorter than 8 ("the password is hunter2.") is taken where the
    clause ends after it (:func:`_short_chosen_password`)."""
    if _ALGORITHM_NAME_ANY_CASE.fullmatch(value) and not value.isdigit():
        return False  # (a number is no algorithm's name, though the pattern takes digits)
    if _VARIABLE_NAME.fullmatch(value) and _HOLDS_SECRET_WORD.search(value):
        return False
    if _PASSWORD_KEY.search(key) or key.lower() == "pw":
        return _chosen_password(value) or _short_chosen_password(value, ends_clause)
    return _looks_random(value)


_DIGIT_AND_LETTER = lazy(r"(?=[^0-9]*[0-9])[^A-Za-z]*[A-Za-z]")


def _alnum_at(text: str, pos: int) -> bool:
    return 0 <= pos < len(text) and text[pos].isascii() and text[pos].isalnum()


def _glued_token(text: str, kind: str, start: int, end: int) -> bool:
    """``text[start:end]``, found by a pattern of :data:`_GLUED` ``kind``, is a token glued
    to more letters and digits, which no other rule takes whole: an AWS key id's 20
    characters (a digit among its last 16, so that an upper-case word such as
    ``ASIAPACIFIC…`` is none) or a Google key's 39 (gitleaks' entropy) with a letter or digit
    before or after them; a ``sk-proj-`` key random as a generated one is."""
    if kind == _GLUED + "aws_access_key":
        token = text[start : start + 20]  # (not the run: one is looked at again and again)
        return (
            (_alnum_at(text, start - 1) or _alnum_at(text, start + 20))
            and any(c.isdigit() for c in token[4:])
            and _entropy(token) > 3
        )
    if kind == _GLUED + "google_api_key":
        # (a run after a 35th character '_' too: gitleaks' end, not '_', kept it whole)
        glued_after = end - start > 39
        return (_alnum_at(text, start - 1) or glued_after) and _entropy(
            text[start : start + 39]
        ) > 4
    token = text[start:end]
    if kind == _GLUED + "openai_key":
        return _is_random(token) and _looks_random(token.split("-", 2)[2])
    return True  # sk-ant-api03-…: no word or name has this form


#: Where a glued token's pattern may start again inside a match :func:`_glued_token`
#: rejected: the match runs to the end of its run of letters and digits, so a key id after
#: a word glued to ASIA… ("ASIAPACIFICREGIONSERVERSAKIA…") was never looked at.
_GLUED_AGAIN = {
    _GLUED + "aws_access_key": lazy(r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}"),
    _GLUED + "google_api_key": lazy(r"AIza[A-Za-z0-9_\-]{35}"),
}


def _glued_in(text: str, kind: str, start: int, end: int) -> _Hit | None:
    """The hit of the glued token a pattern of :data:`_GLUED` ``kind`` matched at
    ``text[start:end]``, or of the first one that starts again inside that match
    (:data:`_GLUED_AGAIN`), or None. Each start is looked at once, each over a bounded
    stretch, so a run of rejected ones stays linear."""
    again = _GLUED_AGAIN.get(kind)
    while True:
        if _glued_token(text, kind, start, end):
            return _Hit(start, end, kind[len(_GLUED) :], 0)
        m = again.search(text, start + 1, end) if again is not None else None
        if m is None:
            return None
        # (the same run's end: past an id's 20 or a key's 39 the match held letters and
        # digits alone)
        start = m.start()


def _id_beside_its_secret(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]``, the run of letters and digits an AWS key id starts, is
    one: the id alone, or one glued to more that :func:`_glued_in` takes (a digit among
    its 16, gitleaks' entropy), there or later in the run."""
    return end - start == 20 or _glued_in(text, _GLUED + "aws_access_key", start, end) is not None


def _find_context_tokens(text: str) -> Iterator[_Hit]:
    if not _re2_context_set:
        with _rules_lock:
            if not _re2_context_set:
                # each pattern compiled when the set first finds it (below): a text that
                # holds none of them, as most do, compiles none (~5 ms a process)
                _re2_context_compiled.extend([None] * len(_RE2_CONTEXT))
                any_of = _re2().Set.SearchSet()
                for _, p in _RE2_CONTEXT:
                    any_of.Add(p)
                any_of.Compile()
                _re2_context_set.append(any_of)
    run_ends = _RunEnds(text)
    for index in sorted(_re2_context_set[0].Match(text) or ()):
        compiled = _re2_context_compiled[index]
        if compiled is None:
            kind, source = _RE2_CONTEXT[index]
            compiled = _re2_context_compiled[index] = (kind, _re2().compile(source))
        kind, pattern = compiled
        for m in pattern.finditer(text):
            token = m.group(1)  # google-re2 matches take group numbers only
            if kind.startswith(_GLUED):
                hit = _glued_in(text, kind, m.start(1), m.end(1))
                if hit is not None:
                    yield hit
                continue
            if kind == "openai_key" and (token.startswith("sk-ant-") or not _is_random(token)):
                continue
            if kind == "aws_secret" and len(token) != 40 and not _DIGIT_AND_LETTER.match(token):
                continue  # "the aws secret key is rotatedEveryQuarter…": a word, not a key
            if kind == _AWS_SECRET_BESIDE_ITS_KEY:
                token = m.group(2)  # (the first group is the id)
                if token.islower() or token.isupper() or not _is_random(token):
                    continue  # a commit's hash, a word: AWS's secrets are random base64
                if not _id_beside_its_secret(text, m.start(1), m.end(1)):
                    continue  # a word glued to ASIA…, no key id
                yield _Hit(m.start(2), m.end(2), "aws_secret", 0)
                continue
            if kind == "google_oauth_token" and (len(token) < 30 or not _is_random(token)):
                continue  # "ya29.c" in prose, not a token
            if kind in _RANDOM_BODY_KINDS and not (_is_random(token) or token.startswith("sbp_")):
                continue  # figd_some_long_variable_name_…: a name in code, no generated key
            if (
                kind == "url_signature"
                and "-" not in m.group(0)[: m.start(1) - m.start(0)]
                and not _looks_random(token)
            ):
                continue  # a bare Signature= naming a variable or a function's result
            yield _Hit(m.start(1), _whole_token(text, run_ends, m.start(1), m.end(1)), kind, 0)


# An XML element named for a secret (Maven's settings.xml, .NET and Java configuration):
# <password>…</password>, <apiKey>…</apiKey>; a service's or a keystore's pass key as
# _SECRET_KEYWORD reads one, glued or not (Maven's jarsigner plugin's <storepass>,
# <keypass>; <db_pass>, <sshpass>: red17).
_XML_SECRET = lazy(
    r"<(?P<tag>(?:[A-Za-z][\w.\-]*[_.\-])?(?:password|passwd|passphrase|secret|token"
    r"|api[_\-]?key|private[_\-]?key|client[_\-]?secret"
    r"|[A-Za-z]{0,32}?(?:db|database|smtp|mail|mysql|postgres|redis|ftp|ldap|admin|root|user"
    r"|proxy|ssh|store|key)[_\-]?pass))>(?P<val>[^<>\s]{1,1024})</(?P=tag)>",
    re.IGNORECASE,
)


#: A password in braces, as an ODBC, SQL Server or ADO.NET connection string quotes one that
#: holds ';' or other specials (``Pwd={S3cr3t!Pa;ss#1}``, a '}' inside doubled): the rest of
#: the connection string is read past it.
_BRACED_PASSWORD = lazy(
    r"(?:^|[;\s\"'])(?:pwd|password)[ \t]*=[ \t]*\{(?P<val>(?:[^{}\r\n]|\}\}){1,1024})\}",
    re.IGNORECASE,
)
#: A format string's field: an index or a name, with a format spec ({0}, {pw}, {cfg.pwd:s}).
_FORMAT_FIELD = lazy(r"(?:[0-9]+|[A-Za-z_][\w.\[\]]*)(?:![rsa])?(?::[^{}]*)?")
#: A password under the bare key "pass" of a JSON object or a dict ({"pass": "…"}); unquoted,
#: a "pass" is as often a count or a compiler's pass, so only a quoted key and value.
_QUOTED_PASS_KEY = lazy(
    r"(?P<kq>[\"'])pass(?P=kq)[ \t]*:[ \t]*(?P<vq>[\"'])(?P<val>[^\"'\r\n]{1,1024})(?P=vq)",
    re.IGNORECASE,
)


def _find_braced_and_pass_keys(text: str) -> Iterator[_Hit]:
    if "{" in text and "=" in text:
        for m in _BRACED_PASSWORD.finditer(text):
            value = m.group("val")
            if not value.strip() or value.startswith("$") or _is_placeholder(value):
                continue
            if _FORMAT_FIELD.fullmatch(value) and not _looks_random(value):
                continue  # code's format field: Password={0}, C#'s $"…;Password={password};"
            yield _Hit(m.start("val"), m.end("val"), "password_assignment", 1)
    if "pass" in text.lower():
        for m in _QUOTED_PASS_KEY.finditer(text):
            value = m.group("val")
            # (a chosen or a generated password: "first" or "lint" are a compiler's passes)
            if _chosen_password(value) and not _is_placeholder(value):
                yield _Hit(m.start("val"), m.end("val"), "password_assignment", 1)


def _find_xml_elements(text: str) -> Iterator[_Hit]:
    if "</" not in text:
        return
    for m in _XML_SECRET.finditer(text):
        if not _is_placeholder(m.group("val")):
            yield _Hit(m.start("val"), m.end("val"), "password_assignment", 1)


# A Kubernetes Secret's data: and stringData: values are all secret, whatever their keys are
# named (dbpw, conn, tls.key): the manifest's kind says so, not the key. A manifest ends at
# YAML's '---' or a markdown code fence; only a Secret's own data is taken (a ConfigMap's
# data: is configuration).
_MANIFEST_END = lazy(r"(?:---|\.\.\.|```|~~~)")
_SECRET_KIND = lazy(r"[ \t]*(?:-[ \t]+)?kind:[ \t]*([\"']?)Secret\1[ \t]*(?:#.*)?")
_DATA_HEADER = lazy(r"[ \t]*(?:data|stringData):[ \t]*(?:#.*)?")
# An entry's key; its value (the rest of the line) is read without a regex, in one pass.
_DATA_KEY = lazy(r"[ \t]+[\"']?[\-._A-Za-z0-9]{1,253}[\"']?:[ \t]+(?=[^\s#])")
_BLOCK_SCALAR = lazy(r"[|>][\-+0-9]*")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _find_kubernetes_secret_data(text: str) -> Iterator[_Hit]:
    if "Secret" not in text or "ata:" not in text:
        return
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    first = 0
    for i in range(len(lines) + 1):
        if i == len(lines) or _MANIFEST_END.match(lines[i]):
            if any(_SECRET_KIND.fullmatch(lines[j].rstrip("\r")) for j in range(first, i)):
                yield from _secret_data_values(lines, starts, first, i)
            first = i + 1


def _secret_data_values(
    lines: list[str], starts: list[int], first: int, end: int
) -> Iterator[_Hit]:
    i = first
    while i < end:
        if not _DATA_HEADER.fullmatch(lines[i].rstrip("\r")):
            i += 1
            continue
        header_indent = _indent(lines[i])
        i += 1
        while i < end and (not lines[i].strip() or _indent(lines[i]) > header_indent):
            line = lines[i].rstrip("\r")
            key = _DATA_KEY.match(line)
            i += 1
            if key is None:
                continue
            at = key.end()
            quoted = line[at] in "\"'"
            if quoted:
                close = line.find(line[at], at + 1)
                if close < 0:
                    continue
                at += 1
                value = line[at:close]
            else:
                comment = line.find(" #", at)
                value = line[at : len(line) if comment < 0 else comment].rstrip(" \t")
            if not quoted and _BLOCK_SCALAR.fullmatch(value):
                # a block scalar (tls.key: |): its lines, more indented than its key
                entry_indent = _indent(line)
                block_start = block_end = -1
                while i < end and (not lines[i].strip() or _indent(lines[i]) > entry_indent):
                    if lines[i].strip():
                        if block_start < 0:
                            block_start = starts[i] + _indent(lines[i])
                        block_end = starts[i] + len(lines[i].rstrip("\r"))
                    i += 1
                if block_start >= 0:
                    yield _Hit(block_start, block_end, "password_assignment", 1)
                continue
            if value.strip() and not _is_placeholder(value.strip()):
                start = starts[i - 1] + at
                yield _Hit(start, start + len(value), "password_assignment", 1)


# The same Secret written in JSON (``kubectl get secret -o json``, a manifest in JSON): read
# as JSON's tokens, in one pass, so that its fields may come in any order ("data" before
# "kind", as kubectl sorts them) and any layout (one line, an item of a List).
# A string that does not close on its line is one token too (never scanned again from each
# quote inside it, which took time quadratic in a line of escaped quotes).
_JSON_TOKEN = lazy(r'"(?:[^"\\\n]|\\.)*+(?P<close>")?|[{}\[\]:,]')
_DATA_KEYS = ('"data"', '"stringData"')


@dataclass
class _JsonFrame:
    is_object: bool
    data: bool = False  # the object under a "data"/"stringData" key
    secret: bool = False  # "kind": "Secret"
    key: str | None = None  # the key whose value comes next
    hits: list[_Hit] = field(default_factory=list)


def _find_kubernetes_secret_json(text: str) -> Iterator[_Hit]:
    if '"Secret"' not in text or not any(key in text for key in _DATA_KEYS):
        return
    stack: list[_JsonFrame] = []
    previous = ""
    for m in _JSON_TOKEN.finditer(text):
        token = m.group(0)
        top = stack[-1] if stack else None
        if token in "{[":
            frame = _JsonFrame(is_object=token == "{")
            if token == "{" and top is not None and previous == ":" and top.key in _DATA_KEYS:
                frame.data = True
            stack.append(frame)
        elif token in "}]":
            if top is None:
                continue
            stack.pop()
            parent = stack[-1] if stack else None
            hits = top.hits
            if top.data and parent is not None:
                parent.hits.extend(hits)  # its object's, decided when that closes
            elif top.secret:
                yield from hits
            if parent is not None:
                parent.key = None
        elif token == ":":
            pass
        elif token == ",":
            if top is not None:
                top.key = None
        elif m.group("close") is None:
            pass  # a string cut off at the end of its line: no key, no value
        elif top is not None and top.is_object:  # a string: a key, or the value after one
            if previous == ":" and top.key is not None:
                value = token[1:-1]
                if top.key == '"kind"' and value == "Secret":
                    top.secret = True
                elif top.data and value.strip() and not _is_placeholder(value.strip()):
                    top.hits.append(_Hit(m.start() + 1, m.end() - 1, "password_assignment", 1))
                top.key = None
            else:
                top.key = token
        previous = token
    for i in range(len(stack) - 1, -1, -1):  # cut off before it closed: a Secret pasted part
        frame = stack[i]
        if frame.data and i > 0:
            stack[i - 1].hits.extend(frame.hits)
        elif frame.secret:
            yield from frame.hits


# A ~/.pgpass line: host:port:database:user:password (a ':' or '\\' in a field escaped with
# '\\'). The host names a machine (a letter, or '*'), the port is a number or '*'.
_PGPASS = lazy(
    r"^[ \t]*(?=[^:\n]{0,253}[A-Za-z*])[A-Za-z0-9_.\-\[\]*]{1,253}:(?:\d{1,5}|\*)"
    r"(?::(?:[^\s:\\]|\\.){1,256}){2}:(?P<val>(?:[^\s:\\]|\\.){1,1024})[ \t]*\r?$",
    re.MULTILINE,
)


def _find_pgpass(text: str) -> Iterator[_Hit]:
    if text.count(":") < 4:
        return
    for m in _PGPASS.finditer(text):
        if not _is_placeholder(m.group("val")):
            yield _Hit(m.start("val"), m.end("val"), "password_assignment", 1)


# The base64 "user:password" of a Docker config ("auth": "…", ~/.docker/config.json, a
# dockerconfigjson) or an .npmrc (_auth=…). Taken only when it decodes to user:password.
_AUTH_BLOB = lazy(
    r"""(?<![\w\-])(?:["']auth["']|_auth)[ \t]*[:=][ \t]*["']?"""
    r"(?P<val>[A-Za-z0-9+/]{8,1024}={0,2})(?![A-Za-z0-9+/=])"
)


def _find_auth_blobs(text: str) -> Iterator[_Hit]:
    if "auth" not in text:
        return
    for m in _AUTH_BLOB.finditer(text):
        value = m.group("val")
        try:
            decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
            user, colon, password = decoded.decode("utf-8").partition(":")
        except (ValueError, UnicodeDecodeError):
            continue
        if colon and user and password and (user + password).isprintable():
            yield _Hit(m.start("val"), m.end("val"), "basic_auth", 0)


_FINDERS = (
    _find_private_keys,
    _find_putty_keys,
    _find_auth_blobs,
    _find_xml_elements,
    _find_braced_and_pass_keys,
    _find_kubernetes_secret_data,
    _find_kubernetes_secret_json,
    _find_secret_literals,
    _find_gitleaks,
    _find_context_tokens,
    _find_url_passwords,
    _find_headers,
    _find_curl_users,
    _find_query_auth,
    _find_assignments,
    _find_pgpass,
    _find_piped_passwords,
)


# --------------------------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------------------------


def _merge(hits: list[_Hit]) -> list[_Hit]:
    hits.sort(key=lambda h: (h.start, -h.end))
    merged: list[_Hit] = []
    for hit in hits:
        if merged and hit.start < merged[-1].end:
            last = merged[-1]
            best = hit if hit.rank < last.rank else last
            merged[-1] = _Hit(last.start, max(last.end, hit.end), best.kind, best.rank)
        else:
            merged.append(hit)
    return merged


_MARKER = lazy(r"\[REDACTED:([a-z0-9_]{1,64})\]")


def redaction_markers(text: str) -> dict[str, int]:
    """The ``[REDACTED:<kind>]`` markers in ``text``, by kind: what a text redacted earlier
    (before its lines were joined into an entry) holds, for the count a write reports."""
    return dict(Counter(_MARKER.findall(text)))


def without_secrets(text: str) -> str:
    """``text`` with every secret taken out, marker and all: the words of a query a server
    store is sent (a prompt's key in a count request, a server's logs). No marker is left
    either, one the text held included: its words would match every note of that kind."""
    return _MARKER.sub(" ", redact_secrets(text)[0])


def marker_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text``'s ``[REDACTED:<kind>]`` markers are, in order (start, end)."""
    return [m.span() for m in _MARKER.finditer(text)]


#: What may stand before a marker in a note that holds nothing but credentials: punctuation,
#: then at most one name the secret is assigned to (``password=``, ``export GITHUB_TOKEN=``,
#: ``"api_key": "``, ``Authorization: Bearer``), then punctuation. Two words or a word not
#: followed by ``=``/``:`` say something (``the deploy token is``, ``github token:``,
#: ``mysql -p``, ``postgresql://app:``), and the note is kept. The name may be declared as
#: code and configuration declare it (``let``, ``const``, a Dockerfile's ``ENV``,
#: PowerShell's ``$env:``) or be an XML element's (``<password>``, closed after the marker:
#: :data:`_NOTHING_AFTER`), as the assignment rule reads each (qa75 F7).
_KEY_NAME_BEFORE_MARKER = lazy(
    # (a list's number or letter first: "1. ", "a) ", qa-s67c F2)
    r"[\W_]*+(?:(?:\d{1,3}|[A-Za-z])[.)][ \t]+)?(?:(?:export|set|setx|setenv)[ \t]+)?"
    r"(?:(?:(?:let|const|var|readonly|declare|local|typeset|env|arg)[ \t]+(?:-[a-z]{1,2}[ \t]+)?"
    r"|(?<=\$)env:)?"
    # (its quote escaped in JSON kept in a JSON string: {\"password\": \"…\"})
    r"[^\W\d][\w.\-]{0,63}(?:\\*[\"'])?[ \t]*[:=][ \t]*"
    r"|(?<=<)[^\W\d][\w.\-:]{0,63}>[ \t]*)?"
    r"(?:(?:bearer|basic|token)[ \t]+)?[\W_]*+",
    re.IGNORECASE,
)
#: What may follow the last marker: punctuation, and an XML element's closing tag.
_NOTHING_AFTER = lazy(r"[\W_]*+(?:(?<=</)[^\W\d][\w.\-:]{0,63}>[\W_]*+)?")
#: A line before a marker's that says nothing either: punctuation, or an INI file's section
#: (``[default]``, ``[profile prod]`` over an AWS credentials file's keys, qa-s67c F2).
_NOTHING_SAID = lazy(r"[\W_]*|[ \t]*\[[\w .\-]{1,64}\][ \t]*")


def only_credentials(text: str) -> bool:
    """Whether ``text`` (redacted) is nothing but ``[REDACTED:<kind>]`` markers, the names
    their secrets were assigned to and punctuation: ``[REDACTED:github_token]``,
    ``password=[REDACTED:password_assignment]``, ``[REDACTED:aws_access_key]
    [REDACTED:aws_secret]``, a private key, an env file's ``NAME=[REDACTED:…]`` lines. Such
    a note says nothing once its secret is gone. One more word (``the deploy token is
    [REDACTED:github_token] (rotate monthly)``, ``# prod`` after it, a URL's host) and it is
    not: each line's text between markers must be punctuation and at most one name followed
    by ``=`` or ``:``, and its text after the last marker punctuation alone. Text that fails
    so as written is judged again as the rules read it (:func:`_as_the_rules_read`): a name
    whose letters are escaped is that name (qa75 F7)."""
    if "[REDACTED:" not in text:  # (the common case: no marker, no scan)
        return False
    spans = marker_spans(text)
    if not spans:
        return False
    start = 0
    for begin, end in spans:
        between = text[start:begin]
        if not _says_nothing_before_a_marker(between) and not (
            _read_otherwise(between) and _says_nothing_before_a_marker(_as_the_rules_read(between))
        ):
            return False
        start = end
    after = text[start:]
    return bool(_NOTHING_AFTER.fullmatch(after)) or (
        _read_otherwise(after) and bool(_NOTHING_AFTER.fullmatch(_as_the_rules_read(after)))
    )


def _says_nothing_before_a_marker(between: str) -> bool:
    """Whether ``between`` (the text before a marker, after the one before it) says nothing
    (:func:`only_credentials`): a line break in it, and the lines before the marker's held
    no marker, and must be punctuation alone; the marker's own line may start with its
    name."""
    *before, own = between.split("\n")
    return all(_NOTHING_SAID.fullmatch(line) for line in before) and bool(
        _KEY_NAME_BEFORE_MARKER.fullmatch(own)
    )


#: What starts an escape the rules read through (:func:`_as_the_rules_read`).
_ESCAPE_MARK = lazy(r"[\\&%]")


def _read_otherwise(text: str) -> bool:
    """Whether the rules may read ``text`` otherwise than as written: it holds an escape's
    start, a shell's line continuation or a character outside ASCII (a full-width form, an
    invisible one)."""
    return not text.isascii() or _ESCAPE_MARK.search(text) is not None


def _as_the_rules_read(text: str) -> str:
    """``text`` read as redaction's readings read it, for :func:`only_credentials` to judge
    what it says as the rules judged its secrets (qa75 F7): a key the rules read through its
    escapes (``pass\\u0077ord``, ``\\u{70}assword``, ``\\160assword``, ``&#112;assword``,
    ``%70assword``, an escaped ``=`` or quote) is the key written plainly, and
    ``{"pass\\u0077ord": "[REDACTED:…]"}`` says no more than ``{"password": "[REDACTED:…]"}``.
    Decoded in turn with the readings' own decoders: percent-escapes
    (:func:`_percent_decoded`, twice for a text encoded twice), a key's characters in any
    language's string escape (:func:`_with_key_letters_decoded`), then string escapes and
    HTML character references (:func:`_unescaped_text`, :data:`_ESCAPE_ROUNDS` levels deep,
    which reads the percent reading's ``\\u0022`` as its quote), after what every rule reads
    through (:func:`_find`): full-width forms as ASCII (``ｐａｓｓｗｏｒｄ＝``), invisible
    characters and shell line continuations as absent (``pass\\u200bword=``,
    ``password=\\`` and the value on the next line). None of them writes a line break (a
    control character is read as written)."""
    text = _without_looked_through(_in_ascii_forms(text))[0]
    if "%" in text and _PERCENT.search(text) is not None:
        encoded_twice = "%25" in text
        text = _percent_decoded(text)[0]
        if encoded_twice and _PERCENT.search(text) is not None:
            text = _percent_decoded(text)[0]
    if "\\" in text:
        read = _with_key_letters_decoded(text)
        if read is not None:
            text = read[0]
    return _fully_unescaped(text)


def _outside_markers(text: str, hits: list[_Hit]) -> list[_Hit]:
    """Drop hits that overlap an earlier redaction's marker: redacting twice changes nothing."""
    markers = marker_spans(text)
    starts = [start for start, _ in markers]
    kept = []
    for hit in hits:
        i = bisect.bisect_left(starts, hit.end) - 1  # the last marker starting before its end
        if i >= 0 and markers[i][1] > hit.start:
            continue
        kept.append(hit)
    return kept


def redact_secrets(text: str) -> tuple[str, dict[str, int]]:
    """Replace credentials in ``text`` with ``[REDACTED:<kind>]``.

    Returns the redacted text and ``{kind: count}`` for the kinds found (never the values).
    Where a secret sits inside a structure only the secret is replaced:
    ``postgresql://app:[REDACTED:connection_string]@db:5432/x``,
    ``password: "[REDACTED:password_assignment]"``, ``Authorization: Bearer [REDACTED:…]``.

    Deliberately *not* redacted: prose ("password reset flow", "the token: it expires
    daily", "Password: must be 12 characters"), empty values, references and placeholders
    (``${DB_PASSWORD}``, ``$TOKEN``, ``${{ secrets.X }}``, ``{{ vault }}``, ``<your-token>``,
    ``%s``, ``%(pw)s``, ``:password``, ``?``, ``***``, ``xxxx``, ``None``, ``YOUR_KEY_HERE``),
    code expressions (``getpass()``, ``os.environ["X"]``), variables (``password=password``,
    ``self.api_key``, ``password = pw_input``, ``token=cfg.token``, ``{'password': pw}``,
    ``password: settings.db_password``, ``apiKey: process.env.X,``, ``session?.token``),
    file paths and names (``GOOGLE_APPLICATION_CREDENTIALS=/etc/key.json``, ``=key.json``),
    types (``password: Option<String>,``), names of kinds (a lexer's ``token: 'IDENT'``,
    ``cl100k_base``, ``credentials = 'default'``, ``kubernetes.io/tls``, ARNs and KMS aliases,
    ``id-token: write``, ``using password: YES``), masked examples (``sk-...``, ``REPLACE_ME``),
    git SHAs, UUIDs and hashes, punctuation alone (``", "`` between two quoted phrases). A
    real password that looks like a placeholder, a variable or a name (``$ecret``,
    ``my_pass_word`` assigned in code, ``key.json``) or is no more than three kinds of
    punctuation (``---``) is left in place:
    that is the price of not mangling configuration examples and code.
    """
    if not isinstance(text, str):
        raise TypeError(f"redact_secrets expects str, not {type(text).__name__}")
    if len(text) > _KEPT_TEXT_CHARS:
        return _redacted(text)
    redacted, counts = _redacted_kept(text)
    # (a text with nothing to redact comes back itself, as the passes return it)
    return (redacted if counts else text), dict(counts)


#: redact_secrets keeps its answers for the last _KEPT_TEXTS texts of at most
#: _KEPT_TEXT_CHARS characters (a few MB): a write redacts the same text again (remember:
#: its content and its error, each twice, 6 redactions of 4 texts; an MCP server's and a
#: bulk import's notes repeat), and a note's redaction costs 0.2-2 ms.
_KEPT_TEXTS = 1024
_KEPT_TEXT_CHARS = 4000


@functools.lru_cache(maxsize=_KEPT_TEXTS)
def _redacted_kept(text: str) -> tuple[str, tuple[tuple[str, int], ...]]:
    """:func:`_redacted` of ``text``, its counts as pairs (no caller can change them)."""
    redacted, counts = _redacted(text)
    return redacted, tuple(counts.items())


def _redacted(text: str) -> tuple[str, dict[str, int]]:
    counts: dict[str, int] = {}
    # A marker can expose a token glued to the one it replaced ("…tokenAsk_live_…" becomes
    # "[REDACTED:…]sk_live_…"): redact again until nothing is found, so that the result is a
    # fixed point (an import of an export stores the same text, and the same content hash).
    for _ in range(_MAX_PASSES):
        text, found = _redact_once(text)
        if not found:
            break
        _add(counts, found)
    return text, counts


_MAX_PASSES = 4


_LONE_SURROGATE = lazy(r"[\ud800-\udfff]")


def _scannable(text: str) -> str:
    """``text`` with lone surrogates (undecodable bytes from a CLI argument) replaced one for
    one by U+FFFD, so that RE2, which needs UTF-8, can read it and spans still line up."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub("\ufffd", text)
    return text


# Characters that show nothing (zero-width spaces and joiners, soft hyphens, word joiners,
# bidi marks, variation selectors, Unicode tag characters): one inside a token splits it for
# a pattern while a terminal or a model reads it whole ("ghp_abc\u200bdef…").
_INVISIBLE = lazy(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    "\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)


#: The full-width forms of ASCII (U+FF01–FF5E: "ｇｈｐ＿…", "ＰＡＳＳＷＯＲＤ＝…") read as the ASCII
#: they show, one character for one, so that spans still line up.
_FULLWIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)}
_HAS_FULLWIDTH = lazy("[\uff01-\uff5e]")


#: A shell's line continuation, which it reads as nothing: ``--password \`` and the password
#: on the next line are one command, and a token split by one is one token.
_CONTINUATION = lazy(r"\\\r?\n")


def _looked_through(scan: str) -> list[tuple[int, int]]:
    """The spans of ``scan`` the rules read as absent: invisible characters and shell line
    continuations, in order."""
    spans: list[tuple[int, int]] = []
    if not scan.isascii() and _INVISIBLE.search(scan):
        spans.extend(m.span() for m in _INVISIBLE.finditer(scan))
    if "\\\n" in scan or "\\\r\n" in scan:
        spans.extend(m.span() for m in _CONTINUATION.finditer(scan))
        spans.sort()
    return spans


def _in_ascii_forms(scan: str) -> str:
    """``scan`` with its full-width forms of ASCII read as the ASCII they show."""
    if not scan.isascii() and _HAS_FULLWIDTH.search(scan):
        return scan.translate(_FULLWIDTH)
    return scan


def _without_looked_through(scan: str) -> tuple[str, list[int] | None]:
    """``scan`` without the spans the rules read as absent (:func:`_looked_through`), and
    where each of its characters is in ``scan`` (None: nothing was left out)."""
    dropped = _looked_through(scan)
    if not dropped:
        return scan, None
    index: list[int] = []
    parts: list[str] = []
    pos = 0
    for start, end in dropped:
        if start < pos:
            continue  # an invisible character inside a continuation's span: never
        index.extend(range(pos, start))
        parts.append(scan[pos:start])
        pos = end
    index.extend(range(pos, len(scan)))
    parts.append(scan[pos:])
    return "".join(parts), index


def _find(scan: str) -> list[_Hit]:
    """Every finder's hits in ``scan``; invisible characters and shell line continuations
    are looked through (the hits are found in the text without them, then spanned over them
    in ``scan``), and full-width letters, digits and signs are read as ASCII."""
    scan, index = _without_looked_through(_in_ascii_forms(scan))
    written = _find_all(scan)
    if "\\" in scan:
        written.extend(_found_with_escaped_key_letters(scan))
    hits = _find_percent_encoded(scan, written, _find_escaped(scan, written))
    hits.extend(_find_base64_encoded(scan))
    if "\n" in scan:
        hits.extend(_find_wrapped_tokens(scan, hits))
    if "\\" in scan:
        hits = [_before_escaped_quote(scan, hit) for hit in hits]
    if index is None or not hits:
        return hits
    index.append(index[-1] + 1 if index else 0)  # the end of the text
    return [
        _Hit(index[h.start], index[h.end - 1] + 1 if h.end > h.start else index[h.start],
             h.kind, h.rank)
        for h in hits
    ]  # fmt: skip


#: A string escape of a character of a key's name (a letter, a digit, ``_`` or ``-``), after
#: any run of backslashes (JSON kept in JSON): ``\\u0070assword``, ``\\x74oken``, and the
#: forms other languages write (qa75 F1): ``\\u{70}`` (JavaScript, Rust, Swift),
#: ``\\U00000070`` (Python, C), ``\\x{70}`` (Perl), octal ``\\160`` (C, a shell's ``$'…'``).
#: A run is tried from its start only (a search tried each of a long run's backslashes in
#: turn).
_KEY_HEX = r"(?:[46][1-9A-Fa-f]|[57][0-9Aa]|3[0-9]|5[Ff]|2[Dd])"
_KEY_LETTER_ESCAPE = lazy(
    r"(?<!\\)\\+(?:"
    rf"(?:u00|x|U000000){_KEY_HEX}"
    rf"|[ux]\{{0{{0,4}}{_KEY_HEX}\}}"
    # octal: A-Z 101-132, a-z 141-172, 0-9 060-071, _ 137, - 055 (three digits, as C and
    # a shell's $'…' read at most three)
    r"|(?:10[1-7]|11[0-7]|12[0-7]|13[0-2]|14[1-7]|15[0-7]|16[0-7]|17[0-2]|06[0-7]|07[01]"
    r"|137|055)(?![0-7])"
    r")"
)
#: Where such an escape may be: a text without one of these holds none.
_KEY_ESCAPE_MARK = lazy(r"\\[uxU0-7]")


def _key_letter(escape: str) -> str:
    """The character a :data:`_KEY_LETTER_ESCAPE` match stands for."""
    body = escape.lstrip("\\")
    if body[0] in "uxU":
        return chr(int(body[1:].strip("{}"), 16))
    return chr(int(body, 8))


def _with_key_letters_decoded(
    scan: str,
) -> tuple[str, list[tuple[int, int]], list[int]] | None:
    """``scan`` with each escape of a key's character (:data:`_KEY_LETTER_ESCAPE`) decoded,
    each escape's span in ``scan``, and where its character is in that reading; None when
    ``scan`` holds no such escape."""
    if _KEY_ESCAPE_MARK.search(scan) is None or _KEY_LETTER_ESCAPE.search(scan) is None:
        return None  # (the pattern tries every character: the common case is found sooner)
    parts: list[str] = []
    escapes: list[tuple[int, int]] = []  # each decoded escape's span in scan
    decoded: list[int] = []  # and where its character is in the reading
    shift = 0  # how much shorter the reading is so far
    pos = 0
    for m in _KEY_LETTER_ESCAPE.finditer(scan):
        parts.append(scan[pos : m.start()])
        parts.append(_key_letter(m.group(0)))
        escapes.append(m.span())
        decoded.append(m.start() - shift)
        shift += m.end() - m.start() - 1
        pos = m.end()
    parts.append(scan[pos:])
    return "".join(parts), escapes, decoded


#: How far before a value the escaped letter of its key may be (the key's name, its quote
#: and its separator: :data:`_REFERENCE_AFTER_STEM`).
_KEY_LETTER_BEFORE_VALUE = 96


def _found_with_escaped_key_letters(scan: str) -> list[_Hit]:
    """The assignment rule's hits in ``scan`` read with the escapes of a key's characters
    decoded (``\\u0070assword=\\u003cHy6t…\\u003e`` as ``password=\\u003cHy6t…\\u003e``),
    spanned in ``scan``, where such an escape is in the key: as written the key is no
    secret's word and holds no value, while the decoded reading reads the value's escapes
    too (``password=<Hy6t…>`` is a placeholder's form), so a value in escaped brackets was
    kept. The value is read as written, escapes and all, for the decoded reading to judge
    (:func:`_judged`), as after a key written plainly; a serialiser or a log shipper writes
    every letter so (red6)."""
    read = _with_key_letters_decoded(scan)
    if read is None:
        return []
    reading, escapes, decoded = read
    lower = reading.lower()
    stem = _SECRET_STEM_LOWER.search(lower) if reading.isascii() else _SECRET_STEM.search(reading)
    if stem is None:
        return []

    def where(i: int, edge: int) -> int:
        """Where the reading's character ``i`` starts (``edge`` 0) or ends (1) in scan."""
        k = bisect.bisect_right(decoded, i) - 1  # the last escape decoded at or before it
        if k < 0:
            return i + edge
        if i == decoded[k]:
            return escapes[k][edge]
        return escapes[k][1] + i - decoded[k] - 1 + edge

    hits = []
    for h in _find_assignment_rule(reading, lower, near=decoded):
        if h.end <= h.start:
            continue
        k = bisect.bisect_left(decoded, h.start) - 1  # the last escape decoded before it
        if k < 0 or h.start - decoded[k] > _KEY_LETTER_BEFORE_VALUE:
            continue  # no escaped key: the text as written holds it
        hits.append(_Hit(where(h.start, 0), where(h.end - 1, 1), h.kind, h.rank))
    return hits


def _find_all(text: str) -> list[_Hit]:
    hits = [hit for finder in _FINDERS for hit in finder(text)]
    if "/" not in text and "br" not in text.lower():
        return hits
    return [_before_closing_tag(text, hit) for hit in hits]


#: An HTML element's closing tag (``</p>``, ``</td>``), or a line break (``<br>``, ``<br/>``),
#: its brackets as written or escaped (``\\u003c/p\\u003e``, and so ``&lt;/p&gt;`` as
#: :func:`_found_in_character_references` reads it).
_CLOSING_TAG = lazy(
    r"(?:<|\\u003[cC]|\\x3[cC])(?:/[A-Za-z][A-Za-z0-9:.\-]{0,64}[ \t]*|[bB][rR][ \t]*/?)"
    r"(?:>|\\u003[eE]|\\x3[eE])"
)


def _before_closing_tag(text: str, hit: _Hit) -> _Hit:
    """``hit`` up to the first HTML closing tag or line break in it: a value a context rule
    read unquoted runs up to a space or a quote, which a page's markup need not hold
    (``<p>password: Hy6t…</p>``, ``<td>PASS=…</td>``, ``&lt;Hy6t…&gt;</p>``), and the
    marker took the markup after it. A password holds no tag; a hit that spans lines (a
    key block, a wrapped value) and a token format's are left as they are."""
    if hit.rank == 0:
        return hit
    m = _CLOSING_TAG.search(text, hit.start + 1, hit.end)
    if m is None or "\n" in text[hit.start : m.start()]:
        return hit
    return _Hit(hit.start, m.start(), hit.kind, hit.rank)


def _before_escaped_quote(scan: str, hit: _Hit) -> _Hit:
    """``hit`` without the backslashes that escape the quote after it: an unquoted value
    read up to a quote in JSON kept in a JSON string (``{\\"log\\":\\"password=…\\"}``,
    ``\\\\\\"`` a level deeper) ends at the quote's escape, which the marker would
    otherwise take, leaving the quote an escape short. An odd run of backslashes escapes
    the quote; an even one is the value's own backslashes, escaped."""
    end = hit.end
    if scan[end - 1 : end] != "\\" or scan[end : end + 1] not in ('"', "'"):
        return hit
    start = end - 1
    while start > hit.start and scan[start - 1] == "\\":
        start -= 1
    if start == hit.start or (end - start) % 2 == 0:
        return hit
    return _Hit(hit.start, start, hit.kind, hit.rank)


#: A percent-encoded printable ASCII character (``%3A``, ``%40``): a credential in a logged
#: URL's query or a form body (``password%3D…``, ``postgresql%3A%2F%2Fapp%3A…%40db``).
_PERCENT = lazy(r"%(?:2[0-9A-Fa-f]|[3-6][0-9A-Fa-f]|7[0-9A-Ea-e])")
#: The characters the percent-decoded reading writes as the string escapes an encoder
#: writes (Go's JSON: ``\\u003c``), for its own decoded reading to judge (:func:`_judged`),
#: as an escaped quote or angle bracket is judged however it was escaped: a real password in
#: ``%3C…%3E`` is redacted as ``\\u003c…\\u003e`` is, ``%3Cyour%20password%3E`` kept.
_PERCENT_KEPT_ESCAPED = {c: f"\\u{ord(c):04x}" for c in "<>\"'"}


def _find_percent_encoded(scan: str, written: list[_Hit], hits: list[_Hit]) -> list[_Hit]:
    """``hits`` (the rules' hits in ``scan``, escapes judged: :func:`_find_escaped`) judged
    by ``scan`` read with its percent-escapes decoded, and the hits that reading finds
    besides, spanned over the escapes in ``scan`` (each decoded character keeps where it
    came from), as :func:`_find_escaped` judges string escapes (qa-s70b F2): a hit that holds
    a percent-escape is the decoded reading's to judge, so ``password=%3Cyour%20password%3E``
    is a placeholder, as ``<your password>`` is. The reading writes a decoded quote or angle
    bracket as its string escape (``%3C`` as ``\\u003c``), judged as one: a real password
    in ``%3C…%3E`` is redacted (``password%3D%3CHy6t…%3E``, its name encoded too), as
    ``\\u003cHy6t…\\u003e`` is.

    A hit of that reading that spans no percent-escape and lies inside one of ``written``
    (the rules' hits in ``scan`` as written) is the text's own, read the same and judged
    there: a ``%20`` in a URL elsewhere does not make Go's ``"token":"\\u003cnil\\u003e"``
    or ``"token": "&lt;the token value&gt;"`` a secret again (nor one whose name only is
    encoded, ``password%3DHy6t…``, which the text as written does not hold)."""
    if "%" not in scan or _PERCENT.search(scan) is None:
        return hits
    decoded, starts, ends, escapes, kept_escaped = _percent_decoded(scan)
    if "%25" in scan and _PERCENT.search(decoded) is not None:
        # encoded twice (a URL inside a redirect's URL: password%253D…): read again, each
        # character of the second reading placed where its escape was written in scan
        decoded, starts2, ends2, escapes2, kept_again = _percent_decoded(decoded)
        escapes = sorted({*escapes, *((starts[a], ends[b - 1]) for a, b in escapes2)})
        starts, ends = [starts[i] for i in starts2], [ends[i - 1] for i in ends2]
        kept_escaped = kept_escaped or kept_again

    def spans_an_escape(h: _Hit) -> bool:
        return ends[h.end - 1] - starts[h.start] != h.end - h.start

    found = [h for h in _find_all(decoded) if h.end > h.start]

    # the text's own hits that hold no percent-escape: one of the reading's hits inside such
    # a hit is read the same as written, and judged there
    def holds_an_escape(h: _Hit) -> bool:
        i = bisect.bisect_left(escapes, (h.start,))  # the first escape starting in it or after
        return (i < len(escapes) and escapes[i][0] < h.end) or (
            i > 0 and escapes[i - 1][1] > h.start
        )

    plain = sorted((h.start, h.end) for h in written if not holds_an_escape(h))
    plain_starts = [start for start, _ in plain]
    plain_reach = list(accumulate((end for _, end in plain), max))

    def judged_as_written(h: _Hit) -> bool:
        if spans_an_escape(h):
            return False
        i = bisect.bisect_right(plain_starts, starts[h.start]) - 1
        return i >= 0 and plain_reach[i] >= ends[h.end - 1]

    # a hit of the reading that holds a string escape (or a reference) is judged by that
    # reading's own decoded reading, as the text's are, unless the text judges it as written:
    # a percent-escape in its key (``%70assword=\\u003cyour password\\u003e``), its '='
    # or its value (``\\u003cyour%20password\\u003e``) left such a placeholder unjudged
    # (qa75 F7)
    if kept_escaped or any(
        _ESCAPE.search(decoded, h.start, h.end) is not None and not judged_as_written(h)
        for h in found
    ):
        # the URL's own '&'s, where a value is cut below: the HTML re-read looks for more
        # values from each one inside a value it took (it reads one on over '&amp;' for up
        # to 1,024 characters, judged whole and then cut at the '&', and the values it had
        # read over were found one a redaction pass later, after the marker before them)
        separators = [
            amp for amp in _ampersands(decoded)
            if scan[starts[amp]] == "&" and not _references_no_ampersand(decoded, amp)
        ]  # fmt: skip
        found = [h for h in _find_escaped(decoded, found, separators) if h.end > h.start]
    spans = sorted((h.start, h.end) for h in written)
    written_starts = [start for start, _ in spans]
    reach = list(accumulate((end for _, end in spans), max))  # the furthest end so far
    judged: list[_Hit] = []  # the reading's hits, in scan
    new: list[_Hit] = []  # those the text's own hits do not hold
    for h in found:
        end = h.end
        # an ``&`` written as it is ends the encoded value: it is the URL's or the form's
        # own separator (``?q=password%3D…&page=2``, HTML-escaped ``&amp;``), an encoded
        # one is ``%26``; a value with a literal ``&`` of its own is found as written too.
        # A reference to another character is the value's (``%3CHy6t…&gt;``)
        # (not inside the value's percent-encoded angle brackets: '%3CHy6t&amp;B1q9…&gt;'
        # is one value, a placeholder's shape a URL's separator is not inside)
        amp = decoded.find("&", _after_encoded_brackets(scan, decoded, starts, h), end)
        while amp >= 0 and (scan[starts[amp]] != "&" or _references_no_ampersand(decoded, amp)):
            amp = decoded.find("&", amp + 1, end)
        if amp >= 0:
            end = amp
        if end <= h.start:
            continue
        hit = _Hit(h.start, end, h.kind, h.rank)
        start, end = starts[h.start], ends[end - 1]
        judged.append(_Hit(start, end, h.kind, h.rank))
        if not spans_an_escape(hit):
            i = bisect.bisect_right(written_starts, start) - 1  # the last one starting by it
            if i >= 0 and reach[i] >= end:
                continue  # the text's own hit, or inside one: judged as written
        new.append(_Hit(start, end, h.kind, h.rank))
    covered: list[tuple[int, int]] = []  # what the reading's hits span, joined where they meet
    for h in sorted(judged, key=lambda h: h.start):
        if covered and h.start <= covered[-1][1]:
            covered[-1] = (covered[-1][0], max(covered[-1][1], h.end))
        else:
            covered.append((h.start, h.end))
    return [hit for hit in hits if _stands_percent_decoded(scan, hit, escapes, covered)] + new


def _percent_decoded(
    text: str,
) -> tuple[str, list[int], list[int], list[tuple[int, int]], bool]:
    """``text`` with its percent-escapes decoded (a quote or an angle bracket written as its
    string escape, :data:`_PERCENT_KEPT_ESCAPED`); where each character of that reading
    starts and ends in ``text``; the escapes' spans in ``text``; and whether a quote or a
    bracket was written as a string escape."""
    parts: list[str] = []
    starts: list[int] = []  # where each character of the reading starts in text
    ends: list[int] = []  # and where it ends
    escapes: list[tuple[int, int]] = []  # the percent-escapes, in text
    kept_escaped = False
    pos = 0
    for m in _PERCENT.finditer(text):
        parts.append(text[pos : m.start()])
        starts.extend(range(pos, m.start()))
        ends.extend(range(pos + 1, m.start() + 1))
        char = chr(int(m.group(0)[1:], 16))
        written_as = _PERCENT_KEPT_ESCAPED.get(char, char)
        kept_escaped = kept_escaped or written_as != char
        parts.append(written_as)
        starts.extend([m.start()] * len(written_as))
        ends.extend([m.end()] * len(written_as))
        escapes.append(m.span())
        pos = m.end()
    parts.append(text[pos:])
    starts.extend(range(pos, len(text)))
    ends.extend(range(pos + 1, len(text) + 1))
    return "".join(parts), starts, ends, escapes, kept_escaped


def _ampersands(text: str) -> Iterator[int]:
    """Where each ``&`` in ``text`` is, in order."""
    at = text.find("&")
    while at >= 0:
        yield at
        at = text.find("&", at + 1)


#: What closes a value the percent-decoded reading opened with ``\\u003c`` (a ``%3C``): a
#: ``%3E`` (read as ``\\u003e``) or a character reference (``&gt;``).
#: (Of the references, only those to '>' with their ';' close it: a '&' before any other is
#: passed over, so only these are looked at.)
_DECODED_CLOSING = lazy(r"\\u003e|&(?:gt;|GT;|#0*62;|#[xX]0*3[eE];)")


def _after_encoded_brackets(scan: str, decoded: str, starts: list[int], hit: _Hit) -> int:
    """Where in ``decoded`` (``scan`` percent-decoded, each character's start in ``scan`` in
    ``starts``) the value of ``hit`` may end at a URL's ``&``: after its closing angle
    bracket (``%3E``, ``&gt;`` with its ``;``) when ``%3C`` opens it and that bracket closes
    it inside the hit, else after its first character. (Each ``&`` in the hit's span is read
    once.)"""
    after = hit.start + 1
    if not decoded.startswith("\\u003c", hit.start) or scan[starts[hit.start]] != "%":
        return after
    for m in _DECODED_CLOSING.finditer(decoded, hit.start + 6, hit.end):
        if m.group(0)[0] != "&":
            if scan[starts[m.start()]] == "%":
                return m.end()
            continue
        ref = _CHARACTER_REFERENCE.match(decoded, m.start())
        if ref is not None:
            end, char = _unescaped(ref)
            if char == ">" and decoded[end - 1] == ";" and end <= hit.end:
                return end  # (with its ';': "&gt=" is a query's parameter)
    return after


def _references_no_ampersand(text: str, at: int) -> bool:
    """Whether the ``&`` at ``at`` starts a character reference, with its ``;``, to an ASCII
    character other than ``&`` (``&gt;``, not ``&amp;`` nor a query's ``&gt=``)."""
    m = _CHARACTER_REFERENCE.match(text, at)
    if m is None:
        return False
    end, char = _unescaped(m)
    return text[end - 1] == ";" and _stands_for_ascii(char) and char != "&"


def _stands_percent_decoded(
    scan: str, hit: _Hit, escapes: list[tuple[int, int]], covered: list[tuple[int, int]]
) -> bool:
    """Whether ``hit`` stands, ``scan``'s percent-``escapes`` decoded and that reading's hits
    found (what they span: ``covered``, in ``scan``, in order, none overlapping). One that
    holds no escape does, and so does one that reading finds a secret in (the wider of the
    two is redacted: a value the reading ends sooner, at an encoded ``&``, ``,`` or space, is
    one as written, ``?password=Tr0ub4dor%263``); one it finds none in stands when it reads
    as a password decoded (:func:`_may_be_secret`): ``%3Cyour%20password%3E`` does not,
    ``%22%22Hy6t…`` does."""
    i = bisect.bisect_left(escapes, (hit.end,)) - 1  # the last escape starting before its end
    if i < 0 or escapes[i][1] <= hit.start:
        return True
    j = bisect.bisect_left(covered, (hit.end,)) - 1  # the last one starting before its end
    if j >= 0 and covered[j][1] > hit.start:
        return True
    written = _PERCENT.sub(lambda m: chr(int(m.group(0)[1:], 16)), scan[hit.start : hit.end])
    if "%" in written:  # (encoded twice)
        written = _PERCENT.sub(lambda m: chr(int(m.group(0)[1:], 16)), written)
    return _may_be_secret(written)


#: The names HTML reads without their ``;`` (``&lt``, ``&AMP``, ``&copy``), longest first: a
#: reference so written is the longest of them that its letters start with.
_LEGACY_NAMES = sorted((name for name in _HTML5 if not name.endswith(";")), key=len, reverse=True)
#: An HTML character reference as a browser and :func:`html.unescape` read one
#: (:func:`_unescaped`): a number, any name with its ``;``, a legacy name without it.
_REFERENCE = (
    r"&(?:#[0-9]+;?|#[xX][0-9A-Fa-f]+;?|[A-Za-z][A-Za-z0-9]{1,31};"
    rf"|(?:{'|'.join(_LEGACY_NAMES)}))"
)


#: A character a string literal writes as an escape (JSON's and JavaScript's ``\\u0041``,
#: ``\\x41`` of JavaScript, Python and C, JSON's ``\\/`` that PHP's ``json_encode`` writes in
#: every URL) or HTML as a character reference (``&#65;``, ``&#x41;``, ``&quot;``): an
#: encoder's output (a report, a log shipped as JSON) holds ``postgresql:\\/\\/app:…@db`` or
#: ``\\u0041KIA…``, which a reader decodes back to the credential. An escaped backslash is
#: read first, so that ``C:\\\\x86`` is a backslash and ``x86``, not an escape.
_ESCAPE = lazy(r"\\(?:u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|[/\\])|" + _REFERENCE)
_BACKSLASHES = lazy(r"\\+")


def _unescaped(m: re.Match[str]) -> tuple[int, str | None]:
    """Where the escape or character reference ``m`` ends, and the character it stands for,
    or None when it is no printable character (a control such as ``\\u001b``, half of a
    surrogate pair, past Unicode's end) or no reference: those are read as written.

    A reference is read as a browser and :func:`html.unescape` read it: by number, with any
    number of digits (``&#00000060;``), by any of HTML5's names in its own case (``&LT;``,
    ``&QUOT;``), and with no ``;`` by a name HTML still reads so (``&lt``, ``&AMP``: the
    longest such name the letters start with, so ``&ltKq7`` is ``<`` and ``Kq7``, and the
    reference ends before ``Kq7``)."""
    length, char = _meaning(m.group(0))
    return m.start() + length, char


@functools.lru_cache(maxsize=4096)
def _meaning(escape: str) -> tuple[int, str | None]:
    """:func:`_unescaped` of the escape or reference ``escape``: how many of its characters
    it reads, and the character they stand for (kept: a page writes the same few references
    again and again, ``&lt`` on every line)."""
    end = len(escape)
    if escape[0] == "\\":
        if len(escape) == 2:
            return end, escape[1]
        code = int(escape[2:], 16)
        if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            return end, None
        char = chr(code)
    elif escape[1] == "#":
        digits = escape[2:].rstrip(";")
        hexadecimal = digits[:1] in "xX"
        digits = (digits[1:] if hexadecimal else digits).lstrip("0") or "0"
        if len(digits) > 7:
            return end, None  # past Unicode's end (and int() refuses 4,300 digits)
        char = html.unescape(f"&#{int(digits, 16 if hexadecimal else 10)};")
        if char == "\ufffd":
            return end, None
    else:
        name = escape[1:]
        if name not in _HTML5:
            name = name.rstrip(";")[: len(_LEGACY_NAMES[0])]
            while len(name) > 1 and name not in _HTML5:
                name = name[:-1]
            if len(name) < 2:
                return end, None
            end = 1 + len(name)
        char = _HTML5[name]
    return end, char if len(char) == 1 and char.isprintable() else None


#: How many times a text's escapes are decoded in turn: a JSON string inside a JSON string
#: (a docker json-file line of a PHP app's log, a tool's JSON result quoting a JSON report)
#: writes a secret's ``\\u0041`` as ``\\\\u0041``, decoded in two rounds.
_ESCAPE_ROUNDS = 3


def _find_escaped(scan: str, found: list[_Hit], separators: list[int] | None = None) -> list[_Hit]:
    """``found`` (the rules' hits in ``scan`` as written) judged by ``scan`` read with its
    string escapes and character references decoded (:func:`_judged`), and the hits that
    decoded reading finds besides, spanned over the escapes in ``scan`` (each decoded
    character keeps where it came from); up to :data:`_ESCAPE_ROUNDS` levels of escaping
    deep, each reading judging the hits of the one above it.

    A text is read again only when an escape stands for an ASCII character other than a
    backslash: the parts of a credential, its key and its syntax are ASCII, while a Windows
    path in JSON (``C:\\\\Users``) and the non-ASCII letters Python's ``json.dumps`` escapes
    (``caf\\u00e9``) are everywhere, and reading them again would double the cost."""
    text = scan
    origin: list[int] | None = None  # where each character of text starts in scan
    # each decoded reading: the escapes it decoded and its hits, both spanned in scan
    readings: list[tuple[list[tuple[int, int]], list[_Hit]]] = []
    for _ in range(_ESCAPE_ROUNDS):
        decoded = _unescaped_text(text)
        if decoded is None:
            break
        text, starts, escapes = decoded
        if origin is not None:
            escapes = [(origin[start], origin[end]) for start, end in escapes]
            starts = [origin[i] for i in starts]
        origin = starts
        hits = [
            _Hit(origin[h.start], origin[h.end], h.kind, h.rank)
            for h in _find_all(text)
            if h.end > h.start
        ]
        readings.append((escapes, hits))
    if not readings:
        return found
    found = found + _found_in_character_references(scan, separators)
    # from the deepest reading up: a level's hits, as the readings below judge them
    judged = readings[-1][1]
    for level in range(len(readings) - 1, -1, -1):
        above = readings[level - 1][1] if level else found
        judged = _judged(scan, above, readings[level][0], judged) + judged
    return judged


#: An HTML character reference (``&lt;``, ``&#60;``, ``&#x3c;``, ``&quot;``, ``&LT;``, ``&lt``:
#: :func:`_unescaped`).
_CHARACTER_REFERENCE = lazy(_REFERENCE)
#: How far after a secret's word's stem a character reference is read again: past the rest
#: of the key's name, its quote and a separator ("the password for the staging db is now ").
_REFERENCE_AFTER_STEM = 96


def _found_in_character_references(scan: str, separators: list[int] | None = None) -> list[_Hit]:
    """The assignments in ``scan`` whose value holds an HTML character reference, read as
    though each reference to an ASCII character were the string escape of that character
    (``&lt;`` as ``\\u003c``), spanned in ``scan``: as written, a value stops at a
    reference's ``&`` or ``;`` (``password: &lt;Hy6t…&gt;`` held none), while it holds a
    string escape, so that the decoded reading judges them alike (:func:`_judged`: a secret
    an escape puts in brackets or after a quote is redacted however it was escaped)."""
    hits: list[_Hit] = []
    for start, end in _reference_windows(scan):
        hits.extend(_found_in_references_between(scan, start, end, separators))
    return hits


def _reference_windows(scan: str) -> list[tuple[int, int]]:
    """The stretches of ``scan`` that :func:`_found_in_character_references` reads again,
    in order, none overlapping: only a reference close after a secret's word (its value's
    opening bracket or quote) on its line may start or go on a value that the text as
    written does not hold, so each such reference's line, the one before and the one after
    are read, and no other (reading again a whole page because one of its lines holds one
    cost a 1.9 MB page a quarter more, qa-s69d F5)."""
    if "&" not in scan:
        return []
    stem = _KEYWORD_STEM if scan.isascii() else _KEYWORD_STEM_ANY_CASE
    lower = scan.lower() if scan.isascii() else scan
    windows: list[list[int]] = []  # [start, end] of each stretch of lines to read, in order
    line_read = 0  # where the line of the last reference that started a stretch ends
    opened = _OpeningBracket(scan)
    for m in _CHARACTER_REFERENCE.finditer(scan):
        if m.start() < line_read:
            continue  # another on that line: the stretch already reads its line and the next
        done = windows[-1][1] if windows else 0
        char = _unescaped(m)[1]
        if not _stands_for_ascii(char):
            continue
        # a '>' that closes a value its '<' opened (written so: '<Hy6t…&gt;'): the value
        # starts at that '<', which a long one puts out of the stem's reach
        bracket = opened(m.start()) if char == ">" else -1
        at = m.start() if bracket < 0 else bracket
        lookback = max(0, at - _REFERENCE_AFTER_STEM - _BLANKS_BEFORE_VALUE)
        line_start = scan.rfind("\n", lookback, at) + 1 or lookback
        # the value's start: past the blanks (and a quote) before the reference, as a key
        # aligned in a column writes it ('password:' and 100 spaces)
        gap = _before_blanks(scan, at, line_start)
        if gap > line_start and scan[gap - 1] in "\"'`":
            gap = _before_blanks(scan, gap - 1, line_start)
        key_line = None
        if not stem.search(lower, max(line_start, gap - _REFERENCE_AFTER_STEM), gap):
            # a value alone on the line after its key ('password:' then '  &lt;…&gt;', as
            # YAML and ini write it), a blank line or two between (qa-s70b F1)
            alone = gap == line_start and line_start > 0 and scan[line_start - 1] == "\n"
            key_line = _key_line_before(scan, lower, stem, line_start, done) if alone else None
            if key_line is None:
                continue
        # its line, the one before (the key's context) and the one after (a value that
        # closes there); scanning back no further than the last stretch keeps this linear
        # (one inside the last stretch still stretches it to its own next line)
        newline = scan.rfind("\n", done, m.start())
        newline = scan.rfind("\n", done, newline) if newline > done else -1
        start = done if newline < 0 else newline + 1
        if key_line is not None:
            start = max(done, min(start, key_line))
        newline = scan.find("\n", m.end())
        line_read = len(scan) if newline < 0 else newline
        newline = scan.find("\n", newline + 1) if newline >= 0 else -1
        end = len(scan) if newline < 0 else newline
        if windows and start <= done:
            windows[-1][1] = max(done, end)
        else:
            windows.append([start, end])
    return [(start, end) for start, end in windows]


#: How many blanks before a value are passed over to find its key (a column of aligned keys).
_BLANKS_BEFORE_VALUE = 256
#: What ends a value read unquoted before a reference, looking back from it: blanks, quotes
#: and angle brackets.
_VALUE_BREAKS = " \t\r\n\f\v\"'`<>"
#: An angle bracket that opens a value, as written or escaped (a string's escape, a URL's).
_OPENERS = ("<", "\\u003c", "\\u003C", "\\x3c", "\\x3C", "%3C", "%3c")
#: The longest value read (the assignment rule's 1,024 characters) and its bracket.
_LONGEST_VALUE = 1030


class _OpeningBracket:
    """Where the angle bracket (:data:`_OPENERS`) that opens the value a ``>`` at a place
    closes starts: the last one before the place, with none of :data:`_VALUE_BREAKS`
    between, no more than :data:`_LONGEST_VALUE` back; else -1. Asked at places in order,
    each stretch of the text is looked through once (a line of ``&gt;`` after a long run
    asks again and again)."""

    def __init__(self, scan: str) -> None:
        self.scan = scan
        self.read_to = 0  # the text before it is looked through
        self.last_break = -1  # the last break and the last bracket found there
        self.last_opener = -1

    def __call__(self, pos: int) -> int:
        low = max(self.read_to, pos - _LONGEST_VALUE)
        if low > self.read_to:
            self.last_break = self.last_opener = -1  # (out of reach)
        self.last_break = max(
            self.last_break, *(self.scan.rfind(c, low, pos) for c in _VALUE_BREAKS)
        )
        self.last_opener = max(self.last_opener, *(self.scan.rfind(o, low, pos) for o in _OPENERS))
        self.read_to = pos
        opener = self.last_opener
        if opener < max(0, pos - _LONGEST_VALUE) or opener < self.last_break:
            return -1  # none, too far back, or a blank or quote after it ('<' is a break too)
        return opener


#: How far back a key alone on its line is looked for above its value (blank lines between).
_KEY_LINES_ABOVE = 3


def _before_blanks(scan: str, pos: int, floor: int) -> int:
    """Where the spaces and tabs just before ``pos`` start, ``floor`` at most
    :data:`_BLANKS_BEFORE_VALUE` back."""
    stop = max(floor, pos - _BLANKS_BEFORE_VALUE)
    while pos > stop and scan[pos - 1] in " \t":
        pos -= 1
    return pos


def _key_line_before(
    scan: str, lower: str, stem: re.Pattern[str], line_start: int, done: int
) -> int | None:
    """The start of the line above ``line_start`` (blank lines passed over, no further back
    than ``done``) when it ends in a secret's key and its ``:`` or ``=`` (``password:``):
    the line whose value the line at ``line_start`` holds."""
    key_end = line_start - 1  # the newline ending the line above
    for _ in range(_KEY_LINES_ABOVE):
        if key_end < max(done, 0) or key_end < 0:
            return None
        low = max(done, key_end - 512)
        found = scan.rfind("\n", low, key_end)
        key_start = found + 1 if found >= 0 else low
        line = scan[key_start:key_end].rstrip()
        if not line:
            key_end = key_start - 1
            continue
        if line[-1] not in ":=":
            return None
        end = key_start + len(line)
        hit = stem.search(lower, max(key_start, end - _REFERENCE_AFTER_STEM), end)
        return key_start if hit else None
    return None


def _found_in_references_between(
    scan: str, window_start: int, window_end: int, separators: list[int] | None = None
) -> list[_Hit]:
    """:func:`_found_in_character_references` in ``scan[window_start:window_end]``; inside
    a value it takes, the values after each of ``separators`` (in order: where a URL's ``&``
    ends the value, :func:`_find_percent_encoded`) are looked for too."""
    parts: list[str] = []
    # each reference written as an escape: its span in scan and where it starts in the
    # reading (a character between two of them is where the one before says: no list of
    # every character's place, which cost a 1 MB page of '&lt' lines 1.7 s)
    references: list[tuple[int, int]] = []
    at: list[int] = []
    length = 0  # of the reading so far
    pos = window_start
    for m in _CHARACTER_REFERENCE.finditer(scan, window_start, window_end):
        end, char = _unescaped(m)
        if not _stands_for_ascii(char):
            continue
        parts.append(scan[pos : m.start()])
        length += m.start() - pos
        parts.append(f"\\u{ord(char):04x}")  # type: ignore[arg-type]
        references.append((m.start(), end))
        at.append(length)
        length += 6
        pos = end
    if not references:
        return []
    parts.append(scan[pos:window_end])

    def where(i: int, edge: int) -> int:
        """Where the reading's character ``i`` starts (``edge`` 0) or ends (1) in scan."""
        k = bisect.bisect_right(at, i) - 1  # the last reference starting by it
        if k < 0:
            return window_start + i + edge
        if i < at[k] + 6:
            return references[k][edge]
        return references[k][1] + i - at[k] - 6 + edge

    reference_starts = [start for start, _ in references]
    resume = []  # the separators' places in the reading
    seps = separators or []
    for i in range(bisect.bisect_left(seps, window_start), len(seps)):  # (a slice: quadratic)
        sep = seps[i]
        if sep >= window_end:
            break
        k = bisect.bisect_right(reference_starts, sep) - 1  # the last reference starting by it
        if k < 0:
            resume.append(sep - window_start)
        elif references[k][0] == sep:
            resume.append(at[k])
        elif sep >= references[k][1]:
            resume.append(at[k] + 6 + sep - references[k][1])
    hits = []
    reading = "".join(parts)
    for h in _find_assignment_rule(reading, reading.lower(), resume):
        h = _before_closing_tag(reading, h)
        if h.end <= h.start:
            continue
        start, end = where(h.start, 0), where(h.end - 1, 1)
        i = bisect.bisect_left(reference_starts, end) - 1  # the last reference before its end
        if i >= 0 and references[i][1] > start:  # (one without: found as written already)
            hits.append(_Hit(start, end, h.kind, h.rank))
    return hits


def _judged(
    scan: str, hits: list[_Hit], escapes: list[tuple[int, int]], decoded: list[_Hit]
) -> list[_Hit]:
    """Which of ``hits`` stand, the text's ``escapes`` decoded and its ``decoded`` hits
    found (all spanned in ``scan``). A hit that holds no escape stands. One that does is
    the decoded reading's to judge: Go's JSON writes ``GITHUB_TOKEN=\\u003cyour-token\\u003e``,
    a placeholder once decoded, and ``api_key: \\u0022\\u0022`` is empty; where the decoded
    reading finds a secret, its hit spans the value exactly (not the escaped quote before
    it, nor half of ``\\u0022\\u003cyour password\\u003e\\u0022``). The hit still stands
    when what the decoded reading leaves of it reads as a password (:func:`_may_be_secret`):
    an escape that, decoded, makes a value end early or read as a placeholder
    (``password=\\u0022\\u0022Xk9…``, ``\\u003cXk9…\\u003e``) keeps no secret."""
    if not hits:
        return []
    escape_starts = [start for start, _ in escapes]
    covered: list[tuple[int, int]] = []  # what the decoded hits span, joined where they meet
    for h in sorted(decoded, key=lambda h: h.start):
        if covered and h.start <= covered[-1][1]:
            covered[-1] = (covered[-1][0], max(covered[-1][1], h.end))
        else:
            covered.append((h.start, h.end))
    covered_starts = [start for start, _ in covered]
    ampersands: list[tuple[int, int]] | None = None  # (made when first needed)
    kept = []
    for hit in hits:
        i = bisect.bisect_left(escape_starts, hit.end) - 1  # the last escape before its end
        if i < 0 or escapes[i][1] <= hit.start:
            kept.append(hit)  # no escape inside: as written is as read
            continue
        if _ends_at_an_escaped_quote(scan, hit, escapes, escape_starts, covered, covered_starts):
            kept.append(hit)  # a quoted value goes on to its own closing quote
            continue
        left: list[str] = []  # the parts of hit the decoded reading does not redact
        pos = hit.start
        j = max(0, bisect.bisect_right(covered_starts, hit.start) - 1)
        while j < len(covered) and covered[j][0] < hit.end:
            start, end = covered[j]
            if end > pos:
                if start > pos:
                    left.append(scan[pos:start])
                pos = end
            j += 1
        if pos < hit.end:
            left.append(scan[pos : hit.end])
        if any(_may_be_secret(part) for part in left):
            if ampersands is None:
                ampersands = _escaped_ampersands(scan, escapes)
            kept.append(_before_next_parameter(scan, hit, ampersands))
    return kept


def _escaped_ampersands(scan: str, escapes: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Those of ``escapes`` (spans in ``scan``, in order) that are a ``&`` escaped, of at
    most 8 characters (``&amp;``, ``\\u0026``): the only ones that may end a value at the
    next parameter (:func:`_before_next_parameter`), each read once for the whole text, not
    once for each value it is in."""
    return [
        (start, end) for start, end in escapes
        if end - start <= 8 and _escape_read(scan[start:end]) == "&"
    ]  # fmt: skip


def _before_next_parameter(scan: str, hit: _Hit, ampersands: list[tuple[int, int]]) -> _Hit:
    """``hit``, a value the decoded reading leaves a password in, up to an escaped ``&``
    in it that starts another parameter (``&amp;page=2``, ``\\u0026page=2``), when what is
    before that still reads as one: the value as written ran on over it, while decoded it
    ends there (:func:`_may_be_secret`), and the parameters after it are no secret
    (``password=&lt;Hy6t…&gt;&amp;page=2&amp;sort=asc`` keeps ``&amp;page=2&amp;sort=asc``).
    ``ampersands``: the text's escaped ``&``s (:func:`_escaped_ampersands`)."""
    i = bisect.bisect_right(ampersands, (hit.start, len(scan) + 1))  # the first after its start
    while i < len(ampersands) and ampersands[i][0] < hit.end:
        start, end = ampersands[i]
        i += 1
        if _PARAMETER_NAME.match(scan, end, hit.end) is None:
            continue
        if _may_be_secret(scan[hit.start : start]):
            return _Hit(hit.start, start, hit.kind, hit.rank)
        break
    return hit


#: A parameter's name and its ``=``, as written after a ``&`` (:data:`_AMP_PARTS`).
_PARAMETER_NAME = lazy(r"[A-Za-z_][\w.\-\[\]]{0,64}=")


def _ends_at_an_escaped_quote(
    scan: str,
    hit: _Hit,
    escapes: list[tuple[int, int]],
    escape_starts: list[int],
    covered: list[tuple[int, int]],
    covered_starts: list[int],
) -> bool:
    """Whether ``hit`` is a value in quotes as written (``"password":"Hy6t…\\u0022KqW3mR"``)
    in which the decoded reading found a secret that ends at an escape of that same quote
    (``\\u0022``, ``&quot;``; ``'`` likewise): the escape is the value's own character, not
    its end, so the value as written goes on to its real closing quote and is redacted whole
    (the decoded reading stopped there and left the rest in clear, qa72 F7)."""
    quote = scan[hit.start - 1 : hit.start]
    if quote not in ('"', "'") or scan[hit.end : hit.end + 1] not in (quote, "\\"):
        return False
    j = max(0, bisect.bisect_right(covered_starts, hit.start) - 1)
    while j < len(covered) and covered[j][0] < hit.end:
        end = covered[j][1]
        k = bisect.bisect_left(escape_starts, end)
        if hit.start < end < hit.end and k < len(escapes) and escape_starts[k] == end:
            escape_end = escapes[k][1]
            if escape_end < hit.end and _escape_read(scan[end:escape_end]) == quote:
                return True
        j += 1
    return False


@functools.lru_cache(maxsize=256)
def _escape_read(escape: str) -> str:
    """:func:`_fully_unescaped` of one escape or reference (kept: a text writes the same few
    again and again, ``&amp;`` in every URL, each asked of every value it is in)."""
    return _fully_unescaped(escape)


def _fully_unescaped(escaped: str) -> str:
    """``escaped`` with its escapes decoded, :data:`_ESCAPE_ROUNDS` levels deep."""
    text = escaped
    for _ in range(_ESCAPE_ROUNDS):
        decoded = _unescaped_text(text, places=False)
        if decoded is None:
            break
        text = decoded[0]
    return text


#: A run of a password's characters, between spaces, quotes and angle brackets.
_PASSWORD_RUN = lazy(r"[^\s\"'`<>]+")
#: A ``&`` that starts a URL's or a form's next parameter (``&page=``), as one ends a value
#: (:data:`_AMP_PARTS`).
_NEXT_PARAMETER = lazy(r"&(?=[A-Za-z_][\w.\-\[\]]{0,64}=)")


@functools.lru_cache(maxsize=_JUDGED_VALUES)
def _may_be_secret(escaped: str) -> bool:
    """Whether ``escaped``, decoded, holds a run that reads as a password (a person's or a
    generated one: :func:`_chosen_password`): what an escaped hit leaves unredacted must not
    (``your-token``, ``your password``, ``""`` do not). A run ends where a ``&`` starts
    another parameter, as a value does (:func:`_value_end`): what follows is no part of
    the value, and the decoded reading judged it as its own assignment (a placeholder's
    ``<your&password>&page=2&sort=asc`` leaves its query's parameters, no password)."""
    text = _fully_unescaped(escaped)
    for run in _PASSWORD_RUN.findall(text):
        separator = _NEXT_PARAMETER.search(run) if "&" in run else None
        if separator is not None:
            run = run[: separator.start()]
        if _chosen_password(run.strip(".,;:!?()[]{}")):
            return True
    return False


def _stands_for_ascii(char: str | None) -> bool:
    return char is not None and char.isascii() and char != "\\"


def _unescaped_text(
    text: str, places: bool = True
) -> tuple[str, list[int], list[tuple[int, int]]] | None:
    """``text`` with one level of its escapes decoded, where each of its characters (and
    its end) starts in ``text`` (an empty list unless ``places``), and the escapes decoded
    (their spans in ``text``); None when no escape stands for an ASCII character other than
    a backslash (:func:`_find_escaped`)."""
    if "\\" not in text and "&" not in text:
        return None
    parts: list[str] = []
    starts: list[int] = []
    escapes: list[tuple[int, int]] = []
    pos = 0
    decoded_any = False
    run_end = 0  # where the run of backslashes last looked at ends
    keep_run = False  # and whether a quote follows it
    for m in _ESCAPE.finditer(text):
        escape = m.group(0)
        at = m.start()
        if escape == "\\\\":
            if at >= run_end:
                run_end = _BACKSLASHES.match(text, at).end()  # type: ignore[union-attr]
                keep_run = text.startswith('"', run_end)
            if keep_run:
                # a run of backslashes before a quote is kept as written: decoded (the
                # quote's own escape is not), JSON kept in a JSON string would read its
                # value's own quote (\\\") as the quotes around it (\"), one level short
                continue
        length, char = _meaning(escape)  # (_unescaped's, without its call)
        if char is None:
            continue
        end = at + length
        # an escaped backslash counts when an escape of such a character follows it: the
        # next round's (``\\\\u0041``; not ``C:\\\\Users``)
        decoded_any = (
            decoded_any
            or _stands_for_ascii(char)
            or (
                char == "\\"
                and (after := _ESCAPE.match(text, m.end() - 1)) is not None
                and _stands_for_ascii(_unescaped(after)[1])
            )
        )
        parts.append(text[pos:at])
        parts.append(char)
        if places:
            starts.extend(range(pos, at))
            starts.append(at)
        escapes.append((at, end))
        pos = end
    if not decoded_any:
        return None
    parts.append(text[pos:])
    if places:
        starts.extend(range(pos, len(text)))
        starts.append(len(text))
    return "".join(parts), starts, escapes


#: A run of base64 (standard alphabet, padded or not) long enough to hold a credential.
_BASE64_RUN = lazy(r"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/]{16,4096}={0,2}(?![A-Za-z0-9+/=_\-])")
_TEXT_CONTROLS = str.maketrans("", "", "\t\n\r")


def _find_base64_encoded(scan: str) -> list[_Hit]:
    """A base64 blob that decodes to text holding a credential (``echo … | base64 -d``, a
    header's value) is redacted whole: the rules run once over every such text, joined."""
    blobs: list[tuple[int, int]] = []
    texts: list[str] = []
    for m in _BASE64_RUN.finditer(scan):
        value = m.group(0)
        try:
            text = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode()
        except (ValueError, UnicodeDecodeError):
            continue
        if len(text) >= 8 and text.translate(_TEXT_CONTROLS).isprintable():
            blobs.append(m.span())
            texts.append(text)
    if not blobs:
        return []
    offsets = []
    at = 0
    for text in texts:
        offsets.append(at)
        at += len(text) + 1
    joined = "\n".join(texts)
    found = _find_all(joined)
    if "\\" in joined or "&" in joined:
        # read and judged with its escapes decoded, as the text's own hits are: a blob of Go's
        # JSON with "token":"\\u003cnil\\u003e" holds a placeholder, no secret
        found = _find_escaped(joined, found)
    hits: dict[int, _Hit] = {}
    for h in found:
        i = bisect.bisect_right(offsets, h.start) - 1
        if i not in hits or h.rank < hits[i].rank:
            # known by what it decodes to, not by its own form: a rule that knows the blob's
            # place (a Secret's data) names it
            hits[i] = _Hit(blobs[i][0], blobs[i][1], h.kind, 1)
    return list(hits.values())


#: A terminal or a mail client hard-wraps a long line at its width (72 to 80 columns and up):
#: a secret ending a line at least this long may go on at the start of the next one.
_WRAP_WIDTH = 60
_MAX_WRAPPED_LINES = 16
#: A token's characters (base64, URL-safe base64, hex), padding only at its end; a run that
#: is only a part of its line's first word (``AWS_REGION=us-east-1``, ``key2: value``) is
#: not a token's tail.
_TOKEN_RUN = lazy(r"[A-Za-z0-9+/_\-.~]{1,4096}={0,2}(?![^\s\"'`)\]},;])")
_TOKEN_CHAR = lazy(r"[A-Za-z0-9+/_\-.~=]")
_DIGIT = lazy(r"\d")
#: More on the run's line after a space or a closing bracket: a wrapped tail ends its line
#: or the quote around it, so a run that text follows is a tail only when it looks random.
_WORDS_FOLLOW = lazy(r"[)\]},;]?[ \t]+\S")
_LETTER = lazy(r"[A-Za-z]")


def _line_break_at(text: str, at: int) -> int:
    """The length of the line break at ``at`` (``\n`` or ``\r\n``), 0 if none is there."""
    return 1 if text.startswith("\n", at) else 2 if text.startswith("\r\n", at) else 0


def _with_wrapped_tail(text: str, hit: _Hit) -> _Hit:
    """``hit`` with the rest of its secret, should a hard wrap have cut it: the hit ends a full
    line (``_WRAP_WIDTH`` or more) and the next line starts, unindented, with a run of a
    token's characters holding a digit and a letter (a wrapped line, ``npm run …`` is not),
    random when more words follow it on its line (``v2 of the workflow`` is prose). A run
    that fills its own line may go on at the start of the next, and so on."""
    end = hit.end
    if end - hit.start < 8 or not _TOKEN_CHAR.fullmatch(text, end - 1, end):
        return hit
    for _ in range(_MAX_WRAPPED_LINES):
        size = _line_break_at(text, end)
        if not size or end < _WRAP_WIDTH or text.rfind("\n", end - _WRAP_WIDTH, end) >= 0:
            break  # not at a line's end, or the line is short: no wrap cut it
        run = _TOKEN_RUN.match(text, end + size)
        if run is None or not (_DIGIT.search(run.group()) and _LETTER.search(run.group())):
            break
        if _WORDS_FOLLOW.match(text, run.end()) and not _looks_random(run.group()):
            break  # a line's first word ("v2 of the workflow", "2FA must be on"), no tail
        end = run.end()
    return hit if end == hit.end else _Hit(hit.start, end, hit.kind, hit.rank)


#: A line break between two of a token's characters, where a hard wrap may have cut one.
_TOKEN_BREAK = lazy(r"(?<=[A-Za-z0-9_\-])\r?\n(?=[A-Za-z0-9_\-])")
_RUN_BEFORE = lazy(r"[A-Za-z0-9_\-]{1,256}$")
_RUN_AFTER = lazy(r"[A-Za-z0-9_\-]{1,256}")
_SPACE = lazy(r"\s")


def _find_wrapped_tokens(scan: str, found: list[_Hit]) -> list[_Hit]:
    """Tokens a hard wrap cut before its form shows: a line of ``_WRAP_WIDTH`` or more that
    ends inside a token's prefix or body ("… ghp_16C7e4" then "2F292c…" on the next line,
    or "gh" then "p_16C7…"), where neither part is a token of its own. The lines around such
    a break are read joined, by the rules that know a token by its form only (a rule that
    reads words around a value would join two lines' words); a hit across a break is kept,
    unless the part before it was found on its own (its tail is _with_wrapped_tail's to
    judge: "sk-…" and "2FA must be on" joined would be one token)."""
    windows: list[list[tuple[int, int]]] = []
    for m in _TOKEN_BREAK.finditer(scan):
        start, end = m.span()
        line_start = scan.rfind("\n", 0, start) + 1
        if start - line_start < _WRAP_WIDTH:
            continue  # a short line: not cut by a wrap
        before = _RUN_BEFORE.search(scan, line_start, start)
        after = _RUN_AFTER.match(scan, end)
        run = (before.group() if before else "") + (after.group() if after else "")
        if len(run) < 16 or not (_DIGIT.search(run) and _LETTER.search(run)):
            continue  # two words of a wrapped paragraph ("the\nnext"), no token
        previous = windows[-1][-1] if windows else None
        if previous is not None and _SPACE.search(scan, previous[1], start) is None:
            windows[-1].append((start, end))  # a token filling a whole line goes on
        else:
            windows.append([(start, end)])
    if not windows:
        return []
    spans = sorted((f.start, f.end) for f in found)
    starts = [start for start, _ in spans]
    reach = list(accumulate((end for _, end in spans), max))  # the furthest end so far
    hits: list[_Hit] = []
    for breaks in windows:
        first = scan.rfind("\n", 0, breaks[0][0]) + 1
        last_end = scan.find("\n", breaks[-1][1])
        last = len(scan) if last_end < 0 else last_end
        parts: list[str] = []
        index: list[int] = []  # where each joined character is in scan
        pos = first
        for start, end in breaks:
            parts.append(scan[pos:start])
            index.extend(range(pos, start))
            pos = end
        parts.append(scan[pos:last])
        index.extend(range(pos, last))
        joined = "".join(parts)
        for h in chain(_find_gitleaks(joined), _find_context_tokens(joined)):
            start, end = index[h.start], index[h.end - 1] + 1
            if not any(start < b_start and b_end <= end for b_start, b_end in breaks):
                continue
            i = bisect.bisect_left(starts, end) - 1  # the last hit found starting before end
            if i >= 0 and reach[i] > start:
                continue  # found on its own already
            hits.append(_Hit(start, end, h.kind, h.rank))
    return hits


def _redact_once(text: str) -> tuple[str, dict[str, int]]:
    scan = _scannable(text)
    hits = _find(scan)
    if hits and "[REDACTED:" in text:
        hits = _outside_markers(text, hits)
    if not hits:
        return text, {}
    merged = _merge(hits)
    if "\n" in text:
        merged = _merge([_with_wrapped_tail(text, hit) for hit in merged])
    parts: list[str] = []
    counts: dict[str, int] = {}
    pos = 0
    for hit in merged:
        parts.append(text[pos : hit.start])
        parts.append(redaction_marker(hit.kind))
        counts[hit.kind] = counts.get(hit.kind, 0) + 1
        pos = hit.end
    parts.append(text[pos:])
    return "".join(parts), counts


def _add(total: dict[str, int], more: Mapping[str, int]) -> None:
    for kind, n in more.items():
        total[kind] = total.get(kind, 0) + n


_SECRET_KEY_END = lazy(rf"{_SECRET_KEYWORD}$", re.IGNORECASE)


def _is_secret_key(key: str) -> bool:
    """A mapping key whose value is a credential, by the assignment rule's keywords (or a
    credential header's name)."""
    key = key.strip()
    return _SECRET_KEY_END.search(key[-24:]) is not None or key.lower() in _SECRET_HEADERS


#: A stored field's short strings recur from memory to memory (the paths and blob hashes
#: of the files notes name, tags): their redaction, a pure function of the text, is kept.
_FIELD_CACHED_CHARS = 256


@functools.lru_cache(maxsize=8192)
def _redacted_field(text: str) -> tuple[str, tuple[tuple[str, int], ...]]:
    out, found = redact_secrets(text)
    return out, tuple(found.items())


def redact_value(value: Any) -> tuple[Any, dict[str, int]]:
    """Redact a stored field of any JSON shape: a string, or the strings inside lists, tuples
    and mappings (keys too, since a key can be a pasted token), recursively. A scalar stored
    under a secret-named key (``{"db_password": "hunter2"}``, ``{"token": 12345}``,
    ``{"Authorization": "Bearer …"}``) is replaced whole unless it is a placeholder or
    reference, and so is every scalar inside a container stored under one
    (``{"password": {"value": …}}``, ``{"secrets": […]}``), the ``value`` of a
    ``{"name": "DB_PASSWORD", "value": …}`` pair, and the item after a secret flag in a list
    (``["--password", "…"]``). Other values (numbers, booleans, ``None``) are returned as
    they are; the shape is kept."""
    counts: dict[str, int] = {}

    def hide() -> str:
        _add(counts, {"password_assignment": 1})
        return redaction_marker("password_assignment")

    def walk(item: Any, key: str | None, secret: bool = False) -> Any:
        secret = secret or (key is not None and _is_secret_key(key))
        if isinstance(item, str):
            stripped = item.strip()
            if (
                secret
                and stripped
                and not _is_placeholder(stripped)
                and not _PATH.fullmatch(stripped)
                # what a note keeps under the same name (key.json, 'default', a Secret type)
                and not _FILE_NAME.fullmatch(stripped)
                and not _names_a_kind(key or "", stripped)
            ):
                return hide()
            if len(item) <= _FIELD_CACHED_CHARS:
                out, pairs = _redacted_field(item)
                _add(counts, dict(pairs))
                return out
            out, found = redact_secrets(item)
            _add(counts, found)
            return out
        if isinstance(item, Mapping):
            named = next(
                (v for k, v in item.items() if isinstance(k, str) and k.lower() in ("name", "key")),
                None,
            )
            pair = isinstance(named, str) and _is_secret_key(named)
            result: dict[Any, Any] = {}
            for k, v in item.items():
                new_key = walk(k, None) if isinstance(k, str) else k
                while new_key in result:  # two keys redacted to one marker: keep both values
                    new_key = f"{new_key}'"
                inner = secret or (pair and isinstance(k, str) and k.lower() == "value")
                if (
                    isinstance(k, str)
                    and _is_secret_container_key(k)
                    and not isinstance(v, str | int | float)
                ):
                    inner = True
                result[new_key] = walk(v, k if isinstance(k, str) else None, inner)
            return result
        if isinstance(item, list | tuple):
            out_items: list[Any] = []
            flagged = False
            for v in item:
                out_items.append(walk(v, key, secret or flagged))
                flagged = isinstance(v, str) and _SECRET_FLAG.fullmatch(v.strip()) is not None
            return type(item)(out_items)
        secret_number = isinstance(item, int | float) and not isinstance(item, bool)
        if secret and secret_number:
            return hide()
        return item

    return walk(value, None), counts


#: The same option as an item of an argument list (``["--password", "…"]``).
_SECRET_FLAG = lazy(rf"--?{_SECRET_OPTION}", re.I)
#: Header names whose value is a credential, whatever it looks like.
_SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
#: A plural of a secret's name (``secrets``, ``passwords``), as a key's whole name: what
#: it holds is secret when it is a container.
_SECRET_PLURAL = lazy(
    r"(?:^|[_\-.])(?:passwords|secrets|credentials|api[_\-]?keys)$"
    r"|(?:^|[_\-.])(?:api|access|auth|refresh|bearer|session|github|gitlab|npm|slack)[_\-]?tokens$",
    re.I,
)


def _is_secret_container_key(key: str) -> bool:
    # a bare "tokens" (or "input_tokens") is as often a count of an LLM's tokens: only a
    # qualified one ("api_tokens") holds credentials
    return _SECRET_PLURAL.search(key.strip()) is not None


def redact_url(url: str) -> str:
    """``url`` as it may appear in a message or log: :func:`redact_secrets` (so a DSN is
    judged by the same rules as a note that holds it: URL passwords, ``password=`` and
    ``api_key=`` parameters, tokens), with the redacted password's marker dropped so that a
    location reads ``postgresql://app@db:5432/x``. A PostgreSQL URL's ``?password=`` runs
    as far as libpq's parameters say (:func:`query_secrets`): ``Tr0ub4dor&3`` whole."""
    for _, start, end in reversed(_libpq_secret_values(url)):
        if end > start:
            url = url[:start] + redaction_marker("password_assignment") + url[end:]
    shown = redact_secrets(_without_password(url))[0]
    # a location's password parameter is a password whatever it looks like ("changeme")
    shown = _PASSWORD_PARAMETER.sub(
        lambda m: m.group(1) + redaction_marker("connection_string"), shown
    )
    return shown.replace(f":{redaction_marker('connection_string')}@", "@")


_PASSWORD_PARAMETER = lazy(
    r"((?:^|[?&;\s])(?:password|passwd|pwd|api[_\-]?key|token)=)(?!\[REDACTED:)[^&;\s]+",
    re.IGNORECASE,
)


#: libpq's connection parameters (PostgreSQL 18's, with ``ssl`` and ``requiressl``, older
#: spellings its URL parser still takes). In a ``postgresql://`` URL's query an ``&``
#: followed by one of them and ``=`` starts the next parameter; any other ``&`` belongs to
#: the value before it: a password written there unencoded (``?password=Tr0ub4dor&3``,
#: which libpq refuses, quoting the piece after the ``&``).
# fmt: off
LIBPQ_PARAMETERS = frozenset({
    "application_name", "channel_binding", "client_encoding", "connect_timeout", "dbname",
    "fallback_application_name", "gssdelegation", "gssencmode", "gsslib", "host", "hostaddr",
    "keepalives", "keepalives_count", "keepalives_idle", "keepalives_interval", "krbsrvname",
    "load_balance_hosts", "max_protocol_version", "min_protocol_version", "oauth_client_id",
    "oauth_client_secret", "oauth_issuer", "oauth_scope", "options", "passfile", "password",
    "port", "replication", "require_auth", "requirepeer", "requiressl", "scram_client_key",
    "scram_server_key", "service", "ssl", "ssl_max_protocol_version",
    "ssl_min_protocol_version", "sslcert", "sslcertmode", "sslcompression", "sslcrl",
    "sslcrldir", "sslkey", "sslkeylogfile", "sslmode", "sslnegotiation", "sslpassword",
    "sslrootcert", "sslsni", "target_session_attrs", "tcp_user_timeout", "user",
})
# fmt: on
#: Those of them whose value is a credential.
_LIBPQ_SECRETS = frozenset(
    {"password", "sslpassword", "oauth_client_secret", "scram_client_key", "scram_server_key"}
)
#: Parameters other PostgreSQL clients take in their URLs (SQLAlchemy's, Prisma's,
#: pgjdbc's, pgx's) and libpq does not. After a ``?password=`` an ``&`` followed by one of
#: them and ``=`` starts that parameter too, so that the message names it (libpq refuses
#: it: ``invalid URI query parameter: "pool_size"``) rather than blaming the password; an
#: ``&`` before any other name stays part of the value before it (``Tr0ub&dor=3``), never
#: shown: a name like ``dor`` may be a piece of a password, these are known to be
#: parameters.
# fmt: off
OTHER_CLIENTS_PARAMETERS = frozenset({
    # SQLAlchemy's engine and pool options, asyncpg's cache
    "pool_size", "max_overflow", "pool_timeout", "pool_recycle", "pool_pre_ping", "echo",
    "prepared_statement_cache_size", "async_fallback",
    # Prisma's
    "schema", "connection_limit", "socket_timeout", "pgbouncer", "statement_cache_size",
    "sslaccept", "sslidentity",
    # pgjdbc's
    "currentSchema", "loginTimeout", "connectTimeout", "socketTimeout", "ApplicationName",
    "sslfactory", "tcpKeepAlive", "prepareThreshold", "reWriteBatchedInserts",
    "targetServerType", "loadBalanceHosts", "stringtype", "readOnly",
    # pgx's pool
    "pool_max_conns", "pool_min_conns", "pool_max_conn_lifetime", "pool_max_conn_idle_time",
    "pool_health_check_period", "default_query_exec_mode", "statement_cache_capacity",
})
# fmt: on
_POSTGRES_URL = lazy(r"^postgres(?:ql)?://", re.IGNORECASE)
_LIBPQ_NEXT_PARAMETER = lazy(r"&([^&=]*)=")


def _libpq_secret_values(url: str) -> list[tuple[str, int, int]]:
    """``(name, start, end)`` of each credential's value in a PostgreSQL URL's query (its
    name as libpq reads it: percent-decoded, in lower case), each running to the next
    ``&`` that starts a parameter (:data:`LIBPQ_PARAMETERS`,
    :data:`OTHER_CLIENTS_PARAMETERS`), or the end; none for a URL of another kind."""
    from urllib.parse import unquote

    query = url.find("?")
    if query < 0 or _POSTGRES_URL.match(url) is None:
        return []
    starts = [query + 1] + [
        m.start(1)
        for m in _LIBPQ_NEXT_PARAMETER.finditer(url, query + 1)
        if unquote(m.group(1)) in LIBPQ_PARAMETERS | OTHER_CLIENTS_PARAMETERS
    ]
    found = []
    for start, after in zip(starts, [*starts[1:], len(url) + 1], strict=True):
        name, equals, _ = url[start : after - 1].partition("=")
        # libpq decodes a name as it does a value: pass%77ord= is its password
        if equals and unquote(name).lower() in _LIBPQ_SECRETS:
            found.append((unquote(name).lower(), start + len(name) + 1, after - 1))
    return found


def query_secrets(url: str) -> list[tuple[str, str]]:
    """``(name, value)`` of each credential in a PostgreSQL URL's query (``password``,
    ``sslpassword``, ``oauth_client_secret``, the SCRAM keys), its value as written (not
    decoded), to its end as :func:`_libpq_secret_values` finds it; empty values left out."""
    return [(name, url[start:end]) for name, start, end in _libpq_secret_values(url) if end > start]


def _without_password(url: str) -> str:
    """``url`` with the password of its authority dropped, by the URL's structure rather
    than by what a password looks like (a location is a URL, whatever its host or password
    holds: ``${HOST}``, quotes, spaces). The last ``@`` of the authority ends the user
    information, as libpq and urllib read it; an ``@`` only after a ``/``, ``?`` or ``#``
    (a password with one of those, unencoded) is taken as its end too, to fail closed."""
    parts = _split_password(url)
    if parts is None:
        return url
    before, _, after = parts
    return before + after


def url_password(url: str) -> str | None:
    """The password of ``url``'s authority, found by the URL's structure as
    :func:`redact_url` drops it (also in a URL that ``urlsplit`` refuses, such as an IPv6
    host without its closing bracket, which libpq then quotes whole in its error)."""
    parts = _split_password(url)
    return None if parts is None or not parts[1] else parts[1]


#: What a URL's password may not hold as it is: RFC 3986's delimiters (where libpq and
#: urllib end it, and read the rest as the host, port or query), whitespace, a '%' that
#: starts no escape.
_UNENCODED_IN_PASSWORD = lazy(r"[@/?#\s]|%(?![0-9A-Fa-f]{2})")


def password_needs_encoding(url: str) -> bool:
    """Whether the password of ``url``'s authority (as :func:`url_password` finds it) holds
    a character a URL must percent-encode: messages built from the URL as a client reads it
    would show a piece of the password. (A PostgreSQL URL's query parameters:
    :func:`query_secrets`.)"""
    password = url_password(url)
    return password is not None and _UNENCODED_IN_PASSWORD.search(password) is not None


def _split_password(url: str) -> tuple[str, str, str] | None:
    """``(up to the user name, the password, from the '@' on)`` of ``url``; None when its
    authority holds no password (see :func:`_without_password`)."""
    m = re.match(r"^[A-Za-z][A-Za-z0-9+.\-]*://", url)
    if m is None or "@" not in url[m.end() :]:
        return None
    rest = url[m.end() :]
    authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
    if "@" in authority:
        at = authority.rfind("@")
        # an '@' further on, after a '/', '?' or '#' of a password that holds one unencoded
        # (app:Zq9@Kx7#Wm4@db): the password runs to it, unless it is in a query
        # parameter's value (?application_name=svc@prod)
        later = rest.rfind("@")
        if later > len(authority) and not re.search(r"[?&][^?&=#]*=[^?&#]*$", rest[:later]):
            at = later
    elif ":" not in authority or authority.rsplit(":", 1)[1].isdigit():
        return None  # host[:port]: an '@' further on is the path's or the query's
    else:
        at = rest.rfind("@")
    userinfo = rest[:at]
    if ":" not in userinfo:
        return None
    user, password = userinfo.split(":", 1)
    return m.group(0) + user, password, rest[at:]
