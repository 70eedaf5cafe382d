"""PRISM DTMC and MDP files, read and built (exactly) by Storm, checked by faier.

The built model becomes a faier :class:`MarkovChain` or :class:`MDP`, so
rows are checked to sum to 1 exactly (Storm builds PRISM commands whose
probabilities do not) and every state gets a readable name: its variable
valuation, ``s=0`` or ``s=0,b=true``.  Undefined constants are given with
``--set NAME=VALUE``; values that make a probability negative or a variable's
range empty are input errors naming the constants, not Storm's raw message.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from faier.errors import InternalError, ModelError
from faier.logic._storm import (
    StormChoices,
    StormRows,
    storm_question,
    stormpy,
    to_fraction,
)
from faier.logic.definitions import prism_definitions
from faier.logic.expressions import Term, Valuations
from faier.logic.syntax import Formula
from faier.model.documents import read_document, read_text_file
from faier.model.numbers import parse_number

if TYPE_CHECKING:
    from faier.logic.models import LogicModel
    from faier.model.chains import MDP, MarkovChain

SUFFIXES = (".pm", ".prism", ".nm", ".sm")
JANI_SUFFIXES = (".jani",)
_PARSE_ERROR = re.compile(r"Parsing error at (\d+):(\d+):\s*(.*?),? here:", re.DOTALL)
_NEGATIVE = re.compile(r"negative probabilities in '(.*)' are not allowed", re.DOTALL)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class _Given:
    """The constants set with --set, so that a model Storm rejects names the values at fault."""

    source: str
    values: Mapping[str, str]
    kinds: Mapping[str, str]
    overridden: frozenset[str] = frozenset()
    """Constants given with --const (the rest with --set)."""

    def flag(self, names: Iterable[str]) -> str:
        """The option the named constants were given with."""
        chosen = set(names)
        if chosen <= self.overridden:
            return "--const"
        return "--set" if not chosen & self.overridden else "--set/--const"

    def show(self, names: Iterable[str]) -> str:
        """``PF=1.3, badC=1`` for the given names (in --set order)."""
        chosen = set(names)
        return ", ".join(f"{n}={v}" for n, v in self.values.items() if n in chosen)

    def makes(self, names: list[str]) -> str:
        """``--set PF=1.3 makes`` / ``--set a=1, b=2 make``."""
        verb = "makes" if len(names) == 1 else "make"
        return f"{self.flag(names)} {self.show(names)} {verb}"

    def named_in(self, text: str) -> list[str]:
        """The set constants that ``text`` (an expression) mentions."""
        found = set(_NAME.findall(text))
        return [name for name in self.values if name in found]

    def out_of_unit(self) -> list[str]:
        """Real (double) constants set outside [0, 1]: likely probabilities given out of range."""
        out = []
        for name, text in self.values.items():
            if self.kinds.get(name) not in ("int", "bool") and not 0 <= parse_number(text)[0] <= 1:
                out.append(name)
        return out

    def _probability_fix(self, names: list[str], rule: str) -> str:
        wrong = [name for name in names if name in self.out_of_unit()]
        if wrong:
            return f"give {' and '.join(wrong)} a value in [0, 1]"
        return f"choose {', '.join(names)} so that {rule}"

    def negative(self, expression: str, value: Fraction | None = None) -> ModelError:
        """A probability expression of the model that the constants make negative."""
        names = self.named_in(expression) or self.out_of_unit() or list(self.values)
        equal = "" if value is None else f" (= {value})"
        return ModelError(
            f"{self.makes(names)} the probability {expression} negative{equal}",
            where=self.source,
            fix=self._probability_fix(names, f"{expression} ≥ 0"),
        )

    def above_one(self, expression: str, value: Fraction) -> ModelError:
        """A probability expression of the model that the constants make larger than 1."""
        names = self.named_in(expression) or self.out_of_unit() or list(self.values)
        return ModelError(
            f"{self.makes(names)} the probability {expression} exceed 1 (= {value})",
            where=self.source,
            fix=self._probability_fix(names, f"{expression} ≤ 1"),
        )

    def bad_probability(self, value: Fraction, origin: str, target: str) -> ModelError:
        """A built transition probability outside [0, 1] (a state-dependent expression)."""
        where = f"from {origin} to {target}"
        if not self.values:
            return ModelError(
                f"a transition probability is {value} ({where})",
                where=self.source,
                fix="probabilities lie in [0, 1]",
            )
        names = self.out_of_unit() or list(self.values)
        return ModelError(
            f"{self.makes(names)} a transition probability {value} ({where})",
            where=self.source,
            fix=self._probability_fix(names, "every probability lies in [0, 1]"),
        )

    def empty_range(self, variable: str, low: str, high: str) -> ModelError:
        """A variable whose range [low..high] the constants made empty."""
        names = self.named_in(f"{low} {high}") or list(self.values)
        return ModelError(
            f"{self.makes(names)} the range of {variable}, [{low}..{high}], empty",
            where=self.source,
            fix=f"choose {', '.join(names)} so that {low} ≤ {high}",
        )

    def zero_divisor(self, division: str, divisor: str) -> ModelError:
        """A division by zero once the constants are substituted (Storm would crash: SIGFPE)."""
        if not self.values:  # the file's own constants
            return ModelError(
                f"{division} divides by zero",
                where=self.source,
                fix="the divisor is 0 once the constants are put in: change it",
            )
        names = self.named_in(divisor) or list(self.values)
        return ModelError(
            f"{self.makes(names)} {division} divide by zero",
            where=self.source,
            fix=f"choose {', '.join(names)} so that {divisor} ≠ 0",
        )

    def rejected(self, exc: RuntimeError) -> ModelError:
        """Any other refusal by Storm, with the values that led to it."""
        return ModelError(
            f"Storm rejects the model with {self.flag(self.values)} {self.show(self.values)}: "
            f"{_storm_message(exc)}",
            where=self.source,
            fix=f"check the values given with {self.flag(self.values)}",
        )


def _constants_once(
    constants: Mapping[str, str] | None, overrides: Mapping[str, str] | None, source: str
) -> tuple[dict[str, str], dict[str, str]]:
    """The constants given with ``--set`` and with ``--const``; one given with both is refused."""
    constants, overrides = dict(constants or {}), dict(overrides or {})
    twice = [name for name in overrides if name in constants]
    if twice:
        raise ModelError(
            f"{twice[0]} is given with both --set and --const",
            where=source,
            fix="give each constant once",
        )
    return constants, overrides


_RowKind = Literal["stochastic", "constant", "variable"]
"""What a build's rows still need checked: nothing, their sums, or their sums and every
entry in [0, 1].  A PRISM build that Storm finished with its exploration checks on is
``stochastic``: in every state it reached, its PRISM builder compared each update's
probability with 0 and the sum of each enabled command's updates (of each synchronised
product) with 1, exactly, and refused the file otherwise (``tests/logic/test_directed.py``
pins both refusals).  Storm's JANI builder does not refuse a negative probability or a row
that does not sum to 1: its rows are ``variable``.  The other kinds say what the program
alone shows (:func:`_constant_probabilities`), for the build without checks that names a
wrong row (:func:`_own_row_error`)."""


@dataclass(frozen=True)
class Build:
    """Storm's exact build of a PRISM or JANI file, with what faier needs to read it."""

    built: Any
    name: str
    description: str
    given: _Given
    rows: _RowKind
    namer: Callable[[Any], Callable[[int], tuple[str, str]]]
    definitions: Mapping[str, Term]
    question: Any | None
    """Storm's property the build was directed at (None: the whole model was built)."""
    storm_reads_question: bool = False
    """Storm's reading of the question's state formulas is the file's own (PRISM: Storm
    substitutes constants and formulas, and a variable nothing assigns becomes its value),
    so Storm may answer the question itself (:mod:`faier.logic.directed`).  Not for JANI:
    Storm's JANI build drops a variable no edge writes from the state, and then reads
    ``y = 1`` over it as false in every state (the fuzzer's kind ``models``, seed
    11000102: Pmax 0 instead of 127/343); faier evaluates such formulas itself."""
    for_answer: bool = False
    """Built for Storm's answer alone (``faier check`` with no --neighbors or --state): only
    the question's labels and no choice names, which only :meth:`model` reads."""

    def model(self) -> LogicModel:
        """The build as a faier model: every state named, rows and labels read."""
        if self.for_answer:
            raise InternalError("a build made for Storm's answer alone was read as a model")
        return _assemble(
            self.built,
            self.name,
            self.description,
            self.given,
            self.rows,
            self.namer,
            self.definitions,
        )


