"""``faier certify`` and ``faier bound`` on continuous noise: the certified engine decides candidates.

Each StatDP continuous example at n = 3 (``--lengths 3``), claimed ε₀ = 0.7:
the verdict is pinned, and the certified enclosures are checked against
what the tester itself counted on the same inputs and events (two-sided
Clopper–Pearson intervals at 1 − 10⁻⁶ must meet them), against scipy quad
(the probability that a released number lies in an interval) and against
the exact piecewise density integrated over the interval (two exact routes
to the same closed form).
"""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats
from typer.testing import CliRunner

import faier.testing as t
from faier.cli.main import app
from faier.engines.certified import balls, densities
from faier.engines.certified.symbolic import paths
from faier.engines.statistical.certified_events import CertifiedEvent, EventMeasurer
from faier.engines.statistical.events import AVG, MAX, MIN, VALUE, Condition, Event, Feature
from faier.engines.statistical.significance import clopper_pearson, loss_interval
from faier.mechanisms.library import statdp
from faier.mechanisms.sampled import Outputs
from faier.results import Verdict

runner = CliRunner()
FAST = {"samples": 20_000, "selection_samples": 5_000, "seed": 3, "workers": 1}
GRID = "0.5,0.7,1.5"
LEVEL = 1e-6

# name → (certify verdict at 0.7, the largest certified lower bound of a tested event's loss)
EXPECTED = {
    "noisy-max-laplace": (Verdict.UNKNOWN, 0.581458),
    "svt-laplace": (Verdict.UNKNOWN, 0.256326),
    "isvt1-laplace": (Verdict.VIOLATED, math.inf),
    "isvt2-laplace": (Verdict.VIOLATED, 0.771936),
    "isvt3-laplace": (Verdict.VIOLATED, 0.894654),
    "noisy-max-laplace-value": (Verdict.VIOLATED, 1.05),
    "histogram-laplace-wrong-scale": (Verdict.VIOLATED, 1 / 0.7),
}


def _meets(low: float, high: float, enclosure: Any) -> bool:
    return bool(low <= enclosure.upper and enclosure.lower <= high)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_certify_at_n_3_pins_verdicts_and_meets_the_testers_intervals(name: str) -> None:
    verdict, loss = EXPECTED[name]
    report = t.certify(name, claimed="0.7", lengths=3, epsilons=GRID, **FAST)
    assert report.verdict is verdict
    assert report.exit_code == (1 if verdict is Verdict.VIOLATED else 3)
    assert report.lower is not None
    assert report.lower.lower == pytest.approx(loss, rel=1e-6)
    assert not report.notes  # the sampler and its model agree on every counted event
    for row in report.rows:
        found = row.exact
        assert isinstance(found, CertifiedEvent)
        point = row.point
        for count, enclosure in ((point.counts[0], found.p), (point.counts[1], found.q)):
            assert enclosure.lower <= enclosure.upper
            assert _meets(*clopper_pearson(count, point.samples, 1 - LEVEL), enclosure)
        low, high = loss_interval(*point.counts, point.samples, point.samples, 1 - LEVEL)
        assert _meets(low, high, found.loss_enclosure)
        # real exactly when the certified loss exceeds the tested ε
        assert row.verdict == ("real" if found.lower > point.epsilon else "spurious")
    interval = report.test.interval
    assert interval is not None
    if verdict is Verdict.VIOLATED:
        witness = report.result.certified_witness
        assert witness is not None and witness.ratio.lower > math.exp(0.7)


