"""Running faier's work units on a Dask cluster (``--cluster``, ``cluster=``).

``address`` reads where to run (``local``, ``local:N``, ``tcp://host:port`` or
a ``dask.distributed.Client``) without importing dask; ``session`` opens the
client; ``executor`` maps seeded, independent units over it.  The units are
the ones the local process pool runs, so a seeded run gives the same answer
on either.  ``batch`` (``faier batch SUITE.yaml``) runs many jobs.
"""

from faier.cluster.address import ClusterAddress, read_cluster

__all__ = ["ClusterAddress", "read_cluster"]
