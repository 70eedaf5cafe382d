"""Noise interception: every recognised primitive call is recorded, or replayed from a tape.

While a :class:`Session` is active on a thread, numpy's legacy ``np.random.*``
functions, ``Generator`` methods (generators made by ``default_rng`` or held
in the audited function's globals), Python's ``random`` functions,
diffprivlib's ``randomise`` and OpenDP's ``Measurement.__call__`` go through
:meth:`Session.primitive`.  Recording draws from the session's own seeded
generators (reproducible whatever the user seeded); replaying hands back the
recorded noise about the new call's centre, matched by call site and order.
The patches are installed on first entry and removed on the last exit (a
lock and a count; other threads see the originals), and a profile hook
reports randomness that reaches no recognised primitive (``os.urandom``,
a generator faier did not wrap).
"""

from __future__ import annotations

import os
import random
import sys
import sysconfig
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from faier.auditing.primitives import (
    LOCATION_FAMILIES,
    NUMPY,
    PYTHON,
    Reading,
    Site,
    diffprivlib_reading,
)


@dataclass(frozen=True, eq=False)
class Draw:
    """One recorded primitive call: where, what, about which centre, and the noise drawn."""

    site: Site
    source: str
    reading: Reading
    shape: tuple[int, ...]
    centre: np.ndarray | None
    """The centre per element (flat float64), for location families."""
    scales: tuple[Fraction, ...] | None
    """The scale per element, exactly (the floats the code passed, as rationals)."""
    noise: np.ndarray | None
    """value − centre per element (flat), for location families."""
    value: Any
    seed: int | None = None
    """The random seed a library mechanism's own generator was run with (replayed the same)."""
    bad_scale: bool = False
    """A scale that is NaN, infinite or negative."""

    @property
    def family(self) -> str:
        return self.reading.family

    def key(self) -> tuple[Any, ...]:
        """What a replayed call must agree on: site, source, family, shape (and a selector's
        arguments)."""
        params = self.reading.params if self.family == "selector" else ()
        return (self.site, self.source, self.family, self.shape, params)

    def describe(self) -> str:
        scale = "" if self.scales is None else f", scale {_show_scales(self.scales)}"
        return f"{self.source} ({self.family}{scale}) at {self.site.show()}"


def _show_scales(scales: tuple[Fraction, ...]) -> str:
    distinct = sorted(set(scales))
    shown = ", ".join(f"{float(s):.6g}" for s in distinct[:3])
    return shown if len(distinct) <= 3 else shown + ", …"


@dataclass(frozen=True)
class Mismatch:
    """The first call where a replay left the recorded sequence."""

    index: int
    expected: Draw | None
    got: Draw | None

    def describe(self) -> str:
        if self.got is None and self.expected is not None:
            return f"call {self.index + 1} ({self.expected.describe()}) is made on D only"
        if self.expected is None and self.got is not None:
            return f"call {self.index + 1} ({self.got.describe()}) is made on D′ only"
        assert self.expected is not None and self.got is not None
        return (
            f"call {self.index + 1}: D makes {self.expected.describe()}, "
            f"D′ makes {self.got.describe()}"
        )


@dataclass(frozen=True)
class Unrecognised:
    """A source of randomness faier does not intercept, and where it was reached."""

    what: str
    site: Site

    def describe(self) -> str:
        return f"{self.what} at {self.site.show()}"


