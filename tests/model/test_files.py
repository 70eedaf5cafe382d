"""Model files: every mistake gets a located message with a fix; good files load exactly."""

from __future__ import annotations

import copy
import importlib.util
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import sympy
import yaml

from faier.errors import BudgetExceeded, ModelError
from faier.model.files import (
    KEYS,
    HMMFile,
    hmm_document,
    load_hmm_file,
    parse_hmm_document,
    save_hmm_file,
)
from faier.model.hmm import HMM, SparseRow

F = Fraction
ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "src" / "faier" / "examples" / "models"
DELETE = object()

BASE: dict[str, Any] = {
    "name": "small",
    "parameters": {"p": {"domain": "(0, 1)"}},
    "states": ["s0", "s1", "s2"],
    "observations": ["a", "b"],
    "transitions": {"s0": {"s1": "1/2", "s2": "1/2"}},
    "emissions": {
        "s0": {"a": "1/2", "b": "1/2"},
        "s1": {"a": "1-p", "b": "p"},
        "s2": {"a": 1},
    },
    "initial": {"prior": {"s1": "1-p", "s2": "p"}},
    "pairs": [["s1", "s2"]],
    "horizon": 2,
}


def variant(*changes: tuple[str, object]) -> dict[str, Any]:
    """BASE with dotted paths set to new values (or removed with DELETE)."""
    doc = copy.deepcopy(BASE)
    for path, value in changes:
        *outer, last = path.split(".")
        target = doc
        for key in outer:
            target = target[key]
        if value is DELETE:
            del target[last]
        else:
            target[last] = value
    return doc


