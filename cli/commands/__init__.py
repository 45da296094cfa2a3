"""One module per `routerlab` command; each exposes `register(app: typer.Typer) -> None`."""
