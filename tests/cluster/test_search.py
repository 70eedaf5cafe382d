"""The exact sequence search split by prefix over a cluster: ε*(k) identical for every k.

Checked against the engine's own single-process search and against the
exhaustive depth-first search (every transcript, no pruning), on random
HMMs and on Above Threshold through the CLI's door (``faier.epsilon``).
"""

from __future__ import annotations

import itertools
import os
import random
import signal
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import faier
from faier.cluster.address import read_cluster
from faier.core.budget import Budget
from faier.engines.exact import branch_and_bound, sequence_mode
from faier.engines.exact.cluster_search import ClusterSearch
from faier.model.hmm import HMM

distributed = pytest.importorskip("distributed")


def random_system(states: int, observations: int, seed: int) -> tuple[Any, list[Any]]:
    """A random HMM (weights 0..4, some zero) and every ordered pair of three random priors."""
    rng = random.Random(seed)

    def rows(count: int, width: int) -> tuple[tuple[Fraction, ...], ...]:
        out = []
        for _ in range(count):
            weights = [rng.choice((0, 1, 2, 3, 4)) for _ in range(width)]
            weights[rng.randrange(width)] += 1
            out.append(tuple(Fraction(w, sum(weights)) for w in weights))
        return tuple(out)

    hmm = HMM(
        tuple(f"s{i}" for i in range(states)),
        tuple(f"o{i}" for i in range(observations)),
        rows(states, states),
        rows(states, observations),
        {},
    )
    priors = [{s: p for s, p in enumerate(row) if p} for row in rows(3, states)]
    comparisons = [
        sequence_mode.SequenceComparison(priors[i], priors[j], None)  # type: ignore[arg-type]
        for i, j in itertools.permutations(range(3), 2)
    ]
    return sequence_mode.hmm_system(hmm), comparisons


def per_length(
    search: Any, system: Any, comparisons: list[Any], horizon: int, **kw: Any
) -> list[Any]:
    state = sequence_mode.SearchState(horizon, [None] * (horizon + 1))
    search(system, comparisons, horizon, Budget(), state, **kw)
    return [None if r is None else r.loss for r in sequence_mode.cumulative(state)], state


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_split_search_equals_single_and_exhaustive(seed: int, client: Any) -> None:
    system, comparisons = random_system(5, 3, seed)
    horizon = 5
    exhaustive, _ = per_length(sequence_mode.search, system, comparisons, horizon)
    single, _ = per_length(
        branch_and_bound.merged_search, system, comparisons, horizon, arithmetic="float"
    )
    split = ClusterSearch(read_cluster(client), parts=5)
    clustered, state = per_length(split, system, comparisons, horizon, arithmetic="float")
    assert clustered == single == exhaustive
    assert (
        "9 prefixes of length 1 in 5 sub-searches over 2 workers" in split.note
        or "sub-searches" in split.note
    )
    for k, record in enumerate(
        sequence_mode.cumulative(state), start=1
    ):  # real transcripts, exactly
        assert record is not None and len(record.path) <= k and record.comparison >= 0
        a, b = dict(comparisons[record.comparison].a0), dict(comparisons[record.comparison].b0)
        for s in record.path:
            a = {
                t: sum(
                    (x * w for u, x in a.items() for v, w in system.left[s][u] if v == t),
                    Fraction(0),
                )
                for t in range(system.size)
            }
            b = {
                t: sum(
                    (x * w for u, x in b.items() for v, w in system.right[s][u] if v == t),
                    Fraction(0),
                )
                for t in range(system.size)
            }
        assert (sum(a.values()), sum(b.values())) == (record.p, record.q)
        assert record.loss.ratio == record.p / record.q


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**6),
    states=st.integers(2, 5),
    observations=st.integers(2, 3),
    horizon=st.integers(1, 5),
    parts=st.integers(1, 7),
)
def test_split_search_property(
    seed: int, states: int, observations: int, horizon: int, parts: int, client: Any
) -> None:
    system, comparisons = random_system(states, observations, seed)
    exhaustive, _ = per_length(sequence_mode.search, system, comparisons, horizon)
    split = ClusterSearch(read_cluster(client), parts=parts)
    clustered, _ = per_length(split, system, comparisons, horizon, arithmetic="exact")
    assert clustered == exhaustive


def test_through_the_api(client: Any) -> None:
    here = faier.epsilon("above-threshold", horizon=4)
    there = faier.epsilon("above-threshold", horizon=4, cluster=client)
    assert [(h.k, h.loss) for h in there.horizons] == [(h.k, h.loss) for h in here.horizons]
    assert there.epsilon_star == here.epsilon_star == faier.results.Loss(Fraction(16))
    assert "split on the cluster" in there.method
    assert there.witness is not None and there.witness.p / there.witness.q == Fraction(16)
    claim = faier.verify("above-threshold", "ln(15)", horizon=4, cluster=client)
    assert claim.verdict is faier.Verdict.VIOLATED
    one_shot = faier.epsilon("noisy-max", settings={"n": "3"}, cluster=client)
    assert one_shot.epsilon_star == faier.epsilon("noisy-max", settings={"n": "3"}).epsilon_star
    assert "--cluster unused (not a sequence search)" in one_shot.method


class KillSecond:
    """Progress that kills a worker process when the second sub-search is back."""

    def __init__(self, pid: int) -> None:
        self.pid, self.killed = pid, False

    def __call__(self, counts: Any) -> None:
        if counts.phase == "sub-searches" and counts.depth == 1 and not self.killed:
            self.killed = True
            os.kill(self.pid, signal.SIGKILL)


def test_a_worker_killed_mid_search_changes_nothing() -> None:
    import logging

    system, comparisons = random_system(6, 3, 7)
    horizon = 6
    single, _ = per_length(
        branch_and_bound.merged_search, system, comparisons, horizon, arithmetic="float"
    )
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        silence_logs=logging.CRITICAL,
    )
    with cluster, distributed.Client(cluster) as client:
        pid = sorted(client.run(os.getpid).values())[0]
        killer = KillSecond(pid)
        split = ClusterSearch(read_cluster(client), parts=12)
        clustered, _ = per_length(
            split, system, comparisons, horizon, arithmetic="float", progress=killer
        )
        assert killer.killed
    assert clustered == single
