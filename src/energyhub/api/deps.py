"""What routes receive: the services, and the caller of this request."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, get_args, get_origin

from fastapi import Depends, Request, Security
from fastapi.security import APIKeyHeader

from energyhub.api.context import RequestContext, context_of
from energyhub.api.read_cache import DeviceReadCache
from energyhub.config import Settings
from energyhub.domain.accounts import Principal
from energyhub.domain.clock import Clock
from energyhub.domain.errors import InvalidRequest, Unauthorized
from energyhub.services.accounts import AccountService
from energyhub.services.actions import ActionService
from energyhub.services.devices import DeviceService
from energyhub.services.linking import LinkingService
from energyhub.services.sandbox import SandboxService
from energyhub.services.schedules import ScheduleService
from energyhub.services.sessions import SessionService
from energyhub.services.strategies import StrategyService
from energyhub.services.webhooks import WebhookService


@dataclass(frozen=True, slots=True)
class ApiServices:
    settings: Settings
    clock: Clock
    accounts: AccountService
    devices: DeviceService
    sandbox: SandboxService
    actions: ActionService
    read_cache: DeviceReadCache
    webhooks: WebhookService
    sessions: SessionService
    schedules: ScheduleService
    linking: LinkingService
    strategies: StrategyService


# Dependencies are `async def`: FastAPI runs plain `def` ones in a thread pool (measured:
# ~16 % of a push's time went to thread hand-offs).
# Documents the key in OpenAPI; the gateway has checked it before any route runs.
api_key_header = APIKeyHeader(
    name="x-api-key", scheme_name="ApiKey", auto_error=False, description="sk_test_ / sk_live_"
)


async def get_services(request: Request) -> ApiServices:
    services: ApiServices = request.app.state.services
    return services


async def get_context(request: Request) -> RequestContext:
    return context_of(request.scope)


async def get_principal(
    request: Request, _key: Annotated[str | None, Security(api_key_header)] = None
) -> Principal:
    principal = context_of(request.scope).principal
    if principal is None:
        raise Unauthorized()
    return principal


Services = Annotated[ApiServices, Depends(get_services)]
Context = Annotated[RequestContext, Depends(get_context)]
Caller = Annotated[Principal, Depends(get_principal)]


_known_queries: dict[int, frozenset[str]] = {}


async def reject_unknown_query(request: Request) -> None:
    """A query parameter the route does not declare is a client's typo: refuse it (400)
    instead of silently ignoring it."""
    if not request.query_params:
        return
    route = request.scope.get("route")
    dependant = getattr(route, "dependant", None)
    if dependant is None:
        return
    known = _known_queries.get(id(route))
    if known is None:
        known = _known_queries[id(route)] = frozenset(_query_names(dependant))
    repeatable = _repeatable_queries.get(id(route))
    if repeatable is None:
        repeatable = _repeatable_queries[id(route)] = frozenset(_query_names(dependant, True))
    unknown = [name for name in request.query_params if name not in known]
    if unknown:
        raise InvalidRequest(
            f"Unknown query parameter(s): {', '.join(sorted(set(unknown)))}.",
            errors=[
                {"path": f"query.{name}", "message": "unknown query parameter"}
                for name in dict.fromkeys(unknown)
            ],
        )
    repeated = [
        name
        for name in dict.fromkeys(request.query_params)
        if name not in repeatable and len(request.query_params.getlist(name)) > 1
    ]
    if repeated:
        raise InvalidRequest(
            f"Query parameter(s) given more than once: {', '.join(repeated)}; send each once.",
            errors=[
                {"path": f"query.{name}", "message": "given more than once"} for name in repeated
            ],
        )


_repeatable_queries: dict[int, frozenset[str]] = {}


def _query_names(dependant: Any, only_repeatable: bool = False) -> list[str]:
    """The query parameters a route declares (or only those that take a list)."""
    names = [
        param.alias
        for param in dependant.query_params
        if not only_repeatable or _takes_list(param.field_info.annotation)
    ]
    for sub in dependant.dependencies:
        names.extend(_query_names(sub, only_repeatable))
    return names


def _takes_list(annotation: Any) -> bool:
    if get_origin(annotation) in (list, tuple, set, frozenset):
        return True
    return any(_takes_list(arg) for arg in get_args(annotation))
