"""The server bounds every connection: head size and lines, time to send a head and a body, idle
connections, how many are open, and whose `X-Forwarded-For` it believes. A real `whichgpu serve`
process over TCP, with small limits so each test is quick."""

from __future__ import annotations

import json
import socket
import time

import httpx
import pytest

from tests.server_process import ServerProcess

LIMITS = {
    "WHICHGPU_HEADER_TIMEOUT": "1",
    "WHICHGPU_BODY_TIMEOUT": "1",
    "WHICHGPU_MAX_CONNECTIONS": "12",
    "WHICHGPU_MAX_CONNECTIONS_PER_CLIENT": "6",
    "WHICHGPU_RATE_LIMIT": "0",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    data = tmp_path_factory.mktemp("limits")
    process = ServerProcess(f"sqlite:///{data / 'w.db'}", data, **LIMITS).start()
    yield process
    process.stop()


def _open(server, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=5, source_address=(source, 0))
    sock.settimeout(5)
    return sock


def _answer(sock: socket.socket) -> tuple[int, dict]:
    """The status and JSON body of one response (the server closes the connection after it)."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    sock.settimeout(seconds)
    try:
        return sock.recv(1) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def test_a_flood_of_header_lines_is_refused_before_it_grows_the_server(server):
    sock = _open(server)
    sent = 0
    sock.sendall(b"GET /healthz HTTP/1.1\r\nhost: x\r\n")
    try:
        for _ in range(20_000):  # up to 20 MB of header lines
            sock.sendall(b"x-filler: " + b"a" * 1000 + b"\r\n")
            sent += 1012
    except (BrokenPipeError, ConnectionResetError):
        pass
    status, problem = _answer(sock) if sent < 20_000 * 1012 else (0, {})
    assert sent < 2_000_000, f"the server read {sent} bytes of headers"
    assert status == 431 and problem["status"] == 431 and problem["errors"][0]["field"] == "headers"


def test_too_many_header_lines_get_431(server):
    response = httpx.get(f"{server.url}/healthz", headers={f"x-h{i}": "1" for i in range(150)})
    assert response.status_code == 431
    assert response.headers["content-type"].startswith("application/problem+json")


def test_an_idle_connection_and_a_slow_head_are_closed(server):
    idle = _open(server)
    slow = _open(server)
    slow.sendall(b"GET /healthz HTTP/1.1\r\n")
    started = time.monotonic()
    try:
        for byte in b"host: x\r\nx-a: b":  # a byte every 0.1 s: each one in time, the head never whole
            slow.sendall(bytes([byte]))
            time.sleep(0.1)
            if time.monotonic() - started > 1.2:
                break
    except (BrokenPipeError, ConnectionResetError):
        pass
    assert _closed_within(idle, 3) and _closed_within(slow, 3)


def test_a_slow_body_is_closed(server):
    sock = _open(server)
    sock.sendall(
        b"POST /v1/ask HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"
    )
    assert _closed_within(sock, 4)


def test_beyond_the_connection_limit_new_ones_get_503_until_the_idle_ones_go(server):
    """1,100 idle connections once took every file descriptor, and every normal request failed, silently."""
    held = [_open(server, f"127.0.2.{n}") for n in range(1, 13)]
    time.sleep(0.2)
    status, problem = _answer(_open(server, "127.0.2.13"))
    assert status == 503 and problem["errors"][0]["field"] == "connection"
    assert "12 connections" in problem["detail"]
    for sock in held:
        assert _closed_within(sock, 3)  # the head timeout frees them
    assert httpx.get(f"{server.url}/healthz").status_code == 200


def test_one_address_cannot_take_every_connection(server):
    held = [_open(server, "127.0.3.1") for _ in range(6)]
    time.sleep(0.2)
    status, problem = _answer(_open(server, "127.0.3.1"))
    assert status == 503 and "this address" in problem["detail"]
    other = _open(server, "127.0.3.2")
    other.sendall(b"GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
    assert _answer(other)[0] == 200
    for sock in held:
        sock.close()


def test_forwarded_for_is_ignored_unless_the_peer_is_a_listed_proxy(tmp_path):
    """With a rate limit of 2 a minute, requests that each claim another client are still one client."""
    for trusted, limited in (("", True), ("127.0.0.1", False)):
        env = {**LIMITS, "WHICHGPU_RATE_LIMIT": "2", "WHICHGPU_TRUSTED_PROXIES": trusted}
        data = tmp_path / (trusted or "none")
        process = ServerProcess(f"sqlite:///{data / 'w.db'}", data, **env).start()
        try:
            statuses = [
                httpx.get(
                    f"{process.url}/v1/models", headers={"x-forwarded-for": f"203.0.113.{i}"}
                ).status_code
                for i in range(4)
            ]
        finally:
            process.stop()
        assert (429 in statuses) is limited, (trusted, statuses)