def load_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, name: str) -> HMMFile:
    """Load ``text`` from ``name`` in a fresh directory, so messages start with ``name``."""
    (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return load_hmm_file(name)


def test_base_document_is_valid() -> None:
    model = parse_hmm_document(BASE, source="base.yaml")
    assert model.name == "small"
    assert model.pairs == (("s1", "s2"),)
    assert model.horizon == 2


INVALID = [
    # --- the file as a whole
    pytest.param(
        "states: [a, b\nobservations: x\n", "model.yaml: line 2: not valid YAML", id="yaml"
    ),
    pytest.param("", "model.yaml: the file is empty", id="empty"),
    pytest.param("- a\n- b\n", "model.yaml: the top level is a list, not a mapping", id="list"),
    pytest.param(
        variant(("transition", {})),
        "model.yaml: unknown key 'transition' (did you mean 'transitions'? keys are name, "
        "description, parameters, states, observations, transitions, emissions, initial, "
        "pairs, horizon, data)",
        id="unknown-key",
    ),
    pytest.param(variant(("states", DELETE)), "model.yaml: missing 'states'", id="no-states"),
    pytest.param(
        variant(("observations", DELETE)), "model.yaml: missing 'observations'", id="no-obs"
    ),
    pytest.param(
        variant(("emissions", DELETE)), "model.yaml: missing 'emissions'", id="no-emissions"
    ),
    pytest.param(
        "states: [s0]\nobservations: [a]\nemissions:\n  s0: {a: 1}\n  s0: {a: 1}\n",
        "model.yaml: line 5: not valid YAML: the key 's0' appears twice",
        id="duplicate-key",
    ),
    # --- names
    pytest.param(
        variant(("states", ["s0", "s1", "s2", "s1"])),
        "model.yaml: states: state 's1' is listed twice",
        id="duplicate-state",
    ),
    pytest.param(
        variant(("states", "s0 s1 s2")),
        "model.yaml: states: expected a non-empty list of state names, got the text 's0 s1 s2'",
        id="states-not-list",
    ),
    pytest.param(variant(("states", [])), "states: expected a non-empty list", id="no-state"),
    pytest.param(
        variant(("observations", [True, False])),
        "model.yaml: observations: observation name True was read as a boolean (quote it",
        id="boolean-name",
    ),
    # --- rows that are not distributions
    pytest.param(
        variant(("emissions.s0", {"a": "2/3", "b": "1/6"})),
        "model.yaml: emissions.s0: probabilities sum to 5/6 (0.833333), not 1 (fractions must "
        "sum to exactly 1; decimals to within 1e-6)",
        id="sum-fractions",
    ),
    pytest.param(
        variant(("emissions.s0", {"a": 0.33, "b": 0.66})),
        "emissions.s0: probabilities sum to 99/100 (0.99), not 1",
        id="sum-decimals",
    ),
    pytest.param(
        variant(("emissions.s1", {"a": "p", "b": "p"})),
        "emissions.s1: probabilities sum to 2*p, not 1",
        id="sum-symbolic",
    ),
    pytest.param(
        variant(("emissions.s0", {"a": "-1/2", "b": "3/2"})),
        "emissions.s0: probability of 'a' is negative (-1/2)",
        id="negative",
    ),
    pytest.param(
        variant(("emissions.s0", {"a": "3/2", "b": "-1/2"})),
        "emissions.s0: probability of 'a' is 3/2, above 1",
        id="above-one",
    ),
    pytest.param(
        variant(("emissions.s0", {"a": "abc", "b": "1/2"})),
        "model.yaml: emissions.s0.a: unknown name 'abc' in probability 'abc' (declare it",
        id="non-numeric",
    ),
    pytest.param(
        variant(("emissions.s0", {"a": "1/2!", "b": "1/2"})),
        "emissions.s0.a: '1/2!' is not a probability",
        id="punctuation",
    ),
    pytest.param(
        variant(("emissions.s0", {"a": "N", "b": "1/2"})),
        "emissions.s0.a: unknown name 'N' in probability 'N'",
        id="sympy-name",
    ),
    pytest.param(
        variant(("emissions.s0", {"a": "1//2", "b": "1/2"})),
        "emissions.s0.a: cannot parse the probability '1//2'",
        id="floor-division",
    ),
    pytest.param(
        variant(("emissions.s1", {"a": "1-sqrt(p)", "b": "sqrt(p)"})),
        "emissions.s1.a: cannot parse the probability '1-sqrt(p)': 'sqrt(p)' is not allowed",
        id="function",
    ),
    pytest.param(
        variant(("emissions.s1", {"a": "1-p/0", "b": "p/0"})),
        "emissions.s1.a: cannot parse the probability '1-p/0': division by zero",
        id="division-by-zero",
    ),
    pytest.param(
        variant(("emissions.s0", {"a": True, "b": "1/2"})),
        "emissions.s0.a: expected a probability, got the boolean True",
        id="boolean-probability",
    ),
    pytest.param(
        variant(("emissions.s0", {"a": None, "b": 1})),
        "emissions.s0.a: expected a probability, got empty (null)",
        id="null-probability",
    ),
    pytest.param(
        variant(("emissions.s0", {"a": float("inf"), "b": 0})),
        "emissions.s0.a: inf is not a probability",
        id="infinity",
    ),
    pytest.param(variant(("emissions.s0", {})), "emissions.s0: empty distribution", id="empty-row"),
    pytest.param(
        variant(("emissions.s0", ["1/2", "1/2"])),
        "emissions.s0: expected a mapping, got a list",
        id="row-not-mapping",
    ),
    # --- unknown names
    pytest.param(
        variant(("transitions.s00", {"s0": 1})),
        "model.yaml: transitions: unknown state 's00' (did you mean 's0'? states are s0, s1, s2)",
        id="transition-source",
    ),
    pytest.param(
        variant(("transitions.s0", {"s1": "1/2", "s9": "1/2"})),
        "model.yaml: transitions.s0: unknown state 's9'",
        id="transition-target",
    ),
    pytest.param(
        variant(("emissions.t1", {"a": 1})), "emissions: unknown state 't1'", id="emission-state"
    ),
    pytest.param(
        variant(("emissions.s0", {"a": "1/2", "c": "1/2"})),
        "model.yaml: emissions.s0: unknown observation 'c' (observations are a, b)",
        id="emission-observation",
    ),
    pytest.param(
        variant(("emissions.s2", DELETE)),
        "model.yaml: emissions: no emissions for state 's2'",
        id="missing-emissions-row",
    ),
    pytest.param(
        variant(("initial.prior", {"s1": "1/2", "s4": "1/2"})),
        "model.yaml: initial.prior: unknown state 's4'",
        id="initial-state",
    ),
    pytest.param(
        variant(("initial.s0", {"s0": 1})),
        "initial: initial distribution 's0' has the name of a state",
        id="initial-named-like-state",
    ),
    pytest.param(
        variant(("emissions.s1", {"a": "1-q", "b": "q"})),
        "model.yaml: emissions.s1.a: unknown name 'q' in probability '1-q' (declare it under "
        "'parameters' (declared: p))",
        id="unknown-parameter",
    ),
    # --- pairs
    pytest.param(
        variant(("pairs", [["s1", "prior"], ["s0", "nobody"]])),
        "model.yaml: pairs[1]: 'nobody' is neither an initial distribution nor a state",
        id="pair-unknown",
    ),
    pytest.param(
        variant(("pairs", [["s1"]])),
        "pairs[0]: a pair is a list of two names, got a list",
        id="pair-short",
    ),
    pytest.param(
        variant(("pairs", [["s1", "s2"], ["s2", "s1"]])),
        "pairs[1]: the pair of 's2' and 's1' is listed twice",
        id="pair-twice",
    ),
    pytest.param(
        variant(("pairs", [["s1", "s1"]])),
        "pairs[0]: the pair compares 's1' with itself",
        id="pair-self",
    ),
    pytest.param(
        variant(("pairs", "s1 s2")), "pairs: expected a list of pairs", id="pairs-not-list"
    ),
    # --- horizon
    pytest.param(
        variant(("horizon", 0)),
        "model.yaml: horizon: expected a positive whole number, got the number 0",
        id="horizon-zero",
    ),
    pytest.param(variant(("horizon", 1.5)), "horizon: expected a positive", id="horizon-float"),
    pytest.param(variant(("horizon", "2")), "horizon: expected a positive", id="horizon-text"),
    pytest.param(variant(("horizon", True)), "horizon: expected a positive", id="horizon-bool"),
    # --- parameters
    pytest.param(
        variant(("parameters.p", {"domain": "(0 1)"})),
        "model.yaml: parameters.p.domain: '(0 1)' is not an interval",
        id="domain-syntax",
    ),
    pytest.param(
        variant(("parameters.p", {"domain": "(1, 0)"})),
        "parameters.p.domain: empty interval",
        id="domain-empty",
    ),
    pytest.param(
        variant(("parameters.p", {"domain": [0, 1]})),
        "parameters.p.domain: a domain is an interval written as text, got a list",
        id="domain-list",
    ),
    pytest.param(
        variant(("parameters.p", {"domain": "[0, 1/2]", "value": "2/3"})),
        "model.yaml: parameters.p: the value 2/3 of parameter 'p' lies outside its domain [0, 1/2]",
        id="value-outside-domain",
    ),
    pytest.param(
        variant(("parameters.p", {"domain": "(0, 1)", "value": "half"})),
        "parameters.p.value: expected a number, got the text 'half'",
        id="value-not-number",
    ),
    pytest.param(
        variant(("parameters.p", {"domian": "(0, 1)"})),
        "parameters.p: unknown key 'domian' (did you mean 'domain'?",
        id="parameter-key",
    ),
    pytest.param(
        variant(("parameters", {"1p": "(0, 1)"})),
        "parameters.1p: parameter name '1p' is not an identifier",
        id="parameter-name",
    ),
    pytest.param(
        variant(("name", 7)), "model.yaml: name: expected text, got the number 7", id="name"
    ),
]


@pytest.mark.parametrize(("document", "fragment"), INVALID)
def test_invalid_yaml_documents(
    document: str | dict[str, Any],
    fragment: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = document if isinstance(document, str) else yaml.safe_dump(document, sort_keys=False)
    with pytest.raises(ModelError) as info:
        load_text(tmp_path, monkeypatch, text, "model.yaml")
    assert fragment in str(info.value)
    assert str(info.value).startswith("model.yaml")
    assert info.value.fix


def test_fixes_are_given_for_the_common_mistakes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = yaml.safe_dump(variant(("emissions.s0", {"a": "2/3", "b": "1/6"})))
    with pytest.raises(ModelError) as info:
        load_text(tmp_path, monkeypatch, text, "model.yaml")
    assert info.value.where == "model.yaml: emissions.s0"
    assert info.value.fix == "fractions must sum to exactly 1; decimals to within 1e-6"


def test_file_not_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ModelError, match=r"^missing\.yaml: file not found \(check the path"):
        load_hmm_file("missing.yaml")


def test_directory_is_not_a_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "models.yaml").mkdir()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ModelError, match=r"^models\.yaml: not a file"):
        load_hmm_file("models.yaml")


