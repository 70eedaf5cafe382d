"""Privacy notions as values: budgets, neighbour relations, DP and Pufferfish specs."""
