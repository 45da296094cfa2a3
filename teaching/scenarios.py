"""The shipped scenarios as `routerlab simulate --list` shows them: each name that runs one, and
its title (read from the file's `title`)."""

from __future__ import annotations

import tomllib

from .. import shipped


def scenario_titles() -> dict[str, str]:
    """Every shipped scenario's name (sorted, as `simulate NAME` takes it) and title."""
    return {name: tomllib.loads(path.read_text(encoding="utf-8")).get("title", "")
            for name, path in shipped.scenario_names().items()}