def test_unknown_suffix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ModelError, match=r"model\.txt: unknown file type '\.txt'"):
        load_text(tmp_path, monkeypatch, "states: [a]", "model.txt")
    with pytest.raises(ModelError, match="unknown file type"):
        save_hmm_file(parse_hmm_document(BASE, source="x"), tmp_path / "out.toml")


def test_not_utf8(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "model.yaml").write_bytes(b"name: \xff\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ModelError, match=r"^model\.yaml: not UTF-8 text"):
        load_hmm_file("model.yaml")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('{\n  "states": ["a",]\n}\n', "model.json: line 2: not valid JSON: Expecting value"),
        ("[1, 2]", "model.json: the top level is a list, not a mapping"),
        ('{"states": ["a"], "states": ["b"]}', "model.json: the key 'states' appears twice"),
        ('{"horizon": 1}', "model.json: missing 'states'"),
    ],
    ids=["syntax", "list", "duplicate-key", "missing"],
)
def test_invalid_json_documents(
    text: str, fragment: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ModelError) as info:
        load_text(tmp_path, monkeypatch, text, "model.json")
    assert fragment in str(info.value)


def test_hmm_file_validates_itself() -> None:
    hmm = parse_hmm_document(BASE, source="x").hmm
    with pytest.raises(ModelError, match=r"m: pairs: 'z' is neither"):
        HMMFile("m", hmm, (("s0", "z"),), None)
    with pytest.raises(ModelError, match=r"m: horizon: horizon must be a positive"):
        HMMFile("m", hmm, (), 0)


