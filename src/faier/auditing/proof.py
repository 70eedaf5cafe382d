"""A proof that a function holds for every neighbouring pair, from its recorded structure.

The function is run once more on a *tracer* standing for every dataset at once
(a 1-D array of numbers of any length, NaN and ±inf included): the tracer holds
no values, only a sound bound on how far each derived value can move between
neighbours.  What it models, and nothing else:

* ``np.nan_to_num(x, nan=…, posinf=…, neginf=…)`` and ``np.clip(x, lo, hi)`` with
  constant bounds: each record then lies in a known interval (a record that may
  be NaN stays unbounded: ``np.clip`` passes NaN through);
* ``np.sum(x)`` / ``x.sum()`` of bounded records: it moves by max(|lo|, |hi|)
  under add/remove and by hi − lo under replace-one;
* constants added, subtracted, multiplied or divided into such a sum;
* a Laplace draw with a constant centre and a constant positive scale b, added
  to (or subtracted from) such a sum exactly once: that release costs Δ/b;
* the released values combined with constants and with each other
  (post-processing), and ``float`` of a release, after which no traced value
  is touched and no draw is made.

Anything else (a comparison, ``len``, iteration, indexing, an unknown numpy
function, another primitive, a scale or bound computed from the data) makes
the trace *escape*, and there is no proof.  So that the traced path is the only
path, the function's own bytecode must be straight-line (no branch, loop,
subscript, comparison, f-string or nested code) and name only numpy's
``random``, ``laplace``, ``default_rng``, ``clip``, ``nan_to_num``, ``sum`` and
the builtin ``float``; its arguments must be plain numbers or strings.
"""

from __future__ import annotations

import builtins
import dis
import math
import os
import sys
import sysconfig
import types
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from faier.auditing.data import Dataset
from faier.auditing.intercept import Session, intercepting
from faier.auditing.primitives import Reading

LAPLACE_SOURCES = (
    "numpy.random.laplace",
    "Generator.laplace",
    "RandomState.laplace",
)
OPCODES = frozenset(
    {
        "RESUME",
        "NOP",
        "LOAD_FAST",
        "STORE_FAST",
        "LOAD_CONST",
        "LOAD_GLOBAL",
        "LOAD_ATTR",
        "LOAD_METHOD",
        "PRECALL",
        "CALL",
        "KW_NAMES",
        "PUSH_NULL",
        "BINARY_OP",
        "UNARY_NEGATIVE",
        "POP_TOP",
        "BUILD_TUPLE",
        "BUILD_LIST",
        "RETURN_VALUE",
        "RETURN_CONST",
        # the same loads, stores and calls as later Pythons spell them (none of them branches)
        "LOAD_FAST_CHECK",
        "LOAD_FAST_LOAD_FAST",
        "STORE_FAST_LOAD_FAST",
        "STORE_FAST_STORE_FAST",
        "LOAD_FAST_BORROW",
        "LOAD_FAST_BORROW_LOAD_FAST_BORROW",
        "LOAD_SMALL_INT",
        "CALL_KW",
    }
)
"""The bytecode a provable function may execute: straight-line, no subscript, no comparison
(a tuple or list is built, never indexed)."""
_SUM, _CLIP, _NAN_TO_NUM = np.sum, np.clip, np.nan_to_num
"""numpy's own functions, kept at import: a name rebound later is not taken for them."""
LARGEST_BOUND = 2**20
"""Records summed must lie within ±2**20: no int64 or float64 sum of a dataset that fits in
memory then overflows (it would need 2**43 records)."""
GLOBALS = {"np": np, "numpy": np, "float": float}
ATTRIBUTES = frozenset({"random", "laplace", "default_rng", "clip", "nan_to_num", "sum"})
RESTS_ON = (
    "numpy's clip, nan_to_num and sum and the arithmetic on them modelled in exact real "
    "arithmetic (floating-point rounding of the sum and of the Laplace sampler not modelled)",
    "the recognised primitives being the function's only randomness (checked by replaying "
    "its draws on the original data)",
    "datasets: 1-D arrays of numbers, one number per record (NaN and ±inf included)",
    "numpy as installed: its random module's laplace is the Laplace distribution",
)


