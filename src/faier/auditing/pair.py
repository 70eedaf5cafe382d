"""One neighbouring pair (D, D′): record on D, replay on D′, probe, and compose the loss.

The replay hands every primitive on D′ the noise it drew on D, about D′'s
centre.  Probing then finds which output coordinate releases which draw: two
more replays on each side add known offsets t and t′ to every location
draw's noise; a coordinate that moves by a·t_g and a·t′_g (one draw g, one
coefficient a) is ``a·(centre + noise_g) + constant`` there, so its shift
between D and D′ is the draw's shift.  Everything else the pair shows (a
call on one side only, a scale or form that differs, a value that moves
with no draw, a NaN) is read off the two runs directly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np

from faier.auditing.data import Dataset
from faier.auditing.intercept import Session
from faier.auditing.loss import Decision, PairLoss, Term, compose, decide
from faier.auditing.primitives import LOCATION_FAMILIES
from faier.auditing.runner import Run, run
from faier.privacy.budget import Epsilon

RELATIVE = 1e-9
"""Two probe coefficients agree when within this relative distance (rounding is ~10⁻¹⁶)."""


@dataclass(frozen=True)
class Claim:
    """What the function is claimed to be: (ε, δ)-DP."""

    epsilon: Epsilon
    delta: Fraction = Fraction(0)


@dataclass(frozen=True)
class PairOutcome:
    """What one pair showed."""

    left: Dataset
    right: Dataset
    change: str
    loss: PairLoss | None = None
    decision: Decision | None = None
    difference: str | None = None
    """The first difference of the two runs' call sequences (both lines and values)."""
    skipped: str | None = None
    unrecognised: tuple[str, ...] = ()

    @property
    def violated(self) -> bool:
        return self.decision is not None and self.decision.violated

    @property
    def ratio(self) -> float:
        return 0.0 if self.loss is None else self.loss.ratio

    @property
    def undecided(self) -> str | None:
        if self.skipped is not None:
            return None
        if self.decision is None:
            return self.difference or "no loss computed"
        return self.decision.undecided

    def to_json(self) -> dict[str, Any]:
        return {
            "D": self.left.to_json(),
            "D_prime": self.right.to_json(),
            "change": self.change,
            "loss": None if self.loss is None else self.loss.to_json(),
            "violated": self.violated,
            "detail": None if self.decision is None else self.decision.detail,
            "undecided": self.undecided,
            "difference": self.difference,
            "skipped": self.skipped,
            "unrecognised": list(self.unrecognised),
        }


Function = Callable[..., Any]