@dataclass
class Session:
    """One run's interception: record (``tape`` None) or replay ``tape`` (with probe offsets)."""

    seed: int
    tape: Sequence[Draw] | None = None
    offsets: dict[int, np.ndarray] = field(default_factory=dict)
    draws: list[Draw] = field(default_factory=list)
    mismatch: Mismatch | None = None
    unrecognised: list[Unrecognised] = field(default_factory=list)
    seeded: list[Site] = field(default_factory=list)
    verbatim: bool = False
    """Replay D's very values (not its noise about the new centre)."""
    inside: int = 0
    numpy: np.random.RandomState = field(init=False)
    generator: np.random.Generator = field(init=False)
    python: random.Random = field(init=False)
    library: np.random.Generator = field(init=False)

    def __post_init__(self) -> None:
        seeds = np.random.SeedSequence(self.seed).generate_state(4)
        self.numpy = np.random.RandomState(int(seeds[0]))
        self.generator = np.random.default_rng(int(seeds[1]))
        self.python = random.Random(int(seeds[2]))
        self.library = np.random.default_rng(int(seeds[3]))

    def primitive(
        self,
        source: str,
        reading: Reading,
        fresh: Callable[[], Any],
        depth: int,
        library_call: Callable[[int | None], Any] | None = None,
    ) -> Any:
        """Record or replay one call; ``fresh`` draws it from the session's generators."""
        site = call_site(depth + 1)
        seed = int(self.library.integers(2**31)) if library_call is not None else None
        self.inside += 1
        try:
            value = library_call(seed) if library_call is not None else fresh()
        finally:
            self.inside -= 1
        draw = make_draw(site, source, reading, value, seed)
        index = len(self.draws)
        if self.tape is not None and self.mismatch is None:
            expected = self.tape[index] if index < len(self.tape) else None
            if expected is None or expected.key() != draw.key():
                self.mismatch = Mismatch(index, expected, draw)
            else:
                draw, value = self._replayed(expected, draw, index, library_call)
        self.draws.append(draw)
        return value

    def _replayed(
        self,
        expected: Draw,
        draw: Draw,
        index: int,
        library_call: Callable[[int | None], Any] | None,
    ) -> tuple[Draw, Any]:
        if self.verbatim:
            value = expected.value
            if index in self.offsets and draw.family in LOCATION_FAMILIES:
                flat = np.asarray(value, dtype=np.float64).ravel() + self.offsets[index]
                value = _like(expected.value, flat, draw.shape, draw.family)
            return make_draw(draw.site, draw.source, draw.reading, value, expected.seed), value
        if draw.family in LOCATION_FAMILIES and expected.noise is not None:
            assert draw.centre is not None
            noise = expected.noise + self.offsets.get(index, 0.0)
            flat = draw.centre + noise
            if index not in self.offsets and expected.centre is not None:
                # the same centre gets the very value recorded, not (v − c) + c rounded
                recorded = np.asarray(expected.value, dtype=np.float64).ravel()
                flat = np.where(draw.centre == expected.centre, recorded, flat)
            value = _like(expected.value, flat, draw.shape, draw.family)
            return make_draw(draw.site, draw.source, draw.reading, value, expected.seed), value
        if library_call is not None:
            self.inside += 1
            try:
                value = library_call(expected.seed)
            finally:
                self.inside -= 1
            return make_draw(draw.site, draw.source, draw.reading, value, expected.seed), value
        return make_draw(draw.site, draw.source, draw.reading, expected.value, None), expected.value

    def finish(self) -> None:
        """A replay that made fewer calls than the tape: the first missing call."""
        if self.tape is not None and self.mismatch is None and len(self.draws) < len(self.tape):
            index = len(self.draws)
            self.mismatch = Mismatch(index, self.tape[index], None)


def _like(original: Any, flat: np.ndarray, shape: tuple[int, ...], family: str) -> Any:
    """The replayed value in the type the primitive returned (float, int, array)."""
    if isinstance(original, np.ndarray):
        return flat.reshape(shape).astype(original.dtype, copy=False)
    if isinstance(original, list):
        whole = all(isinstance(v, int) for v in original)
        return [int(np.round(v)) if whole else float(v) for v in flat]
    if isinstance(original, int | np.integer) and not isinstance(original, bool):
        return int(np.round(flat[0]))
    if isinstance(original, np.floating):
        return type(original)(flat[0])
    return float(flat[0])