class Escape(Exception):
    """The trace left what the proof models."""


@dataclass(frozen=True)
class Charge:
    """One Laplace release: the sum's bound Δ, the scale b, the loss Δ/b."""

    sensitivity: Fraction
    scale: Fraction
    line: int

    @property
    def loss(self) -> Fraction:
        return self.sensitivity / self.scale

    def to_json(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "sensitivity": str(self.sensitivity),
            "scale": str(self.scale),
            "loss": str(self.loss),
        }


@dataclass(frozen=True)
class Proof:
    """ε-DP for every neighbouring pair under the relation: the composed charges ≤ ε."""

    relation: str
    charges: tuple[Charge, ...]

    @property
    def loss(self) -> Fraction:
        return sum((c.loss for c in self.charges), Fraction(0))

    def to_json(self) -> dict[str, Any]:
        return {
            "scope": f"every {self.relation} neighbouring pair of every dataset",
            "loss_bound": str(self.loss),
            "charges": [c.to_json() for c in self.charges],
            "rests_on": list(RESTS_ON),
        }


class _Trace:
    """The state of one proof run: escaped, released, the charges so far."""

    def __init__(self, relation: str, code: types.CodeType) -> None:
        self.relation = relation
        self.code = code
        self.escaped: str | None = None
        self.released = False
        self.charges: list[Charge] = []

    def escape(self, why: str) -> Escape:
        if self.escaped is None:
            self.escaped = why
        return Escape(why)

    def touch(self) -> None:
        """A traced value used: only before a release was converted to a plain value."""
        if self.released:
            raise self.escape("a traced value is used after a release was converted")

    def line(self) -> int:
        frame: Any = sys._getframe(1)
        while frame is not None and frame.f_code is not self.code:
            frame = frame.f_back
        return 0 if frame is None else int(frame.f_lineno)


def _constant(value: Any) -> Fraction | None:
    """A plain finite real number as an exact rational, else None."""
    if isinstance(value, bool | np.bool_) or not isinstance(
        value, int | float | Fraction | np.integer | np.floating
    ):
        return None
    if isinstance(value, Fraction):
        return value
    number = float(value)
    if not math.isfinite(number) or (isinstance(value, int | np.integer) and number != value):
        return None
    return Fraction(int(value)) if isinstance(value, int | np.integer) else Fraction(number)


class _Traced:
    """A value derived from the data: every conversion, comparison and unknown use escapes."""

    __slots__ = ("_trace",)
    __array_ufunc__ = None

    def __init__(self, trace: _Trace) -> None:
        object.__setattr__(self, "_trace", trace)

    def _escape(self, why: str) -> Escape:
        trace: _Trace = object.__getattribute__(self, "_trace")
        return trace.escape(why)

    def __getattr__(self, name: str) -> Any:
        raise self._escape(f"attribute {name!r} of a traced value")

    def __setattr__(self, name: str, value: Any) -> None:
        raise self._escape("a traced value is modified")

    def __bool__(self) -> bool:
        raise self._escape("a branch on a traced value")

    def __len__(self) -> int:
        raise self._escape("len() of a traced value (the dataset size is private)")

    def __iter__(self) -> Any:
        raise self._escape("iteration over a traced value")

    def __getitem__(self, key: Any) -> Any:
        raise self._escape("indexing a traced value")

    def __float__(self) -> float:
        raise self._escape("float() of an unreleased traced value")

    def __int__(self) -> int:
        raise self._escape("int() of a traced value")

    def __index__(self) -> int:
        raise self._escape("a traced value used as an index")

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise self._escape("a traced value converted to an array")

    def __repr__(self) -> str:
        raise self._escape("repr() of a traced value")

    def __str__(self) -> str:
        raise self._escape("str() of a traced value")

    def __format__(self, spec: str) -> str:
        raise self._escape("a traced value formatted")

    def __hash__(self) -> int:
        raise self._escape("a traced value hashed")

    def __sizeof__(self) -> int:
        raise self._escape("the size of a traced value")

    def __reduce_ex__(self, protocol: Any) -> Any:
        raise self._escape("a traced value pickled")

    def __eq__(self, other: object) -> bool:
        raise self._escape("a comparison of a traced value")

    __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __eq__

    def __array_function__(self, func: Any, types_: Any, args: Any, kwargs: Any) -> Any:
        raise self._escape(f"numpy.{getattr(func, '__name__', '?')} of a traced value")


