"""Plain stormpy's exact answers, computed as a stormpy user computes them.

The oracle of the tests and of the soundness fuzzer for faier's values: parse the
PRISM file, set its constants, build it for the question (property-directed,
exact), check, and read the initial states.  No faier module is imported here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path


def storm_answers(
    path: str | Path, question: str, constants: Mapping[str, int] | None = None
) -> list[Fraction | float]:
    """Storm's exact value of ``question`` in each initial state, sorted (``math.inf``
    where Storm's is infinite, an expected reward of a target missed)."""
    import stormpy

    program = stormpy.parse_prism_program(str(path))
    if constants:
        program, _ = stormpy.instantiate_constants(program, dict(constants))
    properties = stormpy.parse_properties(question, program)
    model = stormpy.build_model[stormpy.Rational](program, properties)
    result = stormpy.model_checking(model, properties[0])
    found = [str(result.get_value(state)) for state in model.initial_states]
    return sorted(math.inf if text == "inf" else Fraction(text) for text in found)
