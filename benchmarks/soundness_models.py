"""Fuzzer kind ``models``: one random MDP as PRISM text, as JANI, and to plain Storm.

A small random MDP of two or three modules (one bounded variable each) is
written twice: as a PRISM program and as the JANI model PRISM's semantics
give it (one automaton per module, one location, a synchronisation vector per
action).  Commands often share an action and overlap in their guards, the
shape that once made faier's JANI import merge two choices (issue 25,
zeroconf).  Four answers to the same ``Pmin``/``Pmax`` question must be
equal, exactly:

- faier on the PRISM file (:func:`faier.logic.loading.load_model`), built
  whole and built for the question alone (Storm's property-directed
  exploration);
- faier on the JANI file, built whole and built for the question;
- faier check's answer on the PRISM file (:mod:`faier.logic.directed`: Storm
  asked the question on the model it built for it, faier reading the initial
  states; never on the JANI file, where Storm misread a formula over a variable
  no edge writes, seed 11000102);
- stormpy alone on the PRISM program (exact, no faier code);

and faier's state and choice counts must be Storm's.  The PRISM text also
carries one or two random reward structures (state and action rewards, zeros
among them), and a reward question (``R{"r0"}min=? [F φ]``, ``Rmax=? [C<=k]``,
unnamed when there is one structure) must get the same exact value, ``∞``
included, from faier on the whole PRISM model, on the model built for the
question, from faier check's answer in Storm, and from stormpy alone (the JANI
text carries no rewards).  Used by ``benchmarks/soundness.py`` (kind ``models``).
"""

from __future__ import annotations

import json
import random
import tempfile
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Protocol

from storm_answers import storm_answers

ACTIONS = ("", "a", "b")
TOP = 2
"""Every variable ranges over 0..TOP (the JANI bounds say 2 too)."""


class Check(Protocol):
    """What the fuzzer's Checker offers a case."""

    def used(self, engine: str) -> None: ...
    def expect(self, ok: bool, message: str) -> None: ...
    def crash(self, where: str, exc: BaseException) -> None: ...


@dataclass(frozen=True)
class Guard:
    """``variable op value``: op one of = < >= (or always true when variable is empty)."""

    variable: str
    op: str
    value: int

    def prism(self) -> str:
        return "true" if not self.variable else f"{self.variable}{self.op}{self.value}"

    def jani(self) -> object:
        if not self.variable:
            return True
        op = {"=": "=", "<": "<", ">=": "≥"}[self.op]
        return {"op": op, "left": self.variable, "right": self.value}


@dataclass(frozen=True)
class Command:
    """``[action] guard -> p1:(x'=v1) + ...``: each update sets the module's variable (or not)."""

    action: str
    guard: Guard
    updates: tuple[tuple[Fraction, int | None], ...]


@dataclass(frozen=True)
class Module:
    variable: str
    initial: int
    commands: tuple[Command, ...]


@dataclass(frozen=True)
class RewardItem:
    """``[action] guard : value`` (an action reward; ``[]``: unlabelled choices) or
    ``guard : value`` (a state reward, ``action`` None)."""

    action: str | None
    guard: Guard
    value: Fraction

    def prism(self) -> str:
        head = "" if self.action is None else f"[{self.action}] "
        return f"  {head}{self.guard.prism()} : {self.value};"


@dataclass(frozen=True)
class RandomMdp:
    """The generated model and the questions asked of it."""

    modules: tuple[Module, ...]
    question: str
    rewards: tuple[tuple[str, tuple[RewardItem, ...]], ...] = ()
    """Reward structures by name ("" for an unnamed block), PRISM text only."""
    reward_question: str = ""

    def prism(self) -> str:
        lines = ["mdp", ""]
        for k, module in enumerate(self.modules):
            x = module.variable
            lines.append(f"module m{k}")
            lines.append(f"  {x} : [0..{TOP}] init {module.initial};")
            for command in module.commands:
                updates = " + ".join(
                    f"{p}:{'true' if v is None else f'({x}={v})'.replace('=', chr(39) + '=', 1)}"
                    for p, v in command.updates
                )
                lines.append(f"  [{command.action}] {command.guard.prism()} -> {updates};")
            lines.append("endmodule")
            lines.append("")
        for name, items in self.rewards:
            lines.append(f'rewards "{name}"' if name else "rewards")
            lines.extend(item.prism() for item in items)
            lines.append("endrewards")
            lines.append("")
        return "\n".join(lines)

    def jani(self) -> dict[str, Any]:
        alphabets = [{c.action for c in m.commands if c.action} for m in self.modules]
        actions = sorted(set().union(*alphabets))
        automata = []
        for k, module in enumerate(self.modules):
            edges = []
            for command in module.commands:
                edge: dict[str, Any] = {
                    "location": "l",
                    "guard": {"exp": command.guard.jani()},
                    "destinations": [
                        {
                            "location": "l",
                            "probability": {"exp": _jani_fraction(p)},
                            "assignments": []
                            if v is None
                            else [{"ref": module.variable, "value": v}],
                        }
                        for p, v in command.updates
                    ],
                }
                if command.action:
                    edge["action"] = command.action
                edges.append(edge)
            automata.append(
                {
                    "name": f"m{k}",
                    "locations": [{"name": "l"}],
                    "initial-locations": ["l"],
                    "variables": [],
                    "edges": edges,
                }
            )
        syncs = [
            {
                "result": action,
                "synchronise": [action if action in alphabet else None for alphabet in alphabets],
            }
            for action in actions
        ]
        return {
            "jani-version": 1,
            "name": "fuzz",
            "type": "mdp",
            "features": ["derived-operators"],
            "actions": [{"name": action} for action in actions],
            "constants": [],
            "variables": [
                {
                    "name": m.variable,
                    "type": {"kind": "bounded", "base": "int", "lower-bound": 0, "upper-bound": 2},
                    "initial-value": m.initial,
                }
                for m in self.modules
            ],
            "properties": [],
            "automata": automata,
            "system": {"elements": [{"automaton": a["name"]} for a in automata], "syncs": syncs},
        }


