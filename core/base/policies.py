"""Transfer policies: how a quantized tensor crosses devices (docs/transfers.md).

Burn 2c06be3 cannot move a `QFloat` tensor through the router (docs/burn.md, 7); docs/transfers.md
weighs three fixes. RouterLab implements all of them and lets the learner pick one per transfer,
per scenario or per CLI call. The names are a contract shared with the CLI, the scenarios, the
notebooks and the exercises:

| policy | what happens | reference |
|---|---|---|
| `native` | values, scales, global and scheme move bit-identical | Fix A |
| `dequantize` | dequantize, move floats, quantize with the carried scales | Fix B1 |
| `requantize` | dequantize, move floats, recalibrate on the target (drifts) | Fix B2 |
| `reject` | refuse on the client before anything is submitted | Fix C |
| `legacy` | replay Burn 2c06be3: the panic of the layer that fires | docs/burn.md section 7 |

Policies only change quantized transfers; plain tensors move the same way under all of them,
except `legacy`, which also replays Burn's unsigned-int walls.
"""

from __future__ import annotations

from .choices import Choice
from .errors import RouterLabError


class UnknownPolicyError(RouterLabError):
    """A policy name that is not one of the five."""


class Policy(Choice, noun="transfer policy", error=UnknownPolicyError):
    """One way of moving a quantized tensor. The value is the contract string."""

    NATIVE = "native"
    DEQUANTIZE = "dequantize"
    REQUANTIZE = "requantize"
    REJECT = "reject"
    LEGACY = "legacy"

    @property
    def moves(self) -> bool:
        """Whether a quantized tensor arrives on the target under this policy."""
        return self in (Policy.NATIVE, Policy.DEQUANTIZE, Policy.REQUANTIZE)

    @property
    def summary(self) -> str:
        """One line: what the policy does, and which fix of docs/transfers.md it is."""
        return _SUMMARY[self]


_SUMMARY = {
    Policy.NATIVE: "move values, scales, global and scheme bit-identical (Fix A)",
    Policy.DEQUANTIZE: "dequantize, move floats, requantize with the carried scales (Fix B1)",
    Policy.REQUANTIZE: "dequantize, move floats, recalibrate on the target (Fix B2)",
    Policy.REJECT: "refuse on the client before anything is submitted (Fix C)",
    Policy.LEGACY: "replay Burn 2c06be3: the panic of the layer that fires first",
}

DEFAULT_POLICY = Policy.NATIVE
POLICY_NAMES: tuple[str, ...] = tuple(p.value for p in Policy)


def spelled_policy(policy: Policy | str | None, legacy: bool | None) -> Policy | None:
    """The policy given by name, or by its older spelling: `legacy=True` is `legacy`,
    `legacy=False` is `native`. Both given and disagreeing is refused rather than ranked; the
    Runtime, a transfer, a scenario and a step all read the two spellings here."""
    chosen = None if policy is None else Policy.parse(policy)
    if legacy is None:
        return chosen
    spelled = Policy.LEGACY if legacy else Policy.NATIVE
    if chosen is not None and chosen is not spelled:
        raise RouterLabError(f"legacy = {str(legacy).lower()} contradicts policy = "
                             f"{chosen.value!r}; legacy is a policy, give only policy")
    return spelled
