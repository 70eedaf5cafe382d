"""Auditing real code: ``faier audit`` runs a function on neighbouring datasets with its noise
intercepted, and computes the exact privacy loss of the pairs it finds (docs/AUDIT.md).

* ``data``: datasets as records, loaded from CSV/.npy/JSON or Python values;
* ``primitives``, ``intercept``, ``opendp_calls``: what a noise call means, and the patches
  that record or replay it;
* ``runner``: one run of the function, its output flattened;
* ``pair``, ``loss``: one neighbouring pair, its per-primitive losses composed and decided;
* ``neighbours``, ``search``: the pairs tried; ``report``: the answer; ``api``: the entry.
"""
