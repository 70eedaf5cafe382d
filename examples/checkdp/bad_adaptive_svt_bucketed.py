"""BadAdaptiveSVT refuted through a post-processing: each released number is replaced by the
interval of fixed cut points it falls in (⊥ kept), at n = 4 queries.

The certified engine cannot decide BadAdaptiveSVT itself (its near-threshold branch
releases q + η₂ − (1 + η₁), a sum of two noise variables), but it decides this bucketed
program exactly: no number is released, only comparisons.  Bucketing is a function of the
output alone (an observer cannot tell the far-above release q + η₃ from a gap, and need
not), so by the post-processing inequality a witness here is a witness for BadAdaptiveSVT:
the event f⁻¹(B).  ε* on the pair below is 5/4 = 3·(3/8) + 1/8 (three ⊥ answers, then the
far-above release), above the claimed 1.

    faier verify examples/checkdp/bad_adaptive_svt_bucketed.py --epsilon 1 --engine certified
"""

import faier
from faier.mechanisms.inputs import InputSpace
from faier.privacy.neighbours import ExplicitPairs
from faier.privacy.specs import DifferentialPrivacy

N = 1
CUTS = (0, 4, 8, 12, 16, 17, 18, 19, 20, 24)
PAIR = ((1, 1, 1, 2), (0, 0, 0, 1))


def bad_adaptive_svt(q, ctx):
    """examples/checkdp/bad_adaptive_svt.py, unchanged."""
    threshold = 1 + ctx.draw(faier.laplace(0, 2))
    out, cost = [], 2 * N
    for i in range(len(q)):
        top = q[i] + ctx.draw(faier.laplace(0, 8 * N))
        if top - threshold >= 16:
            out.append(top)
            cost += 1
        else:
            middle = q[i] + ctx.draw(faier.laplace(0, 4 * N))
            if middle - threshold >= 0:
                out.append(middle - threshold)
                cost += 2
            else:
                out.append(False)
        if cost > 4 * N - 2:
            break
    return tuple(out)


def bucket(v):
    """The interval of CUTS a released number lies in."""
    for c in CUTS:
        if v < c:
            return f"below {c}"
    return f"at least {CUTS[-1]}"


@faier.program(inputs=InputSpace(PAIR, "BadAdaptiveSVT's witness pair"))
def _bucketed(q, ctx):
    return tuple(v if isinstance(v, bool) else bucket(v) for v in bad_adaptive_svt(q, ctx))


bad_adaptive_svt_bucketed = faier.Problem(
    "bad_adaptive_svt_bucketed",
    _bucketed,
    DifferentialPrivacy(ExplicitPairs((PAIR, PAIR[::-1]))),
)
