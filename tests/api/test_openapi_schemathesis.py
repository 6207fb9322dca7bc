"""Every documented operation fuzzed by schemathesis over real HTTP, on SQLite and PostgreSQL,
as `schemathesis run` does it: examples, coverage (boundary and invalid values), fuzzing, then
stateful sequences over the links it infers (an id a response returns, used in the next
call), with every check: no 500, responses, statuses and headers as documented, schema-valid
data accepted and invalid data refused, auth not ignored, a deleted thing stays gone and a
created one can be read.

Path ids, commands and times are drawn from an account seeded with one of each thing a path
can name (`tests/api/fuzz_target.py`), mixed with random ones, so cases reach the rules behind
the 404. Each run draws its seed at random and prints it; `ENERGYHUB_TEST_SEED=<seed>`
replays a run. The figures (cases, operations that answered 2xx and 422, server errors) are
printed after each database's run."""

from __future__ import annotations

import os
import random
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
import schemathesis.engine
from hypothesis import strategies as st
from schemathesis.config import SchemathesisConfig
from schemathesis.engine import events

from energyhub.domain.clock import FakeClock
from tests.api.fuzz_config import (
    BODY_VALUES,
    KNOWN_VALUE,
    PUSH,
    TIMEZONE_FORMAT,
    TIMEZONE_NAMES,
    bind,
    dictionaries,
    expected_refusal,
    operations,
    sample_long_enums,
)
from tests.api.fuzz_target import OWNER, Seeded, Seeder
from tests.web.support import ThreadedService

SEED = int(os.environ.get("ENERGYHUB_TEST_SEED") or random.SystemRandom().getrandbits(32))
MAX_EXAMPLES = 25  # fuzzing cases per operation and database (examples and coverage come on top)
STATEFUL_EXAMPLES = 30  # linked sequences per database, up to STATEFUL_STEPS calls each
STATEFUL_STEPS = 6
MIN_REACHED = 0.8  # share of the operations that must answer 2xx at least once: the ids work
# a timezone is a string of format iana-timezone in the document: draw names that exist
schemathesis.openapi.format(TIMEZONE_FORMAT, st.sampled_from(TIMEZONE_NAMES))


@dataclass
class Tally:
    """What the service answered, per operation."""

    statuses: dict[str, Counter[int]] = field(default_factory=lambda: defaultdict(Counter))
    phases: Counter[str] = field(default_factory=Counter)  # cases by phase
    crashes: list[str] = field(default_factory=list)  # a 500, or a 5xx not documented

    @property
    def cases(self) -> int:
        return sum(sum(counts.values()) for counts in self.statuses.values())

    def reached(self, low: int, high: int) -> list[str]:
        return sorted(
            op for op, seen in self.statuses.items() if any(low <= s <= high for s in seen)
        )

    def figures(self, operations: int) -> str:
        missed = sorted(set(self.statuses) - set(self.reached(200, 299)))
        phases = ", ".join(f"{n} {phase}" for phase, n in self.phases.items())
        return (
            f"{self.cases} cases ({phases}); {len(self.reached(200, 299))}/{operations} operations "
            f"answered 2xx (not: {', '.join(missed) or 'none'}), "
            f"{len(self.reached(422, 422))} answered 422; {len(self.crashes)} server errors"
        )


@dataclass
class FuzzTarget:
    service: ThreadedService
    seeded: Seeded
    documented: dict[str, set[str]] = field(default_factory=dict)  # statuses by operation
    tally: Tally = field(default_factory=Tally)

    def answered(self, case: Any, response: Any) -> None:
        """Counts the answer; after an accepted push, the sandbox completes it (as the
        dispatcher would a moment later), so the device takes the next one."""
        label, status = case.operation.label, response.status_code
        self.tally.statuses[label][status] += 1
        self.tally.phases[case.meta.phase.name.value if case.meta else "other"] += 1
        if status == 500 or (status > 500 and str(status) not in self.documented[label]):
            self.tally.crashes.append(f"{status}: {case.as_curl_command()}")
        if label in PUSH and 200 <= status < 300:
            self.service.call(self._complete_pushes())

    async def _complete_pushes(self) -> None:
        container = self.service.container
        assert container is not None
        self.service.clock.advance(container.settings.sandbox_completion_delay_s + 1)
        await container.dispatcher.run_due(OWNER)


