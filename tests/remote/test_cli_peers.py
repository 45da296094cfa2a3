"""`--peer` on simulate and validate: the shipped scenarios, served, print what they print
in-process (but for the served captions and the scaled Iroh wait)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from routerlab.cli.app import app, main
from routerlab.core.scenario import load_scenario, parse_scenario

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
SERVED = re.compile(r"; served by ws://\S+")
IROH_WAIT = re.compile(r"300 s over Iroh \(simulated clock: t = \d+ s\)|0\.3 s over Iroh \(Burn "
                       r"waits 300 s; served peers scale it down 1000x for teaching\)")


@pytest.mark.parametrize("name", ["cross-peer-bytes", "quantized-bytes"])
def test_simulate_served_prints_what_in_process_prints(peers: dict[str, str], name: str) -> None:
    file = str(SCENARIOS / f"{name}.toml")
    served = CliRunner().invoke(app, ["simulate", file, "--json", "--peer",
                                      f"peer2={peers['peer2']}"])
    alone = CliRunner().invoke(app, ["simulate", file, "--json"])
    assert served.exit_code == alone.exit_code == 0, served.output
    got, expected = json.loads(served.output), json.loads(alone.output)
    for step in got["steps"]:
        for view in step["registries"].values():
            view["caption"] = SERVED.sub("", view["caption"])
        step.pop("events")
    for step in expected["steps"]:
        step.pop("events")
    assert got == expected


def test_validate_rehearses_on_the_served_peer(peers: dict[str, str]) -> None:
    result = CliRunner().invoke(app, ["validate", str(SCENARIOS / "quantized-legacy.toml"),
                                      "--peer", f"peer2={peers['peer2']}", "--json"])
    assert json.loads(result.output)["ok"] is True


def test_a_scenario_names_its_peers(peers: dict[str, str]) -> None:
    text = (SCENARIOS / "cross-peer-bytes.toml").read_text()
    table = f'\n[peers]\npeer2 = "{peers["peer2"]}"\n\n[[steps]]'
    scenario = parse_scenario(text.replace("\n[[steps]]", table, 1))
    assert scenario.peers == {"peer2": peers["peer2"]}
    base = load_scenario(SCENARIOS / "cross-peer-bytes.toml")
    assert base.overridden(peers={"peer2": "ws://peer2.example:3001"}).peers == {
        "peer2": "ws://peer2.example:3001"}


@pytest.mark.parametrize(("peer", "says", "code"), [
    ("peer2", "--peer takes NAME=ws://HOST:PORT", 2),  # a malformed value: a usage error
    ("peer2=tcp://x:1", "a peer address is ws://HOST:PORT", 2),
    ("local=ws://127.0.0.1:9", "in-process peer", 2),
    ("peer2=ws://127.0.0.1:1", "cannot reach ws://127.0.0.1:1", 1),  # refused: nobody there
])
def test_a_bad_peer_is_one_line(peer: str, says: str, code: int,
                                monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "argv", ["routerlab", "simulate",
                                      str(SCENARIOS / "cross-peer-bytes.toml"), "--peer", peer])
    with pytest.raises(SystemExit) as exit_:
        main()
    err = capsys.readouterr().err
    assert exit_.value.code == code and says in err and err.count("\n") == 1


def test_a_bad_peers_table_is_refused_with_its_field() -> None:
    text = (SCENARIOS / "cross-peer-bytes.toml").read_text()
    with pytest.raises(Exception, match="field 'peers'"):
        parse_scenario(text.replace("\n[[steps]]", '\npeers = { peer2 = 3 }\n\n[[steps]]', 1))


@pytest.mark.parametrize(("source", "target", "policy"), [
    ("peer1/cpu:0", "peer2/cpu:0", "native"), ("cpu:0", "peer2/cpu:1", "requantize"),
    ("peer1/cpu:0", "peer1/cpu:1", "dequantize"), ("peer1/cpu:0", "peer2/cpu:0", "legacy")])
def test_transfer_measures_served_hops_as_in_process(peers: dict[str, str], source: str,
                                                     target: str, policy: str) -> None:
    """The counters of a served device are its peer backend's (`Stats`): a served hop copies and
    changes what the same hop does in-process."""
    argv = ["transfer", "--random", "4,64", "--seed", "3", "--scheme", "q8s", "--from", source,
            "--to", target, "--policy", policy, "--hops", "2", "--json"]
    served = CliRunner().invoke(app, [*argv, "--peer", f"peer1={peers['peer1']}", "--peer",
                                      f"peer2={peers['peer2']}"])
    alone = CliRunner().invoke(app, argv)
    assert served.exit_code == alone.exit_code, served.output
    got, expected = json.loads(served.output), json.loads(alone.output)
    for doc in (got, expected):  # only the times may differ, and the Iroh wait is really waited
        doc.pop("seconds", None)
        for hop in doc["hops"]:
            hop.pop("seconds")
        if doc.get("failure"):
            doc["failure"]["message"] = IROH_WAIT.sub("<wait>", doc["failure"]["message"])
    assert got == expected
    if policy == "native":
        assert all(hop["bit_exact"] and hop["bytes_moved"] > 0 for hop in got["hops"])
