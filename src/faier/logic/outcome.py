"""What a dpCTL* check returns: the verdict per state and the numbers behind each P and D.

A state's verdict is ``holds`` or ``violated`` only when exact arithmetic
decided it; ``unknown`` carries the reason (an MDP whose sufficient
condition failed, a word budget that ran out).  Every D row names the
comparison that came closest to failing — or the one that failed — with
both probabilities exactly (a :class:`~faier.logic._closeness.Closeness`, loaded
with the first D).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal

from faier.results import ExitCode, ShownAsHtml, Verdict

if TYPE_CHECKING:
    from faier.logic._closeness import Closeness
    from faier.results import Loss

Method = Literal["storm", "words", "proposition 2", "every scheduler", "tail words"]


def compact(value: Fraction, limit: int = 24) -> str:
    """A probability as exact text when it is short, else ``≈ 0.0602816`` (JSON keeps it exact)."""
    text = str(value)
    return text if len(text) <= limit else f"≈ {float(value):.6g}"


def show_word(word: tuple[str | None, ...]) -> str:
    """An action word as ``-,-,0|1,-,2|2`` ('-' where every state had one action)."""
    return ",".join("-" if letter is None else letter for letter in word) or "(empty)"


def _valuation(name: str) -> list[tuple[str, str]] | None:
    """``a=1,b=true`` as [(a, 1), (b, true)]; None for a name that is not a valuation."""
    parts = [part.partition("=") for part in name.split(",")]
    if len(parts) < 2 or any(not sep or not var for var, sep, _ in parts):
        return None
    return [(var, value) for var, _, value in parts]


def differences_first(left: str, right: str) -> tuple[str, str]:
    """Two valuation names with the variables where they differ first (``who=0 | holder=0,…``).

    PRISM states are named by all their variables, and a long name cut to
    the width of a table hides where two neighbours differ; other names are
    returned as they are.
    """
    a, b = _valuation(left), _valuation(right)
    if a is None or b is None or [v for v, _ in a] != [v for v, _ in b]:
        return left, right
    differ = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x[1] != y[1]]
    if not differ or len(differ) == len(a):
        return left, right

    def arranged(pairs: list[tuple[str, str]]) -> str:
        first = ",".join(f"{pairs[i][0]}={pairs[i][1]}" for i in differ)
        rest = ",".join(f"{v}={x}" for i, (v, x) in enumerate(pairs) if i not in differ)
        return f"{first} | {rest}"

    return arranged(a), arranged(b)


@dataclass(frozen=True)
class OperatorRow:
    """One state's answer to one P or D subformula."""

    state: str
    verdict: Verdict
    probability: Fraction | None = None
    bounds: tuple[Fraction, Fraction] | None = None
    closest: Closeness | None = None
    tightest: Loss | None = None
    method: str = ""
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"state": self.state, "verdict": self.verdict.value}
        if self.probability is not None:
            out["probability"] = str(self.probability)
        if self.bounds is not None:
            out["bounds"] = {"min": str(self.bounds[0]), "max": str(self.bounds[1])}
        if self.closest is not None:
            out["closest"] = self.closest.to_json()
        if self.tightest is not None:
            out["tightest_epsilon"] = self.tightest.to_json()
        out["method"] = self.method
        if self.reason:
            out["reason"] = self.reason
        return out


@dataclass(frozen=True)
class OperatorReport:
    """A P or D subformula: how many states satisfy it, and the rows for the asked states."""

    formula: str
    kind: Literal["P", "D"]
    satisfied: int
    undecided: int
    total: int
    rows: tuple[OperatorRow, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "formula": self.formula,
            "kind": self.kind,
            "satisfied": self.satisfied,
            "undecided": self.undecided,
            "states": self.total,
            "rows": [row.to_json() for row in self.rows],
        }


@dataclass(frozen=True)
class ModelSize:
    """How big the checked model is: states, transitions (nonzero entries) and, on an
    MDP, choices (Storm's counts for a model Storm built)."""

    states: int
    transitions: int
    choices: int | None = None

    def show(self) -> str:
        choices = "" if self.choices is None else f", {self.choices:,} choices"
        return f"{self.states:,} states, {self.transitions:,} transitions{choices}"

    def to_json(self) -> dict[str, int]:
        out = {"states": self.states, "transitions": self.transitions}
        if self.choices is not None:
            out["choices"] = self.choices
        return out


@dataclass(frozen=True)
class CheckResult(ShownAsHtml):
    """The answer for a formula on a model, in the asked states (default: the initial ones)."""

    model: str
    kind: str
    formula: str
    neighbours: str
    states: tuple[tuple[str, Verdict], ...]
    verdict: Verdict | None
    operators: tuple[OperatorReport, ...] = ()
    values: tuple[tuple[str, Fraction | float], ...] = ()
    """A question's answer per state (``math.inf``: an infinite expected reward)."""
    witness: Closeness | None = None
    reason: str | None = None
    seconds: float = 0.0
    model_seconds: float = 0.0
    """Of ``seconds``, the time spent building the model (0 when it was given built)."""
    size: ModelSize | None = None
    quantity: str = "probability"
    """What ``values`` hold: probabilities, or an ``R=?`` question's expected rewards."""
    name: str | None = None
    """The property's PRISM name (``"p2": P=? [...]``), when it has one."""

    @property
    def exit_code(self) -> int:
        """0 holds (or a query answered), 1 violated, 3 unknown."""
        return ExitCode.HOLDS if self.verdict is None else self.verdict.exit_code

    @property
    def method(self) -> str:
        """How the operators were decided (Storm, action words, Proposition 2, ...)."""
        used = sorted({row.method for report in self.operators for row in report.rows})
        return "dpCTL* model checking: " + (", ".join(used) if used else "storm")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "model": self.model,
            "kind": self.kind,
            "formula": self.formula,
            "neighbours": self.neighbours,
        }
        if self.name is not None:
            out["name"] = self.name
        if self.verdict is not None:
            out["verdict"] = self.verdict.value
            out["states"] = {state: verdict.value for state, verdict in self.states}
        else:
            out["values"] = {state: str(value) for state, value in self.values}
        out["operators"] = [report.to_json() for report in self.operators]
        out["witness"] = self.witness.to_json() if self.witness else None
        if self.reason:
            out["reason"] = self.reason
        if self.size is not None:
            out["size"] = self.size.to_json()
        out["seconds"] = round(self.seconds, 6)
        out["model_seconds"] = round(self.model_seconds, 6)
        return out
