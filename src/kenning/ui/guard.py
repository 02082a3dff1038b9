"""The page's safety checks, as one ASGI middleware in front of every route.

In order, for every request:

1. **Host**: only ``127.0.0.1:PORT`` and ``localhost:PORT`` (the server binds 127.0.0.1
   only). A DNS-rebinding page reaches the server under its own host name and is refused.
2. **Token**: ``?token=…`` (printed at start, as Jupyter does) opens a session: a random
   session id in an ``HttpOnly; SameSite=Strict`` cookie, then a redirect that drops the
   token from the address bar. Without a valid session nothing is served (403).
3. **Changes**: only ``POST`` with an ``application/x-www-form-urlencoded`` body changes
   anything; a POST must carry the session's CSRF token (a random per-session value the
   forms embed) and, when the browser sends them, a same-origin ``Origin`` and
   ``Sec-Fetch-Site``. The check runs here, before routing, so no change route can miss it.
4. **Headers** on every answer: a strict Content-Security-Policy (no script at all, styles
   only from this server, no framing, forms post only here), ``nosniff``, a ``same-origin``
   referrer policy (no address of the page ever reaches another site; ``no-referrer`` would
   make Chromium send ``Origin: null`` with the page's own forms), ``no-store``.
"""

from __future__ import annotations

import html
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, quote, urlencode

from ..protocol import MAX_CONTENT_BYTES

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
]
#: The form field that carries the CSRF token.
CSRF_FIELD = "csrf"
#: A form post larger than this is refused (content is at most 64 KiB after normalisation).
MAX_FORM_BYTES = 2 * 1024 * 1024
#: Sessions kept at once (each needs the token to open); the oldest goes first.
MAX_SESSIONS = 64


@dataclass
class Session:
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    #: Notices shown once on the next page: (level, text).
    flashes: list[tuple[str, str]] = field(default_factory=list)

    def flash(self, level: str, text: str) -> None:
        self.flashes.append((level, text))

    def take_flashes(self) -> list[tuple[str, str]]:
        taken, self.flashes = self.flashes, []
        return taken


class Guard:
    """Host check, token → session cookie, CSRF on every change, security headers."""

    def __init__(self, app: ASGIApp, *, port: int, token: str) -> None:
        self.app = app
        self.port = port
        self.token = token
        self.cookie = f"kenning-ui-{port}"  # cookies are per host, not per port
        self.hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
        self.origins = {f"http://{h}" for h in self.hosts}
        self.sessions: OrderedDict[str, Session] = OrderedDict()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":  # the page has none: refuse before any check
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":  # lifespan
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if headers.get("host", "").lower() not in self.hosts:
            await _refuse(
                send_with_headers,
                400,
                "This server answers only to 127.0.0.1 or localhost on its own port.",
            )
            return
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        if "token" in query:
            await self._login(scope, query, headers, send_with_headers)
            return
        session = self.sessions.get(_cookie(headers.get("cookie", ""), self.cookie) or "")
        if session is None:
            await _refuse(
                send_with_headers,
                403,
                "Open the address that `kenning ui` printed (it carries the access token).",
            )
            return
        scope.setdefault("state", {})["session"] = session
        if scope["method"] in ("GET", "HEAD"):
            await self.app(scope, receive, send_with_headers)
            return
        refusal = _cross_site(headers, self.origins)
        if scope["method"] != "POST":
            refusal = "Only GET and POST are served."
        elif not headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
            refusal = refusal or "A change must be posted by one of this page's forms."
        if refusal:
            await _refuse(send_with_headers, 403, refusal)
            return
        body = await _read_body(receive)
        if body is None:
            await _refuse(
                send_with_headers,
                413,
                f"Nothing was changed: the form is over {MAX_FORM_BYTES // (1024 * 1024)} MiB, "
                f"and a memory holds at most {MAX_CONTENT_BYTES // 1024} KiB of text. Go back, "
                "shorten it to a summary (the full text belongs in the document its source "
                "names), and save again.",
            )
            return
        try:
            fields = parse_qs(body.decode("ascii"), keep_blank_values=True, errors="strict")
        except (UnicodeDecodeError, ValueError):
            await _refuse(send_with_headers, 400, "The form could not be read.")
            return
        given = (fields.get(CSRF_FIELD) or [""])[0]
        if not secrets.compare_digest(given.encode(), session.csrf.encode()):
            await _refuse(
                send_with_headers,
                403,
                "Nothing was changed: this form does not belong to the page's current session "
                "(its CSRF token is missing or from an earlier session: too many browsers "
                "opened the printed address since, or this form came from elsewhere). Reload "
                "the page and make the change again.",
            )
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send_with_headers)

    async def _login(
        self, scope: Scope, query: dict[str, list[str]], headers: dict[str, str], send: Send
    ) -> None:
        given = query["token"][0]
        if not secrets.compare_digest(given.encode(), self.token.encode()):
            await _refuse(send, 403, "Wrong token: open the address that `kenning ui` printed.")
            return
        # The printed address opened again (a second tab, a bookmark) by a browser that
        # has a session: keep it. A new one would replace the cookie every tab shares, and
        # the forms of the tabs already open would carry the old session's CSRF token.
        sid = _cookie(headers.get("cookie", ""), self.cookie) or ""
        if sid in self.sessions:
            self.sessions.move_to_end(sid)
        else:
            sid = secrets.token_urlsafe(32)
            self.sessions[sid] = Session()
            while len(self.sessions) > MAX_SESSIONS:
                self.sessions.popitem(last=False)
        rest = urlencode([(k, v) for k, vs in query.items() if k != "token" for v in vs])
        # one leading slash: "//host" would be a redirect to another site
        path = "/" + quote(str(scope.get("path", "/"))).lstrip("/")
        location = path + (f"?{rest}" if rest else "")
        cookie = f"{self.cookie}={sid}; HttpOnly; SameSite=Strict; Path=/"
        await send(
            {
                "type": "http.response.start",
                "status": 303,
                "headers": [
                    (b"location", location.encode("latin-1")),
                    (b"set-cookie", cookie.encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": b""})


def _cookie(header: str, name: str) -> str | None:
    for part in header.split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return None


def _cross_site(headers: dict[str, str], origins: set[str]) -> str | None:
    origin = headers.get("origin")
    if origin is not None and origin not in origins:
        return "A change must come from this page (cross-origin request refused)."
    site = headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return "A change must come from this page (cross-site request refused)."
    return None


async def _read_body(receive: Receive) -> bytes | None:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b""
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_FORM_BYTES:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


async def _refuse(send: Send, status: int, text: str) -> None:
    body = (
        "<!doctype html><html lang=en><meta charset=utf-8><title>kenning</title>"
        f"<p>{html.escape(text)}</p></html>"
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/html; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


__all__ = ["CSP", "CSRF_FIELD", "Guard", "Session"]
