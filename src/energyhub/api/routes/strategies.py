"""Strategies: a user's site (tariff, prices, readings), a charger's charging goal and its
plan. Bodies are parsed by the domain, which words every error as a 400 with
`details.errors`: the routes receive the decoded JSON as is."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path
from pydantic import SkipValidation
from starlette.responses import Response

from energyhub.api.deps import Caller, Context, Services
from energyhub.api.envelope import success_response
from energyhub.api.goal_schema import ChargingGoal
from energyhub.api.routes.devices import DeviceId
from energyhub.api.routes.docs import errors
from energyhub.api.schemas import Envelope
from energyhub.api.strategy_schemas import (
    ChargingPlan,
    GoalBody,
    PricesBody,
    ReadingsBody,
    SiteBody,
    SiteRecord,
)

router = APIRouter()

UserId = Annotated[str, Path(min_length=1, max_length=200)]
SiteJson = Annotated[SiteBody, SkipValidation]
PricesJson = Annotated[PricesBody, SkipValidation]
ReadingsJson = Annotated[ReadingsBody, SkipValidation]
GoalJson = Annotated[GoalBody, SkipValidation]
SITE = "sites"
CHARGERS = "ev-chargers"


def _answer(
    data: Any, services: Services, context: Context, caller: Caller, status: int = 200
) -> Response:
    return success_response(data, context, caller.environment.value, services.clock, status)


@router.get(
    "/users/{userId}/site",
    response_model=Envelope[SiteRecord],
    tags=[SITE],
    operation_id="getSite",
    summary="Read a user's site",
)
async def get_site(
    services: Services, context: Context, caller: Caller, userId: UserId
) -> Response:
    """The user's site; a user with no site yet reads the timezone of their first device
    and nulls. 404 USER_NOT_FOUND for an unknown user."""
    record = await services.strategies.get_site(caller, userId)
    return _answer(record, services, context, caller)


@router.put(
    "/users/{userId}/site",
    response_model=Envelope[SiteRecord],
    tags=[SITE],
    operation_id="updateSite",
    summary="Set a user's site: timezone, grid limit, tariff",
)
async def put_site(
    body: SiteJson, services: Services, context: Context, caller: Caller, userId: UserId
) -> Response:
    """Set the site's timezone, grid import limit and tariff: only the fields sent change,
    null clears one. A bad tariff is a 400 listing each problem in details.errors."""
    record = await services.strategies.put_site(caller, userId, body)
    return _answer(record, services, context, caller)


@router.post(
    "/users/{userId}/site/prices",
    response_model=Envelope[SiteRecord],
    responses=errors(409),
    tags=[SITE],
    operation_id="addSitePrices",
    summary="Add dynamic price periods to a site's tariff",
)
async def add_prices(
    body: PricesJson, services: Services, context: Context, caller: Caller, userId: UserId
) -> Response:
    """Add dynamic price periods to the site's tariff: a period replaces a stored one of
    the same start. 409 TARIFF_NOT_DYNAMIC when the site has no dynamic tariff for it."""
    record = await services.strategies.add_prices(caller, userId, body)
    return _answer(record, services, context, caller)


@router.post(
    "/users/{userId}/site/readings",
    status_code=202,
    response_model=Envelope[SiteRecord],
    tags=[SITE],
    operation_id="addSiteReadings",
    summary="Post the site meter's grid power readings",
)
async def add_readings(
    body: ReadingsJson, services: Services, context: Context, caller: Caller, userId: UserId
) -> Response:
    """Post the site meter's grid power (positive: importing; negative: exporting); the
    newest reading becomes the site's lastReading."""
    record = await services.strategies.add_readings(caller, userId, body)
    return _answer(record, services, context, caller, 202)


@router.put(
    "/ev-charger/{deviceId}/goal",
    response_model=Envelope[ChargingGoal],
    responses=errors(422),
    tags=[CHARGERS],
    operation_id="setChargingGoal",
    summary="Set an EV charger's charging goal",
)
async def put_goal(
    body: GoalJson, services: Services, context: Context, caller: Caller, deviceId: DeviceId
) -> Response:
    """Set the charger's goal: ready by a wall-clock time at the site with exactly one of
    energy (kwh) or target (percent; 422 UNSUPPORTED_PARAMETER on chargers that do not
    declare it). It replaces any goal."""
    goal = await services.strategies.put_goal(caller, deviceId, body)
    return _answer(goal, services, context, caller)


@router.delete(
    "/ev-charger/{deviceId}/goal",
    response_model=Envelope[ChargingGoal | None],
    tags=[CHARGERS],
    operation_id="deleteChargingGoal",
    summary="Remove an EV charger's charging goal",
)
async def delete_goal(
    services: Services, context: Context, caller: Caller, deviceId: DeviceId
) -> Response:
    """Remove the charger's goal; answers the goal removed (null when there was none)."""
    goal = await services.strategies.delete_goal(caller, deviceId)
    return _answer(goal, services, context, caller)


@router.get(
    "/ev-charger/{deviceId}/plan",
    response_model=Envelope[ChargingPlan],
    tags=[CHARGERS],
    operation_id="getChargingPlan",
    summary="Read an EV charger's charging plan",
)
async def get_plan(
    services: Services, context: Context, caller: Caller, deviceId: DeviceId
) -> Response:
    """The charger's plan from now on (from the site's tariff, the goal, the charger's
    limits and the site's grid import limit), with one sentence saying why. While a
    strategy runs it is the plan the charger is steered by, and `steering` says how the
    charger took it."""
    plan = await services.strategies.plan(caller, deviceId)
    return _answer(plan, services, context, caller)
