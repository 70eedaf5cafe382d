"""A caller's progress callback, called from an isolated child as if it ran there.

The callback is the caller's object: it must see every call, in its own
process, with what it does there kept.  The child gets a :class:`Relay`
in its place; each call writes one request to a pipe and waits for the
answer, which the parent's :class:`Server` writes after making the call on
the real object.  One call in flight at a time: the child waits while a
slow callback runs (as it would in-process), no buffer fills, and neither
side ever waits for the other to read.  What the callback raises is raised
in the child at that call, marked, so that when it comes back as the
child's own exception the parent raises the original object instead.
"""

from __future__ import annotations

import os
import pickle
from dataclasses import dataclass, field
from typing import Any

MARK = "_faier_relayed"
"""The attribute that marks an exception raised by the caller's callback (its number)."""
_LARGEST_ANSWER = 1 << 14
"""Bytes: a larger answer (a huge exception) is sent as a short stand-in, so that the
parent's write never waits on a pipe that a stray copy of the child holds and never reads."""
_HEAD = 8


def write_frame(fd: int, data: bytes) -> None:
    """``data`` with its length in front, all of it."""
    view = memoryview(len(data).to_bytes(_HEAD, "little") + data)
    while view:
        view = view[os.write(fd, view) :]


def read_frame(fd: int) -> bytes:
    """One frame written by :func:`write_frame` (blocking); EOFError if the pipe closed."""
    head = _read_exactly(fd, _HEAD)
    return _read_exactly(fd, int.from_bytes(head, "little"))


def _read_exactly(fd: int, size: int) -> bytes:
    parts: list[bytes] = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            raise EOFError("the caller's process closed the progress pipe")
        parts.append(chunk)
        size -= len(chunk)
    return b"".join(parts)


class Pipes:
    """The relay's two pipes: requests (child to parent) and answers (parent to child)."""

    def __init__(self) -> None:
        self.requests, self._requests_in = os.pipe()
        self._answers_out, self.answers = os.pipe()
        self._open = {self.requests, self._requests_in, self._answers_out, self.answers}

    def link(self, progress: Any) -> Link:
        """The child's side: its ends of the pipes and the shape of the caller's object."""
        methods = tuple(
            name
            for name in dir(progress)
            if not name.startswith("_") and callable(getattr(progress, name, None))
        )
        return Link(self._requests_in, self._answers_out, callable(progress), methods)

    def parent_ends(self) -> tuple[int, int]:
        """The ends a forked child closes (so that a parent gone reads as the end of the pipe)."""
        return self.requests, self.answers

    def close_child_ends(self) -> None:
        """In the parent once the child started: the child's ends are the child's alone."""
        self._close(self._requests_in, self._answers_out)

    def close(self) -> None:
        self._close(*tuple(self._open))

    def _close(self, *fds: int) -> None:
        for fd in fds:
            if fd in self._open:
                self._open.discard(fd)
                os.close(fd)


@dataclass(frozen=True)
class Link:
    """What the child needs to build its :class:`Relay` (JSON for a new interpreter)."""

    requests: int
    answers: int
    callable_: bool
    methods: tuple[str, ...]

    def relay(self) -> Relay:
        return Relay(self.requests, self.answers, self.callable_, self.methods)

    def fds(self) -> tuple[int, int]:
        return self.requests, self.answers

    def to_json(self) -> list[Any]:
        return [self.requests, self.answers, self.callable_, list(self.methods)]

    @staticmethod
    def from_json(found: list[Any]) -> Link:
        requests, answers, callable_, methods = found
        return Link(int(requests), int(answers), bool(callable_), tuple(map(str, methods)))


class Relay:
    """In the child: the caller's callback (or progress object), each call made in the parent."""

    def __init__(
        self, requests: int, answers: int, callable_: bool, methods: tuple[str, ...]
    ) -> None:
        self._requests, self._answers = requests, answers
        self._callable, self._methods = callable_, frozenset(methods)
        self._owner = os.getpid()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not self._callable:
            raise TypeError("the progress object given is not callable")
        return self._forward("__call__", args, kwargs)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name not in self._methods:
            raise AttributeError(name)

        def forwarded(*args: Any, **kwargs: Any) -> Any:
            return self._forward(name, args, kwargs)

        return forwarded

    def _forward(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if os.getpid() != self._owner:  # a copy forked by user code: its calls are not the run's
            return None
        write_frame(self._requests, pickle.dumps((name, args, kwargs)))
        kind, payload = pickle.loads(read_frame(self._answers))
        if kind == "raised":
            raise payload
        return payload


@dataclass
class Server:
    """In the parent: makes the child's calls on the caller's object and answers each."""

    progress: Any
    requests: int
    answers: int
    closed: bool = False
    raised: dict[int, BaseException] = field(default_factory=dict)
    _buffer: bytearray = field(default_factory=bytearray)

    def serve(self) -> None:
        """Read what the child sent (the pipe is readable) and answer every whole request.

        An ``Exception`` of the callback goes back to the child; anything else
        (``KeyboardInterrupt``) is raised here and the caller stops the child.
        """
        chunk = os.read(self.requests, 1 << 16)
        if not chunk:
            self.closed = True
            return
        self._buffer += chunk
        while len(self._buffer) >= _HEAD:
            size = int.from_bytes(self._buffer[:_HEAD], "little")
            if len(self._buffer) < _HEAD + size:
                return
            data = bytes(self._buffer[_HEAD : _HEAD + size])
            del self._buffer[: _HEAD + size]
            self._answer(data)

    def _answer(self, data: bytes) -> None:
        name, args, kwargs = pickle.loads(data)
        call = self.progress if name == "__call__" else getattr(self.progress, name)
        try:
            answer = _value(call(*args, **kwargs))
        except Exception as failure:
            number = len(self.raised) + 1
            self.raised[number] = failure
            answer = _raised(failure, number)
        try:
            write_frame(self.answers, answer)
        except OSError:  # the child is gone: its end shows in its exit status
            self.closed = True

    def original(self, failure: BaseException) -> BaseException:
        """The caller's own exception when ``failure`` (the child's) is one the callback raised."""
        number = getattr(failure, MARK, None)
        found = self.raised.get(number) if isinstance(number, int) else None
        return found if found is not None else failure


def _raised(failure: Exception, number: int) -> bytes:
    """The answer that raises a marked copy of the callback's exception in the child
    (a copy: the caller's object stays as it is); its type and text if it cannot travel."""
    try:
        copy = pickle.loads(pickle.dumps(failure))
        setattr(copy, MARK, number)
        data = pickle.dumps(("raised", copy))
    except Exception:
        data = b""
    if data and len(data) <= _LARGEST_ANSWER:
        return data
    stand_in = RuntimeError(f"{type(failure).__name__}: {failure}"[: _LARGEST_ANSWER // 2])
    setattr(stand_in, MARK, number)
    return pickle.dumps(("raised", stand_in))


def _value(value: Any) -> bytes:
    """What the callback returned (None if it cannot travel: a progress call's value is
    rarely read)."""
    try:
        data = pickle.dumps(("value", value))
    except Exception:
        data = b""
    return data if data and len(data) <= _LARGEST_ANSWER else pickle.dumps(("value", None))
