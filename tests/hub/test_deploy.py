"""deploy/: what a teacher uses for a real class, parsed and checked (nothing here can build an
image or reach a cluster). The keys are checked against each project's published schema:
TLJH's `tljh/config_schema.py` (jupyterhub/the-littlest-jupyterhub), the Zero to JupyterHub
chart's `jupyterhub/values.schema.yaml` (jupyterhub/zero-to-jupyterhub-k8s), written out here
for the keys these files use."""

from __future__ import annotations

import ast
import json
import shlex
from pathlib import Path
from typing import Any

import yaml

from routerlab.exercises.teacher.hub import OPEN_URL

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
ROOT = DEPLOY.parent
LAUNCHER = ["-m", "routerlab.cli.hub_user"]

TLJH_KEYS: dict[str, Any] = {
    "users": {"admin": list, "allowed": list, "banned": list, "extra_user_groups": dict},
    "limits": {"memory": (str, type(None)), "cpu": (int, float, type(None))},
    "user_environment": {"default_app": ("jupyterlab", "classic")},
    "services": {"cull": {"enabled": bool, "timeout": int, "every": int, "concurrency": int,
                          "users": bool, "max_age": int, "remove_named_servers": bool}},
}
Z2JH_KEYS: dict[str, Any] = {
    "hub": {"config": dict},
    "singleuser": {"image": {"name": str, "tag": str}, "cmd": (list, str), "defaultUrl": str,
                   "extraEnv": dict, "storage": {"type": ("dynamic", "static", "none"),
                                                 "capacity": str},
                   "memory": {"limit": (str, int), "guarantee": (str, int)},
                   "cpu": {"limit": (int, float), "guarantee": (int, float)}},
    "cull": {"enabled": bool, "timeout": int, "every": int},
}


def conforms(data: Any, shape: Any, where: str = "") -> list[str]:
    """Where `data` leaves `shape`: unknown keys, wrong types, values outside an enumeration."""
    if isinstance(shape, dict):
        if not isinstance(data, dict):
            return [f"{where}: not a mapping"]
        problems = [f"{where}.{k}: unknown key" for k in data if k not in shape]
        return problems + [p for k, v in data.items() if k in shape
                           for p in conforms(v, shape[k], f"{where}.{k}")]
    if isinstance(shape, tuple) and all(isinstance(s, str) for s in shape):
        return [] if data in shape else [f"{where}: {data!r} not one of {shape}"]
    return [] if isinstance(data, shape) and not (isinstance(data, bool) and shape in (
        int, (int, float))) else [f"{where}: {data!r} is not {shape}"]


def test_the_shape_check_catches_a_misspelt_key() -> None:
    assert conforms({"singleuser": {"defaultURL": "/lab"}}, Z2JH_KEYS) == \
        [".singleuser.defaultURL: unknown key"]
    assert conforms({"cull": {"timeout": "1h"}}, Z2JH_KEYS) == [".cull.timeout: '1h' is not "
                                                               "<class 'int'>"]


def test_tljh_config_and_its_hub_settings() -> None:
    config = yaml.safe_load((DEPLOY / "tljh" / "config.yaml").read_text())
    assert conforms(config, TLJH_KEYS) == []
    assert config["users"]["admin"] and config["user_environment"]["default_app"] == "jupyterlab"
    source = (DEPLOY / "tljh" / "jupyterhub_config.d" / "routerlab.py").read_text()
    settings = {}
    for node in ast.parse(source).body:  # only `c.Spawner.X = <literal>` lines, read as data
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Attribute):
            target = ast.unparse(node.targets[0])
            if target.startswith("c."):
                settings[target] = ast.literal_eval(node.value)
    assert settings["c.Spawner.cmd"][1:] == LAUNCHER
    assert settings["c.Spawner.cmd"][0].startswith("/opt/tljh/user/bin/")
    assert settings["c.Spawner.default_url"] == OPEN_URL
    assert "ROUTERLAB_COURSE" in settings["c.Spawner.environment"]


def test_z2jh_values_use_the_image_and_the_launcher() -> None:
    values = yaml.safe_load((DEPLOY / "z2jh" / "values.yaml").read_text())
    assert conforms(values, Z2JH_KEYS) == []
    single = values["singleuser"]
    assert single["cmd"][1:] == LAUNCHER and single["defaultUrl"] == OPEN_URL
    assert single["storage"]["type"] == "dynamic", "a home that outlives the server"
    assert values["hub"]["config"]["Authenticator"]["admin_users"]
    image_env = dict(i.split("=", 1) for i in dockerfile("ENV"))
    assert single["extraEnv"]["ROUTERLAB_COURSE"] == image_env["ROUTERLAB_COURSE"]
    assert json.loads(dockerfile("CMD")[0]) == single["cmd"]


def dockerfile(instruction: str) -> list[str]:
    """The arguments of every `instruction` line of deploy/image/Dockerfile (continuations
    joined)."""
    text = (DEPLOY / "image" / "Dockerfile").read_text().replace("\\\n", " ")
    return [line.split(None, 1)[1].strip() for line in text.splitlines()
            if line.split(None, 1)[:1] == [instruction]]


def test_the_single_user_image() -> None:
    base = dockerfile("FROM")
    assert len(base) == 1 and ":" in base[0] and not base[0].endswith(":latest"), "a pinned base"
    run = " ".join(dockerfile("RUN"))
    assert "apt-get install" in run and "bubblewrap" in run.split("apt-get install")[1]
    assert "pip install" in run and "-e '/opt/routerlab[notebooks]'" in run
    assert dockerfile("USER")[-1] != "root", "students do not run as root"
    for source, *_ in (shlex.split(a.split(None, 1)[1] if a.startswith("--") else a)
                       for a in dockerfile("COPY")):
        assert source == "." or (ROOT / source).exists() or source == "deploy/image/course", \
            source
    assert "routerlab teacher release deploy/image/course" in (DEPLOY / "image" / "Dockerfile"
                                                             ).read_text()
    ignored = (DEPLOY / "image" / "Dockerfile.dockerignore").read_text().split()
    assert ".venv" in ignored and ".git" in ignored