def load_prism(
    path: str | Path,
    constants: Mapping[str, str] | None = None,
    overrides: Mapping[str, str] | None = None,
    question: Formula | None = None,
) -> LogicModel:
    """Build a PRISM DTMC or MDP exactly; states are named by their valuations.

    ``constants`` give the file's undefined constants (``--set``);
    ``overrides`` may also replace the ones it defines (``--const``, PRISM's
    ``-const``).  ``question``: the one formula the model is built for; when
    it is P over one operator or a reward question naming one of the file's
    reward structures (or asking its only one, :func:`~faier.logic._storm.storm_question`),
    Storm explores only what it needs (states where the answer is already
    known stay unexplored, and only that reward structure is built), so the
    model answers that question, in its initial states, and no other.
    """
    return build_prism(path, constants, overrides, question).model()


def build_prism(
    path: str | Path,
    constants: Mapping[str, str] | None = None,
    overrides: Mapping[str, str] | None = None,
    question: Formula | None = None,
    *,
    for_answer: bool = False,
) -> Build:
    """Storm's exact build of a PRISM DTMC or MDP (see :func:`load_prism`), not yet read;
    ``for_answer``: for Storm to answer ``question`` and nothing else (:attr:`Build.for_answer`),
    where Storm can direct the build at it."""
    source = str(path)
    text = read_text_file(Path(path), source)  # missing, a folder, not UTF-8: before Storm reads it
    program = _parse(Path(path), source)
    constants, overrides = _constants_once(constants, overrides, source)
    if overrides:
        program = _override(program, Path(path), source, overrides)
    try:
        kind = str(program.model_type).rsplit(".", 1)[-1]
    except ValueError:  # stormpy's enum has no member for PTAs and SMGs
        kind = (_COMMENT.sub("", text).split() or ["unknown"])[0].upper()
    if kind not in ("DTMC", "MDP"):
        raise ModelError(
            f"a {kind} model", where=source, fix="faier checks dpCTL* on DTMCs and MDPs only"
        )
    kinds = {c.name: str(c.type) for c in program.constants if not c.defined}
    given = _Given(source, {**constants, **overrides}, kinds, frozenset(overrides))
    defined = _define(program, given)
    _check_probabilities(program, defined, given)
    sp = stormpy()

    definitions = prism_definitions(defined, text, sp)

    def assemble(built: Any) -> LogicModel:
        rows = _constant_probabilities(defined)
        return _assemble(
            built, Path(path).stem, f"PRISM {kind}", given, rows, _choice_namer, definitions
        )

    labels = {label.name for label in defined.labels} | {"init", "deadlock"}
    structures = [reward.name for reward in defined.reward_models]
    options, prop = _directed_options(sp, defined, question, labels, structures, for_answer)
    try:
        built = sp.build_model[sp.Rational](defined, options=options or _builder_options(sp))
    except RuntimeError as exc:
        _own_row_error(exc, defined, assemble)
        raise _build_error(exc, program, defined, given) from None
    return Build(
        built,
        Path(path).stem,
        f"PRISM {kind}",
        given,
        "stochastic",  # Storm's exploration checks refused any row that is not a distribution
        _choice_namer,
        definitions,
        prop,
        storm_reads_question=True,
        for_answer=for_answer and prop is not None,
    )


