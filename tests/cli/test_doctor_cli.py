"""`routerlab doctor` names the extra that brings a missing JupyterLab, as typed: a rich console
must not read `[notebooks]` as a style tag and print `pip install 'routerlab'`."""

from __future__ import annotations

import importlib.util

import pytest
from typer.testing import CliRunner

from routerlab.cli.app import app


@pytest.mark.parametrize("plain", [True, False])
def test_missing_jupyterlab_names_the_notebooks_extra(monkeypatch: pytest.MonkeyPatch,
                                                      plain: bool) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "jupyterlab" else real(name, *a))
    result = CliRunner().invoke(app, ["doctor", *(["--plain"] if plain else [])],
                                env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "JupyterLab is missing: pip install 'routerlab[notebooks]'" in result.stdout
    assert "not installed: pip install 'routerlab[notebooks]'" in result.stdout
    assert "pip install 'routerlab'" not in result.stdout
