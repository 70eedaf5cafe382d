"""The SMT engine: the FAIER papers' Algorithm 1, and a fast per-outcome polynomial encoding.

Unknown parameters (a prior's infection rates, an HMM's probabilities) are
reasoned about over their whole domain with z3 and cvc5, run as a portfolio
in worker processes.  ``verify`` proves ε-privacy for all parameter values
or synthesizes violating ones; ``epsilon`` bounds sup ε* over the domain;
``closed_forms`` prints the probabilities as rational functions.
"""

from faier.engines.smt.closed_form import ClosedForms, closed_forms
from faier.engines.smt.engine import epsilon, verify
from faier.engines.smt.portfolio import SolverPool
from faier.engines.smt.session import SolverSettings

__all__ = ["ClosedForms", "SolverPool", "SolverSettings", "closed_forms", "epsilon", "verify"]