class _Records(_Traced):
    """Per-record values: each in [lo, hi] when bounded (None: unbounded, ±inf possible)."""

    __slots__ = ("_hi", "_lo", "_nan")

    def __init__(self, trace: _Trace, lo: Fraction | None, hi: Fraction | None, nan: bool):
        super().__init__(trace)
        object.__setattr__(self, "_lo", lo)
        object.__setattr__(self, "_hi", hi)
        object.__setattr__(self, "_nan", nan)

    def _state(self) -> tuple[_Trace, Fraction | None, Fraction | None, bool]:
        get = object.__getattribute__
        return get(self, "_trace"), get(self, "_lo"), get(self, "_hi"), get(self, "_nan")

    def __getattr__(self, name: str) -> Any:
        if name == "sum":
            return self._sum
        return super().__getattr__(name)

    def _sum(self, *args: Any, **kwargs: Any) -> _Scalar:
        trace, lo, hi, nan = self._state()
        trace.touch()
        if args or kwargs:
            raise trace.escape("sum with arguments")
        if nan or lo is None or hi is None:
            raise trace.escape("sum of records that may be NaN or unbounded")
        if max(abs(lo), abs(hi)) > LARGEST_BOUND:
            raise trace.escape("records bounded beyond 2**20 (a sum could overflow)")
        shift = hi - lo if trace.relation == "replace-one" else max(abs(lo), abs(hi))
        return _Scalar(trace, shift)

    def __array_function__(self, func: Any, types_: Any, args: Any, kwargs: Any) -> Any:
        trace, lo, hi, nan = self._state()
        trace.touch()
        if not args or args[0] is not self:
            raise trace.escape("a traced value in an unmodelled argument position")
        if func is _SUM and len(args) == 1 and not kwargs:
            return self._sum()
        if func is _CLIP and len(args) == 3 and not kwargs:
            low, high = _constant(args[1]), _constant(args[2])
            if low is None or high is None or low > high:
                raise trace.escape("clip with bounds that are not constants lo ≤ hi")
            return _Records(trace, low, high, nan)
        if func is _NAN_TO_NUM and len(args) == 1 and set(kwargs) <= {"nan", "posinf", "neginf"}:
            filler = _constant(kwargs.get("nan", 0.0))
            others = [kwargs.get(k) for k in ("posinf", "neginf")]
            if filler is None or any(o is not None and _constant(o) is None for o in others):
                raise trace.escape("nan_to_num with a replacement that is not a constant")
            if lo is None or hi is None:
                return _Records(trace, None, None, False)
            return _Records(trace, min(lo, filler), max(hi, filler), False)
        raise trace.escape(f"numpy.{getattr(func, '__name__', '?')} of the records")


