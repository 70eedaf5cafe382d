"""PRISM's reward questions ``R=? [F φ]`` and ``R=? [C<=k]``, answered exactly by Storm.

Most PRISM and JANI property files ask for expected rewards (steps, time,
messages).  A PRISM or JANI model keeps Storm's build of the file, with its
reward structures (PRISM's ``rewards ... endrewards`` blocks, JANI's transient
real variables, named after the variable); the target φ is a dpCTL* state
formula whose states faier computes first and hands to Storm as a label,
exactly as for ``P``.  Storm's exact engine then gives every state's
expected reward (``∞`` where the target is missed with positive
probability, PRISM's convention), the minimum or maximum over schedulers
on an MDP.  This is the whole-model answer; ``faier check`` asks Storm a PRISM
file's reward question on the model it built for it instead
(:mod:`faier.logic.directed`), with the same values and the same refusals
(:func:`chosen_structure` serves both).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from faier.errors import FaierError, SpecError
from faier.logic._storm import StormChoices, StormRows, stormpy
from faier.logic.syntax import Reward

if TYPE_CHECKING:
    from faier.logic.models import LogicModel

TARGET = "faier_target"
"""The label the target φ's states get in the model Storm checks."""


def storm_model(model: LogicModel) -> Any:
    """The Storm model a PRISM or JANI file was built into, with its reward structures."""
    from faier.model.chains import MDP, MarkovChain  # a whole model's: directed builds have none

    system = model.system
    held = (
        system.transitions
        if isinstance(system, MarkovChain)
        else system.actions
        if isinstance(system, MDP)
        else None
    )
    if isinstance(held, StormRows | StormChoices):
        return held.model
    if model.built is not None:
        if model.built.nr_states != len(system.states):
            raise FaierError(
                f"Storm built {model.built.nr_states} states where faier holds "
                f"{len(system.states)}: refusing to answer on a different model"
            )
        return model.built
    raise SpecError(
        f"{model.name} has no reward structures faier can read",
        fix="rewards come from a PRISM file's rewards ... endrewards blocks "
        "or a JANI file's transient real variables",
    )


def structure_name(model: LogicModel, reward: Reward) -> str:
    """The reward structure asked for: the named one, or the model's only one."""
    return chosen_structure(model.name, storm_model(model).reward_models, reward)


def chosen_structure(model_name: str, structures: Iterable[str], reward: Reward) -> str:
    """The structure ``reward`` asks for among a model's ``structures``: the named one, or
    the only one (the same refusals wherever the model was built, whole or for the question)."""
    names = sorted(structures)
    if reward.structure is not None:
        if reward.structure not in names:
            raise SpecError(
                f"{model_name} has no reward structure {reward.structure!r}",
                fix=f"its reward structures are {', '.join(names) or '(none)'}",
            )
        return reward.structure
    if len(names) != 1:
        raise SpecError(
            f"{model_name} has {len(names) or 'no'} reward structures"
            + (f" ({', '.join(names)})" if names else ""),
            fix='name one: R{"' + (names[0] if names else "time") + '"}=? [...]'
            if names
            else "add a rewards ... endrewards block to the PRISM file "
            "(a transient real variable to the JANI file)",
        )
    return str(names[0])


def expected_rewards(
    model: LogicModel,
    reward: Reward,
    target: frozenset[str] | None,
    wanted: Iterable[str],
) -> dict[str, Fraction | float]:
    """Each wanted state's exact expected reward (``math.inf`` for an infinite one)."""
    sp = stormpy()
    built = storm_model(model)
    name = structure_name(model, reward)
    states = model.system.states
    index = {state: i for i, state in enumerate(states)}
    n = len(states)
    bits = sp.datastructures.BitVector
    labelling = sp.models.StateLabeling(n)
    labelling.add_label("init")
    labelling.set_states("init", bits(n, list(range(n))))
    labelling.add_label(TARGET)
    labelling.set_states(TARGET, bits(n, sorted(index[s] for s in target or ())))
    components = sp.models.SparseModelComponents[sp.Rational](
        transition_matrix=built.transition_matrix,
        state_labeling=labelling,
        reward_models={name: built.reward_models[name]},
    )
    from faier.model.chains import MDP

    mdp = isinstance(model.system, MDP)
    checked = (sp.models.SparseMdp if mdp else sp.models.SparseDtmc)[sp.Rational](components)
    optimum = reward.optimum or ("max" if mdp else "")
    path = f'F "{TARGET}"' if reward.target is not None else f"C<={reward.steps}"
    head = f'R{{"{name}"}}' if name else "R"  # an unnamed block: Storm's text cannot name it
    text = f"{head}{optimum}=? [{path}]"
    try:
        result = sp.model_checking(checked, sp.parse_property(text))
    except RuntimeError as exc:
        raise FaierError(f"Storm failed on {text}: {exc}") from None
    values: dict[str, Fraction | float] = {}
    for state in wanted:
        value = str(result.get_value(index[state]))
        values[state] = math.inf if value == "inf" else Fraction(value)
    return values
