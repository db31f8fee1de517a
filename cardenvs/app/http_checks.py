"""The checks every request to the play server (:mod:`.serve`) passes before
it is served.  They keep other web pages and other names out:

- ``Host`` must name the server as it is bound (``127.0.0.1:PORT``; a server
  bound to a loopback or wildcard address also answers to ``localhost:PORT``
  and ``[::1]:PORT``): a page on another name that resolves to 127.0.0.1
  (DNS rebinding) gets a 403;
- ``Origin``, when a browser sends it, must be ``http://`` + one of those
  names: a page elsewhere gets a 403 even for a "simple" cross-origin POST
  (one without a preflight);
- the header section must read one way only (:func:`declared_length`): a
  line that is not ``Name: value`` (``Content-Length : 5``), a value folded
  onto the next line, ``Transfer-Encoding`` or ``Content-Length`` given
  twice is a 400, since a proxy in front could read the request's length
  otherwise than this server and take its body for the next request;
- a POST's body must be ``application/json`` (415 otherwise: a cross-origin
  form or ``text/plain`` POST cannot set that type without a preflight,
  which the server does not answer), with a ``Content-Length`` from 0 to
  :data:`MAX_BODY` (400 when missing or not a number, 413 above), sent
  within the read timeout (408), and be a JSON object at most
  :data:`MAX_DEPTH` deep whose integers have at most :data:`MAX_INT_DIGITS`
  digits (400 otherwise).

Every failure is an :class:`ApiError` (a status and a message that says what
is wrong and names nothing on the server's disk).
"""

from __future__ import annotations

import json
import time
from email import errors
from email.message import Message
from typing import Any, BinaryIO

MAX_BODY = 1_000_000  # bytes
MAX_DEPTH = 32  # nesting of arrays and objects in a request body
MAX_INT_DIGITS = 20  # enough for any seed below 2**64
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
WILDCARD = ("", "0.0.0.0", "::")
# what the header parser records for a line that is not ``Name: value`` (it ends the headers there, or drops it)
_HEADER_LINE_DEFECTS = (
    errors.MissingHeaderBodySeparatorDefect,
    errors.FirstHeaderLineIsContinuationDefect,
    errors.InvalidHeaderDefect,
)


class ApiError(Exception):
    """A bad request: ``status`` (4xx) and a message for the client."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def allowed_hosts(host: str, port: int) -> frozenset[str]:
    """The ``Host`` values (``name:port``, lower case) a server bound to
    ``(host, port)`` answers to."""
    name = f"[{host}]" if ":" in host and not host.startswith("[") else host
    names = {name.lower()}
    if name in WILDCARD or name.lower() in LOOPBACK_NAMES or name.startswith("127.") or name == "[::]":
        names.update(LOOPBACK_NAMES)
    names -= {"", "0.0.0.0", "[::]"}
    return frozenset(f"{n}:{port}" for n in names)


def _short(value: str) -> str:
    return repr(value if len(value) <= 80 else value[:80] + "...")


def _one_header(headers: Message, name: str) -> str | None:
    values = headers.get_all(name) or []
    if len(values) > 1:
        raise ApiError(400, f"more than one {name} header")
    return values[0] if values else None


def check_host_and_origin(headers: Message, hosts: frozenset[str]) -> None:
    """403 unless ``Host`` is one of ``hosts`` and ``Origin`` (if sent) is ``http://`` + one of them."""
    expected = sorted(hosts)[0] if hosts else "?"
    host = _one_header(headers, "Host")
    if host is None:
        raise ApiError(403, f"the Host header is missing: this server answers to {expected}")
    if host.strip().lower() not in hosts:
        raise ApiError(403, f"this server answers to {sorted(hosts)}, not to Host {_short(host)}")
    origin = _one_header(headers, "Origin")
    if origin is not None:
        o = origin.strip().lower()
        if not (o.startswith("http://") and o[len("http://") :] in hosts):
            raise ApiError(403, f"requests from other pages are refused (Origin {_short(origin)})")


def check_header_section(headers: Message) -> None:
    """400 unless every header line was ``Name: value`` on one line.  The
    parser stops at a line that is not (``Content-Length : 5``, ``Junk``)
    and takes what follows for a body, and joins a folded line to the value
    above: both hide headers, such as a ``Content-Length``, that a proxy in
    front may have read (RFC 9112 asks a server to refuse both)."""
    if any(isinstance(d, _HEADER_LINE_DEFECTS) for d in headers.defects):  # (not the body's: a multipart type's)
        raise ApiError(400, "a header line is not 'Name: value' (nothing may come between a name and its colon)")
    if any("\r" in value or "\n" in value for value in headers.values()):
        raise ApiError(400, "a header value is folded onto the next line (obs-fold is not accepted)")


