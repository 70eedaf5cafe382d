"""``faier audit --cluster``: pairs evaluated as Dask tasks, the function from a user's file
sent by value; the same witness as the sequential search."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from faier import audit

CORPUS = Path(__file__).parent.parent / "auditing" / "audit_corpus.py"
DATA = np.array([0.2, 0.5, 0.9])


def test_a_file_function_is_audited_on_the_cluster(client: Any) -> None:
    target = f"{CORPUS}:budget_spent_twice"
    alone = audit(target, DATA, epsilon=1, budget=10)
    spread = audit(target, DATA, epsilon=1, budget=10, cluster=client)
    assert spread.witness is not None and alone.witness is not None
    assert spread.witness.change == alone.witness.change
    assert spread.witness.loss == alone.witness.loss
