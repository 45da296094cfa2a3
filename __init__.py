"""RouterLab: a teaching model of Burn's router backend.

`routerlab.core` is the model (handle registry, interpreter, router, quantization, transfers);
`routerlab.cli` is the terminal face and `routerlab.exercises` the classroom exercises. Importing
this package imports none of them, so `routerlab --version` stays fast.
"""

__version__ = "0.1.0"
"""The release, kept equal to `pyproject.toml`'s `version` by tests/packaging (a constant, not
`importlib.metadata`, whose import alone costs `routerlab --help` about 0.1 s)."""

BURN_COMMIT = "2c06be351006851d42fdb6df16b976f4a82d9747"
"""The Burn commit whose behaviour the model reproduces (docs/burn.md)."""

__all__ = ["BURN_COMMIT", "__version__"]
