"""Interception: recognised calls recorded with their line, originals restored, other threads
untouched, unrecognised randomness reported, replays matched by call site and order."""

from __future__ import annotations

import os
import random
import threading

import numpy as np

from faier.auditing import intercept
from faier.auditing.data import from_value
from faier.auditing.intercept import Session
from faier.auditing.runner import run

DATA = from_value(np.array([1.0, 2.0]))


def _line(offset: int) -> int:
    import inspect

    frame = inspect.currentframe()
    assert frame is not None and frame.f_back is not None
    return frame.f_back.f_lineno + offset


def three_sources(data: np.ndarray) -> tuple[float, float, float]:
    rng = np.random.default_rng()
    a = np.random.laplace(float(data.sum()), 2.0)
    b = rng.normal(0.0, 3.0)
    c = random.gauss(1.0, 4.0)
    return float(a), float(b), float(c)


def test_each_source_is_recorded_with_family_centre_scale_and_line() -> None:
    recorded = run(three_sources, DATA, {}, Session(0))
    assert recorded.error is None
    families = [(d.source, d.family, float(d.centre[0]), d.scales) for d in recorded.draws]  # type: ignore[index]
    assert families == [
        ("numpy.random.laplace", "laplace", 3.0, (2,)),
        ("Generator.normal", "gaussian", 0.0, (3,)),
        ("random.gauss", "gaussian", 1.0, (4,)),
    ]
    import inspect

    _lines, start = inspect.getsourcelines(three_sources)
    assert [d.site.line for d in recorded.draws] == [start + 2, start + 3, start + 4]


def test_originals_are_restored_and_other_threads_see_them() -> None:
    original = np.random.laplace
    seen: list[object] = []

    def other_thread_draws(data: np.ndarray) -> float:
        worker = threading.Thread(target=lambda: seen.append(random.gauss(0, 1)))
        worker.start()
        worker.join()
        return float(np.random.laplace(0.0, 1.0))

    recorded = run(other_thread_draws, DATA, {}, Session(0))
    assert np.random.laplace is original
    assert [d.source for d in recorded.draws] == ["numpy.random.laplace"]
    assert len(seen) == 1


def test_recording_is_reproducible_from_the_seed_whatever_the_code_seeds() -> None:
    def seeded(data: np.ndarray) -> float:
        return float(np.random.laplace(0.0, 1.0))

    first = run(seeded, DATA, {}, Session(5))
    np.random.seed(123)
    second = run(seeded, DATA, {}, Session(5))
    assert first.output == second.output
    assert run(seeded, DATA, {}, Session(6)).output != first.output


def test_replay_hands_back_the_noise_about_the_new_centre() -> None:
    def centred(data: np.ndarray) -> float:
        return float(np.random.laplace(float(data.sum()), 1.0))

    recorded = run(centred, DATA, {}, Session(0))
    other = from_value(np.array([1.0, 2.0, 10.0]))
    replayed = run(centred, other, {}, Session(9, tape=recorded.draws))
    assert replayed.mismatch is None
    assert replayed.output == recorded.output + 10.0


def test_a_call_on_one_side_only_is_the_first_difference() -> None:
    def per_record(data: np.ndarray) -> list[float]:
        return [float(np.random.laplace(x, 1.0)) for x in data]

    recorded = run(per_record, DATA, {}, Session(0))
    longer = run(
        per_record, from_value(np.array([1.0, 2.0, 3.0])), {}, Session(0, tape=recorded.draws)
    )
    assert longer.mismatch is not None and longer.mismatch.index == 2
    assert "D′ only" in longer.mismatch.describe()


def test_unrecognised_randomness_is_reported() -> None:
    def urandom(data: np.ndarray) -> int:
        return int.from_bytes(os.urandom(2), "big")

    recorded = run(urandom, DATA, {}, Session(0))
    assert [u.what for u in recorded.unrecognised] == ["os.urandom"]


def test_a_generator_held_in_globals_is_wrapped_meanwhile() -> None:
    namespace: dict[str, object] = {"np": np, "rng": np.random.default_rng(1)}
    exec("def held(data):\n    return float(rng.laplace(0.0, 2.0))\n", namespace)
    recorded = run(namespace["held"], DATA, {}, Session(0))  # type: ignore[arg-type]
    assert [d.source for d in recorded.draws] == ["Generator.laplace"]
    assert type(namespace["rng"]) is np.random.Generator
    assert intercept.active() is None
