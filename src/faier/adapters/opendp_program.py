"""OpenDP measurements that draw integer noise, rewritten as faier programs and decided.

OpenDP records how a measurement was built (``__opendp_dict__``: the
constructor's name and arguments).  Where that is one of the constructors
below, the measurement's output distribution is known exactly, and faier
builds the same mechanism as a program drawing :mod:`faier.mechanisms.discrete_noise`
so that the certified engine decides it instead of the tester sampling it:

* ``make_laplace`` / ``make_geometric`` on an integer ``atom_domain`` with
  ``absolute_distance``: x + DLap(0, scale) for x ∈ {0..d_in};
* ``make_geometric`` with ``bounds=(L, U)``: clamp(x + DLap(0, scale), L, U)
  for x ∈ {L..U}, the censored geometric OpenDP samples there;
* ``make_laplace`` on an integer ``vector_domain`` with ``l1_distance``:
  (xᵢ + DLap(0, scale))ᵢ over ``length`` answers, one answer moved by d_in;
* ``make_gaussian`` on an integer ``atom_domain`` (zCDP): x + N_Z(0, scale);
* ``make_fix_delta(make_zCDP_to_approxDP(…), δ)`` of that: the same, with
  OpenDP's (ε, δ) as the claim.

A released noisy integer's loss does not depend on where the input lies,
only on how far the two inputs are apart, so the pairs of {0..d_in} decide
every pair of integers within d_in; for a vector the loss Σ|Δᵢ|/t depends
only on ‖Δ‖₁, so one answer moved by d_in decides the whole ℓ1 ball.  The
scale is the float OpenDP holds, read exactly (OpenDP's samplers use it
exactly too).  Every other measurement (floats, whose Laplace OpenDP
samples on a grid of 2^k; Noisy Max) returns None: it is tested, not
decided.  A chain ``transformation >> measurement`` (``make_count >>
then_laplace``) is decided at the distance the transformation's stability
map gives: that map is OpenDP's claim, the noise behind it is faier's proof.

The recipe describes what the object runs only if the object runs OpenDP's
own ``Measurement`` code: ``__call__``, ``invoke`` and ``map`` are checked to
be OpenDP's, not an instance attribute's or a subclass's
(``faier.adapters.own_code``); an object that fails the check is tested,
never decided, and one that passes carries the check in the verdict's
``assumptions``.  Distances are passed to OpenDP's maps in the type of the
input metric (``absolute_distance(T=int)`` takes 1, ``T=float`` 1.0).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from faier.adapters.own_code import OwnCode, check_own_code
from faier.core.problem import Problem
from faier.errors import SpecError
from faier.mechanisms.discrete_noise import DiscreteNoise, discrete_gaussian, discrete_laplace
from faier.mechanisms.inputs import InputSpace, grid
from faier.mechanisms.program import Program
from faier.privacy.neighbours import EveryQuery, OneQuery
from faier.privacy.specs import DifferentialPrivacy

MAX_RANGE = 64
"""Bounded geometric measurements with at most this many possible inputs are decided."""


@dataclass(frozen=True)
class Decidable:
    """An OpenDP measurement as a faier problem, with what OpenDP states about it."""

    problem: Problem
    constructor: str
    epsilon: float | None
    """OpenDP's ε at d_in (its privacy map), None for zCDP."""
    delta: float | None = None
    """OpenDP's δ for (ε, δ) measurements."""
    rho: float | None = None
    """OpenDP's ρ for zCDP measurements."""
    assumptions: tuple[str, ...] = ()
    """What the decision rests on: the check that the object runs the library's own code
    (``faier.adapters.own_code``), and what is assumed of that code."""


def _integer(domain: str) -> bool:
    """An atom or vector domain of integers (``AtomDomain(T=i32)``, ``…bounds=[0, 10], T=u64``)."""
    carrier = domain.rsplit("T=", 1)[-1]
    return carrier[:1] in ("i", "u")


