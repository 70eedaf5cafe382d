"""A Python file that defines no mechanism: only a plain function and a constant."""

from fractions import Fraction

ALPHA = Fraction(1, 2)


def noisy_sum(x, ctx):
    """Forgot the @faier.program decorator."""
    return x
