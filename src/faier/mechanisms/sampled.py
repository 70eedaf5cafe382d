"""Mechanisms known only by running them: vectorised samplers and black boxes.

The exact engines need a finite discrete definition.  Mechanisms with
continuous noise (Laplace, exponential) or foreign code can only be run, so
the statistical tester needs two things of them: draw n outputs on one input
at once, as columns (:class:`Outputs`), and know which public parameters the
argument generator may choose (:class:`Argument`).

* :func:`vectorised` wraps ``f(queries, epsilon, n, rng, **args)`` returning a
  numpy array (shape (n,) for one value, (n, L) for a list) or an
  :class:`Outputs`: the fast path, no Python loop per sample.
* :func:`blackbox` wraps a scalar ``f(queries, epsilon, rng, **args)`` and
  batches it by calling it n times; plain Python code here also lets the
  argument generator execute it symbolically.

``epsilon`` is the privacy budget the mechanism claims (ε₀): with continuous
noise the noise scale depends on it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from faier.errors import MechanismError
from faier.mechanisms.handlers import guarded

NUMBER = -1
"""Code of a list slot that holds a number (its value is in ``numbers``)."""
ABSENT = -2
"""Code of a list slot past the end of a shorter output."""

FloatArray = npt.NDArray[np.float64]
CodeArray = npt.NDArray[np.int16]


def _category_key(value: Hashable) -> tuple[str, str]:
    return (type(value).__name__, str(value))


@dataclass(frozen=True, eq=False)
class Outputs:
    """n outputs of one mechanism as columns: numbers and category codes per slot.

    A scalar output is a list of one slot with ``is_list`` false.  Slot j of
    output i holds ``numbers[i, j]`` when ``codes[i, j] == NUMBER``, the
    category ``categories[codes[i, j]]`` when the code is ≥ 0, and nothing
    (the output is shorter) when it is ``ABSENT``.  Keeping every sample's
    own kinds lets the event selector infer types from all samples.
    """

    numbers: FloatArray
    codes: CodeArray
    categories: tuple[Hashable, ...]
    is_list: bool

    def __post_init__(self) -> None:
        if self.numbers.shape != self.codes.shape or self.numbers.ndim != 2:
            raise MechanismError(
                f"outputs need matching 2-D numbers and codes, got shapes "
                f"{self.numbers.shape} and {self.codes.shape}"
            )
        numeric = self.codes == NUMBER
        if numeric.any() and not np.isfinite(self.numbers[numeric]).all():
            bad = self.numbers[numeric][~np.isfinite(self.numbers[numeric])][0]
            raise MechanismError(
                f"the mechanism returned a non-finite number ({bad})",
                fix="outputs must be finite numbers, categories (bool, str) or lists of them",
            )

    @property
    def n(self) -> int:
        return int(self.codes.shape[0])

    @property
    def width(self) -> int:
        return int(self.codes.shape[1])

    @property
    def lengths(self) -> npt.NDArray[np.int64]:
        """Length of each output (1 for scalars)."""
        return np.asarray((self.codes != ABSENT).sum(axis=1), dtype=np.int64)

    @classmethod
    def from_array(cls, values: npt.ArrayLike, n: int | None = None) -> Outputs:
        """A sampler's array: (n,) one value or (n, L) a list per sample; bools are categories."""
        if values is None:
            raise MechanismError(
                "the sampler returned None",
                fix="return the n outputs (an array of shape (n,) or (n, L), or a list of n)",
            )
        if isinstance(values, list | tuple) and _ragged(values):
            if n is not None and len(values) != n:
                raise MechanismError(
                    f"a vectorised sampler must return n = {n} outputs, got {len(values)}",
                    fix="return one row per sample",
                )
            return cls.from_values(list(values))
        array = np.asarray(values)
        if array.dtype == object and array.ndim == 1:
            return cls.from_values(list(array))
        if array.ndim not in (1, 2) or (n is not None and array.shape[0] != n):
            raise MechanismError(
                f"a vectorised sampler must return shape (n,) or (n, L) with n = {n}, "
                f"got {array.shape}",
                fix="return one row per sample",
            )
        is_list = array.ndim == 2
        grid = array if is_list else array[:, None]
        if grid.dtype == np.bool_:
            codes = grid.astype(np.int16)
            return cls(np.full(grid.shape, np.nan), codes, (False, True), is_list)
        if not np.issubdtype(grid.dtype, np.number) or np.iscomplexobj(grid):
            return cls.from_values(list(array.tolist()))
        numbers = grid.astype(np.float64)
        return cls(numbers, np.full(grid.shape, NUMBER, dtype=np.int16), (), is_list)

    @classmethod
    def from_values(cls, values: Sequence[Any]) -> Outputs:
        """Python outputs, one per sample: numbers, categories, or lists of them (slow path)."""
        rows: list[list[tuple[int, float]]] = []
        categories: dict[Hashable, int] = {}
        shapes: set[bool] = set()
        first_shape: dict[bool, int] = {}
        for i, raw in enumerate(values):
            value = raw.item() if isinstance(raw, np.ndarray) and raw.ndim == 0 else raw
            is_list = isinstance(value, list | tuple | np.ndarray)
            shapes.add(is_list)
            first_shape.setdefault(is_list, i)
            if len(shapes) > 1:
                raise MechanismError(
                    f"inconsistent output types: sample {first_shape[True]} is a list, "
                    f"sample {first_shape[False]} a single value",
                    fix="return the same kind of output on every run",
                )
            items = list(value) if is_list else [value]
            rows.append([_slot(item, categories, i) for item in items])
        ordered = sorted(categories, key=_category_key)
        remap = {categories[c]: k for k, c in enumerate(ordered)}
        width = max((len(r) for r in rows), default=1) or 1
        numbers = np.full((len(rows), width), np.nan)
        codes = np.full((len(rows), width), ABSENT, dtype=np.int16)
        for i, row in enumerate(rows):
            for j, (code, number) in enumerate(row):
                codes[i, j] = remap.get(code, code)
                numbers[i, j] = number
        return cls(numbers, codes, tuple(ordered), bool(shapes and shapes.pop()))

    def with_categories(self, categories: tuple[Hashable, ...]) -> Outputs:
        """The same outputs with codes renumbered for a superset of categories."""
        if categories == self.categories:
            return self
        index = {c: k for k, c in enumerate(categories)}
        table = np.array([index[c] for c in self.categories] or [0], dtype=np.int16)
        coded = self.codes >= 0
        codes = self.codes.copy()
        codes[coded] = table[self.codes[coded]]
        return Outputs(self.numbers, codes, categories, self.is_list)

    def padded(self, width: int) -> Outputs:
        """The same outputs with ``width`` slots (absent slots appended)."""
        extra = width - self.width
        if extra <= 0:
            return self
        numbers = np.pad(self.numbers, ((0, 0), (0, extra)), constant_values=np.nan)
        codes = np.pad(self.codes, ((0, 0), (0, extra)), constant_values=ABSENT)
        return Outputs(numbers, codes, self.categories, self.is_list)

    def take(self, rows: npt.NDArray[np.intp]) -> Outputs:
        """The outputs at the given row indices."""
        return Outputs(self.numbers[rows], self.codes[rows], self.categories, self.is_list)

    def value(self, row: int) -> Any:
        """Output ``row`` as a Python value (a tuple for lists)."""
        items: list[Any] = []
        for code, number in zip(self.codes[row], self.numbers[row], strict=True):
            if code == ABSENT:
                break
            if code == NUMBER:
                items.append(int(number) if float(number).is_integer() else float(number))
            else:
                items.append(self.categories[code])
        return tuple(items) if self.is_list else items[0]


