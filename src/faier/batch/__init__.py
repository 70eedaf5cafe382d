"""``faier batch SUITE.yaml``: many jobs in parallel, one JSON line each, resumable.

``suite`` reads and checks the suite file (every mistake is bad input naming
the file, the job and the fix, before anything runs); ``job`` runs one job in
a forked process with a hard deadline, so a crash or a hang becomes a record
instead of a lost job; ``records`` owns the output file (append, resume, the
exit code of the whole suite); ``runner`` spreads the jobs over local
processes or a Dask cluster.
"""

from faier.batch.runner import BatchReport, run_batch
from faier.batch.suite import Job, Suite, load_suite

__all__ = ["BatchReport", "Job", "Suite", "load_suite", "run_batch"]
