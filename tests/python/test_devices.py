"""clkit.devices() and choosing a device by selector."""
import pytest

import clkit


def test_devices_as_the_command_lists_them(cli):
    devices = clkit.devices()
    assert devices[0].id == "ref" and devices[0].kind == "host"
    assert len({device.id for device in devices}) == len(devices)
    for device in devices:
        assert device.backend in ("ref", "opencl", "cuda")
        assert device.kind in ("host", "cpu", "gpu", "accelerator", "other")
        assert device.name
    # The command's run on a device names it by the same id.
    for device in devices:
        if device.backend != "cuda":
            result = cli("run", "selfcheck", "--device", device.id)
            assert result["device"] == device.id


def test_a_device_object_and_its_id_choose_alike():
    ref = clkit.devices()[0]
    by_object = clkit.pso.minimize("sphere", dim=2, particles=8, iters=3,
                                   device=ref, history=False)
    by_id = clkit.pso.minimize("sphere", dim=2, particles=8, iters=3,
                               device="ref", history=False)
    assert by_object.device == by_id.device == "ref"
    assert by_object.fun == by_id.fun


def test_unknown_selector_is_refused_with_the_device_list():
    with pytest.raises(clkit.ArgumentError, match="matches no device") as error:
        clkit.pso.minimize("sphere", device="no-such-device")
    assert isinstance(error.value, ValueError)
    assert error.value.status == "CK_ERROR_NOT_FOUND"
    assert "ref" in str(error.value)


def test_a_selector_of_several_devices_is_refused():
    if len(clkit.devices()) < 2:
        pytest.skip("one device only")
    with pytest.raises(ValueError, match="names .* devices"):
        clkit.pso.minimize("sphere", device="all")


def test_clkit_device_chooses_the_default(monkeypatch):
    monkeypatch.setenv("CLKIT_DEVICE", "ref")
    result = clkit.pso.minimize("sphere", dim=2, particles=8, iters=2,
                                history=False)
    assert result.device == "ref"