class Evaluator:
    """Evaluates pairs of one function; D's recording and probes are kept per dataset."""

    def __init__(
        self, function: Function, args: Mapping[str, Any], claim: Claim, seed: int
    ) -> None:
        self.function = function
        self.args = args
        self.claim = claim
        self.seed = seed
        self._left: dict[tuple[Any, ...], _Left] = {}

    def run(self, data: Dataset, session: Session) -> Run:
        return run(self.function, data, self.args, session)

    def left(self, data: Dataset) -> _Left:
        """D's recording, and (when it draws location noise) its two probes."""
        key = data.records
        found = self._left.get(key)
        if found is None:
            recorded = self.run(data, Session(self.seed))
            elements = _elements(recorded)
            t1, t2 = _offsets(recorded, elements, self.seed)
            found = _Left(data, recorded, elements, t1, t2, None)
            if elements and recorded.error is None:
                probes = (self.probe(found, data, t1), self.probe(found, data, t2))
                centred = self.probe(found, data, _zero(recorded, elements))
                found = _Left(
                    data,
                    recorded,
                    elements,
                    t1,
                    t2,
                    _coefficients(recorded, *probes, t1, t2),
                    centred,
                )
            if len(self._left) > 64:
                self._left.clear()
            self._left[key] = found
        return found

    def probe(self, left: _Left, data: Dataset, t: np.ndarray) -> Run:
        offsets = _by_draw(left.elements, t)
        return self.run(data, Session(self.seed, tape=left.run.draws, offsets=offsets))

    def evaluate(self, left: Dataset, right: Dataset, change: str) -> PairOutcome:
        """The pair's outcome: loss and decision, or the structural difference, or why skipped."""
        recorded = self.left(left)
        a = recorded.run
        if a.error is not None:
            return PairOutcome(left, right, change, skipped=f"the function raised on D: {a.error}")
        b = self.run(right, Session(self.seed, tape=a.draws))
        unrecognised = tuple(u.describe() for u in (*a.unrecognised, *b.unrecognised))
        if b.error is not None:
            return PairOutcome(left, right, change, skipped=f"the function raised on D′: {b.error}")
        if b.mismatch is not None:
            return _structural(
                self.function,
                self.args,
                left,
                right,
                change,
                self.claim,
                self.seed,
                a,
                b,
                unrecognised,
            )
        loss = self._replayed_loss(recorded, right, b)
        decision = decide(loss, self.claim.epsilon, self.claim.delta)
        return PairOutcome(left, right, change, loss, decision, None, None, unrecognised)

    def _confirmed(self, right: Dataset, b: Run, loss: PairLoss) -> PairLoss:
        """A non-finite release next to draws the probes do not move: D′ run afresh with
        another seed must release the same non-finite values, else it is only a bound."""
        fresh = self.run(right, Session(self.seed + 1))
        same = fresh.form == b.form and np.array_equal(
            ~np.isfinite(fresh.values), ~np.isfinite(b.values)
        )
        if same:
            return loss
        (term,) = loss.terms
        return compose([replace(term, bound="not confirmed under other noise")], loss.notes)

    def _replayed_loss(self, left: _Left, right: Dataset, b: Run) -> PairLoss:
        a = left.run
        centres: tuple[Run, Run] | None = None
        if left.found is not None and left.centred is not None:
            found_a = left.found
            found_b = _coefficients(
                b,
                self.probe(left, right, left.t1),
                self.probe(left, right, left.t2),
                left.t1,
                left.t2,
            )
            centred = self.probe(left, right, _zero(a, left.elements))
            if left.centred.form == a.form and centred.form == b.form:
                centres = (left.centred, centred)
        else:
            found_a = _Map([None] * len(a.values), [False] * len(a.values))
            found_b = _Map([None] * len(b.values), [False] * len(b.values))
        shaken: list[list[Run]] = []

        def still(k: int) -> bool:
            """Coordinate k stays put under the shaking replays of both sides."""
            if not shaken:
                shaken.append(_shaken(self.function, left.data, self.args, a, self.seed))
                shaken.append(_shaken(self.function, right, self.args, a, self.seed))
            for base, runs in ((a, shaken[0]), (b, shaken[1])):
                for moved in runs:
                    if moved.form != base.form or not _same(moved.values[k], base.values[k]):
                        return False
            return True

        steady = _steady_centres(a, b, left, found_a, found_b, centres)
        loss = _loss(a, b, left.elements, found_a, found_b, centres, still, steady)
        if loss.infinite is not None and loss.exact and not _probed_only(a):
            loss = self._confirmed(right, b, loss)
        if loss.exact:
            return loss
        if not self._draws_only(left, right):
            return loss
        # D′ handed D's very draws gives D's output, at four noise levels: the output is taken
        # for a function of the draws, whose own losses then bound it (post-processing); a
        # bound clears a pair, never convicts one
        note = "the output is a function of the draws (D′ handed D's draws at 4 noise levels)"
        return compose(_centre_terms(a, b), (*loss.notes, note))

    def _draws_only(self, left: _Left, right: Dataset) -> bool:
        """D and D′ handed the same draw values give the same output, with the noise scaled
        by 1, 0, 1/100 and 10 (a data dependence outside the draws shows at some level)."""
        a = left.run
        noise = -_zero(a, left.elements)
        for level in (1.0, 0.0, 0.01, 10.0):
            offsets = _by_draw(left.elements, (level - 1.0) * noise) if level != 1.0 else {}
            # both sides get the very same floats (recorded value + offset), bit for bit
            handed = Session(self.seed, tape=a.draws, offsets=offsets, verbatim=True)
            mine = a if level == 1.0 else self.run(left.data, handed)
            theirs = self.run(
                right, Session(self.seed, tape=a.draws, offsets=offsets, verbatim=True)
            )
            same = theirs.form == mine.form and np.array_equal(
                theirs.values, mine.values, equal_nan=True
            )
            if theirs.mismatch is not None or not same:
                return False
        return True


