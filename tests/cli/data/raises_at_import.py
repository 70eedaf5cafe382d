"""A mechanism file that crashes while it is being loaded."""

import faier

SETTINGS = {"alpha": "1/2"}
ALPHA = SETTINGS["beta"]  # KeyError at import


@faier.program(inputs=faier.scalars(2))
def never_defined(x, ctx):
    return x