@pytest.fixture
def fuzz_target(
    database_url: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[FuzzTarget]:
    capture = request.config.pluginmanager.getplugin("capturemanager")

    def say(line: str) -> None:  # in the log whatever the outcome, to replay the run
        with capture.global_and_fixture_disabled():
            print(line)

    clock = FakeClock(datetime.now(UTC).replace(microsecond=0))
    service = ThreadedService(
        tmp_path,
        clock,
        database_url=database_url,
        sandbox_link_event_delay_s=0,
        sandbox_push_event_delay_s=0,
    ).start()
    try:
        assert service.container is not None
        seeded = service.call(Seeder(service.container, clock, service.base).seed())
        target = FuzzTarget(service, seeded)
        say(f"\n{request.node.name}: schemathesis seed {SEED} (ENERGYHUB_TEST_SEED={SEED} replays)")
        yield target
        figures = target.tally.figures(len(target.documented))
        say(f"{request.node.name}: {figures} (seed {SEED})")
        assert not target.tally.crashes, "\n".join(target.tally.crashes)
        reached = len(target.tally.reached(200, 299))
        enough = MIN_REACHED * len(target.documented)
        assert reached >= enough, f"too few operations reached the service's rules: {figures}"
    finally:
        service.stop()


@pytest.fixture
def fuzzed_schema(fuzz_target: FuzzTarget) -> Any:
    base = fuzz_target.service.base
    document = httpx.get(f"{base}/openapi.json").json()
    fuzz_target.documented = {
        f"{method.upper()} {path}": set(operation["responses"])
        for path, methods in document["paths"].items()
        for method, operation in methods.items()
    }
    ids = dictionaries(fuzz_target.seeded.ids, fuzz_target.service.clock.now())
    config = {
        "seed": SEED,
        "base-url": base,
        "headers": {"x-api-key": fuzz_target.seeded.key},
        "suppress-health-check": ["all"],  # complex patterns filter many drawn values
        "generation": {"max-examples": MAX_EXAMPLES, "database": "none"},
        "phases": {
            "stateful": {
                "max-steps": STATEFUL_STEPS,
                "generation": {"max-examples": STATEFUL_EXAMPLES},
            }
        },
        "dictionaries": {name: {"values": values} for name, values in ids.items()},
        "parameters": {key: bind(name, KNOWN_VALUE) for key, name in BODY_VALUES.items()},
        "operations": operations(document),
    }
    return schemathesis.openapi.from_dict(
        sample_long_enums(document, SEED), config=SchemathesisConfig.from_dict(config)
    )


def test_every_operation_conforms(fuzz_target: FuzzTarget, fuzzed_schema: Any) -> None:
    @fuzzed_schema.hook
    def after_call(context: Any, case: Any, response: Any) -> None:
        fuzz_target.answered(case, response)

    @fuzzed_schema.hook
    def filter_failure(context: Any, failure: Any, case: Any, response: Any) -> bool:
        return not expected_refusal(failure, response)

    failures = run_engine(fuzzed_schema)
    assert not failures, f"seed {SEED}:\n" + "\n\n".join(failures)


def run_engine(fuzzed: Any) -> list[str]:
    """The failures of a whole run, each with the curl command that reproduces it."""
    failures: list[str] = []
    for event in schemathesis.engine.from_schema(fuzzed).execute():
        if isinstance(event, events.ScenarioFinished):
            for checks in event.recorder.checks.values():
                for check in checks:
                    if check.failure_info is not None:
                        failure = check.failure_info.failure
                        failures.append(
                            f"[{event.phase.value}] {event.recorder.label}: {check.name}: "
                            f"{failure.title}\n{failure.message}\n{check.failure_info.code_sample}"
                        )
        elif isinstance(event, events.NonFatalError | events.FatalError):
            failures.append(f"error in {getattr(event, 'label', 'the run')}: {event.info.message}")
    return failures