def _flat(value: Any, shape: tuple[int, ...]) -> np.ndarray:
    return np.broadcast_to(np.asarray(value, dtype=np.float64), shape).ravel().copy()


def make_draw(site: Site, source: str, reading: Reading, value: Any, seed: int | None) -> Draw:
    """A draw from a call's reading and the value it returned."""
    shape = tuple(np.shape(value))
    centre = noise = None
    scales: tuple[Fraction, ...] | None = None
    bad = False
    if reading.family in LOCATION_FAMILIES:
        try:
            centre = _flat(reading.centre, shape)
            noise = np.asarray(value, dtype=np.float64).ravel() - centre
            raw = _scale_values(reading.scale, shape)
            bad = not all(isinstance(s, Fraction) or (np.isfinite(s) and s >= 0) for s in raw)
            scales = tuple(_exact(s) for s in raw)
        except (TypeError, ValueError):
            centre = noise = None
            scales = None
            reading = Reading("selector", None, None, (("value", repr(reading.centre)),))
    return Draw(site, source, reading, shape, centre, scales, noise, value, seed, bad)


def _scale_values(scale: Any, shape: tuple[int, ...]) -> list[Any]:
    if isinstance(scale, Fraction):
        return [scale] * max(1, int(np.prod(shape)))
    return list(np.broadcast_to(np.asarray(scale, dtype=np.float64), shape).ravel())


def _exact(value: Any) -> Fraction:
    """A scale as a rational (NaN and ±inf kept out: they are findings, read as 0 here)."""
    if isinstance(value, Fraction):
        return value
    number = float(value)
    return Fraction(number) if np.isfinite(number) else Fraction(0)


# ---------------------------------------------------------------- call sites

_HERE = os.path.dirname(os.path.abspath(__file__))
_STDLIB = sysconfig.get_paths()["stdlib"]
_CORE = (
    os.path.dirname(np.__file__),
    os.path.dirname(random.__file__) + os.sep + "random.py",
    _HERE,
)


def _library(filename: str) -> bool:
    return (
        filename.startswith(_CORE)
        or "site-packages" in filename
        or filename.startswith(_STDLIB)
        or filename.startswith("<frozen")
    )


def call_site(depth: int) -> Site:
    """The first frame outside libraries (else the first outside numpy, random and faier)."""
    frame = sys._getframe(depth + 1)
    first_outside_core: Any = None
    walker: Any = frame
    while walker is not None:
        name = walker.f_code.co_filename
        if walker.f_code is _BOUNDARY.code:
            break
        if not _library(name):
            return _site(walker)
        if first_outside_core is None and not name.startswith(_CORE):
            first_outside_core = walker
        walker = walker.f_back
    return _site(first_outside_core or frame)


def _site(frame: Any) -> Site:
    return Site(frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)


class _Boundary:
    code: Any = None


_BOUNDARY = _Boundary()
"""The code object of the runner's call into user code: call sites stop there."""


# ---------------------------------------------------------------- installation

_state = threading.local()
_lock = threading.Lock()
_installed = {"count": 0}
_saved: list[tuple[Any, str, Any]] = []


def active() -> Session | None:
    """The session of this thread, None outside an audit or inside a primitive."""
    session: Session | None = getattr(_state, "session", None)
    if session is None or session.inside:
        return None
    return session