def _directed_options(
    sp: Any,
    program: Any,
    question: Formula | None,
    labels: set[str],
    structures: Sequence[str] | None = None,
    for_answer: bool = False,
) -> tuple[Any, Any]:
    """Storm's builder options for one question (property-directed: its labels, its
    terminal states, the one reward structure it names), with the valuations, choice labels
    and origins faier names by, and the question as Storm's property; (None, None) when the
    question needs the full model.  ``labels``: the names Storm reads as labels (PRISM
    labels, JANI transient variables), quoted in its text; ``structures``: the reward
    structures (None: a reward question is built whole, as JANI's are).  ``for_answer``: the
    build serves Storm's answer alone, which reads only the question's labels and names no
    choice (every label and the choice names cost a fifth of the build on the dining
    cryptographers, N = 5)."""
    text = None if question is None else storm_question(question, labels.__contains__, structures)
    if text is None:
        return None, None
    try:
        properties = sp.parse_properties(text, program)
    except RuntimeError:
        return None, None
    options = sp.BuilderOptions([p.get_raw_formula() for p in properties])
    options.set_exploration_checks(True)
    options.set_build_state_valuations(True)  # states are named by their valuations
    if not for_answer:
        options.set_build_all_labels(True)  # --neighbors may name any label
        if str(program.model_type).endswith("MDP"):  # choices are named by labels and origins
            options.set_build_choice_labels(True)
            options.set_build_choice_origins(True)
    return options, properties[0]


def load_jani(
    path: str | Path,
    constants: Mapping[str, str] | None = None,
    overrides: Mapping[str, str] | None = None,
    question: Formula | None = None,
) -> LogicModel:
    """Build a JANI DTMC or MDP exactly (the quantitative verification benchmark set's format).

    Transient boolean variables are the labels (as Storm reads them); a
    choice is named by its action, else by its automaton and edge (``m:2``).
    ``overrides`` replace constants the file defines; ``question`` as for
    :func:`load_prism`.
    """
    return build_jani(path, constants, overrides, question).model()


def build_jani(
    path: str | Path,
    constants: Mapping[str, str] | None = None,
    overrides: Mapping[str, str] | None = None,
    question: Formula | None = None,
) -> Build:
    """Storm's exact build of a JANI DTMC or MDP (see :func:`load_jani`), not yet read."""
    from faier.logic.jani_checks import check_divisions  # JANI's own: a PRISM build skips it

    source = str(path)
    if not Path(path).is_file():
        raise ModelError("file not found", where=source, fix="check the path and the file name")
    constants, overrides = _constants_once(constants, overrides, source)
    model, document = _parse_jani(Path(path), source, overrides)
    kind = str(model.model_type).rsplit(".", 1)[-1]
    if kind not in ("DTMC", "MDP"):
        raise ModelError(
            f"a {kind} model", where=source, fix="faier checks dpCTL* on DTMCs and MDPs only"
        )
    kinds = {c.name: str(c.type) for c in model.constants if not c.defined}
    given = _Given(source, {**constants, **overrides}, kinds, frozenset(overrides))
    check_divisions(document, given.values, source)
    defined = _define(model, given, prism=False)
    sp = stormpy()

    definitions = _jani_definitions(document, given.values)

    def assemble(built: Any) -> LogicModel:
        return _assemble(
            built,
            Path(path).stem,
            f"JANI {kind}",
            given,
            "variable",
            _jani_choice_namer,
            definitions,
        )

    labels = {v.name for v in defined.global_variables if v.is_transient} | {"init", "deadlock"}
    options, prop = _directed_options(sp, defined, question, labels)
    try:
        built = sp.build_model[sp.Rational](defined, options=options or _builder_options(sp))
    except RuntimeError as exc:
        _own_row_error(exc, defined, assemble)
        raise (
            given.rejected(exc)
            if given.values
            else ModelError(_storm_message(exc), where=source, fix="see jani-spec.org")
        ) from None
    return Build(
        built,
        Path(path).stem,
        f"JANI {kind}",
        given,
        "variable",
        _jani_choice_namer,
        definitions,
        prop,
    )


