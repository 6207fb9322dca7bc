"""SunSpec Modbus TCP grid meters (models 201-204: single-phase, split-phase, three-phase wye
and delta): found in the model chain as batteries' models are, read for their total real
power.

Sign convention. A SunSpec meter at the grid connection counts `W` positive while power
flows from the grid into the site (importing) and negative while the site feeds the grid
(exporting). That is the sign of a site reading's `gridPower`, so the value passes through
unchanged: kW = W * 10^W_SF / 1000."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager

from energyhub.domain.errors import DeviceRejected
from energyhub.domain.readings import DriverError
from energyhub.drivers.sunspec.client import (
    ModbusLink,
    bounded_link,
    find_base,
    read_block,
    walk_models,
)
from energyhub.drivers.sunspec.registers import METER_MODEL_IDS, MODELS, ModelBlock
from energyhub.ports.site_meters import MeterAddress, MeterDiscovery
from energyhub.ports.sunspec import ModelLocation

CALL_TIMEOUT_S = 5.0
METER = "meter"


class SunspecMeterReader:
    """The `MeterProbe` over SunSpec: one connection per call, bounded by a timeout."""

    def __init__(self, call_timeout_s: float = CALL_TIMEOUT_S) -> None:
        self._timeout_s = call_timeout_s

    async def discover_meter(self, host: str, port: int, unit_id: int) -> MeterDiscovery:
        where = _where(host, port, unit_id)
        async with self._session(host, port, unit_id) as link:
            base = await find_base(link)
            models = await walk_models(link, base)
            location = _meter_model(models)
            if location is None:
                found = ", ".join(str(m.id) for m in models) or "none"
                raise DriverError(
                    DeviceRejected.code,
                    f"{where} is not a grid meter: no SunSpec meter model (201, 202, 203 or "
                    f"204) among the models found ({found}). A meter behind an inverter often "
                    "answers on a unit id of its own: check the unit id.",
                    retryable=False,
                )
            block = await read_block(link, location, METER)
            common = next((m for m in models if m.id == 1 and m.length >= MODELS[1].length), None)
            info = None if common is None else await read_block(link, common, METER)
        power = _grid_power(block, where)
        return MeterDiscovery(
            address=MeterAddress(host, port, unit_id, location),
            manufacturer="" if info is None else info.text("Mn"),
            model="" if info is None else info.text("Md"),
            serial="" if info is None else info.text("SN"),
            grid_power_kw=power,
        )

    async def grid_power(self, address: MeterAddress) -> float:
        async with self._session(address.host, address.port, address.unit_id) as link:
            block = await read_block(link, address.model, METER)
        return _grid_power(block, _where(address.host, address.port, address.unit_id))

    def _session(
        self, host: str, port: int, unit_id: int
    ) -> AbstractAsyncContextManager[ModbusLink]:
        return bounded_link(host, port, unit_id, self._timeout_s, _where(host, port, unit_id))


def _meter_model(models: tuple[ModelLocation, ...]) -> ModelLocation | None:
    """The first meter model long enough to hold the total real power."""
    return next(
        (m for m in models if m.id in METER_MODEL_IDS and m.length >= MODELS[m.id].length),
        None,
    )


def _grid_power(block: ModelBlock, where: str) -> float:
    """kW, positive while importing (the meter's own sign, see the module's docstring)."""
    watts = block.value("W")
    if watts is None:
        raise DriverError(
            DeviceRejected.code,
            f"{where} does not report its total real power (W and W_SF of model "
            f"{block.model.id} read as not implemented).",
            retryable=False,
        )
    return round(watts / 1000.0, 4) + 0.0  # + 0.0: no -0.0


def _where(host: str, port: int, unit_id: int) -> str:
    return f"SunSpec meter {host}:{port} unit {unit_id}"