class _Scalar(_Traced):
    """A number from the data that moves by at most ``shift`` between neighbours."""

    __slots__ = ("_shift",)

    def __init__(self, trace: _Trace, shift: Fraction):
        super().__init__(trace)
        object.__setattr__(self, "_shift", shift)

    def _state(self) -> tuple[_Trace, Fraction]:
        get = object.__getattribute__
        return get(self, "_trace"), get(self, "_shift")

    def _combine(self, other: Any, sign: int) -> Any:
        trace, shift = self._state()
        trace.touch()
        if isinstance(other, _Noise):
            return other._consume(shift)
        if isinstance(other, _Scalar):
            return _Scalar(trace, shift + other._state()[1])
        if _constant(other) is not None:
            return _Scalar(trace, shift)
        raise trace.escape("a traced sum combined with an unmodelled value")

    def __add__(self, other: Any) -> Any:
        return self._combine(other, 1)

    __radd__ = __add__

    def __sub__(self, other: Any) -> Any:
        return self._combine(other, -1)

    __rsub__ = __sub__

    def __neg__(self) -> _Scalar:
        trace, shift = self._state()
        trace.touch()
        return _Scalar(trace, shift)

    def __mul__(self, other: Any) -> _Scalar:
        trace, shift = self._state()
        trace.touch()
        factor = _constant(other)
        if factor is None:
            raise trace.escape("a traced sum multiplied by a non-constant")
        return _Scalar(trace, shift * abs(factor))

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> _Scalar:
        trace, shift = self._state()
        trace.touch()
        divisor = _constant(other)
        if divisor is None or divisor == 0:
            raise trace.escape("a traced sum divided by a non-constant or by zero")
        return _Scalar(trace, shift / abs(divisor))


class _Noise(_Traced):
    """A Laplace draw about a constant centre, not yet added to a sum."""

    __slots__ = ("_scale", "_used")

    def __init__(self, trace: _Trace, scale: Fraction):
        super().__init__(trace)
        object.__setattr__(self, "_scale", scale)
        object.__setattr__(self, "_used", False)

    def _consume(self, shift: Fraction) -> _Released:
        get = object.__getattribute__
        trace: _Trace = get(self, "_trace")
        trace.touch()
        if get(self, "_used"):
            raise trace.escape("one draw added to two values")
        object.__setattr__(self, "_used", True)
        trace.charges.append(Charge(shift, get(self, "_scale"), trace.line()))
        return _Released(trace)

    def __add__(self, other: Any) -> Any:
        if isinstance(other, _Scalar):
            return other._combine(self, 1)
        raise self._escape("a draw used other than added to a traced sum")

    __radd__ = __sub__ = __rsub__ = __add__


class _Released(_Traced):
    """A noised release: post-processing with constants and other releases is free."""

    __slots__ = ()

    def _with(self, other: Any) -> _Released:
        trace: _Trace = object.__getattribute__(self, "_trace")
        trace.touch()
        if isinstance(other, _Released) or _constant(other) is not None:
            return _Released(trace)
        raise trace.escape("a release combined with an unreleased traced value")

    def __add__(self, other: Any) -> _Released:
        return self._with(other)

    __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __add__

    def __neg__(self) -> _Released:
        return self._with(0)

    def __float__(self) -> float:
        trace: _Trace = object.__getattribute__(self, "_trace")
        trace.touch()
        trace.released = True
        return 0.0


class _ProofSession(Session):
    """Primitives under the proof: only a constant-centred, constant-scale scalar Laplace draw."""

    trace: _Trace | None = None

    def primitive(
        self,
        source: str,
        reading: Reading,
        fresh: Any,
        depth: int,
        library_call: Any = None,
    ) -> Any:
        trace = self.trace
        assert trace is not None
        trace.touch()
        if source not in LAPLACE_SOURCES or library_call is not None:
            raise trace.escape(f"the primitive {source} is not modelled")
        centre, scale = _constant(reading.centre), _constant(reading.scale)
        if centre is None or scale is None or scale <= 0:
            raise trace.escape("a Laplace draw whose centre or scale is not a positive constant")
        self.inside += 1
        try:
            drawn = fresh()
        finally:
            self.inside -= 1
        if np.ndim(drawn) != 0:
            raise trace.escape("a Laplace draw of several values")
        return _Noise(trace, scale)


def _plain(value: Any) -> bool:
    return value is None or type(value) in (int, float, str, bool, Fraction)