def _jani_definitions(document: Mapping[str, Any], given: Mapping[str, str]) -> dict[str, Term]:
    """A JANI file's constants whose values are numbers or booleans (given with --set or
    --const, else written in the file), as terms properties may name (nand's ``z/N``)."""
    found: dict[str, Term] = {}
    for constant in document.get("constants", []):
        if not isinstance(constant, dict) or not isinstance(constant.get("name"), str):
            continue
        name = constant["name"]
        value = given.get(name, constant.get("value"))
        if value in ("true", "false") or isinstance(value, bool):
            found[name] = ("bool", value in ("true", True))
        elif isinstance(value, int | float | str):
            try:
                found[name] = ("num", parse_number(str(value))[0])
            except ValueError:
                continue
    return {**_never_assigned(document), **found}


def _never_assigned(document: Mapping[str, Any]) -> dict[str, Term]:
    """Variables no assignment writes, as their initial values: Storm's JANI build drops
    them from the state, but a formula may still name one (it never changes)."""
    written: set[str] = set()
    stack: list[Any] = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("ref"), str) and "value" in node:
                written.add(node["ref"])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    declared = list(document.get("variables", []))
    for automaton in document.get("automata", []):
        if isinstance(automaton, dict):
            declared.extend(automaton.get("variables", []))
    found: dict[str, Term] = {}
    for variable in declared:
        if not isinstance(variable, dict) or variable.get("transient"):
            continue
        name, initial = variable.get("name"), variable.get("initial-value")
        if not isinstance(name, str) or name in written:
            continue
        if isinstance(initial, bool):
            found[name] = ("bool", initial)
        elif isinstance(initial, int):
            found[name] = ("num", Fraction(initial))
    return found


def _parse_jani(
    path: Path, source: str, overrides: Mapping[str, str]
) -> tuple[Any, dict[str, Any]]:
    """The JANI model; overridden constants lose their ``value`` first (a copy of the file)."""
    text = read_text_file(path, source)
    document = read_document(text, source, json_format=True)
    if not isinstance(document, dict):
        raise ModelError("a JANI file holds one JSON object", where=source, fix="see jani-spec.org")
    if overrides:
        declared = {c.get("name"): c for c in document.get("constants", []) if isinstance(c, dict)}
        for name in overrides:
            if name not in declared:
                raise ModelError(
                    f"--const {name}: the model has no constant {name!r}",
                    where=source,
                    fix=f"constants: {', '.join(map(str, declared)) or '(none)'}",
                )
            declared[name].pop("value", None)
        text = json.dumps(document)
    import tempfile  # JANI files and --const only: a PRISM question's start does without it

    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / path.name
        copy.write_text(text, encoding="utf-8")
        try:
            model, _ = stormpy().parse_jani_model(str(copy))
        except RuntimeError as exc:
            raise ModelError(
                f"not a JANI model Storm reads: {_storm_message(exc)}",
                where=source,
                fix="see the JANI specification (jani-spec.org)",
            ) from None
    return model, document


def _assemble(
    built: Any,
    name: str,
    description: str,
    given: _Given,
    rows: _RowKind,
    namer: Callable[[Any], Callable[[int], tuple[str, str]]],
    definitions: Mapping[str, Term] | None = None,
) -> LogicModel:
    """The built Storm model as a faier model: names, labels, rows (Storm's own matrix
    for a DTMC whose probabilities are constants, see :func:`_constant_probabilities`);
    ``definitions`` are the PRISM constants and formulas properties may name.

    The model classes are imported here: a question Storm answers on its build
    (:mod:`faier.logic.directed`) never reads the build into a model."""
    from faier.logic.models import logic_model
    from faier.model.chains import MDP, MarkovChain

    order, columns = _state_names(built)
    names = dict(enumerate(order))
    by_label, labels = _labels(built, order)
    initial = tuple(names[i] for i in built.initial_states)
    if rows == "variable":
        _check_entries(built, order, given)
    if rows != "stochastic":
        _check_row_sums(built, order, given)
    system: MarkovChain | MDP = (
        MDP(order, StormChoices(built, order, namer(built)), labels)
        if built.is_nondeterministic_model
        else MarkovChain(order, StormRows(built, order), labels)
    )
    model = logic_model(
        name,
        system,
        initial=initial,
        description=description,
        labels=built.labeling.get_labels(),
        valuations=None if columns is None else Valuations(order, columns, definitions or {}),
        built=built,
    )
    model.prefill_label_sets(by_label)
    return model


def _builder_options(sp: Any) -> Any:
    """Storm's builder options: the full model, and an update that leaves its variable's
    range refused (without exploration checks Storm wraps it around: s'=5 in [0..2] becomes 1)."""
    options = sp.BuilderOptions(build_full=True)
    options.set_exploration_checks(True)
    return options