# --- documents that load ---------------------------------------------------------------


def test_yaml_and_json_give_the_same_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from_yaml = load_text(tmp_path, monkeypatch, yaml.safe_dump(BASE), "small.yaml")
    from_json = load_text(tmp_path, monkeypatch, json.dumps(BASE), "small.json")
    assert from_yaml == from_json
    assert from_yaml.source == "small.yaml"
    assert from_json.source == "small.json"


def test_what_a_model_contains() -> None:
    model = parse_hmm_document(BASE, source="dir/small.yaml")
    hmm = model.hmm
    assert hmm.states == ("s0", "s1", "s2")
    assert hmm.observations == ("a", "b")
    assert hmm.transition[0] == (0, F(1, 2), F(1, 2))
    assert hmm.transition[1] == (0, 1, 0)  # left out: absorbing
    assert hmm.transition[2] == (0, 0, 1)
    assert hmm.emission[2] == (1, 0)
    assert model.distribution("s1") == (0, 1, 0)
    assert model.distribution("prior") == hmm.initial["prior"]


def test_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = "states: [x]\nobservations: [o]\nemissions: {x: {o: 1}}\n"
    model = load_text(tmp_path, monkeypatch, text, "tiny.yml")
    assert model.name == "tiny"
    assert model.description == ""
    assert model.pairs == ()
    assert model.horizon is None
    assert model.hmm.transition == ((1,),)
    assert model.hmm.initial == {}
    assert model.hmm.parameters == ()


