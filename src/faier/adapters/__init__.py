"""Real DP libraries' mechanisms as black boxes for the statistical tester.

* :func:`from_opendp` wraps an OpenDP measurement (``make_laplace``,
  ``make_geometric``, ``make_noisy_max``, ...);
* :func:`from_diffprivlib` wraps a diffprivlib mechanism (``Laplace``,
  ``Geometric``, ``Exponential``, ``Snapping``, ...).

Without ``query`` the tester runs the object on its own input (one number,
or the vector an OpenDP vector domain or a diffprivlib ``Exponential``'s
utilities take), its neighbours read from the object (±sensitivity,
``d_in``).  With ``query`` (data → the object's input) it runs on data
vectors, ``neighbours`` describing the data (default: every query ±1): this
is how a wrapper's own calibration is tested.

Each returns a :class:`~faier.mechanisms.sampled.Sampled` whose
``stated_epsilon`` is the ε the library object itself states (OpenDP's privacy
map at ``d_in``, diffprivlib's ``epsilon``): the default claim of
``faier.testing.statistical_test`` and ``faier.assert_private``.  The library
is imported only when an object of it is wrapped (extras ``opendp`` and
``diffprivlib``).  :func:`wrap` is what the tester calls on an object it does
not know: it recognises both libraries by the object's module.

:func:`decidable` goes further for OpenDP measurements whose noise is
integer (``make_laplace``/``make_geometric`` on integers: discrete Laplace;
``make_gaussian`` on integers: discrete Gaussian): it rewrites them as faier
programs (``adapters/opendp_program.py``) that the certified engine decides
exactly, which ``faier.assert_private`` and ``faier.verify`` then do; so are
diffprivlib's ``Geometric`` and ``GeometricTruncated``, for the distribution
they are meant to sample (``adapters/diffprivlib_program.py``).  Only an
object that runs its library's own code on its sampling path is decided from
its parameters (``adapters/own_code.py``: no instance attribute or subclass
overrides a method that path resolves to); any other, a patched ``randomise``
or a subclass redefining it, is run itself and tested, never decided.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from faier.adapters.common import Query
from faier.errors import SpecError
from faier.mechanisms.sampled import Sampled

if TYPE_CHECKING:
    from faier.adapters.opendp_program import Decidable
    from faier.core.problem import Problem


def from_opendp(
    measurement: Any,
    *,
    d_in: float = 1,
    query: Query | None = None,
    neighbours: str | None = None,
    lengths: tuple[int, ...] | None = None,
    name: str | None = None,
) -> Sampled:
    """An OpenDP measurement (pure ε, ``max_divergence``) as a black box; see the module."""
    from faier.adapters.opendp_measurement import wrap_measurement

    return wrap_measurement(
        measurement, d_in=d_in, query=query, neighbours=neighbours, lengths=lengths, name=name
    )


def from_diffprivlib(
    mechanism: Any,
    *,
    query: Query | None = None,
    neighbours: str | None = None,
    lengths: tuple[int, ...] | None = None,
    name: str | None = None,
    seeded: bool = True,
) -> Sampled:
    """A diffprivlib mechanism as a black box; see the module."""
    from faier.adapters.diffprivlib_mechanism import wrap_mechanism

    return wrap_mechanism(
        mechanism, query=query, neighbours=neighbours, lengths=lengths, name=name, seeded=seeded
    )


def decidable(obj: Any, *, d_in: int = 1, length: int = 2) -> Decidable | None:
    """A library object faier can decide, as a problem with the library's stated claim:
    OpenDP measurements with integer noise, diffprivlib's ``Geometric`` and
    ``GeometricTruncated`` (their neighbours: ±sensitivity), subclasses of them
    included, provided the object runs the library's own code on its sampling
    path (``faier.adapters.own_code``; the check is in ``assumptions``)."""
    library = library_of(obj)
    if library == "diffprivlib":
        from faier.adapters.diffprivlib_program import decidable as of_diffprivlib

        return of_diffprivlib(obj)
    if library == "opendp":
        from faier.adapters.opendp_program import decidable as of_opendp

        return of_opendp(obj, d_in=d_in, length=length)
    return None


def why_not_decided(obj: Any) -> str:
    """Why a library object is tested rather than decided, in words for an error message."""
    library = library_of(obj)
    if library == "diffprivlib":
        from faier.adapters import diffprivlib_program

        check = diffprivlib_program.own_code(obj)
        if check is not None and not check.own:
            return check.why_not()
        departure = diffprivlib_program.state_departure(obj) if check is not None else None
        if departure is not None:
            return departure
    elif library == "opendp":
        from faier.adapters import opendp_program

        check = opendp_program.own_code(obj)
        if not check.own:
            return check.why_not()
    return "its output distribution is not one faier models exactly"


def as_problem(obj: Any, *, d_in: int = 1, length: int = 2) -> Problem:
    """A library object as a faier problem (bad input naming why when it is only testable)."""
    found = decidable(obj, d_in=d_in, length=length)
    if found is None:
        raise SpecError(
            f"faier cannot decide a {type(obj).__name__} of this kind: {why_not_decided(obj)}",
            fix="test it statistically (faier.testing.statistical_test, faier.assert_private, "
            "faier test); OpenDP's make_laplace/make_geometric/make_gaussian on integers and "
            "diffprivlib's Geometric are decided",
        )
    return found.problem


def library_of(obj: Any) -> str | None:
    """``"opendp"`` for an OpenDP measurement, ``"diffprivlib"`` for a diffprivlib mechanism
    (subclasses included; told without importing either), else None."""
    for kind in type(obj).__mro__:
        root = kind.__module__.split(".")[0]
        if root == "opendp" and kind.__name__ == "Measurement":
            return "opendp"
        if root == "diffprivlib" and kind.__name__ == "DPMechanism":
            return "diffprivlib"
    return None


def is_library_object(obj: Any) -> bool:
    """An OpenDP measurement or a diffprivlib mechanism (told without importing either)."""
    return library_of(obj) is not None


def wrap(obj: Any, name: str | None = None) -> Sampled | None:
    """``obj`` wrapped with its library's defaults, or None when no adapter knows it."""
    library = library_of(obj)
    if library is None:
        return None
    if library == "opendp":
        return from_opendp(obj, name=name)
    return from_diffprivlib(obj, name=name)


@dataclass(frozen=True)
class LazyWrap:
    """A library object found in a mechanism file, wrapped only if it is the one chosen."""

    name: str
    obj: Any

    def wrapped(self) -> Sampled:
        found = wrap(self.obj, self.name)
        assert found is not None
        return found


__all__ = [
    "LazyWrap",
    "as_problem",
    "decidable",
    "from_diffprivlib",
    "from_opendp",
    "is_library_object",
    "library_of",
    "why_not_decided",
    "wrap",
]
