"""The webhook sender's fair share of slots (domain.delivery_slots), without I/O."""

from __future__ import annotations

from datetime import UTC, datetime
from itertools import count

from energyhub.domain.deliveries import DueDelivery, WebhookDelivery
from energyhub.domain.delivery_slots import DeliverySlots, SlotLimits
from energyhub.domain.webhooks import DeliveryStatus

NOW = datetime(2026, 11, 20, 12, tzinfo=UTC)
_ids = count()


def due(account: str, endpoint: str) -> DueDelivery:
    delivery = WebhookDelivery(
        id=f"msg_{next(_ids)}",
        event_id="evt_1",
        endpoint_id=endpoint,
        account_id=account,
        environment="sandbox",
        event_type="push.completed",
        body="{}",
        status=DeliveryStatus.PENDING,
        attempts=(),
        next_attempt_at=NOW,
        created_at=NOW,
        updated_at=NOW,
    )
    return DueDelivery(delivery, "https://example.com/hook", "whsec_x")


def offer(slots: DeliverySlots, offered: list[DueDelivery]) -> list[DueDelivery]:
    """As the sender does: admit, lease what was admitted, then let it start."""
    taken = slots.admit(offered)
    slots.leased(taken)
    return taken


def start_all(slots: DeliverySlots) -> list[DueDelivery]:
    started = []
    while (next_one := slots.start_next()) is not None:
        started.append(next_one)
    return started


def test_slots_go_round_robin_over_accounts_then_endpoints() -> None:
    slots = DeliverySlots(SlotLimits(slots=6, reserve=0, per_endpoint=6))
    offered = [due("a", "a1") for _ in range(4)] + [due("a", "a2") for _ in range(4)]
    offered += [due("b", "b1") for _ in range(4)]
    assert offer(slots, offered) == offered
    started = start_all(slots)
    pairs = [(d.delivery.account_id, d.delivery.endpoint_id) for d in started]
    assert pairs == [("a", "a1"), ("b", "b1"), ("a", "a2"), ("b", "b1"), ("a", "a1"), ("b", "b1")]


def test_one_endpoint_gets_at_most_its_share() -> None:
    slots = DeliverySlots(SlotLimits(slots=50, reserve=10, per_endpoint=10))
    offer(slots, [due("a", "slow") for _ in range(20)])
    assert len(start_all(slots)) == 10
    assert slots.waiting == 10


def test_the_reserve_is_for_accounts_with_nothing_under_way() -> None:
    slots = DeliverySlots(SlotLimits(slots=50, reserve=10, per_endpoint=10))
    noisy = [due("noisy", f"e{n}") for n in range(8) for _ in range(5)]
    assert len(offer(slots, noisy)) == 40
    assert len(start_all(slots)) == 40
    offer(slots, [due("noisy", f"e{n}") for n in range(8, 12) for _ in range(2)])
    assert start_all(slots) == [], "the last 10 slots are not the noisy tenant's"
    others = [due(f"quiet{n}", "q") for n in range(12)]
    started = start_all(slots) if offer(slots, others) else []
    assert [d.delivery.account_id for d in started] == [f"quiet{n}" for n in range(10)]
    assert slots.running == 50


def test_leases_are_bounded_and_accounts_holding_nothing_still_get_one() -> None:
    limits = SlotLimits(slots=50, reserve=10, per_endpoint=10)
    slots = DeliverySlots(limits)
    taken = [
        len(offer(slots, [due(f"t{n}", f"t{n}-{e}") for e in range(4) for _ in range(20)]))
        for n in range(10)
    ]
    assert taken == [40, 40, 20, 1, 1, 1, 1, 1, 1, 1], "40 waiting per account, 100 in all"
    assert offer(slots, [due("t0", "t0-0")]) == []
    assert slots.full_accounts() == [f"t{n}" for n in range(10)], "only newcomers now"
    newcomer = [due("new", "n1"), due("new", "n1")]
    assert offer(slots, newcomer) == newcomer[:1], "one lease for an account holding nothing"
    assert slots.held == 108 <= limits.held + limits.reserve


