"""The names of StatDP's continuous-noise suite (``continuous.SUITE``), without numpy.

The ``faier`` command lists them in its help; importing the suite itself would
load numpy and the samplers at every start (tests pin the two lists equal).
"""

SUITE_NAMES: tuple[str, ...] = (
    "noisy-max-laplace",
    "noisy-max-laplace-value",
    "noisy-max-exponential",
    "noisy-max-exponential-value",
    "histogram-laplace",
    "histogram-laplace-wrong-scale",
    "svt-laplace",
    "isvt1-laplace",
    "isvt2-laplace",
    "isvt3-laplace",
    "isvt4-laplace",
)
