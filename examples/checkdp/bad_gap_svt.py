"""BadGapSVT (CheckDP's badgapsparsevector): releases the noisy answer q + η instead of the
gap q + η − T̃ (threshold Lap(2/ε), queries Lap(4N/ε), N = 2; claim ε = 1; incorrect)."""

import faier

N = 2


@faier.program(inputs=faier.grid(3, 2))
def bad_gap_svt(q, ctx):
    threshold = 1 + ctx.draw(faier.laplace(0, 2))
    out, count = [], 0
    for i in range(len(q)):
        noisy = q[i] + ctx.draw(faier.laplace(0, 4 * N))
        if noisy >= threshold:
            out.append(noisy)
            count += 1
            if count == N:
                break
        else:
            out.append(False)
    return tuple(out)