def _structural(
    function: Function,
    args: Mapping[str, Any],
    left: Dataset,
    right: Dataset,
    change: str,
    claim: Claim,
    seed: int,
    a: Run,
    b: Run,
    unrecognised: tuple[str, ...],
) -> PairOutcome:
    assert b.mismatch is not None
    difference = b.mismatch.describe()
    own = run(function, right, args, Session(seed))
    # three recordings a side: calls and forms that follow the noise show up as changes
    a_runs = [a, *(run(function, left, args, Session(seed + i)) for i in (1, 2))]
    b_runs = [own, *(run(function, right, args, Session(seed + i)) for i in (1, 2))]
    if any(r.error for r in (*a_runs, *b_runs)):
        return PairOutcome(left, right, change, difference=difference, skipped="a rerun raised")
    steady = len({r.structure() for r in a_runs}) == 1 and len({r.structure() for r in b_runs}) == 1
    if not steady:
        reason = (
            f"{difference}; the calls also change with the noise (control flow on noisy values)"
        )
        return PairOutcome(
            left, right, change, None, Decision(False, reason), difference, None, unrecognised
        )
    expected = b.mismatch.expected or b.mismatch.got
    assert expected is not None
    line = expected.site.line
    forms_steady = len({r.form for r in a_runs}) == 1 and len({r.form for r in b_runs}) == 1
    shaken = [*_shaken(function, left, args, a, seed), *_shaken(function, right, args, own, seed)]
    forms_steady = (
        forms_steady
        and _probed_only(a)
        and _probed_only(own)
        and all(r.form == base.form for r, base in zip(shaken, (a, a, own, own), strict=True))
    )
    if forms_steady and a.form != own.form:
        why = (
            f"the output's form differs ({_form_difference(a.form, own.form)}) because {difference}"
        )
        term = Term("structure", expected.site.file, line, None, None, infinite=why)
        loss = compose([term])
        decision = decide(loss, claim.epsilon, claim.delta)
        return PairOutcome(left, right, change, loss, decision, difference, None, unrecognised)
    reason = f"{difference}; the outputs keep one form, so the loss is not computed from the runs"
    return PairOutcome(
        left, right, change, None, Decision(False, reason), difference, None, unrecognised
    )


SHAKE = 25.0
"""Scales by which the shaking replays move every location draw, with random signs."""


def _shaken(
    function: Function, data: Dataset, args: Mapping[str, Any], recorded: Run, seed: int
) -> list[Run]:
    """Two replays of ``recorded`` on ``data`` with every location draw moved by ±25 of its
    scales (random signs): what stays put there does not follow the noise's comparisons."""
    elements = _elements(recorded)
    if not elements:
        return [recorded, recorded]
    rng = np.random.default_rng([seed, 104729])
    scales = np.array([_scale_of(recorded, e) for e in elements], dtype=np.float64)
    scales = np.where(np.isfinite(scales) & (scales > 0), scales, 1.0)
    found = []
    for _ in range(2):
        signs = rng.choice([-1.0, 1.0], size=len(elements))
        offsets = _by_draw(elements, SHAKE * scales * signs)
        found.append(run(function, data, args, Session(seed, tape=recorded.draws, offsets=offsets)))
    return found


def _form_difference(left: str, right: str) -> str:
    first = left.split(";")
    second = right.split(";")
    for x, y in zip(first, second, strict=False):
        if x != y:
            return f"{x or 'nothing'} on D, {y or 'nothing'} on D′"
    return f"{len(first)} parts on D, {len(second)} on D′"


@dataclass(frozen=True)
class _Element:
    draw: int
    index: int


@dataclass(frozen=True, eq=False)
class _Left:
    data: Dataset
    run: Run
    elements: list[_Element]
    t1: np.ndarray
    t2: np.ndarray
    found: _Map | None
    centred: Run | None = None
    """The replay with every location draw's noise cancelled: the released centres."""


def _elements(run_: Run) -> list[_Element]:
    found: list[_Element] = []
    for j, draw in enumerate(run_.draws):
        if draw.family in LOCATION_FAMILIES and draw.noise is not None:
            found.extend(_Element(j, e) for e in range(len(draw.noise)))
    return found