def _recipe(measurement: Any) -> tuple[str, dict[str, Any]] | None:
    recipe = getattr(measurement, "__opendp_dict__", None)
    if not isinstance(recipe, dict) or "__function__" not in recipe:
        return None
    return str(recipe["__function__"]), dict(recipe.get("__kwargs__", {}))


def _clamped(noise: DiscreteNoise, low: int, high: int) -> Any:
    def body(x: Any, ctx: Any) -> Any:
        return min(max(x + ctx.draw(noise), low), high)

    return body


def _shifted(noise: DiscreteNoise) -> Any:
    def body(x: Any, ctx: Any) -> Any:
        return x + ctx.draw(noise)

    return body


def _vector(noise: DiscreteNoise) -> Any:
    def body(x: Any, ctx: Any) -> Any:
        return tuple(v + ctx.draw(noise) for v in x)

    return body


def _problem(name: str, body: Any, inputs: InputSpace, relation: Any, doc: str) -> Problem:
    program: Program[Any] = Program(name, body, inputs, doc)
    return Problem(name, program, DifferentialPrivacy(relation), title=name)


def _noisy(
    constructor: str, kwargs: dict[str, Any], d_in: int, length: int
) -> tuple[Problem, str] | None:
    """The problem for a Laplace/geometric/Gaussian constructor on integers, or None."""
    domain = str(kwargs.get("input_domain", ""))
    metric = str(kwargs.get("input_metric", "")).split("(")[0]
    if not _integer(domain) or kwargs.get("scale") is None:
        return None
    scale = Fraction(float(kwargs["scale"]))
    if scale <= 0:
        return None
    gaussian = constructor == "make_gaussian"
    noise = discrete_gaussian(0, scale) if gaussian else discrete_laplace(0, scale)
    family = "discrete Gaussian" if gaussian else "discrete Laplace"
    name = f"opendp {constructor}(scale={float(scale)!r}) on integers"
    scalar_inputs = InputSpace(tuple(range(d_in + 1)), f"{{0..{d_in}}}")
    bounds = kwargs.get("bounds")
    if domain.startswith("AtomDomain") and metric == "AbsoluteDistance":
        if bounds is not None and not gaussian:
            low, high = (int(b) for b in bounds)
            if high - low + 1 > MAX_RANGE or high < low:
                return None
            inputs = InputSpace(tuple(range(low, high + 1)), f"{{{low}..{high}}}")
            doc = f"x + {family} noise (scale {scale}) clamped to [{low}, {high}], as OpenDP"
            return _problem(name, _clamped(noise, low, high), inputs, EveryQuery(d_in), doc), (
                f"clamp(x + {noise.describe()}, {low}, {high})"
            )
        doc = f"x + {family} noise (scale {scale}), as OpenDP samples it on integers"
        return _problem(name, _shifted(noise), scalar_inputs, EveryQuery(d_in), doc), (
            f"x + {noise.describe()}"
        )
    if (
        domain.startswith("VectorDomain")
        and metric == "L1Distance"
        and not gaussian
        and bounds is None
    ):
        doc = f"each of {length} answers + {family} noise (scale {scale}), as OpenDP"
        return _problem(name, _vector(noise), grid(length, d_in), OneQuery(d_in), doc), (
            f"(xᵢ + {noise.describe()})ᵢ"
        )
    return None


PATH = ("__call__", "invoke", "map")
"""What running an OpenDP measurement and reading its claim resolve to: checked on the object."""


def own_code(measurement: Any) -> OwnCode:
    """The check that ``measurement`` runs OpenDP's own ``Measurement`` code."""
    return check_own_code(measurement, "opendp", PATH)


def distance(metric_owner: Any, d_in: int) -> Any:
    """``d_in`` as the distance type of the object's input metric (``i32``: 1, ``f64``: 1.0)."""
    kind = str(metric_owner.input_metric.distance_type)
    return float(d_in) if "f" in kind else int(d_in)


