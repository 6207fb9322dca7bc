"""A strategy's schedule at a charger, mixed into `Station`: one absolute profile above the
commands' own (`profiles.py`), replaced by each steer and cleared when the strategy ends."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from energyhub.domain.errors import DeviceRejected
from energyhub.domain.goals import STRATEGIES
from energyhub.domain.planning.steering import ChargingSchedule
from energyhub.domain.readings import DriverError
from energyhub.drivers.ocpp.mapping import Declaration
from energyhub.drivers.ocpp.profiles import phases_of, profile_schedule, rate_unit
from energyhub.drivers.ocpp.station_events import CallNotSupported, ChargerLink, StationEvents
from energyhub.ports.ocpp import ChargePointRecord

STRATEGY_SENT = "strategySchedule"  # snapshot key: the strategy's schedule last sent


class StrategyProfiles:
    record: ChargePointRecord
    _events: StationEvents[Any]

    if TYPE_CHECKING:  # the `Station` this is mixed into

        @property
        def declaration(self) -> Declaration: ...
        def _link(self) -> ChargerLink: ...
        def no_smart_charging(self) -> None: ...

    async def steer(self, schedule: ChargingSchedule) -> None:
        """The schedule as one absolute profile above the command's pause: for the running
        transaction, else the default one (so it holds when the car starts). Each steer
        replaces the last (same profile id)."""
        link = self._link()
        declaration = self.declaration
        if not declaration.smart_charging:
            raise DriverError(
                DeviceRejected.code,
                "The charger takes no charging schedules (it has no smart charging): push "
                "`charge` or `idle` instead of a strategy.",
                retryable=False,
            )
        profile = profile_schedule(
            schedule,
            rate_unit(declaration),
            phases_of(self.record.snapshot.get("telemetry", {})),
            declaration.max_periods,
        )
        tx = self.record.transaction
        self.record.snapshot[STRATEGY_SENT] = schedule.to_json()
        self._events.changed(self, device=False)
        try:
            if tx is None:
                await link.set_schedule(profile, "strategy", None)
            else:
                await link.set_schedule(profile, "strategy_tx", tx.transaction_id)
        except DriverError as error:
            if isinstance(error, CallNotSupported):
                self.no_smart_charging()
            if error.code != DeviceRejected.code:
                raise
            answer = error.details.get("ocppStatus") or error.details.get("ocppError")
            raise DriverError(
                DeviceRejected.code,
                f"The charger refused the charging schedule (SetChargingProfile: {answer}); "
                "it stays paused until a schedule is accepted.",
                retryable=False,
                details=error.details,
            ) from None

    def last_schedule(self) -> ChargingSchedule | None:
        sent = self.record.snapshot.get(STRATEGY_SENT)
        try:
            return ChargingSchedule.from_json(sent) if isinstance(sent, dict) else None
        except (KeyError, TypeError, ValueError):
            return None

    async def release(self) -> None:
        """The strategy ended: its profiles go, the command's own profile applies."""
        await self._clear_strategy(self._link(), always=True)

    async def _clear_strategy(self, link: ChargerLink, *, always: bool = False) -> None:
        snapshot = self.record.snapshot
        was_strategy = self.record.control.get("command") in STRATEGIES
        if not (always or was_strategy or snapshot.get(STRATEGY_SENT)):
            return
        await link.clear_limit("strategy_tx")
        await link.clear_limit("strategy")
        if snapshot.pop(STRATEGY_SENT, None) is not None:
            self._events.changed(self, device=False)
