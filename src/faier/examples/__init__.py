"""The built-in case studies: named, parameterised privacy questions from the papers.

docs/REFERENCES.md cites the papers; each example's ``reference`` names its source.
"""

from faier.examples.parameters import ParameterSpec
from faier.examples.registry import EXAMPLES, Example, find_example

__all__ = ["EXAMPLES", "Example", "ParameterSpec", "find_example"]
