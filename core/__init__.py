"""The RouterLab model of Burn's router backend.

Knows nothing of Typer, rich, IPython or CuPy at import time (CuPy is looked for lazily, on the
first use of a `cuda:N` device). The public names are re-exported here as the modules land.
"""
