"""The core layer: what a privacy question is, and how engines are asked it.

``Problem`` (mechanism + privacy spec + horizon), ``Budget`` (time and state
limits), ``Options`` (every run setting, parsed once for the CLI and the API),
and the ``Engine`` protocol with its registry.  Both the built-in examples and
the engines build on this layer; it imports nothing from either.
"""