def declared_length(headers: Message) -> int | None:
    """The body length a request declares (None without ``Content-Length``),
    read one way only: 400 for a malformed header section, any
    ``Transfer-Encoding`` (chunked bodies are not read), a repeated
    ``Content-Length`` or one that is not a whole number; 413 above
    :data:`MAX_BODY`."""
    check_header_section(headers)
    if headers.get("Transfer-Encoding") is not None:
        raise ApiError(400, "Transfer-Encoding is not accepted: send the body with a Content-Length")
    text = _one_header(headers, "Content-Length")
    if text is None:
        return None
    text = text.strip()
    if not (text.isascii() and text.isdigit()):
        raise ApiError(400, f"Content-Length must be a whole number of bytes (0 or more), got {_short(text)}")
    if len(text) > 12 or int(text) > MAX_BODY:
        raise ApiError(413, f"the request body is larger than {MAX_BODY} bytes")
    return int(text)


def content_length(headers: Message) -> int:
    """A POST's body length (:func:`declared_length`; 400 when missing)."""
    length = declared_length(headers)
    if length is None:
        raise ApiError(400, "Content-Length is missing: a POST needs one")
    return length


def check_json_type(headers: Message) -> None:
    """415 unless the body is declared ``application/json``."""
    ctype = _one_header(headers, "Content-Type")
    if ctype is None or ctype.split(";")[0].strip().lower() != "application/json":
        raise ApiError(415, f"the body must be sent as Content-Type: application/json, got {_short(ctype or '')}")


def read_body(rfile: BinaryIO, length: int, seconds: float) -> bytes:
    """``length`` bytes of ``rfile`` (a socket's, with a read timeout set),
    all of them within ``seconds`` (408 otherwise: a client that sends one
    byte at a time does not hold a thread for long)."""
    deadline = time.monotonic() + seconds
    chunks, got = [], 0
    try:
        while got < length:
            if time.monotonic() > deadline:
                raise ApiError(408, "the request body did not arrive in time")
            chunk = rfile.read1(min(length - got, 65536))  # type: ignore[attr-defined]
            if not chunk:
                raise ApiError(400, f"the body ended after {got} of its {length} bytes (Content-Length)")
            chunks.append(chunk)
            got += len(chunk)
    except TimeoutError:
        raise ApiError(408, "the request body did not arrive in time") from None
    return b"".join(chunks)


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ApiError(400, f"a number in the request has more than {MAX_INT_DIGITS} digits")
    return int(text)


def _no_constant(name: str) -> Any:
    raise ApiError(400, f"{name} is not a JSON number")


def _depth(obj: Any) -> int:
    """The nesting of arrays and objects in ``obj`` (without recursion)."""
    deepest, stack = 0, [(obj, 1)]
    while stack:
        x, d = stack.pop()
        if isinstance(x, dict):
            x = list(x.values())
        if isinstance(x, list):
            deepest = max(deepest, d)
            if d <= MAX_DEPTH:
                stack.extend((v, d + 1) for v in x)
    return deepest


def parse_json_object(raw: bytes) -> dict[str, Any]:
    """A request body as a JSON object (400 for anything else: not UTF-8,
    malformed, deeper than :data:`MAX_DEPTH`, a too long integer, NaN)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ApiError(400, "the request body is not UTF-8 text") from None
    try:
        body = json.loads(text or "null", parse_int=_bounded_int, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise ApiError(400, f"malformed JSON: {e}") from None
    except RecursionError:  # deeper than the interpreter goes: certainly deeper than MAX_DEPTH
        raise ApiError(400, f"the JSON is nested more than {MAX_DEPTH} deep") from None
    if _depth(body) > MAX_DEPTH:
        raise ApiError(400, f"the JSON is nested more than {MAX_DEPTH} deep")
    if not isinstance(body, dict):
        raise ApiError(400, "the request body must be a JSON object")
    return body


def read_json_request(headers: Message, rfile: BinaryIO, seconds: float) -> dict[str, Any]:
    """A POST's body, checked (type, length, timing, JSON) in that order."""
    check_json_type(headers)
    return parse_json_object(read_body(rfile, content_length(headers), seconds))