def _jani_fraction(p: Fraction) -> object:
    if p.denominator == 1:
        return int(p)
    return {"op": "/", "left": p.numerator, "right": p.denominator}


def _distribution(rng: random.Random) -> tuple[Fraction, ...]:
    raw = [rng.randint(1, 3) for _ in range(rng.randint(1, 3))]
    return tuple(Fraction(w, sum(raw)) for w in raw)


def generate(seed: int) -> RandomMdp:
    """A random MDP: 2–3 modules, 2–4 commands each, shared actions, overlapping guards."""
    rng = random.Random(seed)
    names = ["x", "y", "z"][: rng.randint(2, 3)]
    modules = []
    for k, x in enumerate(names):
        commands = []
        if k == 0:  # no deadlock: Storm would add a self-loop to PRISM and JANI alike
            commands.append(Command("", Guard("", "=", 0), ((Fraction(1), None),)))
        for _ in range(rng.randint(2, 4)):
            action = rng.choice(ACTIONS)
            read = rng.choice(["", x, x, rng.choice(names)])
            guard = Guard(read, rng.choice(["=", "<", ">="]), rng.randint(0, TOP))
            updates = tuple(
                (p, None if rng.random() < 0.15 else rng.randint(0, TOP))
                for p in _distribution(rng)
            )
            commands.append(Command(action, guard, updates))
        modules.append(Module(x, rng.randint(0, 1), tuple(commands)))
    target = " & ".join(f"{x}={rng.randint(0, TOP)}" for x in rng.sample(names, rng.randint(1, 2)))
    bound = rng.choice(["", "", f"<={rng.randint(1, 4)}"])
    optimum = rng.choice(["Pmin", "Pmax"])
    question = f"{optimum}=? [F{bound} ({target})]"
    rewards, reward_question = _rewards(rng, names, modules)  # drawn last: the MDP stays
    return RandomMdp(tuple(modules), question, rewards, reward_question)


def _guard(rng: random.Random, names: list[str]) -> Guard:
    read = rng.choice(["", *names])
    return Guard(read, rng.choice(["=", "<", ">="]), rng.randint(0, TOP))


def _rewards(
    rng: random.Random, names: list[str], modules: list[Module]
) -> tuple[tuple[tuple[str, tuple[RewardItem, ...]], ...], str]:
    """One or two reward structures (one may be an unnamed block) and a question on them."""
    actions = sorted({c.action for m in modules for c in m.commands})
    count = rng.randint(1, 2)
    titles = ["" if count == 1 and rng.random() < 0.3 else "r0", "r1"][:count]
    structures = []
    for title in titles:
        items = tuple(
            RewardItem(
                None if rng.random() < 0.5 else rng.choice(actions),
                _guard(rng, names),
                rng.choice([Fraction(0), Fraction(1), Fraction(1, 2), Fraction(2), Fraction(3)]),
            )
            for _ in range(rng.randint(1, 3))
        )
        structures.append((title, items))
    asked = rng.choice(titles)
    head = "R" if count == 1 and (not asked or rng.random() < 0.5) else f'R{{"{asked}"}}'
    optimum = rng.choice(["min", "max"])
    if rng.random() < 0.3:
        return tuple(structures), f"{head}{optimum}=? [C<={rng.randint(0, 5)}]"
    target = " & ".join(f"{x}={rng.randint(0, TOP)}" for x in rng.sample(names, rng.randint(1, 2)))
    return tuple(structures), f"{head}{optimum}=? [F ({target})]"


def storm_alone(prism_file: Path, question: str) -> tuple[Fraction, int, int]:
    """stormpy's exact answer in the initial state, its state and choice counts."""
    import stormpy

    stormpy.developer.set_log_level(stormpy.developer.LogLevel.OFF)
    (value,) = storm_answers(prism_file, question)
    assert isinstance(value, Fraction)  # a probability
    full = stormpy.build_model[stormpy.Rational](stormpy.parse_prism_program(str(prism_file)))
    return value, full.nr_states, full.nr_choices