def test_parametric_model_stays_symbolic_until_instantiated() -> None:
    doc = variant(
        ("parameters.p", {"domain": "[0, 1]", "value": "1/3"}),
        ("initial.prior", {"s0": "(1-p)^2", "s1": "2*p*(1-p)", "s2": "p^2"}),
    )
    model = parse_hmm_document(doc, source="param.yaml")
    hmm = model.hmm
    assert hmm.is_parametric
    (parameter,) = hmm.parameters
    assert (parameter.name, str(parameter.domain), parameter.value) == ("p", "[0, 1]", F(1, 3))
    p = sympy.Symbol("p", real=True)
    assert hmm.emission[1] == (1 - p, p)
    assert isinstance(hmm.initial["prior"][2], sympy.Expr)
    fixed = hmm.instantiate({"p": F(1, 3)})
    assert not fixed.is_parametric
    assert fixed.emission[1] == (F(2, 3), F(1, 3))
    assert fixed.initial["prior"] == (F(4, 9), F(4, 9), F(1, 9))
    assert all(isinstance(x, Fraction) for x in fixed.initial["prior"])


def test_bare_domain_and_default_domain() -> None:
    doc = variant(("parameters", {"p": "[0, 1/2]", "q": None}))
    params = parse_hmm_document(doc, source="x").hmm.parameters
    assert [(p.name, str(p.domain), p.value) for p in params] == [
        ("p", "[0, 1/2]", None),
        ("q", "(0, 1)", None),
    ]


def test_decimals_within_tolerance_are_rescaled_exactly() -> None:
    doc = variant(("emissions.s0", {"a": 0.3333333, "b": "0.6666666"}))
    row = parse_hmm_document(doc, source="x").hmm.emission[0]
    assert sum(row) == 1
    assert row == (F(3333333, 9999999), F(6666666, 9999999))
    exact = parse_hmm_document(variant(("emissions.s0", {"a": 0.25, "b": 0.75})), source="x")
    assert exact.hmm.emission[0] == (F(1, 4), F(3, 4))


def test_fractions_get_no_tolerance() -> None:
    doc = variant(("emissions.s0", {"a": "333333/1000000", "b": "2/3"}))
    with pytest.raises(ModelError, match="probabilities sum to"):
        parse_hmm_document(doc, source="x")


def test_yaml_integer_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = """\
states: [0, 1, 2]
observations: [0, 1]
transitions:
  0: {1: 1/2, 2: 1/2}
emissions:
  0: {0: 1}
  1: {0: 1/4, 1: 3/4}
  2: {1: 1}
initial:
  prior: {1: 0.5, 2: 0.5}
pairs: [[1, 2], [prior, 0]]
"""
    model = load_text(tmp_path, monkeypatch, text, "ints.yaml")
    assert model.hmm.states == ("0", "1", "2")
    assert model.hmm.observations == ("0", "1")
    assert model.hmm.transition[0] == (0, F(1, 2), F(1, 2))
    assert model.pairs == (("1", "2"), ("prior", "0"))


def test_int_and_text_name_are_the_same_name() -> None:
    doc = variant(("emissions.s0", DELETE), ("states", [0, "0", "s1", "s2"]))
    with pytest.raises(ModelError, match="state '0' is listed twice"):
        parse_hmm_document(doc, source="x")


def test_document_keys_follow_the_schema() -> None:
    assert set(hmm_document(parse_hmm_document(BASE, source="x"))) <= set(KEYS)


