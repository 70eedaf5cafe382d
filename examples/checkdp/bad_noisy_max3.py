"""BadNoisyMax 3: exponential noise Exp(2/ε), releasing the largest noisy value (claim ε = 1;
no finite ε: the value's support starts at the largest answer)."""

import faier


@faier.program(inputs=faier.grid(3, 2))
def bad_noisy_max3(q, ctx):
    top = None
    for i in range(len(q)):
        noisy = q[i] + ctx.draw(faier.exponential(2))
        if i == 0 or noisy > top:
            top = noisy
    return top
