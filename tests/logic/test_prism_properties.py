"""Properties as PRISM property files write them, read as PRISM and Storm read them.

tests/logic/models/brp.pm is the bounded retransmission protocol of the PRISM
benchmark suite; its property file (models/dtmcs/brp/p2.pctl, p4.pctl) has
``P=? [ F s=5 & srep=2 ]`` and ``P=? [ F !(srep=0) & !recv ]``.  faier once
read them as ``(F s=5) & srep=2`` (0) and ``(F !(srep=0)) & !recv`` (1); PRISM
and Storm read ``F (s=5 & srep=2)``, whose published value for N=16, MAX=2
is 2.6453089092093334E-5, and ``F (!(srep=0) & !recv)``, 8.0E-6.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

import faier.cli.main  # noqa: F401  (registers the commands on the app)
from faier.cli.common import app
from faier.logic import check, load_model
from faier.logic.models import LogicModel
from faier.logic.parser import FormulaError

stormpy = pytest.importorskip("stormpy")

BRP = Path(__file__).parent / "models" / "brp.pm"
CONSTANTS = {"N": "16", "MAX": "2"}


@pytest.fixture(scope="module")
def brp() -> LogicModel:
    return load_model(str(BRP), CONSTANTS)


def storm_exact(path: Path, constants: dict[str, str], query: str) -> Fraction:
    """Plain stormpy in exact arithmetic: the value in the initial state."""
    program = stormpy.parse_prism_program(str(path))
    program, _ = stormpy.instantiate_constants(
        program, {name: int(value) for name, value in constants.items()}
    )
    properties = stormpy.parse_properties(query, program)
    model = stormpy.build_model[stormpy.Rational](program, properties)
    result = stormpy.model_checking(model, properties[0])
    (initial,) = model.initial_states
    return Fraction(str(result.get_value(initial)))


@pytest.mark.parametrize(
    ("query", "grouped", "published"),
    [
        ('"p2": P=? [ F s=5 & srep=2 ];', "P=? [F (s = 5 & srep = 2)]", 2.6453089092093334e-5),
        ('"p4": P=? [ F !(srep=0) & !recv ];', "P=? [F (!(srep = 0) & !recv)]", 8.0e-6),
        ("P=? [ F s=5 ]", "P=? [F s = 5]", 4.2333344360436463e-4),
    ],
)
def test_brp_properties_read_as_prism_reads_them(
    brp: LogicModel, query: str, grouped: str, published: float
) -> None:
    result = check(brp, query)
    ((_, value),) = result.values
    assert result.formula == grouped
    assert value == storm_exact(BRP, CONSTANTS, query)
    assert float(value) == pytest.approx(published, rel=1e-12)


def test_brp_p4_is_exactly_one_in_125000(brp: LogicModel) -> None:
    assert check(brp, "P=? [ F !(srep=0) & !recv ]").values[0][1] == Fraction(1, 125000)


def test_the_cli_prints_and_serialises_the_grouping() -> None:
    query = "P=? [ F s=5 & srep=2 ]"
    args = ["check", str(BRP), "--const", "N=16,MAX=2", "-f", query]
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["formula"] == "P=? [F (s = 5 & srep = 2)]"
    (value,) = report["values"].values()
    assert Fraction(value) == storm_exact(BRP, CONSTANTS, query)
    text = CliRunner().invoke(app, args)
    assert "formula     P=? [F (s = 5 & srep = 2)]" in text.stdout
    named = CliRunner().invoke(app, [*args[:-1], '"p2": ' + query + ";", "--json"])
    assert json.loads(named.stdout)["name"] == "p2"
    assert "property    p2" in CliRunner().invoke(app, [*args[:-1], '"p2": ' + query]).stdout


DEFINITIONS = """dtmc
const int N = 4;
const int COL;
const double p = 1/2;
const bool tracked = true;
formula done = s = N;
formula half = s / N;
formula high = half >= 0.5 & !done;
module m
  s : [0..N] init 0;
  [] s < N -> p : (s'=s+1) + 1-p : (s'=s);
  [] s = N -> true;
