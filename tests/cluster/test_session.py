"""``--cluster`` at a server that is not a dask scheduler: a bounded handshake, then exit 2."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from faier.cluster import session
from faier.cluster.address import read_cluster
from faier.errors import SpecError

FAIER = str(Path(sys.executable).parent / "faier")


def _server(answer: bytes | None) -> Iterator[str]:
    """A TCP server that writes ``answer`` to every connection (None: says nothing)."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    held: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            held.append(conn)
            if answer is not None:
                with contextlib.suppress(OSError):
                    conn.sendall(answer)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"tcp://127.0.0.1:{port}"
    finally:
        listener.close()
        for conn in held:
            conn.close()


@pytest.fixture
def garbage() -> Iterator[str]:
    """An HTTP-ish answer whose bytes dask reads as a frame of exabytes."""
    yield from _server(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n" + b"\xff" * 64)


@pytest.fixture
def silent() -> Iterator[str]:
    yield from _server(None)


@pytest.mark.parametrize(
    "command",
    [
        ["epsilon", "above-threshold", "--horizon", "3"],
        ["test", "noisy-max-laplace", "--claimed", "0.7", "--samples", "1000"],
    ],
    ids=lambda c: c[0],
)
def test_a_server_that_answers_garbage_is_bad_input(garbage: str, command: list[str]) -> None:
    done = subprocess.run(
        [FAIER, *command, "--cluster", garbage],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert f"--cluster: no dask scheduler answers at {garbage}" in done.stderr
    assert done.stdout == ""


def test_batch_at_a_server_that_answers_garbage_is_bad_input(garbage: str, tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text("jobs: [{target: geometric}]\n", encoding="utf-8")
    done = subprocess.run(
        [FAIER, "batch", str(suite), "--cluster", garbage],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert f"no dask scheduler answers at {garbage}" in done.stderr


def test_a_server_that_never_answers_is_bad_input_after_the_handshake_limit(
    silent: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(session, "CONNECT_SECONDS", 0.5)
    with pytest.raises(SpecError) as refused, session.open_client(read_cluster(silent)):
        pass
    assert refused.value.where == "--cluster"
    assert f"no dask scheduler answers at {silent} (no handshake within 0.5 s)" in str(
        refused.value
    )
