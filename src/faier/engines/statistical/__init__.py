"""The statistical engine: StatDP's counterexample detection, and its exact checks.

* :mod:`.tester` runs a test over a grid of ε (:func:`tester.run`).
* :mod:`.subjects` turns a faier problem or a sampled mechanism into what is
  tested: input pairs (:mod:`faier.privacy.patterns`), arguments (:mod:`.arguments`, with
  z3 in :mod:`.maxsmt` over :mod:`.symbolic`), samplers (:mod:`.discrete`).
* :mod:`.events` and :mod:`.selector` choose the event; :mod:`.hypothesis`
  holds the test and the loss interval; :mod:`.parallel` the seeded units.
* :mod:`.reports` are the results; :mod:`.combine` certifies candidates and
  bounds ε* with the exact engine (:mod:`.certify`).

The statistical engine never claims that privacy holds.
"""