@pytest.mark.parametrize("suffix", [".yaml", ".yml", ".json"])
@pytest.mark.parametrize(
    "example", ["geometric", "geometric-contagious", "noisy-max-3", "<base>", "<param>"]
)
def test_save_then_load_gives_the_model_back(example: str, suffix: str, tmp_path: Path) -> None:
    if example == "<base>":
        model = parse_hmm_document(BASE, source="base")
    elif example == "<param>":
        doc = variant(
            ("parameters.p", {"domain": "[0, 1/2)", "value": 0.25}),
            ("emissions.s0", {"a": "2/3*p", "b": "1 - 2*p/3"}),
            ("transitions.s1", {"s1": "p^2", "s2": "1-p^2"}),
            ("description", "a parametric\nmodel"),
        )
        model = parse_hmm_document(doc, source="param")
    else:
        model = load_hmm_file(EXAMPLES / f"{example}.yaml")
    path = tmp_path / f"saved{suffix}"
    save_hmm_file(model, path)
    again = load_hmm_file(path)
    assert again == model
    assert again.source == str(path)
    save_hmm_file(again, tmp_path / f"twice{suffix}")
    assert (tmp_path / f"twice{suffix}").read_text() == path.read_text()


def test_saved_probabilities_are_exact_strings(tmp_path: Path) -> None:
    model = parse_hmm_document(BASE, source="x")
    save_hmm_file(model, tmp_path / "m.json")
    doc = json.loads((tmp_path / "m.json").read_text())
    assert doc["emissions"]["s1"] == {"a": "1 - p", "b": "p"}
    assert doc["transitions"] == {"s0": {"s1": "1/2", "s2": "1/2"}}
    assert doc["parameters"] == {"p": {"domain": "(0, 1)"}}


# --- the shipped examples --------------------------------------------------------------


def ratio(model: HMMFile, left: str, right: str, sequence: list[str]) -> Fraction:
    """Pr(sequence | left) / Pr(sequence | right), exactly."""
    hmm = model.hmm
    top = hmm.probability(model.distribution(left), sequence)
    bottom = hmm.probability(model.distribution(right), sequence)
    assert isinstance(top, Fraction) and isinstance(bottom, Fraction)
    return top / bottom


def worst_ratio(model: HMMFile, length: int) -> Fraction:
    """The largest likelihood ratio over the pairs (both orders) and sequences of the horizon."""
    assert length in (1, 2)
    hmm = model.hmm
    sequences = (
        [[o] for o in hmm.observations]
        if length == 1
        else [["start", o] for o in hmm.observations if o != "start"]
    )
    return max(
        ratio(model, a, b, s)
        for pair in model.pairs
        for a, b in (pair, pair[::-1])
        for s in sequences
        if hmm.probability(model.distribution(b), s) != 0
    )


def test_geometric_example() -> None:
    model = load_hmm_file(EXAMPLES / "geometric.yaml")
    assert model.name == "truncated-geometric"
    assert model.hmm.observations == ("0~", "1~", "2~")
    assert model.hmm.emission[0] == (F(2, 3), F(1, 6), F(1, 6))
    assert model.pairs == (("0", "1"), ("1", "2"))
    assert model.horizon == 1
    assert worst_ratio(model, 1) == 2  # ε* = ln 2
    assert model.distribution("none") == (1, 0, 0)
    assert model.distribution("both") == (0, 0, 1)


def test_geometric_contagious_example() -> None:
    model = load_hmm_file(EXAMPLES / "geometric-contagious.yaml")
    assert model.pairs == (("both", "none"),)
    assert model.horizon == 1
    assert worst_ratio(model, 1) == 4  # ε* = ln 4 (FAIER journal Ex. 4.4, conference Ex. 3)


def test_noisy_max_example() -> None:
    model = load_hmm_file(EXAMPLES / "noisy-max-3.yaml")
    assert len(model.hmm.states) == 54
    assert model.hmm.observations == ("start", "1", "2", "3")
    assert model.horizon == 2
    assert len(model.pairs) == 158
    hmm = model.hmm
    assert hmm.probability(hmm.point_mass("in111"), ["start", "1"]) == F(1, 3)
    assert hmm.probability(hmm.point_mass("in022"), ["start", "1"]) == F(7, 72)
    assert worst_ratio(model, 2) == F(24, 7)  # ε* = ln(24/7)