def _shape_allows(function: Any, args: Mapping[str, Any]) -> str | None:
    """Why the function's code is outside what the trace can stand for (None: inside)."""
    if type(function) is not types.FunctionType or function.__closure__:
        return "not a plain function without a closure"
    code = function.__code__
    if code.co_flags & (0x20 | 0x80 | 0x100 | 0x200):
        return "a generator or coroutine"
    defaults = list(function.__defaults__ or ()) + list((function.__kwdefaults__ or {}).values())
    if not all(_plain(v) for v in [*defaults, *args.values()]):
        return "an argument that is not a plain number or string"
    if any(isinstance(c, types.CodeType) for c in code.co_consts):
        return "nested code (a lambda, comprehension or inner function)"
    line = code.co_firstlineno
    for instruction in dis.get_instructions(code):
        line = instruction.starts_line or line
        if instruction.opname not in OPCODES:
            return f"the operation {instruction.opname} at line {line}"
        name = instruction.argval
        if instruction.opname == "LOAD_GLOBAL":
            builtin = getattr(function, "__builtins__", vars(builtins))
            found = function.__globals__.get(name, builtin.get(name))
            if name not in GLOBALS or found is not GLOBALS[name]:
                return f"the global name {name!r}"
        if instruction.opname in ("LOAD_ATTR", "LOAD_METHOD") and name not in ATTRIBUTES:
            return f"the attribute {name!r}"
    return None


def prove(
    function: Any, dataset: Dataset, args: Mapping[str, Any], relation: str
) -> tuple[Proof | None, str]:
    """A proof for every neighbouring pair, or None with the reason there is none."""
    if dataset.form != "vector":
        return None, "the dataset is not one number per record"
    why = _shape_allows(function, args)
    if why is not None:
        return None, f"the function's code is outside the modelled subset: {why}"
    trace = _Trace(relation, function.__code__)
    session = _ProofSession(0)
    session.trace = trace
    try:
        with intercepting(session):
            watching = sys.getprofile()
            sys.setprofile(_watch(trace, watching))
            try:
                output = function(_Records(trace, None, None, True), **args)
            finally:
                sys.setprofile(watching)
    except Exception as exc:  # the trace escaped, or the code failed on the tracer
        return None, trace.escaped or f"{type(exc).__name__} on the traced data"
    if trace.escaped is not None:
        return None, trace.escaped
    if session.unrecognised or session.seeded:
        return None, "randomness faier does not recognise, or a generator seeded in the function"
    if not _released_only(output):
        return None, "the output holds a value from the data that is not a noised release"
    if not trace.charges:
        return None, "no Laplace release (nothing to prove from)"
    return Proof(relation, tuple(trace.charges)), ""


_FAIER = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_TRUSTED = (
    os.path.dirname(np.__file__) + os.sep,
    _FAIER,
    sysconfig.get_paths()["stdlib"],
    "<frozen",
)
"""Where Python code called during the proof may live: numpy, faier, the standard library
(not its site-packages)."""


def _watch(trace: _Trace, chained: Any) -> Any:
    """A profile hook: any Python code entered outside ``_TRUSTED`` but the function itself (a
    helper, a callback, a patched numpy function) is code the bytecode check never read."""

    def hook(frame: Any, event: str, arg: Any) -> None:
        if chained is not None:
            chained(frame, event, arg)
        code = frame.f_code
        name = code.co_filename
        if event != "call" or code is trace.code or name.startswith(_TRUSTED[:2]):
            return
        if name.startswith(_TRUSTED[2:]) and "-packages" not in name:
            return  # the standard library, not what is installed beside it
        caller = frame.f_back
        faier_made = caller is not None and caller.f_code.co_filename.startswith(_FAIER)
        if name == "<string>" and faier_made:
            return  # faier's own generated code (a dataclass's __init__)
        trace.escape(f"a call into {name}:{code.co_name}, code not checked")

    return hook


def _released_only(output: Any) -> bool:
    if isinstance(output, _Released):
        return True
    if isinstance(output, _Traced):
        return False
    if _plain(output):
        return True
    if type(output) in (tuple, list):
        return all(_released_only(item) for item in output)
    return False
