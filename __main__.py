"""`python -m routerlab` runs the same Typer app as the `routerlab` console script."""

from .cli.app import main

if __name__ == "__main__":
    main()
