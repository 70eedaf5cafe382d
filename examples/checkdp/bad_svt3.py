"""BadSVT 3 (CheckDP's badsparsevector3): threshold Lap(4/ε), query noise Lap(4/(3ε)) that
ignores the cutoff N = 2 (claim ε = 1; incorrect)."""

from fractions import Fraction

import faier

N = 2


@faier.program(inputs=faier.grid(3, 2))
def bad_svt3(q, ctx):
    threshold = 1 + ctx.draw(faier.laplace(0, 4))
    out, count = [], 0
    for i in range(len(q)):
        if q[i] + ctx.draw(faier.laplace(0, Fraction(4, 3))) >= threshold:
            out.append(True)
            count += 1
            if count == N:
                break
        else:
            out.append(False)
    return tuple(out)