# name → the certified ε* over {0..m}³ with the interval candidate's arguments (docs/TESTING.md)
BOUND = {
    "noisy-max-laplace": 0.581458,
    "svt-laplace": 0.429604,
    "isvt1-laplace": math.inf,
    "isvt2-laplace": 0.804847,
    "isvt3-laplace": 1.084820,
    "noisy-max-laplace-value": 1.05,
    "histogram-laplace-wrong-scale": 10 / 7,
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_bound_at_n_3_encloses_every_certified_event_loss(name: str) -> None:
    report = t.bound(name, claimed="0.7", lengths=3, epsilons=GRID, **FAST)
    result = report.exact
    assert result is not None and report.exit_code == 0
    assert result.enclosure is not None
    assert result.enclosure.lower == pytest.approx(BOUND[name], rel=1e-6)
    assert "certified" in result.method and "certified engine" in report.notes[-1]
    certified = t.certify(name, claimed="0.7", lengths=3, epsilons=GRID, **FAST)
    args = report.test.interval.candidate.left.args if report.test.interval else ()
    for row in certified.rows:
        if row.point.candidate.left.args == args and isinstance(row.exact, CertifiedEvent):
            assert row.exact.lower <= result.enclosure.upper  # an event's loss never exceeds ε*


def test_bound_of_noisy_max_value_is_its_closed_form() -> None:
    """StatDP Alg. 7 at n = 3: ε* = ε₀·|Q|/2 = 1.05, to 5·10⁻¹⁰ relative."""
    report = t.bound("noisy-max-laplace-value", claimed="0.7", lengths=3, epsilons=GRID, **FAST)
    assert report.exact is not None and report.exact.enclosure is not None
    assert report.exact.enclosure.lower <= 1.05 <= report.exact.enclosure.upper
    assert report.exact.enclosure.upper - report.exact.enclosure.lower < 1e-9


def test_certify_refuses_an_irrational_noise_scale() -> None:
    from faier.errors import SpecError

    with pytest.raises(SpecError, match="not a positive rational"):
        t.certify("svt-laplace", claimed="ln(2)", lengths=3, epsilons="0.5", **FAST)


def _cli(*args: str, code: int) -> Any:
    result = runner.invoke(app, [*args, "--json"], env={"COLUMNS": "200"})
    assert result.exit_code == code, result.output
    return json.loads(result.stdout)


SMALL = ["--lengths", "3", "--epsilons", GRID, "--samples", "20000"]
SMALL += ["--selection-samples", "5000", "--seed", "3", "--workers", "1"]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_cli_certify_json_carries_enclosures(name: str) -> None:
    verdict, loss = EXPECTED[name]
    data = _cli("certify", name, "--claimed", "0.7", *SMALL, code=verdict.exit_code)
    assert data["verdict"] == verdict.value
    for row in data["certified"]:
        assert row["certified"] is True and row["counterexample"] in ("real", "spurious")
        for side in ("p_enclosure", "q_enclosure"):
            assert row[side]["lower"] <= row[side]["upper"]
        assert set(row["loss"]) >= {"lower", "upper", "value"}
    lower = data["lower_bound"]
    assert lower["ratio"] is None
    assert lower["lower"] == "inf" if math.isinf(loss) else lower["lower"] == pytest.approx(loss)
    if verdict is Verdict.VIOLATED:
        assert data["witness"]["p"]["lower"] <= data["witness"]["p"]["upper"]


def test_cli_bound_and_text() -> None:
    data = _cli("bound", "noisy-max-laplace", "--claimed", "0.7", *SMALL, code=0)
    star = data["exact"]["epsilon_star"]
    assert star["lower"] == pytest.approx(0.581458, rel=1e-6)
    result = runner.invoke(app, ["certify", "noisy-max-laplace-value", "--claimed", "0.7", *SMALL])
    assert result.exit_code == 1
    assert "candidates certified by the certified engine" in result.stdout
    assert "ε*              ≥ 1.05" in result.stdout or "≥ 1.05" in result.stdout


def test_cli_certify_a_users_laplace_program(tmp_path: Any) -> None:
    source = tmp_path / "mine.py"
    source.write_text(
        "import faier\n\n\n"
        "@faier.program(inputs=faier.grid(2, 2))\n"
        "def above(x, ctx):\n"
        "    return 1 if x[0] + ctx.draw(faier.laplace(0, 2)) >= 1 else 0\n"
    )
    args = ["--epsilons", "0.3,0.6", "--samples", "20000", "--selection-samples", "4000"]
    data = _cli("certify", str(source), "--claimed", "0.2", *args, "--seed", "1", code=1)
    p, q = data["witness"]["p"], data["witness"]["q"]
    # Pr[Lap(2) ≥ 0] = 1/2 against Pr[Lap(2) ≥ 1] = e^(−1/2)/2: the loss is exactly 1/2
    assert p["closed_form"] == "1/2" and q["closed_form"] == "1/2·e^(-1/2)"
    assert data["lower_bound"]["lower"] == pytest.approx(0.5)


# ------------------------------------------------------------- released numbers vs scipy quad


def _max_density(x: tuple[int, ...], b: float, t: float) -> float:
    """The density of max_i (x_i + Lap(b)) at t (the star formula, independent of faier)."""
    total = 0.0
    for i, xi in enumerate(x):
        term = stats.laplace.pdf(t - xi, scale=b)
        for j, xj in enumerate(x):
            if j != i:
                term *= stats.laplace.cdf(t - xj, scale=b)
        total += term
    return float(total)


def _value_event(low: float, high: float, kind: str = VALUE) -> Event:
    scalar = kind == VALUE
    return Event((Condition(Feature(kind, 0, scalar=scalar), low, high),))


@settings(max_examples=20, deadline=None)
@given(
    x=st.tuples(*[st.integers(0, 2)] * 3),
    low=st.integers(-12, 8),
    width=st.integers(1, 12),
    infinite=st.sampled_from(["none", "low", "high"]),
)
def test_noisy_max_value_event_against_quad(
    x: tuple[int, int, int], low: int, width: int, infinite: str
) -> None:
    a = -math.inf if infinite == "low" else low / 2
    c = math.inf if infinite == "high" else low / 2 + width / 2
    eps0 = Fraction(7, 10)
    program = statdp.noisy_max(3, 2, eps0, noise="laplace", report="value")
    measure = EventMeasurer(program).measure(x, _value_event(a, c))
    exact = measure.exact
    assert exact is not None
    enclosure = balls.enclose(exact)
    b = float(2 / eps0)
    breaks = [v for v in sorted(set(x)) if a < v < c]
    edges = [a, *breaks, c]
    quad = sum(
        integrate.quad(lambda t: _max_density(x, b, t), lo, hi, epsabs=1e-13, epsrel=1e-11)[0]
        for lo, hi in itertools.pairwise(edges)
    )
    assert enclosure.lower - 1e-9 <= quad <= enclosure.upper + 1e-9
    # the same probability as the exact piecewise density integrated over [a, c)
    run = list(paths(lambda ctx: program.body(x, ctx)))
    (curve,) = densities.line_densities(run).values()
    cumulative = curve.cumulative()
    top = cumulative.at(Fraction(repr(c))) if math.isfinite(c) else curve.total()
    bottom = cumulative.at(Fraction(repr(a))) if math.isfinite(a) else None
    integral = top if bottom is None else top - bottom
    assert integral == exact


@pytest.mark.parametrize("kind", [VALUE, MIN, MAX, AVG])
def test_histogram_events_against_closed_forms(kind: str) -> None:
    """Histogram with Lap(1/ε₀) per bin: components, min and max from scipy's CDFs."""
    eps0 = Fraction(7, 10)
    x = (0, 1, 2)
    program = statdp.histogram(3, 2, eps0, wrong_scale=False)
    b = float(1 / eps0)
    low, high = -0.5, 1.5
    event = Event((Condition(Feature(kind, 1 if kind == VALUE else 0), low, high),))
    if kind == AVG:  # a sum of noise has no closed form here: unknown, never a guess
        from faier.engines.certified.integrate import Unsupported

        with pytest.raises(Unsupported):
            EventMeasurer(program).measure(x, event)
        return
    measure = EventMeasurer(program).measure(x, event)
    assert measure.exact is not None
    cdf = [lambda v, q=q: float(stats.laplace.cdf(v - q, scale=b)) for q in x]
    if kind == VALUE:
        expected = cdf[1](high) - cdf[1](low)
    elif kind == MIN:
        survive = [lambda v, f=f: 1 - f(v) for f in cdf]
        expected = math.prod(s(low) for s in survive) - math.prod(s(high) for s in survive)
    else:
        expected = math.prod(f(high) for f in cdf) - math.prod(f(low) for f in cdf)
    enclosure = balls.enclose(measure.exact)
    assert enclosure.lower - 1e-12 <= expected <= enclosure.upper + 1e-12


def test_isvt4_count_and_value_event_against_quad() -> None:
    """iSVT 4 (cutoff 1): Pr[one ⊥ then the noisy answer in [1, 3)] by direct integration."""
    eps0 = Fraction(7, 10)
    program = statdp.sparse("isvt4", 3, 2, eps0, cutoff=1, threshold=Fraction(1))
    x = (2, 0, 1)
    event = Event(
        (
            Condition(Feature("count", category=False), 1, 1, equals=True),
            Condition(Feature(MAX), 1.0, 3.0),
        )
    )
    measure = EventMeasurer(program).measure(x, event)
    assert measure.exact is not None
    bt, bq = 2 / 0.7, 2 / 0.7  # threshold Lap(2/ε₀), queries Lap(2N/ε₀) with N = 1

    def given_rho(r: float) -> float:
        # ⊥ at query 0 (x0 + ν0 < 1 + r), then ⊤ at query 1 with 1 ≤ x1 + ν1 < 3
        first = stats.laplace.cdf(1 + r - x[0], scale=bq)
        low = max(1 + r, 1.0)
        second = max(
            0.0, stats.laplace.cdf(3 - x[1], scale=bq) - stats.laplace.cdf(low - x[1], scale=bq)
        )
        return float(stats.laplace.pdf(r, scale=bt) * first * second)

    quad = sum(
        integrate.quad(given_rho, lo, hi, epsabs=1e-13, epsrel=1e-11)[0]
        for lo, hi in ((-math.inf, 0), (0, 1), (1, 2), (2, math.inf))
    )
    enclosure = balls.enclose(measure.exact)
    assert enclosure.lower - 1e-10 <= quad <= enclosure.upper + 1e-10


def test_a_constant_number_meets_equality_events_and_noise_does_not() -> None:
    eps0 = Fraction(7, 10)
    program = statdp.noisy_max(3, 2, eps0, noise="laplace", report="index")
    measurer = EventMeasurer(program)
    one = Event((Condition(Feature(VALUE, 0, scalar=True), 1.0, 1.0, equals=True),))
    everything = Event((Condition(Feature(VALUE, 0, scalar=True), -math.inf, math.inf),))
    x = (1, 1, 1)
    assert balls.enclose(measurer.measure(x, one).closed).closed_form == "1/3"
    assert measurer.measure(x, everything).closed == measurer.measure((0, 2, 1), everything).closed
    value = statdp.noisy_max(3, 2, eps0, noise="laplace", report="value")
    point = Event((Condition(Feature(VALUE, 0, scalar=True), 1.0, 1.0, equals=True),))
    assert EventMeasurer(value).measure(x, point).is_zero


def test_gaussian_candidates_are_enclosed_by_rigorous_integration(tmp_path: Any) -> None:
    """A threshold N(0, 1) against queries plus N(0, 4): each pattern's probability by quad."""
    pytest.importorskip("faier.engines.certified.gaussian")
    source = tmp_path / "gaussian_svt.py"
    source.write_text(
        "import faier\n\n\n"
        "@faier.program(inputs=faier.grid(2, 2))\n"
        "def noisy_above(x, ctx):\n"
        "    threshold = 1 + ctx.draw(faier.gaussian(0, 1))\n"
        "    return tuple(q + ctx.draw(faier.gaussian(0, 2)) >= threshold for q in x)\n"
    )
    report = t.certify(source, claimed="0.3", epsilons="0.2,0.6", **FAST)
    assert report.verdict is Verdict.VIOLATED and not report.notes
    for row in report.rows:
        found = row.exact
        assert isinstance(found, CertifiedEvent) and found.p_measure.exact is None
        candidate = row.point.candidate
        for x, enclosure in ((candidate.left.value, found.p), (candidate.right.value, found.q)):
            total = 0.0
            for output in itertools.product((True, False), repeat=2):
                slots = list(output)
                hit = candidate.event.mask(Outputs.from_values([tuple(slots)]))[0]
                if not hit:
                    continue

                def density(r: float, output: tuple[bool, ...] = output, x: Any = x) -> float:
                    value = float(stats.norm.pdf(r))
                    for q, top in zip(x, output, strict=True):
                        above = float(stats.norm.sf(1 + r - q, scale=2))
                        value *= above if top else 1 - above
                    return value

                total += integrate.quad(density, -math.inf, math.inf, epsabs=1e-14)[0]
            assert enclosure.lower - 1e-12 <= total <= enclosure.upper + 1e-12


def test_candidates_not_computed_in_time_are_unknown() -> None:
    from faier.engines.statistical import combine
    from faier.privacy.budget import Epsilon

    report = t.statistical_test("isvt1-laplace", claimed="0.7", lengths=3, epsilons="0.5", **FAST)
    model = t.suite_model("isvt1-laplace", Fraction(7, 10))
    late = combine.certify(None, report, Epsilon.parse("0.7"), model, timeout=1e-9)
    assert late.verdict is Verdict.UNKNOWN and late.exit_code == 3
    assert all(row.verdict == "unknown" and "timeout" in (row.reason or "") for row in late.rows)
    on_time = combine.certify(None, report, Epsilon.parse("0.7"), model, timeout=60)
    assert on_time.verdict is Verdict.VIOLATED


def test_integer_noise_events_are_enclosed_not_read_as_continuous(tmp_path: Any) -> None:
    """Discrete Laplace noise (t = 2): Pr[x + K = k] = (1 − a)/(1 + a)·a^|k − x| with a = e^(−1/2);
    an equality event has positive probability on the integers (read as continuous it was 0)."""
    source = tmp_path / "noisy_count.py"
    source.write_text(
        "import faier\n\n\n"
        "@faier.program(inputs=faier.grid(1, 2))\n"
        "def noisy_count(x, ctx):\n"
        "    return x[0] + ctx.draw(faier.discrete_laplace(0, 2))\n"
    )
    report = t.certify(source, claimed="0.2", epsilons="0.3,0.6", **FAST)
    a = math.exp(-0.5)
    assert report.verdict is Verdict.VIOLATED and not report.notes
    for row in report.rows:
        found = row.exact
        assert isinstance(found, CertifiedEvent)
        (condition,) = row.point.candidate.event.conditions
        assert condition.equals
        k = condition.low
        for x, enclosure in (
            (row.point.candidate.left.value, found.p),
            (row.point.candidate.right.value, found.q),
        ):
            expected = (1 - a) / (1 + a) * a ** abs(k - x[0])
            assert enclosure.lower - 1e-12 <= expected <= enclosure.upper + 1e-12
        assert found.loss_enclosure.lower <= 0.5 <= found.loss_enclosure.upper


@settings(max_examples=15, deadline=None)
@given(
    variant=st.sampled_from(["svt", "isvt1", "isvt2", "isvt3"]),
    cutoff=st.integers(1, 2),
    threshold=st.fractions(min_value=-1, max_value=3, max_denominator=4),
    data=st.data(),
)
def test_events_agree_with_the_certified_engines_output_table(
    variant: str, cutoff: int, threshold: Fraction, data: Any
) -> None:
    """Pr[hamming(ω, o) = 0] by event terms equals the engine's own table entry for o, exactly."""
    from faier.core.budget import Budget
    from faier.engines.certified.engine import Table, build_table
    from faier.engines.certified.exppoly import ExpSum
    from faier.engines.statistical.events import HAMMING, Reference

    program = statdp.sparse(variant, 3, 2, Fraction(7, 10), cutoff=cutoff, threshold=threshold)
    table = build_table(program, Budget())
    assert isinstance(table, Table)
    i = data.draw(st.integers(0, len(table.inputs) - 1))
    x = table.inputs[i]
    output = data.draw(st.sampled_from(sorted(table.outputs, key=repr)))
    event = Event((Condition(Feature(HAMMING, reference=Reference(output)), 0, 0, True),))
    measure = EventMeasurer(program).measure(x, event)
    assert measure.exact == table.exact[i].get(output, ExpSum(()))