endmodule
"""


@pytest.mark.parametrize(
    "query",
    [
        "P=? [ F<=4 half >= 0.5 ]",
        "P=? [ F<=3 done ]",
        "P=? [ F<=3 s = COL ]",
        "P=? [ G<=3 !high ]",
        "P=? [ F<=3 s/N >= p & tracked ]",
        '"named": P=? [ F<=2 high | s = N - 1 ];',
    ],
)
def test_constants_and_formulas_inside_properties(query: str, tmp_path: Path) -> None:
    """PRISM properties name the model's constants and formulas (nand: z/N<0.1, wlan: col=COL)."""
    path = tmp_path / "definitions.pm"
    path.write_text(DEFINITIONS, encoding="utf-8")
    model = load_model(str(path), {"COL": "2"})
    ((_, value),) = check(model, query).values
    storm_query = query.replace("G<=3 !high", "!(F<=3 high)")  # Storm has no bounded G
    assert value == storm_exact(path, {"COL": "2"}, storm_query)


def test_an_unknown_name_lists_the_constants_and_formulas(tmp_path: Path) -> None:
    path = tmp_path / "definitions.pm"
    path.write_text(DEFINITIONS, encoding="utf-8")
    model = load_model(str(path), {"COL": "2"})
    with pytest.raises(FormulaError) as caught:
        check(model, "P=? [F hlaf > 0]")
    assert caught.value.message == "unknown variable 'hlaf' in hlaf > 0"
    assert caught.value.fix == (
        "did you mean 'half'? variables of definitions are s; "
        "its constants and formulas are COL, N, done, half, high, p, tracked"
    )


def test_step_bounds_may_name_the_models_constants(tmp_path: Path) -> None:
    """resource-gathering's Pmax=? [F<=B "success"]: B is read from the model, as Storm does."""
    path = tmp_path / "definitions.pm"
    path.write_text(DEFINITIONS, encoding="utf-8")
    model = load_model(str(path), {"COL": "2"})
    for query in ("P=? [ F<=N done ]", "P=? [ !done U<=COL high ]"):
        ((_, value),) = check(model, query).values
        assert value == storm_exact(path, {"COL": "2"}, query)
    result = CliRunner().invoke(
        app, ["check", str(path), "--set", "COL=2", "-f", "P=? [ F<=N done ]", "--json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["formula"] == "P=? [F<=4 done]"
    for query, message in [
        ("P=? [F<=Q done]", "step bound Q is not a whole-number constant of the model"),
        ("P=? [F<=p done]", "step bound p is not a whole-number constant of the model"),
    ]:
        with pytest.raises(FormulaError) as caught:
            check(model, query)
        assert caught.value.message == message
        assert caught.value.fix == "its whole-number constants are COL, N"


FUNCTIONS = """dtmc
const int N = 5;
formula w = s = 0 ? 2 : min(s, 3) + floor(s / 2) + pow(2, s) - mod(s, 2);
formula odd = mod(s, 2) = 1 | s = N;
module m
  s : [0..N] init 0;
  [] s < N -> 1/2 : (s'=s+1) + 1/2 : (s'=max(s - 1, 0));
  [] s = N -> true;
endmodule
"""


@pytest.mark.parametrize("query", ["P=? [ F<=4 w >= 8 ]", "P=? [ F<=3 odd & w < 12 ]"])
def test_formulas_with_conditions_and_functions(query: str, tmp_path: Path) -> None:
    """Storm's expression (ITE, min, floor, pow, mod) turned into a term, evaluated exactly."""
    path = tmp_path / "functions.pm"
    path.write_text(FUNCTIONS, encoding="utf-8")
    ((_, value),) = check(load_model(str(path)), query).values
    assert value == storm_exact(path, {}, query)


def test_storms_remainder_is_cs() -> None:
    """Storm writes PRISM's mod with C's %, whose sign is the dividend's (math.fmod)."""
    import math

    from faier.logic.definitions import _remainder
    from faier.logic.expressions import evaluate

    term = _remainder(("var", "a"), ("var", "b"))
    for a in range(-7, 8):
        for b in (-3, -2, 2, 3):
            assert evaluate(term, {"a": a, "b": b}) == math.fmod(a, b)
