"""The one place faier talks to Storm (stormpy 2.0): exact models, path probabilities.

Models are built with ``stormpy.Rational`` entries, so Storm answers in exact
rationals.  Storm 2.0's LTL engine sometimes fails when asked for every
state at once ("Invalid item count ... of state labeling"); faier then asks
state by state, which works.  A path formula reaches Storm with each of its maximal state
subformulas replaced by a fresh label whose states faier computed itself,
and fully parenthesised: Storm's prefix operators reach as far right as
they can (``F "a" & "b"`` is ``F ("a" & "b")``), faier's do not.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from decimal import Decimal
from fractions import Fraction
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal

from faier.errors import FaierError, SpecError
from faier.logic.syntax import (
    And,
    Atom,
    Const,
    Expression,
    Finally,
    Formula,
    Globally,
    Implies,
    Next,
    Not,
    Or,
    Prob,
    Query,
    Reward,
    Until,
    is_state_formula,
    maximal_state_subformulas,
)
from faier.model.checked import CheckedChoices, CheckedRows

if TYPE_CHECKING:
    from faier.model.chains import MDP, MarkovChain

Optimum = Literal["min", "max"] | None


class StormLimit(SpecError):
    """A question Storm would answer only by ending the process (or not in any useful time)."""


class MissingStorm(FaierError):
    """stormpy is not installed: dpCTL* needs it (``pip install 'faier[logic]'``)."""


@cache
def stormpy() -> ModuleType:
    """The stormpy module, quiet; one clear error when it is missing."""
    try:
        import stormpy as module
    except ImportError as exc:
        raise MissingStorm(
            "dpCTL* model checking needs stormpy: install it with pip install 'faier[logic]'"
        ) from exc
    module.developer.set_log_level(module.developer.LogLevel.OFF)
    loaded: ModuleType = module
    return loaded


def to_fraction(value: Any) -> Fraction:
    """A stormpy Rational as a Fraction, through its exact text.  A long numerator or
    denominator is read by ``Decimal``, exactly: ``int(text)`` refuses more than 4300 digits
    (Python's guard against untrusted text), and Storm's exact answers can be far longer
    (brp with N = 512: 11,357 digits)."""
    text = str(value)
    if len(text) <= _INT_TEXT_DIGITS:
        return Fraction(text)
    numerator, _, denominator = text.partition("/")
    return Fraction(int(Decimal(numerator)), int(Decimal(denominator or "1")))


_INT_TEXT_DIGITS = 4000
"""Texts up to this long are read by ``Fraction`` itself (under the 4300-digit guard)."""


def _wrap(node: Formula, labels: Mapping[Formula, str], quote: bool = True) -> str:
    text = storm_path(node, labels, quote=quote)
    return text if node in labels else f"({text})"


def _steps(bound: int | None) -> str:
    return "" if bound is None else f"<={bound}"


def storm_path(node: Formula, labels: Mapping[Formula, str], *, quote: bool = True) -> str:
    """Storm's text for a path formula whose state subformulas are the given labels
    (``quote=False``: given as Storm's own text for them)."""
    if node in labels:
        return f'"{labels[node]}"' if quote else labels[node]
    if isinstance(node, Not):
        return f"!{_wrap(node.operand, labels, quote)}"
    if isinstance(node, And):
        return f"{_wrap(node.left, labels, quote)} & {_wrap(node.right, labels, quote)}"
    if isinstance(node, Or):
        return f"{_wrap(node.left, labels, quote)} | {_wrap(node.right, labels, quote)}"
    if isinstance(node, Implies):
        return f"!{_wrap(node.left, labels, quote)} | {_wrap(node.right, labels, quote)}"
    if isinstance(node, Next):
        return f"X {_wrap(node.operand, labels, quote)}"
    if isinstance(node, Until):
        left, right = _wrap(node.left, labels, quote), _wrap(node.right, labels, quote)
        return f"{left} U{_steps(node.bound)} {right}"
    if isinstance(node, Finally):
        return f"F{_steps(node.bound)} {_wrap(node.operand, labels, quote)}"
    if isinstance(node, Globally):
        if node.bound is None:
            return f"G {_wrap(node.operand, labels, quote)}"
        return f"!(F<={node.bound} !{_wrap(node.operand, labels, quote)})"
    raise AssertionError(f"not a path formula over labels: {node!r}")


def storm_question(
    root: Formula,
    is_label: Callable[[str], bool],
    structures: Collection[str] | None = None,
) -> str | None:
    """Storm's text for ``root`` when it is P over one operator on state formulas without
    P or D inside (``Pmax=? [F (x = 2)]``), or a reward question (``R{"time"}min=? [F φ]``,
    ``R=? [C<=k]``, φ such a state formula) whose structure is one of ``structures`` (the
    model's reward structures; None: rewards are not asked of Storm): a question Storm may
    build its model for, exploring only what it needs.  None for anything else."""
    if isinstance(root, Reward):
        return None if structures is None else _reward_question(root, is_label, structures)
    if not isinstance(root, Prob):
        return None
    leaves = maximal_state_subformulas(root.path)
    texts: dict[Formula, str] = {}
    for leaf in leaves:
        text = _state_text(leaf, is_label)
        if text is None:
            return None
        texts[leaf] = text
    if not _pctl(root.path, texts):
        return None
    kind = root.test.kind if isinstance(root.test, Query) else "P"
    return f"{kind}=? [{storm_path(root.path, texts, quote=False)}]"


def _reward_question(
    root: Reward, is_label: Callable[[str], bool], structures: Collection[str]
) -> str | None:
    """Storm's text for a reward question, its structure named as Storm must find it: the
    one asked, else the model's only one (``R`` alone for an unnamed block).  None when the
    structure is missing or not the only one (the whole model's check refuses it, naming
    the structures), or the target is not a state formula Storm reads."""
    if root.structure is not None:
        if not root.structure or root.structure not in structures:
            return None  # missing, or R{""}: Storm's text cannot name an unnamed block
        name = root.structure
    elif len(structures) == 1:
        (name,) = structures
    else:
        return None
    head = f'R{{"{name}"}}' if name else "R"
    question = f"{head}{root.optimum or ''}=?"
    if root.target is None:
        return f"{question} [C<={root.steps}]"
    target = _state_text(root.target, is_label)
    return None if target is None else f"{question} [F {target}]"


def _state_text(node: Formula, is_label: Callable[[str], bool]) -> str | None:
    """A state formula without P or D in Storm's syntax (labels quoted, variables bare)."""
    if isinstance(node, Atom):
        return f'"{node.name}"' if is_label(node.name) else node.name
    if isinstance(node, Expression):
        return f"({node.text})"
    if isinstance(node, Const):
        return "true" if node.value else "false"
    if isinstance(node, Not):
        inner = _state_text(node.operand, is_label)
        return None if inner is None else f"!({inner})"
    if isinstance(node, And | Or | Implies):
        left, right = _state_text(node.left, is_label), _state_text(node.right, is_label)
        if left is None or right is None:
            return None
        if isinstance(node, Implies):
            return f"(!({left}) | ({right}))"
        return f"(({left}) {'&' if isinstance(node, And) else '|'} ({right}))"
    return None


LTL_BOUND_LIMIT = 1000
"""The largest step bound Storm's LTL engine is given.  It unrolls a bound of k
into k nested steps: k = 500 takes 10 s on a 4-state chain and k ≥ 2500 overflows
its stack (the process dies: issue 25, ``G<=3000`` before it was rewritten)."""


def _pctl(path: Formula, labels: Mapping[Formula, str]) -> bool:
    """A path formula Storm answers without its LTL engine: one operator over labels."""
    if isinstance(path, Next | Finally):
        return path.operand in labels
    if isinstance(path, Until):
        return path.left in labels and path.right in labels
    if isinstance(path, Globally):
        return path.bound is None and path.operand in labels
    return False


def _refuse_long_ltl(path: Formula, labels: Mapping[Formula, str]) -> None:
    """Refuse what would kill the process inside Storm: an LTL formula with a long bound."""
    if _pctl(path, labels):
        return
    stack, bounds = [path], []
    while stack:
        node = stack.pop()
        if node in labels:
            continue
        if isinstance(node, Finally | Globally | Until) and node.bound is not None:
            bounds.append(node.bound)
        stack.extend(child for child in _children(node))
    if bounds and max(bounds) > LTL_BOUND_LIMIT:
        raise StormLimit(
            f"the path formula needs Storm's LTL engine, which cannot take a step bound of "
            f"{max(bounds)} (at most {LTL_BOUND_LIMIT}): it unrolls each step and overflows",
            where="formula",
            fix="ask one bounded operator over state formulas (e.g. F<=k a, a U<=k b, G<=k a), "
            f"or bounds up to {LTL_BOUND_LIMIT}",
        )


def _children(node: Formula) -> tuple[Formula, ...]:
    if isinstance(node, Not | Next | Finally | Globally):
        return (node.operand,)
    if isinstance(node, And | Or | Implies | Until):
        return (node.left, node.right)
    return ()


class _StormStates:
    """A Storm-built model's states by name over its sparse matrix (the model kept alive
    with it): what the chain's rows and the MDP's choices both read."""

    def __init__(self, model: Any, states: tuple[str, ...]) -> None:
        self.model = model
        """The built Storm model: it owns the matrix, so it is kept alive with it."""
        self.matrix = model.transition_matrix
        self.states = states
        self.index = {state: i for i, state in enumerate(states)}

    def distribution(self, row: int) -> dict[str, Fraction]:
        """One matrix row (a chain's state, an MDP's choice) as target state → Fraction."""
        distribution: dict[str, Fraction] = {}
        for entry in self.matrix.get_row(row):
            target = self.states[entry.column]
            distribution[target] = distribution.get(target, Fraction(0)) + to_fraction(entry.value)
        return distribution

    def __contains__(self, state: object) -> bool:
        return state in self.index

    def __iter__(self) -> Iterator[str]:
        return iter(self.states)

    def __len__(self) -> int:
        return len(self.states)


class StormRows(_StormStates, CheckedRows):
    """A Storm-built chain's rows, each converted to Fractions the first time it is read.

    Storm's matrix stays the model: :class:`StormSystem` checks on it
    directly, and the rows are checked in bulk where the chain is built, so a
    check that reads no row never converts one.
    """

    def __init__(self, model: Any, states: tuple[str, ...]) -> None:
        super().__init__(model, states)
        self._rows: dict[str, dict[str, Fraction]] = {}

    def __getitem__(self, state: str) -> dict[str, Fraction]:
        row = self._rows.get(state)
        if row is None:
            row = self._rows[state] = self.distribution(self.index[state])
        return row


def choice_names(rows: range, namer: Callable[[int], tuple[str, str]]) -> dict[str, int]:
    """One state's choices, each under a name of its own, to its global row (Storm's index).

    A choice is named by its action label, else by its commands or edges;
    choices sharing a label are named by label and origin, and choices that
    still share a name (two synchronised edges with overlapping guards) get
    Storm's local choice index ``#k``.  The row, never the name, says which
    choice it is, so no choice can overwrite another.
    """
    parts = {row: namer(row) for row in rows}
    plain = Counter(label or origin for label, origin in parts.values())
    first = {
        row: (label or origin)
        if plain[label or origin] == 1
        else f"{label}({origin})"
        if label
        else origin
        for row, (label, origin) in parts.items()
    }
    second = Counter(first.values())
    named = {
        (name if second[name] == 1 else f"{name}#{row - rows.start}"): row
        for row, name in first.items()
    }
    if len(named) != len(rows):  # a "#k" name that some other choice already has
        named = {f"{name}#{row - rows.start}": row for row, name in first.items()}
    return named


class StormChoices(_StormStates, CheckedChoices):
    """A Storm-built MDP's choices per state, named and converted the first time they are read.

    ``namer`` gives a choice's action label and command origin from its
    global row index (the label names it, else the origin); as for
    :class:`StormRows`, the distributions were shown to be distributions
    where the model was built.
    """

    def __init__(
        self, model: Any, states: tuple[str, ...], namer: Callable[[int], tuple[str, str]]
    ) -> None:
        super().__init__(model, states)
        self.namer = namer
        self._choices: dict[str, _StateChoices] = {}

    def __getitem__(self, state: str) -> Mapping[str, Mapping[str, Fraction]]:
        choices = self._choices.get(state)
        if choices is None:
            i = self.index[state]
            rows = range(self.matrix.get_row_group_start(i), self.matrix.get_row_group_end(i))
            choices = _StateChoices(self, choice_names(rows, self.namer))
            self._choices[state] = choices
        return choices


class _StateChoices(Mapping[str, Mapping[str, Fraction]]):
    """One state's choices: names at once, each distribution converted when it is read."""

    def __init__(self, owner: StormChoices, rows: dict[str, int]) -> None:
        self.owner = owner
        self.rows = rows
        self._converted: dict[str, dict[str, Fraction]] = {}

    def __getitem__(self, name: str) -> dict[str, Fraction]:
        distribution = self._converted.get(name)
        if distribution is None:
            distribution = self.owner.distribution(self.rows[name])
            self._converted[name] = distribution
        return distribution

    def __iter__(self) -> Iterator[str]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)


class StormSystem:
    """A chain or MDP held in Storm as an exact matrix; each question adds its own labels."""

    def __init__(self, system: MarkovChain | MDP) -> None:
        from faier.model.chains import MDP, MarkovChain

        sp = stormpy()
        self.system = system
        self.chain = isinstance(system, MarkovChain)
        """A Markov chain (else an MDP, whose questions name an optimum)."""
        self.index = {state: i for i, state in enumerate(system.states)}
        n = len(system.states)
        rational = sp.Rational
        if isinstance(system, MarkovChain) and isinstance(system.transitions, StormRows):
            self.matrix = system.transitions.matrix
            return
        if isinstance(system, MDP) and isinstance(system.actions, StormChoices):
            self.matrix = system.actions.matrix
            return
        if isinstance(system, MarkovChain):
            builder = sp.datastructures.SparseMatrixBuilder[rational](rows=n, columns=n)
            for i, state in enumerate(system.states):
                for j, p in sorted(
                    (self.index[t], p) for t, p in system.transitions[state].items()
                ):
                    builder.add_next_value(i, j, rational(p))
        else:
            rows = sum(len(system.actions[s]) for s in system.states)
            builder = sp.datastructures.SparseMatrixBuilder[rational](
                rows=rows, columns=n, has_custom_row_grouping=True, row_groups=n
            )
            row = 0
            for state in system.states:
                builder.new_row_group(row)
                for distribution in system.actions[state].values():
                    for j, p in sorted((self.index[t], p) for t, p in distribution.items()):
                        builder.add_next_value(row, j, rational(p))
                    row += 1
        self.matrix = builder.build()

    def _model(self, sets: Mapping[str, frozenset[str]], initial: list[int] | None = None) -> Any:
        sp = stormpy()
        n = len(self.index)
        labelling = sp.models.StateLabeling(n)
        labelling.add_label("init")
        bits = sp.datastructures.BitVector
        labelling.set_states("init", bits(n, list(range(n)) if initial is None else initial))
        for name, members in sets.items():
            labelling.add_label(name)
            labelling.set_states(name, bits(n, [self.index[state] for state in members]))
        components = sp.models.SparseModelComponents[sp.Rational](
            transition_matrix=self.matrix, state_labeling=labelling
        )
        if self.chain:
            return sp.models.SparseDtmc[sp.Rational](components)
        return sp.models.SparseMdp[sp.Rational](components)

    def probabilities(
        self,
        path: Formula,
        sat: Mapping[Formula, frozenset[str]],
        optimum: Optimum = None,
        wanted: Iterable[str] | None = None,
    ) -> dict[str, Fraction]:
        """Pr(s, path) for every state s, exactly (min/max over schedulers on an MDP).

        ``sat`` gives the states satisfying each maximal state subformula.
        Storm computes every state in one call; only the ``wanted`` states (all
        when None) are converted to Fractions.
        """
        index = self.index if wanted is None else {s: self.index[s] for s in wanted}
        if is_state_formula(path):
            inside = sat[path]
            return {s: Fraction(int(s in inside)) for s in index}
        if not self.chain and optimum is None:
            raise ValueError("an MDP needs optimum='min' or 'max'")
        subformulas = maximal_state_subformulas(path)
        labels = {node: f"f{i}" for i, node in enumerate(subformulas)}
        sets = {labels[node]: sat[node] for node in subformulas}
        complement = (
            isinstance(path, Globally) and path.bound is not None and path.operand in labels
        )
        if complement:  # Pr(G<=k a) = 1 - Pr(F<=k !a), which Storm answers without its LTL engine
            assert isinstance(path, Globally)
            optimum = {"min": "max", "max": "min", None: None}[optimum]
            formula = f"F<={path.bound} !{_wrap(path.operand, labels)}"
        else:
            _refuse_long_ltl(path, labels)
            formula = storm_path(path, labels)
        operator = "P" if self.chain else f"P{optimum}"
        text = f"{operator}=? [{formula}]"
        sp = stormpy()
        prop = sp.parse_property(text)
        try:
            result = sp.model_checking(self._model(sets), prop)
            values = (
                result.get_value_vector()
                if len(index) > len(self.index) // 8
                else {i: result.get_value(i) for i in index.values()}
            )
        except RuntimeError as exc:
            if "Invalid item count" not in str(exc):
                raise FaierError(f"Storm failed on {text}: {exc}") from None
            answers = {
                state: to_fraction(
                    sp.model_checking(
                        self._model(sets, [i]), prop, only_initial_states=True
                    ).get_value(i)
                )
                for state, i in index.items()
            }
        else:
            answers = {state: to_fraction(values[i]) for state, i in index.items()}
        return {state: 1 - value for state, value in answers.items()} if complement else answers