def _numpy_function(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
    read = NUMPY[name]

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        session = active()
        if session is None:
            return original(*args, **kwargs)
        method = getattr(session.numpy, name)
        return session.primitive(
            f"numpy.random.{name}", read(args, kwargs), lambda: method(*args, **kwargs), 1
        )

    wrapper.__name__ = name
    wrapper.__doc__ = original.__doc__
    return wrapper


def _python_function(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
    read = PYTHON[name]

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        session = active()
        if session is None:
            return original(*args, **kwargs)
        method = getattr(session.python, name)
        return session.primitive(
            f"random.{name}", read(args, kwargs), lambda: method(*args, **kwargs), 1
        )

    wrapper.__name__ = name
    wrapper.__doc__ = original.__doc__
    return wrapper


def _seed_function(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        session = active()
        if session is not None:
            session.seeded.append(call_site(1))
        return original(*args, **kwargs)

    wrapper.__name__ = name
    return wrapper


def _method(name: str, kind: str) -> Callable[..., Any]:
    read = NUMPY[name]

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        session = active()
        base = np.random.Generator if kind == "Generator" else np.random.RandomState
        original = getattr(base, name)
        if session is None:
            return original(self, *args, **kwargs)
        own = session.generator if kind == "Generator" else session.numpy
        draw = getattr(own, name)
        return session.primitive(
            f"{kind}.{name}", read(args, kwargs), lambda: draw(*args, **kwargs), 1
        )

    method.__name__ = name
    return method


class RecordingGenerator(np.random.Generator):
    """A ``Generator`` whose recognised methods are primitives while a session is active."""


class RecordingRandomState(np.random.RandomState):
    """A legacy ``RandomState`` whose recognised methods are primitives in a session."""


for _name in NUMPY:
    if hasattr(np.random.Generator, _name):
        setattr(RecordingGenerator, _name, _method(_name, "Generator"))
    if hasattr(np.random.RandomState, _name):
        setattr(RecordingRandomState, _name, _method(_name, "RandomState"))


def _default_rng(original: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(seed: Any = None) -> Any:
        session = active()
        if session is None:
            return original(seed)
        if seed is not None and not isinstance(seed, np.random.Generator):
            session.seeded.append(call_site(1))
        session.inside += 1  # fresh entropy for the generator's own state is not a draw
        try:
            bits = original(seed).bit_generator
        finally:
            session.inside -= 1
        return RecordingGenerator(bits)

    wrapper.__name__ = "default_rng"
    return wrapper


def _randomise(defining: type, original: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        session = active()
        if session is None:
            return original(self, *args, **kwargs)
        value = args[0] if args else kwargs.get("value")

        def run(seed: int | None) -> Any:
            saved = getattr(self, "_rng", None)
            self._rng = _like_generator(saved, seed)
            try:
                return original(self, *args, **kwargs)
            finally:
                self._rng = saved

        reading = diffprivlib_reading(self, value, defining)
        source = f"diffprivlib.{defining.__name__}.randomise"
        return session.primitive(source, reading, lambda: None, 1, library_call=run)

    wrapper.__name__ = "randomise"
    wrapper.__doc__ = original.__doc__
    return wrapper


def _like_generator(original: Any, seed: int | None) -> Any:
    """A generator of the kind a mechanism holds (numpy's or Python's), seeded for a replay."""
    if isinstance(original, np.random.RandomState):
        return np.random.RandomState(seed)
    if isinstance(original, np.random.Generator):
        return np.random.default_rng(seed)
    return random.Random(seed)


_FAIER_FAMILIES = {
    "laplace": "laplace",
    "exponential": "exponential",
    "gaussian": "gaussian",
    "discrete_laplace": "discrete-laplace",
}


def _faier_sample(original: Callable[..., Any]) -> Callable[..., Any]:
    """faier's own distributions (``faier.laplace(loc, b).sample(rng)``) as primitives, read
    exactly from their rational location and scale."""

    def sample(self: Any, rng: Any) -> Any:
        session = active()
        if session is None:
            return original(self, rng)
        family = _FAIER_FAMILIES.get(self.kind, "library")
        reading = Reading(family, self.loc, self.scale if family != "library" else None)
        generator = session.generator
        return session.primitive(
            f"faier.{self.kind}", reading, lambda: original(self, generator), 1
        )

    sample.__name__ = "sample"
    return sample


def _patch(owner: Any, name: str, replacement: Any) -> None:
    _saved.append(
        (owner, name, owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name))
    )
    setattr(owner, name, replacement)


def _install() -> None:
    for name in NUMPY:
        if hasattr(np.random, name):
            _patch(np.random, name, _numpy_function(name, getattr(np.random, name)))
    for name in PYTHON:
        if hasattr(random, name):
            _patch(random, name, _python_function(name, getattr(random, name)))
    _patch(np.random, "seed", _seed_function("seed", np.random.seed))
    _patch(random, "seed", _seed_function("seed", random.seed))
    _patch(np.random, "default_rng", _default_rng(np.random.default_rng))
    # libraries reach numpy's global RandomState through check_random_state(None)
    shared = np.random.mtrand._rand
    _patch(np.random.mtrand, "_rand", RecordingRandomState(shared._bit_generator))
    for module_name, class_name in (
        ("faier.mechanisms.continuous", "Continuous"),
        ("faier.mechanisms.discrete_noise", "DiscreteNoise"),
    ):
        module = sys.modules.get(module_name)
        if module is not None:
            owner = getattr(module, class_name)
            _patch(owner, "sample", _faier_sample(owner.__dict__["sample"]))
    mechanisms = sys.modules.get("diffprivlib.mechanisms")
    if mechanisms is not None:
        for value in vars(mechanisms).values():
            if isinstance(value, type) and "randomise" in value.__dict__:
                _patch(value, "randomise", _randomise(value, value.__dict__["randomise"]))
    opendp_mod = sys.modules.get("opendp.mod")
    if opendp_mod is not None:
        from faier.auditing import opendp_calls

        measurement = opendp_mod.Measurement
        _patch(measurement, "__call__", opendp_calls.wrap(measurement.__dict__["__call__"]))


def _uninstall() -> None:
    while _saved:
        owner, name, original = _saved.pop()
        setattr(owner, name, original)


# ---------------------------------------------------------------- unrecognised randomness

_RANDOM_TYPES: tuple[type, ...] = (
    np.random.Generator,
    np.random.RandomState,
    np.random.BitGenerator,
)


def _unrecognised(arg: Any) -> str | None:
    if arg is os.urandom or arg is getattr(os, "getrandom", None):
        return f"os.{getattr(arg, '__name__', 'urandom')}"
    owner = getattr(arg, "__self__", None)
    name = getattr(arg, "__name__", "?")
    if not isinstance(name, str):
        return None
    if isinstance(owner, _RANDOM_TYPES):
        return f"{type(owner).__name__}.{name} of a generator faier did not wrap"
    if isinstance(owner, random.Random):
        return f"{type(owner).__name__}.{name} (a random.Random instance faier did not wrap)"
    module = getattr(arg, "__module__", None)
    if isinstance(module, str) and module.startswith("torch") and "rand" in str(name):
        return f"{module}.{name}"
    return None


_IDENTIFIERS = (os.sep + "uuid.py", os.sep + "tempfile.py")
"""Standard modules whose entropy names things (joblib's uuid4, temporary files): an output
that carried it would fail the replay-to-itself check instead."""


def _profile(frame: Any, event: str, arg: Any) -> None:
    if event != "c_call" or frame.f_code.co_filename.endswith(_IDENTIFIERS):
        return
    session: Session | None = getattr(_state, "session", None)
    if session is None or session.inside:
        return
    what = _unrecognised(arg)
    if what is not None:
        found = Unrecognised(what, call_site(1))
        if found not in session.unrecognised:
            session.unrecognised.append(found)


@contextmanager
def intercepting(session: Session) -> Iterator[Session]:
    """Patch on entry (first of any thread), unpatch on the last exit; this thread's session."""
    with _lock:
        if _installed["count"] == 0:
            _install()
        _installed["count"] += 1
    previous_profile = sys.getprofile()
    _state.session = session
    sys.setprofile(_profile)
    try:
        yield session
    finally:
        sys.setprofile(previous_profile)
        _state.session = None
        with _lock:
            _installed["count"] -= 1
            if _installed["count"] == 0:
                _uninstall()
