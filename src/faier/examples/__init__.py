"""The built-in case studies: named, parameterised privacy questions from the seeds."""

from faier.examples.parameters import ParameterSpec
from faier.examples.registry import EXAMPLES, Example, find_example

__all__ = ["EXAMPLES", "Example", "ParameterSpec", "find_example"]