def stated(measurement: Any, d_in: int) -> Any:
    """OpenDP's privacy map at ``d_in``: ε, (ε, δ) or ρ; bad input naming it if the map fails."""
    try:
        return measurement.map(distance(measurement, d_in))
    except Exception as exc:  # OpenDP raises its own exception types from the FFI
        raise SpecError(
            f"OpenDP's privacy map at d_in = {d_in} failed: {exc}",
            where="d_in",
            fix="give a d_in of the measurement's input metric",
        ) from None


def decidable(measurement: Any, *, d_in: int = 1, length: int = 2) -> Decidable | None:
    """The measurement as a faier problem when its distribution is known exactly, else None
    (also when the object overrides OpenDP's own ``__call__``/``invoke``/``map``)."""
    check = own_code(measurement)
    if not check.own:
        return None
    found = _decidable(measurement, d_in, length)
    if found is None:
        return None
    assumptions = (
        check.checked(),
        f"assumed: OpenDP's record of how the measurement was built ({found.constructor}) "
        "describes the function it runs",
    )
    problem = replace(found.problem, assumptions=assumptions)
    return replace(found, problem=problem, assumptions=assumptions)


def _decidable(measurement: Any, d_in: int, length: int) -> Decidable | None:
    recipe = _recipe(measurement)
    if recipe is None:
        return None
    constructor, kwargs = recipe
    if constructor == "make_chain_mt":
        return _chained(measurement, kwargs, d_in, length)
    if constructor == "make_fix_delta":
        inner = _recipe(kwargs.get("measurement"))
        if inner is None or inner[0] != "make_zCDP_to_approxDP":
            return None
        base = kwargs["measurement"].__opendp_dict__["__kwargs__"].get("measurement")
        found = _decidable(base, d_in, length)
        if found is None:
            return None
        claim = stated(measurement, d_in)
        if not isinstance(claim, tuple) or len(claim) != 2:
            return None
        epsilon, delta = claim
        return Decidable(
            found.problem,
            f"make_fix_delta(make_zCDP_to_approxDP({found.constructor}), {float(delta)!r})",
            float(epsilon),
            float(delta),
        )
    if constructor not in ("make_laplace", "make_geometric", "make_gaussian"):
        return None
    built = _noisy(constructor, kwargs, d_in, length)
    if built is None:
        return None
    problem, shape = built
    claim = float(stated(measurement, d_in))
    if str(measurement.output_measure).startswith("ZeroConcentrated"):
        return Decidable(problem, f"{constructor}: {shape}", None, rho=claim)
    return Decidable(problem, f"{constructor}: {shape}", claim)


def _chained(measurement: Any, kwargs: dict[str, Any], d_in: int, length: int) -> Decidable | None:
    """A transformation followed by integer noise: the noise decided at the distance the
    transformation's stability map gives (``make_count``: d_in → d_in).  The map is OpenDP's;
    faier decides the measurement behind it."""
    transformation, inner = kwargs.get("transformation0"), kwargs.get("measurement1")
    recipe = _recipe(transformation)
    if recipe is None or inner is None or transformation is None:
        return None
    try:
        middle = transformation.map(distance(transformation, d_in))
    except Exception:
        return None
    if isinstance(middle, float) and not middle.is_integer():
        return None
    found = _decidable(inner, int(middle), length)
    if found is None:
        return None
    claim = stated(measurement, d_in)
    constructor = f"{recipe[0]} (d_in {d_in} → {int(middle)}, OpenDP's stability map) >> "
    if isinstance(claim, tuple):
        epsilon, delta = claim
        return Decidable(
            found.problem, constructor + found.constructor, float(epsilon), float(delta)
        )
    if found.rho is not None:
        return Decidable(found.problem, constructor + found.constructor, None, rho=float(claim))
    return Decidable(found.problem, constructor + found.constructor, float(claim))