def test_noisy_max_example_is_what_the_script_generates() -> None:
    script = ROOT / "scripts" / "generate_noisy_max_model.py"
    spec = importlib.util.spec_from_file_location("generate_noisy_max_model", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    built = module.build_model()
    assert isinstance(built, HMMFile)
    assert isinstance(built.hmm, HMM)
    assert load_hmm_file(EXAMPLES / "noisy-max-3.yaml") == built


@pytest.mark.parametrize(
    "text",
    ["().__class__.__bases__", "__import__('os')", "p.real", "[p]", "lambda: 1", "p if p else 1"],
)
def test_expressions_are_never_evaluated_as_python(text: str) -> None:
    from faier.errors import ModelError
    from faier.model.probability import parse_probability

    with pytest.raises(ModelError):
        parse_probability(text, ["p"], where="x")


def test_a_probability_with_an_absurd_exponent_is_bad_input(tmp_path: Path) -> None:
    """1e-999999 is refused where it is written, not turned into a million-digit fraction."""
    path = tmp_path / "model.yaml"
    path.write_text(
        "states: [a, b]\nobservations: [x, y]\nemissions:\n"
        "  a: {x: 1e-999999, y: 1}\n  b: {x: 1/4, y: 3/4}\npairs: [[a, b]]\nhorizon: 1\n",
        encoding="utf-8",
    )
    with pytest.raises(ModelError, match=r"emissions\.a\.x: 1e-999999 is out of range"):
        load_hmm_file(path)


def absorbing_model(n: int) -> str:
    """n states without transitions (each absorbing), emitting a or b."""
    states = ", ".join(f"s{i}" for i in range(n))
    rows = "".join(f"  s{i}: {{a: 1/{i % 7 + 2}, b: {i % 7 + 1}/{i % 7 + 2}}}\n" for i in range(n))
    return f"states: [{states}]\nobservations: [a, b]\nemissions:\n{rows}pairs: [[s0, s1]]\n"


def test_absorbing_states_are_kept_as_one_entry_each(tmp_path: Path) -> None:
    """2,000 absorbing states: 2,000 stored entries, not a 2,000 × 2,000 matrix of Fractions
    (which took 41 s to build and check); read back densely they are the identity."""
    path = tmp_path / "many.yaml"
    path.write_text(absorbing_model(2000))
    model = load_hmm_file(path)
    rows = model.hmm.transition
    assert all(isinstance(r, SparseRow) and list(r.items()) == [(i, 1)] for i, r in enumerate(rows))
    assert rows[5] == tuple(F(int(j == 5)) for j in range(2000))
    saved = tmp_path / "many.json"
    save_hmm_file(model, saved)
    assert "transitions" not in json.loads(saved.read_text())  # absorbing is the default
    assert load_hmm_file(saved).hmm == model.hmm


class Limits:
    """A state cap and a deadline, as faier.core.budget.Budget gives them."""

    def __init__(self, max_states: int | None, expired: bool = False) -> None:
        self.max_states = max_states
        self.expired = expired

    def check_time(self) -> None:
        if self.expired:
            raise BudgetExceeded("timeout of 1 s reached")


def test_a_state_budget_refuses_a_model_before_building_it(tmp_path: Path) -> None:
    path = tmp_path / "many.yaml"
    path.write_text(absorbing_model(50))
    with pytest.raises(BudgetExceeded, match=r"state budget of 49 .*declares 50 states"):
        load_hmm_file(path, limits=Limits(49))
    assert len(load_hmm_file(path, limits=Limits(50)).hmm.states) == 50
    with pytest.raises(BudgetExceeded, match="timeout"):
        load_hmm_file(path, limits=Limits(None, expired=True))
