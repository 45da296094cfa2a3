"""Every name a user types (dtype, profile, path, policy, calibration, arrival) is read the same
way and refused with one line listing the names that exist, as the error its module raises."""

from __future__ import annotations

import pytest

from routerlab.core import DeviceError, DType, DTypeError, Path, Profile, RouterLabError
from routerlab.core.base.errors import QuantizationError
from routerlab.core.base.policies import Policy, UnknownPolicyError
from routerlab.core.base.request import Arrival
from routerlab.core.quant import Calibration


@pytest.mark.parametrize(("choice", "word", "member"), [
    (DType, " F32 ", DType.F32), (Profile, "CubeCL", Profile.CUBECL), (Path, "bytes", Path.BYTES),
    (Policy, "Native", Policy.NATIVE), (Calibration, "absmean", Calibration.ABSMEAN),
    (Arrival, "TARGET-FIRST", Arrival.TARGET_FIRST),
])
def test_names_parse_in_any_case_and_print_back(choice, word, member) -> None:
    assert choice.parse(word) is member
    assert choice.parse(member) is member
    assert choice.parse(str(member)) is member


@pytest.mark.parametrize(("choice", "error", "noun"), [
    (DType, DTypeError, "dtype"), (Profile, RouterLabError, "backend profile"),
    (Path, DeviceError, "transfer path"), (Policy, UnknownPolicyError, "transfer policy"),
    (Calibration, QuantizationError, "calibration"), (Arrival, DeviceError, "arrival order"),
])
def test_an_unknown_name_lists_every_known_one(choice, error, noun) -> None:
    with pytest.raises(error) as raised:
        choice.parse("teleport")
    message = str(raised.value)
    assert message.startswith(f"unknown {noun} 'teleport'; expected one of: ")
    assert all(str(member) in message for member in choice)
    assert "\n" not in message
