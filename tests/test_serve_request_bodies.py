"""A request's body is never parsed as the next request on the connection
(N10): a GET with a body is refused and the connection closed; a refused
POST whose body was not read closes it too; keep-alive still serves
requests without a body."""

import re
import socket
import threading

import pytest

from cardenvs.app.serve import make_server


@pytest.fixture
def server():
    srv = make_server(port=0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def exchange(srv, raw: bytes) -> list[str]:
    """Send ``raw`` on one connection; the status lines of every answer until the server closes it."""
    with socket.create_connection(srv.server_address, timeout=30) as s:
        s.sendall(raw)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    return re.findall(r"HTTP/1\.[01] \d{3} [^\r\n]*", out.decode("latin-1"))  # (a body may run into the next)


def smuggled_post(host: str) -> bytes:
    body = b'{"game": "pepper"}'
    head = (
        f"POST /api/new HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + body


def host_of(srv) -> str:
    return "{}:{}".format(*srv.server_address[:2])


def test_a_get_body_is_refused_and_never_run(server):
    inner = smuggled_post(host_of(server))
    outer = f"GET /api/info HTTP/1.1\r\nHost: {host_of(server)}\r\nContent-Length: {len(inner)}\r\n\r\n".encode()
    statuses = exchange(server, outer + inner)
    assert len(statuses) == 1 and " 400 " in statuses[0]
    assert len(server.sessions) == 0


def test_a_refused_get_with_a_body_behind_a_foreign_origin_runs_nothing(server):
    inner = smuggled_post(host_of(server))
    outer = (
        f"GET /api/info HTTP/1.1\r\nHost: {host_of(server)}\r\nOrigin: http://evil.example\r\n"
        f"Content-Length: {len(inner)}\r\n\r\n"
    ).encode()
    statuses = exchange(server, outer + inner)
    assert len(statuses) == 1 and statuses[0].split()[1] in ("400", "403")
    assert len(server.sessions) == 0


def test_a_refused_post_closes_before_its_unread_body(server):
    inner = smuggled_post(host_of(server))
    outer = (
        f"POST /api/new HTTP/1.1\r\nHost: {host_of(server)}\r\nOrigin: http://evil.example\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(inner)}\r\n\r\n"
    ).encode()
    statuses = exchange(server, outer + inner)
    assert len(statuses) == 1 and " 403 " in statuses[0]
    assert len(server.sessions) == 0


def test_another_method_with_a_body_closes_the_connection(server):
    inner = smuggled_post(host_of(server))
    outer = f"PUT /api/new HTTP/1.1\r\nHost: {host_of(server)}\r\nContent-Length: {len(inner)}\r\n\r\n".encode()
    statuses = exchange(server, outer + inner)
    assert len(statuses) == 1 and " 501 " in statuses[0]
    assert len(server.sessions) == 0


def test_keep_alive_still_serves_requests_without_a_body(server):
    get = f"GET /api/info HTTP/1.1\r\nHost: {host_of(server)}\r\n\r\n"
    last = f"GET /api/games HTTP/1.1\r\nHost: {host_of(server)}\r\nConnection: close\r\n\r\n"
    statuses = exchange(server, (get + get + last).encode())
    assert len(statuses) == 3 and all(" 200 " in s for s in statuses)


@pytest.mark.parametrize("method, path", [("GET", "/api/info"), ("POST", "/api/new"), ("POST", "/api/info")])
@pytest.mark.parametrize(
    "framing",
    [
        "Content-Length: 0\r\nContent-Length: {n}",  # two lengths: a proxy may take either
        "Content-Length : {n}",  # a space before the colon: Python's parser ends the headers there
        "X-Pad: 1\r\n Content-Length: {n}",  # folded into X-Pad here, a header of its own elsewhere
        "Junk\r\nContent-Length: {n}",  # a line that is no header, then a length
        "Transfer-Encoding: chunked\r\nContent-Length: {n}",  # chunked bodies are not read
        "Transfer-Encoding\t: chunked",
    ],
)
def test_a_length_that_reads_two_ways_is_refused_and_never_run(server, method, path, framing):
    """Header sections a proxy in front could frame otherwise than this
    server: refused (400) and the connection closed before the body."""
    inner = smuggled_post(host_of(server))
    head = f"{method} {path} HTTP/1.1\r\nHost: {host_of(server)}\r\nContent-Type: application/json\r\n"
    head += framing.format(n=len(inner)) + "\r\n\r\n"
    statuses = exchange(server, head.encode() + b"0\r\n\r\n" * ("chunked" in framing) + inner)
    assert len(statuses) == 1 and " 400 " in statuses[0]
    assert len(server.sessions) == 0


def test_a_post_with_one_sound_length_still_keeps_the_connection(server):
    body = b'{"game": "pepper"}'
    post = (
        f"POST /api/new HTTP/1.1\r\nHost: {host_of(server)}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    last = f"GET /api/info HTTP/1.1\r\nHost: {host_of(server)}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    statuses = exchange(server, post + last.encode())
    assert len(statuses) == 2 and all(" 200 " in s for s in statuses)
    assert len(server.sessions) == 1