def _offsets(run_: Run, elements: list[_Element], seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Two probes' offsets: distinct, about a scale each; whole numbers for integer noise."""
    rng = np.random.default_rng([seed, 7919])
    scales = np.array([_scale_of(run_, e) for e in elements], dtype=np.float64)
    scales = np.where(np.isfinite(scales) & (scales > 0), scales, 1.0)
    signs = rng.choice([-1.0, 1.0], size=len(elements))
    first = scales * (0.5 + rng.random(len(elements))) * signs
    # the second probe is far out, with its own signs: a release that is a translation only
    # near the recorded noise (a step in another draw, a clamp) does not pass both
    far = rng.choice([-1.0, 1.0], size=len(elements))
    second = scales * (20.0 + 10.0 * rng.random(len(elements))) * far
    whole = np.array(
        [run_.draws[e.draw].family == "discrete-laplace" for e in elements], dtype=bool
    )
    if whole.any():
        steps = np.arange(1, len(elements) + 1, dtype=np.float64)
        first = np.where(whole, signs * (np.ceil(np.abs(first)) + steps), first)
        second = np.where(whole, first * 2 + signs * steps, second)
    return first, second


def _zero(run_: Run, elements: list[_Element]) -> np.ndarray:
    """Offsets that cancel every location draw's noise: the replay then releases the centres."""
    return np.array([-run_.draws[e.draw].noise[e.index] for e in elements], dtype=np.float64)  # type: ignore[index]


def _scale_of(run_: Run, element: _Element) -> float:
    scales = run_.draws[element.draw].scales
    return float(scales[element.index]) if scales else 1.0


def _by_draw(elements: list[_Element], t: np.ndarray) -> dict[int, np.ndarray]:
    offsets: dict[int, list[float]] = {}
    for element, value in zip(elements, t, strict=True):
        offsets.setdefault(element.draw, []).append(float(value))
    return {j: np.array(v) for j, v in offsets.items()}


@dataclass(frozen=True)
class _Map:
    """Which draw each output coordinate releases (None: none or several), and which moved."""

    hits: list[tuple[int, float] | None]
    moved: list[bool]
    far: np.ndarray | None = None
    """The output under the far probe (None where its form differed)."""


def _coefficients(base: Run, probe1: Run, probe2: Run, t1: np.ndarray, t2: np.ndarray) -> _Map:
    """For each output coordinate: (element, coefficient) when it moves with one draw."""
    if probe1.form != base.form or probe2.form != base.form or not len(t1):
        return _Map([None] * len(base.values), [True] * len(base.values))
    with np.errstate(all="ignore"):
        d1 = probe1.values - base.values
        d2 = probe2.values - base.values
        r1 = d1[:, None] / t1[None, :]
        r2 = d2[:, None] / t2[None, :]
        magnitude = np.maximum(np.abs(r1), np.abs(r2))
        rounding = np.abs(base.values)[:, None] / np.minimum(np.abs(t1), np.abs(t2))[None, :]
        slack = RELATIVE * magnitude + 8 * np.finfo(float).eps * rounding
        match = (np.abs(r1 - r2) <= slack) & (magnitude > slack) & np.isfinite(r1) & np.isfinite(r2)
    found: list[tuple[int, float] | None] = []
    for k in range(len(base.values)):
        hits = np.flatnonzero(match[k])
        found.append((int(hits[0]), float(r1[k, hits[0]])) if len(hits) == 1 else None)
    same1 = (d1 == 0) | (np.isnan(probe1.values) & np.isnan(base.values))
    same2 = (d2 == 0) | (np.isnan(probe2.values) & np.isnan(base.values))
    moved = [not bool(x and y) for x, y in zip(same1, same2, strict=True)]
    return _Map(found, moved, probe2.values)


def _same(x: float, y: float) -> bool:
    return bool(x == y or (math.isnan(x) and math.isnan(y)))


def _steady_centres(
    a: Run, b: Run, left: _Left, found_a: _Map, found_b: _Map, centres: tuple[Run, Run] | None
) -> set[int]:
    """Coordinates releasing one draw whose offset is the same with the other draws as
    recorded, cancelled, and far out (on both sides): the offset depends on the data alone
    there, so the noise-free replays' difference is the release's shift."""
    if centres is None or found_a.far is None or found_b.far is None:
        return set()
    noise = -_zero(a, left.elements)
    steady: set[int] = set()
    for k, hit in enumerate(found_a.hits):
        if hit is None:
            continue
        g, _ = hit
        other = found_b.hits[k]
        if other is None or other[0] != g:
            continue
        ok = True
        sides = (
            (a, found_a.far, centres[0], hit[1]),
            (b, found_b.far, centres[1], other[1]),
        )
        for run_, far, zero, coefficient in sides:
            offsets = (
                run_.values[k] - coefficient * noise[g],
                far[k] - coefficient * (noise[g] + left.t2[g]),
            )
            centre = zero.values[k]
            for offset in offsets:
                slack = RELATIVE * max(abs(centre), abs(coefficient * left.t2[g]), 1.0)
                if not abs(offset - centre) <= slack:
                    ok = False
        if ok:
            steady.add(k)
    return steady


def _unit(coefficient: float) -> int | None:
    """+1 or −1 when the coefficient is one of them up to rounding."""
    for unit in (1, -1):
        if abs(coefficient - unit) <= RELATIVE:
            return unit
    return None


def _finite(value: float) -> bool:
    return math.isfinite(value)


def _loss(
    a: Run,
    b: Run,
    elements: list[_Element],
    found_a: _Map,
    found_b: _Map,
    centres: tuple[Run, Run] | None,
    still: Callable[[int], bool],
    steady: set[int],
) -> PairLoss:
    """Terms for every location draw, every coordinate moving outside them, every library call."""
    map_a, map_b = found_a.hits, found_b.hits
    terms: list[Term] = []
    notes: list[str] = []
    released: dict[int, list[int]] = {}
    for k, hit in enumerate(map_a):
        if hit is not None:
            released.setdefault(hit[0], []).append(k)
    # draws the probes do not move: a coefficient or a still value may depend on them
    selectors = any(d.family not in LOCATION_FAMILIES for d in a.draws)
    for g, element in enumerate(elements):
        term = _element_term(
            a, b, element, released.get(g, []), map_a, map_b, g, centres, selectors, steady
        )
        terms.append(term)
    for k, hit in enumerate(map_a):
        if hit is not None:
            continue
        x, y = a.values[k], b.values[k]
        if x == y or (math.isnan(x) and math.isnan(y)):
            continue
        label = a.labels[k] or "the output"
        if _finite(x) != _finite(y):
            why = (
                f"{label} is {y} on D′ whatever the noise (a non-finite value absorbs it), {x} on D"
            )
            terms.append(Term("output", "", 0, None, None, infinite=why))
        elif not found_a.moved[k] and not found_b.moved[k] and not selectors and still(k):
            why = (
                f"{label} moves from {x!r} to {y!r} with no draw behind it "
                "(released outside the noise)"
            )
            terms.append(Term("output", "", 0, None, None, infinite=why))
        else:
            notes.append(f"{label} moves from {x!r} to {y!r} and is not one released draw")
            terms.append(
                Term(
                    "output", "", 0, None, None, bound=f"{label} moves outside the recognised noise"
                )
            )
    for j, draw in enumerate(a.draws):
        if draw.family == "library":
            terms.append(_library_term(draw, b.draws[j]))
    return compose(terms, tuple(notes))


def _element_term(
    a: Run,
    b: Run,
    element: _Element,
    coordinates: list[int],
    map_a: list[tuple[int, float] | None],
    map_b: list[tuple[int, float] | None],
    g: int,
    centres: tuple[Run, Run] | None,
    unprobed: bool,
    steady: set[int],
) -> Term:
    """The draw's term: its release's shift (between the noise-free replays, when they ran)."""
    draw, other = a.draws[element.draw], b.draws[element.draw]
    assert draw.centre is not None and other.centre is not None
    assert draw.scales is not None and other.scales is not None
    file, line, family = draw.site.file, draw.site.line, draw.family
    scale, scale2 = draw.scales[element.index], other.scales[element.index]
    c, c2 = draw.centre[element.index], other.centre[element.index]
    if not (_finite(c) and _finite(c2)) or draw.bad_scale or other.bad_scale:
        why = f"a non-finite centre or scale ({c} on D, {c2} on D′)"
        return Term(
            family,
            file,
            line,
            None,
            scale,
            infinite=why,
            bound=None if coordinates else "not released",
        )
    if scale != scale2:
        why = f"the scale depends on the data ({float(scale):.6g} on D, {float(scale2):.6g} on D′)"
        exact = coordinates and not unprobed
        return Term(family, file, line, None, scale, infinite=why, bound=None if exact else "bound")
    if not coordinates:
        shift = abs(Fraction(float(c2)) - Fraction(float(c)))
        return Term(
            family,
            file,
            line,
            shift,
            scale,
            bound="the draw is not released as it is (post-processing)",
        )
    shifts: set[Fraction] = set()
    exact = True
    if any(k not in steady for k in coordinates):
        exact = False
        unprobed = True
    for k in coordinates:
        coefficient = map_a[k][1] if map_a[k] is not None else 1.0  # type: ignore[index]
        x, y = a.values[k], b.values[k]
        if centres is not None and _finite(y):
            x, y = centres[0].values[k], centres[1].values[k]
        if not _finite(y):
            return Term(
                family,
                file,
                line,
                None,
                scale,
                infinite=f"{a.labels[k] or 'the output'} is {y} on D′",
            )
        hit = map_b[k]
        if hit is None or hit[0] != g:
            return Term(
                family, file, line, None, scale, bound="the release on D′ is not the same draw"
            )
        if abs(abs(hit[1]) - abs(coefficient)) > RELATIVE * abs(coefficient):
            why = (
                f"{a.labels[k] or 'the output'} releases the draw scaled by "
                f"{coefficient:.6g} on D and "
                f"{hit[1]:.6g} on D′ (a data-dependent scale after the noise)"
            )
            bound = (
                "the coefficient may depend on draws the probes do not move" if unprobed else None
            )
            return Term(family, file, line, None, scale, infinite=why, bound=bound)
        unit = _unit(coefficient)
        if unit is None:
            exact = False
            shifts.add(abs(Fraction((y - x) / coefficient)))
        else:
            shifts.add(abs(Fraction(float(y)) - Fraction(float(x))))
    beside = (
        "released beside draws the probes do not move, or with an offset that other draws "
        "change (a mixture over them)"
    )
    if len(shifts) > 1:
        why = "two released values share one draw but move apart between D and D′"
        return Term(
            family, file, line, None, scale, infinite=why, bound=beside if unprobed else None
        )
    bound = None if exact else "the release is the draw times a measured coefficient"
    return Term(family, file, line, shifts.pop(), scale, bound=beside if unprobed else bound)


def _probed_only(run_: Run) -> bool:
    """Every draw is a location draw the probes move."""
    return all(d.family in LOCATION_FAMILIES and d.noise is not None for d in run_.draws)


def _centre_terms(a: Run, b: Run) -> list[Term]:
    """Every draw's own loss from its two centres and scales, each an upper bound."""
    post = "post-processing of the draws"
    terms: list[Term] = []
    for draw, other in zip(a.draws, b.draws, strict=True):
        site, line = draw.site.file, draw.site.line
        if draw.family == "library":
            terms.append(_library_term(draw, other))
        elif draw.centre is not None and other.centre is not None and draw.scales and other.scales:
            for c, c2, s, s2 in zip(
                draw.centre, other.centre, draw.scales, other.scales, strict=True
            ):
                if not (_finite(c) and _finite(c2)) or s != s2 or draw.bad_scale:
                    why = "a non-finite centre or a scale that differs"
                    terms.append(Term(draw.family, site, line, None, s, infinite=why, bound=post))
                else:
                    shift = abs(Fraction(float(c2)) - Fraction(float(c)))
                    terms.append(Term(draw.family, site, line, shift, s, bound=post))
    return terms


def _library_term(draw: Any, other: Any) -> Term:
    claim = draw.reading.claim
    file, line = draw.site.file, draw.site.line
    if draw.reading.handle is not None:
        from faier.auditing.opendp_calls import stated as opendp_stated

        found = opendp_stated(draw.reading.handle, draw.reading.centre, other.reading.centre)
        if found is None:
            return Term("library", file, line, None, None, bound="no privacy map read")
        value, distance = found
        why = f"OpenDP's privacy map at {distance}"
        return Term("library", file, line, value, Fraction(1), bound=why)
    try:
        shift = abs(Fraction(float(other.reading.centre)) - Fraction(float(draw.reading.centre)))
    except (TypeError, ValueError, OverflowError):
        if claim is not None and claim.epsilon is not None:
            why = f"{claim.library}'s stated ε for a mechanism on a non-number (not measured)"
            return Term("library", file, line, claim.epsilon, Fraction(1), bound=why)
        return Term("library", file, line, None, None, bound="a library mechanism on a non-number")
    if claim is None or claim.epsilon is None or not claim.sensitivity:
        return Term(
            "library", file, line, shift, None, bound="a library mechanism with no stated ε"
        )
    stated = claim.epsilon * shift / claim.sensitivity
    note = (
        f"{claim.library}'s stated ε for a shift within its sensitivity"
        if shift <= claim.sensitivity
        else f"shift {float(shift):.6g} exceeds the sensitivity {float(claim.sensitivity):.6g}"
    )
    return Term("library", file, line, stated, Fraction(1), bound=note)