def _own_row_error(exc: RuntimeError, defined: Any, assemble: Callable[[Any], Any]) -> None:
    """Storm's exploration checks refused the model: a row that does not sum to 1 or a
    probability outside [0, 1] is named better by faier's own row check, on the model built
    without them.  Returns when that check finds nothing (the caller reports Storm's refusal)."""
    if "out-of-bounds" in str(exc):
        return
    sp = stormpy()
    try:
        unchecked = sp.build_model[sp.Rational](defined, options=sp.BuilderOptions(build_full=True))
    except RuntimeError:
        return
    assemble(unchecked)  # raises faier's ModelError for a bad row


def _parse(file: Path, source: str) -> Any:
    """The PRISM program in ``file``; a syntax error names ``source``'s line and column."""
    try:
        program = stormpy().parse_prism_program(str(file), simplify=False)
    except RuntimeError as exc:
        found = _PARSE_ERROR.search(str(exc))
        if found:
            line, column, what = found.groups()
            raise ModelError(
                f"not valid PRISM: {what}",
                where=f"{source}: line {line}, column {column}",
                fix="see the PRISM manual's syntax for that construct",
            ) from None
        if "The input model is a CTMC" in str(exc):
            raise ModelError(
                "a CTMC model", where=source, fix="faier checks dpCTL* on DTMCs and MDPs only"
            ) from None
        raise ModelError(_storm_message(exc), where=source, fix="see the PRISM manual") from None
    # Storm's simplification evaluates the file's own constants: a zero divisor there would
    # kill the process (SIGFPE), so it is refused first.
    _check_division(program, {}, _Given(source, {}, {}))
    try:
        return program.simplify()
    except RuntimeError as exc:
        negative = _NEGATIVE.search(str(exc))
        if negative:
            raise ModelError(
                f"the probability {negative.group(1)} is negative",
                where=source,
                fix="probabilities lie in [0, 1]",
            ) from None
        raise ModelError(_storm_message(exc), where=source, fix="see the PRISM manual") from None


_COMMENT = re.compile(r"//[^\n]*")


def _override(program: Any, path: Path, source: str, overrides: Mapping[str, str]) -> Any:
    """The program with the overridden constants' definitions removed (then set like --set).

    Storm refuses to redefine a defined constant, so its declaration
    ``const int N = 5;`` is rewritten as ``const int N;`` in a copy of the
    file (comments masked, line numbers kept) and parsed again.
    """
    known = {c.name: c for c in program.constants}
    for name in overrides:
        if name not in known:
            raise ModelError(
                f"--const {name}: the model has no constant {name!r}",
                where=source,
                fix=f"constants: {', '.join(known) or '(none)'}",
            )
    defined = [name for name in overrides if known[name].defined]
    if not defined:
        return program
    text = path.read_text(encoding="utf-8")
    masked = _COMMENT.sub(lambda m: " " * len(m.group()), text)
    for name in defined:
        declaration = re.compile(
            rf"\bconst\s+(?:(?:int|double|bool|rate|prob)\s+)?{re.escape(name)}\s*(=[^;]*);"
        )
        found = list(declaration.finditer(masked))
        if len(found) != 1:
            raise ModelError(
                f"--const {name}: cannot find the one definition 'const ... {name} = ...;'",
                where=source,
                fix="write the definition on its own, or make the constant undefined and use --set",
            )
        start, end = found[0].span(1)
        blank = "".join("\n" if c == "\n" else " " for c in text[start:end])
        text = text[:start] + blank + text[end:]
        masked = masked[:start] + blank + masked[end:]
    import tempfile  # --const only: a PRISM question's start does without it

    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / path.name
        copy.write_text(text, encoding="utf-8")
        return _parse(copy, source)