def _slot(item: Any, categories: dict[Hashable, int], sample: int) -> tuple[int, float]:
    """(code, number) of one output slot; categories get provisional codes."""
    if item is None:
        raise MechanismError(
            f"the mechanism returned None in sample {sample}",
            fix="return the output (a number, bool, string or a list of them); "
            "is a 'return' missing?",
        )
    if isinstance(item, bool | np.bool_):
        item = bool(item)
    elif isinstance(item, int | float | np.integer | np.floating):
        number = float(item)
        if not math.isfinite(number):
            raise MechanismError(
                f"the mechanism returned a non-finite number ({number}) in sample {sample}",
                fix="outputs must be finite numbers, categories (bool, str) or lists of them",
            )
        return NUMBER, number
    elif isinstance(item, list | tuple | np.ndarray):
        raise MechanismError(
            f"sample {sample} is a nested list", fix="return a flat list of numbers or categories"
        )
    try:
        hash(item)
    except TypeError:
        raise MechanismError(
            f"sample {sample} contains an unhashable {type(item).__name__}",
            fix="return numbers, bools, strings or flat lists of them",
        ) from None
    return categories.setdefault(item, len(categories)), math.nan


def _ragged(values: Sequence[Any]) -> bool:
    """Rows of different lengths, or rows mixing lists and single values."""
    shapes = {len(v) if isinstance(v, list | tuple | np.ndarray) else -1 for v in values}
    return len(shapes) > 1


def query_array(values: Sequence[int | float]) -> npt.NDArray[Any]:
    """Query answers as the mechanism receives them: integers stay integers (int64)."""
    if all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in values):
        return np.asarray(values, dtype=np.int64)
    return np.asarray(values, dtype=np.float64)


def concat(parts: Sequence[Outputs]) -> Outputs:
    """Outputs of several batches as one (categories and widths unified)."""
    if not parts:
        raise MechanismError("no outputs to join")
    if len(parts) == 1:
        return parts[0]
    kinds = {p.is_list for p in parts}
    if len(kinds) > 1:
        raise MechanismError(
            "inconsistent output types: some runs return lists, others single values",
            fix="return the same kind of output on every run",
        )
    categories = tuple(sorted({c for p in parts for c in p.categories}, key=_category_key))
    width = max(p.width for p in parts)
    ready = [p.with_categories(categories).padded(width) for p in parts]
    return Outputs(
        np.concatenate([p.numbers for p in ready]),
        np.concatenate([p.codes for p in ready]),
        categories,
        parts[0].is_list,
    )