def storm_reward(prism_file: Path, question: str) -> Fraction | float:
    """stormpy's exact expected reward in the initial state (math.inf for Storm's inf)."""
    (value,) = storm_answers(prism_file, question)
    return value


def check_rewards(mdp: RandomMdp, prism_file: Path, check: Check) -> None:
    """The reward question: faier whole, faier built for it, faier check's answer in Storm
    and stormpy alone give one exact value."""
    from faier.logic import check as dpctl_check
    from faier.logic import directed as directed_answer
    from faier.logic.loading import build_file, load_model
    from faier.logic.parser import parse_formula

    question = mdp.reward_question
    check.used("storm-rewards")
    try:
        reference = storm_reward(prism_file, question)
    except Exception as exc:
        check.crash("stormpy's reward on the PRISM text", exc)
        return
    parsed = parse_formula(question)
    for kind, directed in (("whole", None), ("built for the question", parsed.formula)):
        check.used("faier-prism-rewards" + ("-directed" if directed else ""))
        try:
            model = load_model(str(prism_file), question=directed)
            got = dict(dpctl_check(model, parsed).values)[model.initial[0]]
        except Exception as exc:
            check.crash(f"faier's reward on the PRISM file ({kind})", exc)
            continue
        check.expect(got == reference, f"faier ({kind}): {got}, stormpy {reference} ({question})")
    check.used("faier-prism-rewards-answered-in-storm")
    try:
        build = build_file(str(prism_file), question=parsed.formula, for_answer=True)
        assert build is not None and directed_answer.answerable(build, parsed)
        got = directed_answer.answer(build, parsed).values[0][1]
    except Exception as exc:
        check.crash("faier check's directed reward on the PRISM file", exc)
        return
    check.expect(
        got == reference,
        f"faier check (answered in Storm): {got}, stormpy {reference} ({question})",
    )


def case_models(seed: int, check: Check) -> str:
    """One random MDP: faier on PRISM, faier on JANI and plain Storm agree exactly."""
    from faier.logic import check as dpctl_check
    from faier.logic import directed as directed_answer
    from faier.logic.loading import build_file, load_model
    from faier.logic.parser import parse_formula

    mdp = generate(seed)
    description = f"{mdp.question} and {mdp.reward_question} on\n{mdp.prism()}"
    with tempfile.TemporaryDirectory() as folder:
        prism_file = Path(folder) / "fuzz.nm"
        jani_file = Path(folder) / "fuzz.jani"
        prism_file.write_text(mdp.prism(), encoding="utf-8")
        jani_file.write_text(json.dumps(mdp.jani()), encoding="utf-8")
        check.used("storm")
        try:
            reference, states, choices = storm_alone(prism_file, mdp.question)
        except Exception as exc:
            check.crash("stormpy on the PRISM text", exc)
            return description
        check_rewards(mdp, prism_file, check)
        question = parse_formula(mdp.question).formula
        for kind, path, directed in (
            ("PRISM", prism_file, None),
            ("JANI", jani_file, None),
            ("PRISM built for the question", prism_file, question),
            ("JANI built for the question", jani_file, question),
        ):
            check.used(f"faier-{kind.split()[0].lower()}" + ("-directed" if directed else ""))
            try:
                model = load_model(str(path), question=directed)
                result = dpctl_check(model, mdp.question)
            except Exception as exc:
                check.crash(f"faier on the {kind} file", exc)
                continue
            system: Any = model.system
            got = dict(result.values)[model.initial[0]]
            ours = sum(len(system.actions[s]) for s in system.states)
            check.expect(
                got == reference, f"faier on {kind}: {got}, stormpy {reference} ({mdp.question})"
            )
            check.expect(
                directed is not None or (len(system.states), ours) == (states, choices),
                f"faier on {kind}: {len(system.states)} states and {ours} choices, "
                f"stormpy {states} and {choices}",
            )
        parsed = parse_formula(mdp.question)
        check.used("faier-prism-answered-in-storm")
        try:  # faier check's path on a PRISM file: Storm answers what it built the model for
            build = build_file(str(prism_file), question=parsed.formula, for_answer=True)
            assert build is not None and directed_answer.answerable(build, parsed)
            got = directed_answer.answer(build, parsed).values[0][1]
            jani_build = build_file(str(jani_file), question=parsed.formula)
        except Exception as exc:
            check.crash("faier check's directed answer on the PRISM file", exc)
            return description
        check.expect(
            got == reference,
            f"faier check on PRISM (answered in Storm): {got}, stormpy {reference} "
            f"({mdp.question})",
        )
        check.expect(  # Storm misreads a JANI formula over a variable no edge writes
            jani_build is not None and not directed_answer.answerable(jani_build, parsed),
            "faier check would answer a JANI question in Storm",
        )
    return description