def _storm_message(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    if "bad_any_cast" in text:
        # Storm's exact (rational) builder meets a value it cannot represent: log(x, b) or a
        # power with a non-integer result.
        return (
            "an expression has no exact rational value (log, or a power with a non-integer "
            "result); faier builds models in exact arithmetic, so write that value as a "
            "rational constant"
        )
    return text.split("Note that the used API")[0].strip()


def _integer_bounds(program: Any) -> dict[str, tuple[Any, Any]]:
    """Every integer variable's lower and upper bound expressions, by name."""
    variables = list(program.global_integer_variables)
    for module in program.modules:
        variables.extend(module.integer_variables)
    return {v.name: (v.lower_bound_expression, v.upper_bound_expression) for v in variables}


def _check_probabilities(program: Any, defined: Any, given: _Given) -> None:
    """Every update probability that the constants alone fix must lie in [0, 1].

    Storm itself refuses only some negative ones, with its own wording; a
    value out of range is named with the expression as written in the file.
    The instantiated program keeps the modules, commands and updates in order;
    where it does not, the rows are still checked once built.
    """
    if not given.values:
        return
    for written, module in zip(program.modules, defined.modules, strict=False):
        commands = list(module.commands)
        if written.name != module.name or len(written.commands) != len(commands):
            return
        for text_command, command in zip(written.commands, commands, strict=True):
            if len(text_command.updates) != len(command.updates):
                return
            for text_update, update in zip(text_command.updates, command.updates, strict=True):
                expression = update.probability_expression
                if expression.contains_variables():
                    continue
                value = to_fraction(expression.evaluate_as_rational())
                shown = str(text_update.probability_expression)
                if value < 0:
                    raise given.negative(shown, value)
                if value > 1:
                    raise given.above_one(shown, value)


def _build_error(exc: RuntimeError, program: Any, defined: Any, given: _Given) -> ModelError:
    """Storm's refusal to build, as a located error; an empty range names its constants."""
    if not given.values:
        return ModelError(
            _storm_message(exc),
            where=given.source,
            fix="keep every update within its variable's range"
            if "out-of-bounds" in str(exc)
            else "see the PRISM manual",
        )
    written = _integer_bounds(program)
    for name, (low, high) in _integer_bounds(defined).items():
        try:
            empty = low.evaluate_as_int() > high.evaluate_as_int()
        except RuntimeError:
            continue
        if empty and name in written:
            return given.empty_range(name, str(written[name][0]), str(written[name][1]))
    return given.rejected(exc)


def _define(program: Any, given_constants: _Given, *, prism: bool = True) -> Any:
    sp = stormpy()
    given = dict(given_constants.values)
    source = given_constants.source
    undefined = {c.name: c for c in program.constants if not c.defined}
    defined = {c.name for c in program.constants if c.defined}
    for name in given:
        if name in defined:
            raise ModelError(
                f"--set {name}: the file defines {name!r} itself",
                where=source,
                fix=f"override a definition with --const {name}={given[name]}",
            )
        if name not in undefined:
            raise ModelError(
                f"--set {name}: the model has no undefined constant {name!r}",
                where=source,
                fix=f"undefined constants: {', '.join(undefined) or '(none)'}",
            )
    missing = [name for name in undefined if name not in given]
    if missing:
        raise ModelError(
            f"undefined constants: {', '.join(missing)}",
            where=source,
            fix="give them with --set NAME=VALUE, e.g. --set " + f"{missing[0]}=1",
        )
    if not undefined:
        return program
    values: dict[str, Any] = {}
    for name, text in given.items():
        kind = str(undefined[name].type)
        if kind == "bool":
            if text not in ("true", "false"):
                raise ModelError(
                    f"--set {name}={text}: expected true or false",
                    where=source,
                    fix=f"{name} is a bool: --set {name}=true or --set {name}=false",
                )
            values[name] = text == "true"
            continue
        try:
            number = parse_number(text)[0]
        except ValueError:
            raise ModelError(
                f"--set {name}={text}: not a number",
                where=source,
                fix=f"{name} is {'an int' if kind == 'int' else 'a double'}: e.g. --set {name}="
                + ("2" if kind == "int" else "1/2"),
            ) from None
        if kind == "int":
            if number.denominator != 1:
                raise ModelError(
                    f"--set {name}={text}: {name} is an int",
                    where=source,
                    fix=f"give a whole number, e.g. --set {name}={int(number)}",
                )
            values[name] = int(number)
        else:
            values[name] = sp.Rational(str(number))
    if prism:
        _check_division(program, values, given_constants)
    try:
        instantiated, _ = sp.instantiate_constants(program, values)
    except RuntimeError as exc:
        negative = _NEGATIVE.search(str(exc))
        if negative:
            raise given_constants.negative(negative.group(1)) from None
        raise given_constants.rejected(exc) from None
    return instantiated


def _expressions(program: Any) -> Iterator[Any]:
    """The expressions of a PRISM program that Storm evaluates once the constants are set."""
    for constant in program.constants:
        if constant.defined:
            yield constant.definition
    variables = list(program.global_integer_variables)
    for module in program.modules:
        variables.extend(module.integer_variables)
        for command in module.commands:
            yield command.guard_expression
            for update in command.updates:
                yield update.probability_expression
                yield from (assignment.expression for assignment in update.assignments)
    for variable in variables:
        yield variable.lower_bound_expression
        yield variable.upper_bound_expression
    yield from (label.expression for label in program.labels)
    if program.has_initial_states_expression:
        yield program.initial_states_expression


def _check_division(program: Any, values: Mapping[str, Any], given: _Given) -> None:
    """Refuse constants that make a divisor zero: Storm's exact arithmetic would kill the process.

    Inner divisions are checked before the ones around them (reverse
    pre-order), so evaluating a divisor never divides by zero itself.
    """
    sp = stormpy()
    manager = program.expression_manager
    known: dict[Any, Any] = {}
    for constant in program.constants:
        if constant.defined:
            known[constant.expression_variable] = constant.definition.substitute(known)
            continue
        if constant.name not in values:  # not given yet: stays a variable, checked once it is
            continue
        value = values[constant.name]
        if isinstance(value, bool):
            known[constant.expression_variable] = manager.boolean(value)
        elif isinstance(value, int):
            known[constant.expression_variable] = manager.integer(value)
        else:
            known[constant.expression_variable] = manager.rational(value)
    dividing = (sp.expressions.OperatorType.DIVIDE, sp.expressions.OperatorType.MODULO)
    for expression in _expressions(program):
        nodes, stack = [], [expression]
        while stack:
            node = stack.pop()
            nodes.append(node)
            if node.is_function_application:
                stack.extend(node.get_operand(i) for i in range(node.arity))
        for node in reversed(nodes):
            if not node.is_function_application:
                continue
            try:
                operator = node.operator
            except ValueError:  # an operator stormpy's enum does not name (log): no divisor
                continue
            if operator == sp.expressions.OperatorType.POWER:  # 0 ^ -1 is 1/0 too
                base, exponent = (node.get_operand(i).substitute(known) for i in (0, 1))
                if (
                    not base.contains_variables()
                    and not exponent.contains_variables()
                    and base.evaluate_as_rational() == 0
                    and exponent.evaluate_as_rational() < 0
                ):
                    raise given.zero_divisor(str(node), str(node.get_operand(0)))
                continue
            if operator not in dividing:
                continue
            divisor = node.get_operand(1)
            value = divisor.substitute(known)
            if not value.contains_variables() and value.evaluate_as_rational() == 0:
                raise given.zero_divisor(str(node), str(divisor))


def _state_names(built: Any) -> tuple[tuple[str, ...], dict[str, list[int | bool]] | None]:
    """``holder=0,phase=1,who=0`` per state id, and each variable's values (None when
    a variable is neither int nor bool); read a variable at a time."""
    valuations = built.state_valuations
    count = built.nr_states
    values: dict[str, list[int | bool]] = {}
    texts: list[list[str]] = []
    for variable in sorted(valuations.get_all_variables(), key=lambda v: v.name):
        name = variable.name
        if variable.has_boolean_type():
            flags = [False] * count
            for i in valuations.get_boolean_values(variable):  # the states where it is true
                flags[i] = True
            values[name] = list(flags)
            texts.append(_texts(name, flags, {True: "true", False: "false"}))
        elif variable.has_integer_type():
            column = list(map(int, valuations.get_int64_values(variable)))
            if name.startswith("_loc_") and len(set(column)) <= 1:
                continue  # a JANI automaton with one location: its location says nothing
            values[name] = list(column)
            texts.append(_texts(name, column))
        elif variable.has_rational_type():  # a JANI real, often a transient reward counter
            reals = [to_fraction(v) for v in valuations.get_rational_values(variable)]
            if len(set(reals)) > 1:
                texts.append([f"{name}={v}" for v in reals])
        else:
            return _json_state_names(built), None
    names = [",".join(parts) for parts in zip(*texts, strict=True)] if texts else []
    if not names:
        names = [str(i) for i in range(count)]
    if len(set(names)) != len(names):
        names = [f"{name}#{i}" for i, name in enumerate(names)]
    return tuple(names), values


def state_names_of(
    built: Any, states: Iterable[int]
) -> tuple[dict[int, str], dict[str, list[int | bool]] | None]:
    """The names :func:`_state_names` gives the listed states, and their int and bool
    values by variable (None where :func:`_state_names` has none), reading the other states
    only where a column's every value decides whether it is shown (a JANI location, a real).

    Names are unique here without checking: Storm's states are distinct valuations of
    its variables, and a column left out holds one value in every state.
    """
    wanted = list(states)
    valuations = built.state_valuations
    values: dict[str, list[int | bool]] = {}
    parts: dict[int, list[str]] = {i: [] for i in wanted}
    for variable in sorted(valuations.get_all_variables(), key=lambda v: v.name):
        name = variable.name
        if variable.has_boolean_type():
            flags = [bool(valuations.get_boolean_value(i, variable)) for i in wanted]
            values[name] = list(flags)
            for i, flag in zip(wanted, flags, strict=True):
                parts[i].append(f"{name}={'true' if flag else 'false'}")
        elif variable.has_integer_type():
            if name.startswith("_loc_"):
                column = list(map(int, valuations.get_int64_values(variable)))
                if len(set(column)) <= 1:
                    continue
                picked = [column[i] for i in wanted]
            else:
                picked = [int(valuations.get_int64_value(i, variable)) for i in wanted]
            values[name] = list(picked)
            for i, value in zip(wanted, picked, strict=True):
                parts[i].append(f"{name}={value}")
        elif variable.has_rational_type():
            reals = [to_fraction(v) for v in valuations.get_rational_values(variable)]
            if len(set(reals)) > 1:
                for i in wanted:
                    parts[i].append(f"{name}={reals[i]}")
        else:
            every = _json_state_names(built)
            return {i: every[i] for i in wanted}, None
    return {i: ",".join(found) if found else str(i) for i, found in parts.items()}, values


def _texts(name: str, column: list[Any], shown: Mapping[Any, str] | None = None) -> list[str]:
    """``name=value`` per state, each distinct text made once (a column has few values)."""
    table = {v: f"{name}={shown[v] if shown else v}" for v in set(column)}
    return list(map(table.__getitem__, column))


def _json_state_names(built: Any) -> tuple[str, ...]:
    """State names through Storm's JSON valuations (variables of other types than int/bool)."""
    names: list[str] = []
    for i in range(built.nr_states):
        valuation = json.loads(str(built.state_valuations.to_json(i)))
        text = ",".join(
            f"{var}={str(value).lower() if isinstance(value, bool) else value}"
            for var, value in sorted(valuation.items())
        )
        names.append(text or str(i))
    if len(set(names)) != len(names):
        names = [f"{name}#{i}" for i, name in enumerate(names)]
    return tuple(names)


def _labels(
    built: Any, names: tuple[str, ...]
) -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    """Each label's states and each state's labels, read a label at a time (one bit vector each)."""
    by_label: dict[str, frozenset[str]] = {}
    found: dict[str, set[str]] = {}
    labelling = built.labeling
    for label in sorted(labelling.get_labels()):
        members = [names[i] for i in labelling.get_states(label)]
        by_label[label] = frozenset(members)
        for state in members:
            found.setdefault(state, set()).add(label)
    return by_label, {state: frozenset(labels) for state, labels in found.items()}


def _constant_probabilities(defined: Any) -> _RowKind:
    """How far the program alone shows that the rows of a chain or an MDP are distributions.

    ``stochastic``: every update probability is a constant in [0, 1] and each
    command's sum to 1; Storm builds a state's row from its enabled commands
    (uniformly mixed where guards overlap in a DTMC, one choice per command in
    an MDP, multiplied where they synchronise), so every row is a
    distribution and none needs checking.  ``constant``:
    constants in [0, 1], but some command does not sum to 1 (it may never be
    enabled): the built rows are checked.  ``variable``: some probability
    depends on the state: every entry is checked.
    """
    verdict: Literal["stochastic", "constant"] = "stochastic"
    for module in defined.modules:
        for command in module.commands:
            total = Fraction(0)
            for update in command.updates:
                expression = update.probability_expression
                if expression.contains_variables():
                    return "variable"
                value = to_fraction(expression.evaluate_as_rational())
                if not 0 <= value <= 1:
                    return "variable"
                total += value
            if total != 1:
                verdict = "constant"
    return verdict


def _check_entries(built: Any, names: Sequence[str], given: _Given) -> None:
    """Every entry of Storm's matrix lies in [0, 1], compared exactly in Storm's rationals
    (a probability that depends on the state may leave it in some state); nothing is
    converted to a Fraction unless it is wrong."""
    sp = stormpy()
    zero, one = sp.Rational(0), sp.Rational(1)
    matrix = built.transition_matrix
    if all(zero <= entry.value <= one for entry in matrix):
        return
    nondeterministic = built.is_nondeterministic_model
    for state in range(built.nr_states):
        rows = (
            range(matrix.get_row_group_start(state), matrix.get_row_group_end(state))
            if nondeterministic
            else (state,)
        )
        for row in rows:
            for entry in matrix.get_row(row):
                if not zero <= entry.value <= one:
                    raise given.bad_probability(
                        to_fraction(entry.value), names[state], names[entry.column]
                    )


def _check_row_sums(built: Any, names: Sequence[str], given: _Given) -> None:
    """Every row sums to exactly 1: Pr(s, X true) is the row sum, computed by Storm exactly
    (on an MDP its least and its largest over the state's choices)."""
    sp = stormpy()
    operators = ("Pmin", "Pmax") if built.is_nondeterministic_model else ("P",)
    one = sp.Rational(1)
    for operator in operators:
        result = sp.model_checking(built, sp.parse_property(f"{operator}=? [X true]"))
        if result.get_min() == one and result.get_max() == one:
            continue  # every state's sum, compared in Storm: nothing read into Python
        for i, total in enumerate(result.get_value_vector()):
            if total != one:
                raise ModelError(
                    f"transitions of {names[i]!r}: probabilities sum to {to_fraction(total)}, "
                    "not 1",
                    where=given.source,
                    fix="the probabilities of each command's updates must sum to 1",
                )


def _choice_namer(built: Any) -> Callable[[int], tuple[str, str]]:
    """For a choice: its action label(s) and its commands (``crypt1:2``, the 2nd of crypt1).

    A label means the same synchronised commands wherever it is offered; an
    unlabelled choice is one command, named by its module and place, so one
    name never means different commands in different states (Storm's choice
    index within a state would).
    """
    program = built.choice_origins.program
    place = {
        command.global_index: f"{module.name}:{k}"
        for module in program.modules
        for k, command in enumerate(module.commands, start=1)
    }
    origins = built.choice_origins.as_prism_choice_origins()
    labelling = built.choice_labeling

    def name(choice: int) -> tuple[str, str]:
        label = "+".join(sorted(labelling.get_labels_of_choice(choice)))
        commands = "+".join(place[i] for i in sorted(origins.get_command_set(choice)))
        return label, commands or "-"

    return name


def _jani_choice_namer(built: Any) -> Callable[[int], tuple[str, str]]:
    """For a JANI choice: its action, and its edges as ``automaton:k`` (k-th edge, from 1)."""
    model = built.choice_origins.model
    automata = [a.name for a in model.automata]
    origins = built.choice_origins.as_jani_choice_origins()
    labelling = built.choice_labeling if built.has_choice_labeling() else None

    def place(index: int) -> str:
        automaton, edge = model.decode_automaton_and_edge_index(index)
        return f"{automata[automaton]}:{edge + 1}"

    def name(choice: int) -> tuple[str, str]:
        label = "+".join(sorted(labelling.get_labels_of_choice(choice))) if labelling else ""
        edges = "+".join(place(i) for i in sorted(origins.get_edge_index_set(choice)))
        return label, edges or "-"

    return name