@dataclass(frozen=True)
class Argument:
    """A public parameter the argument generator chooses (StatDP §4.4.2).

    ``role="noise"``: it scales noise; the value with the least noise is taken.
    ``role="branch"``: it decides branches; the value that makes runs on D1
    and D2 diverge most is taken.  ``low``/``high`` bound the search; left as
    None, a branch argument ranges over the query answers ± the sensitivity.
    """

    name: str
    role: str
    low: float | None = None
    high: float | None = None
    integer: bool = False

    def __post_init__(self) -> None:
        if self.role not in ("noise", "branch"):
            raise MechanismError(
                f"argument {self.name!r} has role {self.role!r}", fix="use 'noise' or 'branch'"
            )


Queries = npt.NDArray[Any]
"""Query answers: int64 when every answer is a whole number (as printed), else float64."""
VectorSampler = Callable[..., Any]
ScalarMechanism = Callable[..., Any]


@dataclass(frozen=True)
class Sampled:
    """A mechanism over query-answer vectors that faier can run but not enumerate."""

    name: str
    vectorised: VectorSampler | None = None
    reference: ScalarMechanism | None = None
    neighbours: str = "every-query"
    sensitivity: int = 1
    arguments: tuple[Argument, ...] = ()
    doc: str = ""
    stated_epsilon: float | None = None
    """The ε the mechanism states itself (a library object configured at ε): the
    default claim, and its noise does not depend on the ε faier passes."""
    lengths: tuple[int, ...] | None = None
    """Input lengths to test when none are asked for (1 for a mechanism on one number)."""

    def __post_init__(self) -> None:
        if self.vectorised is None and self.reference is None:
            raise MechanismError(f"mechanism {self.name!r} has neither a sampler nor a definition")
        if self.neighbours not in ("every-query", "one-query"):
            raise MechanismError(
                f"mechanism {self.name!r} declares neighbours {self.neighbours!r}",
                fix="use 'every-query' (all answers move) or 'one-query' (histograms)",
            )

    def sample(
        self, queries: Queries, epsilon: float, n: int, rng: np.random.Generator, args: Any
    ) -> Outputs:
        """n outputs on ``queries``: the vectorised sampler if there is one, else one run each."""
        if self.vectorised is None:
            return self.sample_each(queries, epsilon, n, rng, args)
        sampler = self.vectorised
        raw = guarded(self.name, lambda: sampler(queries, epsilon, n, rng, **dict(args)))
        out = raw if isinstance(raw, Outputs) else Outputs.from_array(raw, n)
        if out.n != n:
            raise MechanismError(
                f"mechanism {self.name!r} returned {out.n} outputs for n = {n}",
                fix="return one row per sample",
            )
        return out

    def sample_each(
        self, queries: Queries, epsilon: float, n: int, rng: np.random.Generator, args: Any
    ) -> Outputs:
        """n outputs by calling the scalar definition n times (the per-sample path)."""
        if self.reference is None:
            raise MechanismError(f"mechanism {self.name!r} has no scalar definition")
        run = self.reference
        values = list(queries.tolist())  # Python ints stay ints, floats floats
        keywords = dict(args)
        return Outputs.from_values(
            guarded(self.name, lambda: [run(values, epsilon, rng, **keywords) for _ in range(n)])
        )


def vectorised(
    *,
    name: str | None = None,
    neighbours: str = "every-query",
    sensitivity: int = 1,
    arguments: Sequence[Argument] = (),
    reference: ScalarMechanism | None = None,
) -> Callable[[VectorSampler], Sampled]:
    """Decorator for ``f(queries, epsilon, n, rng, **args) -> array | Outputs``."""

    def wrap(f: VectorSampler) -> Sampled:
        return Sampled(
            name or f.__name__,
            vectorised=f,
            reference=reference,
            neighbours=neighbours,
            sensitivity=sensitivity,
            arguments=tuple(arguments),
            doc=(f.__doc__ or "").strip(),
        )

    return wrap


def blackbox(
    *,
    name: str | None = None,
    neighbours: str = "every-query",
    sensitivity: int = 1,
    arguments: Sequence[Argument] = (),
) -> Callable[[ScalarMechanism], Sampled]:
    """Decorator for a scalar ``f(queries, epsilon, rng, **args) -> output``, batched by faier."""

    def wrap(f: ScalarMechanism) -> Sampled:
        return Sampled(
            name or f.__name__,
            reference=f,
            neighbours=neighbours,
            sensitivity=sensitivity,
            arguments=tuple(arguments),
            doc=(f.__doc__ or "").strip(),
        )

    return wrap