def test_finished_attempts_free_their_slot_and_counts_forget_the_account() -> None:
    slots = DeliverySlots(SlotLimits(slots=2, reserve=0, per_endpoint=2))
    offered = [due("a", "a1") for _ in range(3)]
    offer(slots, offered)
    first, second = start_all(slots)
    assert slots.start_next() is None
    slots.finished(first, 0.1)
    assert slots.start_next() is offered[2]
    slots.finished(second, 0.1)
    slots.finished(offered[2], 0.1)
    assert (slots.running, slots.waiting, slots.full_accounts()) == (0, 0, [])
    assert slots.waiting_ids() == []


def test_nothing_starts_before_its_lease_is_written_and_a_failed_lease_is_forgotten() -> None:
    slots = DeliverySlots(SlotLimits(slots=4, reserve=0, per_endpoint=4))
    admitted = slots.admit([due("a", "a1"), due("a", "a1")])
    assert slots.start_next() is None, "its row is not committed yet: a result would be lost"
    slots.withdraw(admitted)
    assert (slots.waiting, slots.held) == (0, 0)
    assert offer(slots, [due("a", "a1")])
    assert slots.start_next() is not None


def test_an_endpoint_that_answers_fast_may_use_the_accounts_share() -> None:
    slots = DeliverySlots(SlotLimits(slots=50, reserve=10, per_endpoint=10))
    assert len(offer(slots, [due("a", "fast") for _ in range(40)])) == 20
    started = start_all(slots)
    assert len(started) == 10, "not known to be fast: held to per_endpoint"
    slots.finished(started[0], 0.05)
    assert len(start_all(slots)) == 10
    assert len(offer(slots, [due("a", "fast") for _ in range(50)])) == 40, "more may wait"
    assert len(start_all(slots)) == 21, "it answered fast: up to the account's 40"
    slow = offer(slots, [due("b", "slow") for _ in range(30)])
    (first,) = start_all(slots)  # the reserve: b had nothing under way
    slots.finished(first, 15.0)
    slots.finished(started[1], 0.05)
    again = start_all(slots)  # a takes the freed slot, b a reserved one again
    assert sorted(d.delivery.account_id for d in again) == ["a", "b"]
    assert len(slow) == 20, "a slow (or new) endpoint waits with per_endpoint x 2 at most"


def test_a_fast_endpoint_stays_fast_after_it_has_drained() -> None:
    slots = DeliverySlots(SlotLimits(slots=50, reserve=10, per_endpoint=10))
    offer(slots, [due("a", "fast") for _ in range(10)])
    for started in start_all(slots):
        slots.finished(started, 0.05)
    assert slots.held == 0, "it drained between two fetches, as a fast receiver does"
    assert len(offer(slots, [due("a", "fast") for _ in range(50)])) == 40, "the account's share"
    started = start_all(slots)
    assert len(started) == 40, "not held to per_endpoint: its last attempt was quick"
    slots.finished(started[0], 0.05)
    slots.finished(started[1], 5.0)
    assert start_all(slots) == [], "its last attempt was slow: per_endpoint again"
    assert len(offer(slots, [due("a", "fast") for _ in range(30)])) == 20, "and its waiting room"


def test_a_fast_endpoint_may_wait_with_a_full_batch_beyond_the_shared_leases() -> None:
    limits = SlotLimits(slots=50, reserve=10, per_endpoint=10, quick_ahead=200)
    slots = DeliverySlots(limits)
    (first,) = offer(slots, [due("a", "fast")])
    assert slots.room() == limits.held + limits.reserve - 1, "no quick endpoint known yet"
    slots.finished(slots.start_next() or first, 0.05)
    assert len(offer(slots, [due("a", "fast") for _ in range(300)])) == 40 + 200
    assert (slots.shared, slots.ahead) == (40, 200)
    assert offer(slots, [due("a", "slow")]) == [], "the batch is for the fast endpoint only"
    assert len(offer(slots, [due("b", "b1") for _ in range(30)])) == 20, "b keeps its share"
    assert slots.held == 260 <= limits.held + limits.quick_ahead + limits.reserve
    started = [d.delivery.account_id for d in start_all(slots)]
    assert started[:4] == ["a", "b", "a", "b"], "and they take turns"
    assert slots.ahead == 200 - started.count("a"), "what starts leaves the batch first"
