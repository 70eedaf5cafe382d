"""Exact arithmetic for forward vectors: Fractions against integers over one denominator and FLINT.

The float frontier steers the sequence search, but every record and every
close prune is recomputed exactly; on dense HMMs those exact products of
vectors of thousand-digit rationals dominated.  This benchmark runs the same
merged search (random dense HMMs, 3 observations, 6 prior pairs) with each
way of computing vector·matrix exactly and prints seconds per case; all
must give the same exact ε*:

* ``fraction``: Python Fractions entry by entry (the previous engine, the baseline);
* ``gmpy2``: the same with gmpy2's mpq (when gmpy2 is installed);
* ``integers``: one common denominator, Python integers, one reduction per entry;
* ``flint``: the same with python-flint's fmpz_mat product for dense matrices (the default).

    .venv/bin/python benchmarks/exact_arithmetic.py            # 50, 100, 200 states
    .venv/bin/python benchmarks/exact_arithmetic.py --quick    # 50, 100
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

from machine import describe

from faier.engines.exact import sequence_mode

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("sequence_bench", HERE / "sequence_mode.py")
assert _spec is not None and _spec.loader is not None
sequence_bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sequence_bench)

ORIGINAL = sequence_mode._times


def fraction_times(vector: sequence_mode.SparseVector, rows: Any) -> sequence_mode.SparseVector:
    out: sequence_mode.SparseVector = {}
    for s, x in vector.items():
        for t, p in rows[s]:
            out[t] = out.get(t, Fraction(0)) + x * p
    return out


def gmpy2_times() -> Callable[[Any, Any], Any] | None:
    try:
        import gmpy2
    except ImportError:
        return None
    mpq = gmpy2.mpq

    def times(vector: sequence_mode.SparseVector, rows: Any) -> sequence_mode.SparseVector:
        out: dict[int, Any] = {}
        for s, x in vector.items():
            xq = mpq(x.numerator, x.denominator)
            for t, p in rows[s]:
                out[t] = out.get(t, mpq(0)) + xq * mpq(p.numerator, p.denominator)
        return {t: Fraction(int(v.numerator), int(v.denominator)) for t, v in out.items()}

    return times


def integer_times(vector: sequence_mode.SparseVector, rows: Any) -> sequence_mode.SparseVector:
    saved = sequence_mode._DENSE_FROM
    sequence_mode._DENSE_FROM = 10**9
    sequence_mode._integer_rows_cache.clear()
    try:
        return ORIGINAL(vector, rows)
    finally:
        sequence_mode._DENSE_FROM = saved
        sequence_mode._integer_rows_cache.clear()


def run(states: int, horizon: int, times: Callable[[Any, Any], Any]) -> tuple[float, Fraction]:
    sequence_mode._times = times
    for module in ("float_frontier", "branch_and_bound", "certificate"):
        owner = sys.modules.get(f"faier.engines.exact.{module}")
        if owner is not None and hasattr(owner, "_times"):
            owner._times = times  # type: ignore[attr-defined]
    try:
        seconds, _, ratio = sequence_bench.search_random(states, horizon, "float")
    finally:
        sequence_mode._times = ORIGINAL
        for module in ("float_frontier", "branch_and_bound", "certificate"):
            owner = sys.modules.get(f"faier.engines.exact.{module}")
            if owner is not None and hasattr(owner, "_times"):
                owner._times = ORIGINAL  # type: ignore[attr-defined]
    assert ratio is not None
    return seconds, ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="50 and 100 states only")
    args = parser.parse_args()
    print(describe())
    cases = [(50, 8), (100, 8)] + ([] if args.quick else [(200, 8)])
    ways: list[tuple[str, Callable[[Any, Any], Any] | None]] = [
        ("fraction", fraction_times),
        ("gmpy2", gmpy2_times()),
        ("integers", integer_times),
        ("flint", ORIGINAL),
    ]
    print(f"{'states':>6} {'horizon':>7}  " + "  ".join(f"{name:>9}" for name, _ in ways))
    for states, horizon in cases:
        cells, answers = [], set()
        for _, times in ways:
            if times is None:
                cells.append(f"{'-':>9}")
                continue
            seconds, ratio = run(states, horizon, times)
            answers.add(ratio)
            cells.append(f"{seconds:8.2f}s")
        assert len(answers) == 1, "the ways disagree"
        print(f"{states:>6} {horizon:>7}  " + "  ".join(cells))


if __name__ == "__main__":
    main()
