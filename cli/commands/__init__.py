"""One module per `routerlab` command; each exposes `register(app: typer.Typer) -> None`.

These modules do not use `from __future__ import annotations`: Typer reads every command's
annotations with `typing.get_type_hints` on each start, and string annotations cost a `compile`
and an `eval` apiece (the whole app's command tree took 13 ms to build with them, 5 ms without).
Names imported only for type checking are quoted instead.
"""
