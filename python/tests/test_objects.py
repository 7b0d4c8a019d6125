"""Python objects given as a transcript are read as the JSON document `json.dumps` writes for
them (with `toolspec._plain` as its `default`), without writing it: the same calls, the same
check, and the same refusals."""

from __future__ import annotations

import dataclasses
import enum
import json
import random
import types
from collections.abc import Mapping
from typing import Any

import pytest

import toolspec


class Name(str):
    pass


class Colour(enum.IntEnum):
    RED = 1


@dataclasses.dataclass
class Point:
    x: int
    y: float


class Model:
    """What pydantic v2 models offer (the OpenAI and Anthropic SDKs' types)."""

    def model_dump(self, mode: str = "python") -> Any:
        assert mode == "json"
        return {"kind": "model", "items": (1, 2.5)}


def as_dumps(obj: Any) -> bytes:
    return json.dumps(
        obj, default=toolspec._plain, allow_nan=False, ensure_ascii=False, separators=(",", ":")
    ).encode()


ODD = {
    "tuple": (1, (2, [3])),
    3: "int key",
    2.5: "float key",
    1e-05: "small float key",
    True: "bool key",
    None: "none key",
    "big": 2**70,
    "negative big": -(2**64) - 1,
    "u64": 2**64 - 1,
    "i64": -(2**63),
    "floats": [1e-05, 0.1, 1 / 3, -0.0, 1e300, 5e-324, 123456789012345678.0],
    "str subclass": Name("x"),
    Name("key subclass"): 1,
    "int enum": Colour.RED,
    "bools": [True, False, None],
    "text": 'é \u2028 \x00 \x1f "quoted" \\ 🫨',
    "nested": [[[{}]], {}],
    "dataclass": Point(1, 2.0),
    "model": Model(),
    "set": {3},
    "mapping": types.MappingProxyType({"a": 1}),
}


def test_odd_values_read_as_their_json_text() -> None:
    run = [{"name": "lookup", "args": ODD}, {"name": Name("second"), "args": {"i": Colour.RED}}]
    by_objects = toolspec.calls(run)
    assert by_objects == toolspec.calls(as_dumps(run))
    assert by_objects[0]["args"]["u64"] == 2**64 - 1


def test_a_chat_run_checks_as_its_json_text() -> None:
    messages = [
        {"role": "user", "content": "Find ORD-1."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": (
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_order", "arguments": '{"order_id": "ORD-1"}'},
                },
            ),
        },
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]
    spec = 'spec s {\n  call get_order(order_id: "ORD-1")\n  call refund\n}\n'
    by_objects = toolspec.check(spec, messages)
    by_text = toolspec.check(spec, as_dumps(messages))
    assert [r.raw for r in by_objects.results] == [r.raw for r in by_text.results]
    assert not by_objects.passed
    assert "refund" in by_objects.results[0].explain()
    assert toolspec.Spec(spec).passes(messages) is False


@pytest.mark.parametrize(
    "bad, error, match",
    [
        (float("nan"), toolspec.TranscriptError, "not JSON"),
        (float("inf"), toolspec.TranscriptError, "not JSON"),
        ("\ud800", toolspec.TranscriptError, "not JSON"),
        ({(1, 2): "tuple key"}, TypeError, "keys must be"),
        (object(), TypeError, "cannot read a"),
    ],
)
def test_what_json_cannot_hold_is_refused(bad: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        toolspec.calls([{"name": "t", "args": {"v": bad}}])


def test_an_object_that_holds_itself_is_refused() -> None:
    args: Any = {}
    args["self"] = args
    with pytest.raises(toolspec.TranscriptError, match="nests more than 128 levels"):
        toolspec.calls([{"name": "t", "args": args}])
    deep: Any = []
    for _ in range(200):
        deep = [deep]
    with pytest.raises(toolspec.TranscriptError, match="nests more than 128 levels"):
        toolspec.calls([{"name": "t", "args": {"v": deep}}])
    # As deep as a file may be: read.
    ok: Any = "leaf"
    for _ in range(120):
        ok = [ok]
    assert toolspec.calls([{"name": "t", "args": {"v": ok}}])[0]["name"] == "t"


def test_an_object_that_changes_its_dict_while_read_is_read_as_it_was() -> None:
    """Reading a value may run Python code (`_plain`); if that code changes the dict the value
    sits in, the dict's members were already taken: nothing fails mid-way."""
    args: Any = {}

    class Meddler(Mapping):
        def __getitem__(self, k: str) -> int:
            return 1

        def __iter__(self) -> Any:
            args["added"] = True  # the enclosing dict grows while it is read
            args.pop("first", None)
            return iter(["k"])

        def __len__(self) -> int:
            return 1

    args.update({"first": 1, "meddler": Meddler(), "last": 2})
    (call,) = toolspec.calls([{"name": "t", "args": args}])
    assert call["args"] == {"first": 1, "meddler": {"k": 1}, "last": 2}


def test_the_verdict_comes_first_and_the_report_agrees_with_it() -> None:
    spec = 'spec s {\n  call get_order(order_id: "ORD-1")\n}\n'
    ok = [{"name": "get_order", "args": {"order_id": "ORD-1"}}]
    bad = [{"name": "get_order", "args": {"order_id": "ORD-2"}}]
    for run, verdict in ((ok, True), (bad, False)):
        for given in (run, as_dumps(run)):
            report = toolspec.check(spec, given)
            assert report.passed is verdict  # decided without building the report
            assert [r.passed for r in report.results] == [verdict]
            assert report.raw["summary"]["passed"] == int(verdict)
    explained = toolspec.check(spec, bad).explain()
    assert "ORD-2" in explained and "<stdin>" in explained


def test_an_unreadable_input_raises_with_its_snippet() -> None:
    with pytest.raises(toolspec.TranscriptError) as e:
        toolspec.check('spec s {\n  call a\n}\n', b'[{"name": "a", "args": {]')
    assert "<stdin>" in str(e.value) and e.value.diagnostics


# Randomised: transcripts of random values, in the shapes the readers know, read as objects and
# as their JSON text. A fixed seed per case, so a failure names the case that shows it.
TEXTS = ["", "a", "ORD-1", "é", "\u2028", "\x00", '"', "\\", "🫨", "role", "content", "1"]
NAMES = ["get_order", "search", "send_email", "lookup"]


def random_value(rng: random.Random, depth: int) -> Any:
    kinds = ["none", "bool", "int", "float", "str", "enum", "strsub"]
    if depth < 4:
        kinds += ["list", "tuple", "dict", "dict", "dataclass"]
    kind = rng.choice(kinds)
    if kind == "none":
        return None
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "int":
        return rng.choice(
            [0, -1, 7, 2**31, 2**53 + 1, 2**63 - 1, -(2**63), 2**64 - 1, 2**64, -(2**70)]
        )
    if kind == "float":
        return rng.choice(
            [0.0, -0.0, 0.1, 1 / 3, 5.0, 1e-05, 1e16, 1e300, 5e-324, rng.uniform(-1e6, 1e6)]
        )
    if kind == "str":
        return "".join(rng.choice(TEXTS) for _ in range(rng.randrange(4)))
    if kind == "enum":
        return Colour.RED
    if kind == "strsub":
        return Name(rng.choice(TEXTS))
    if kind == "dataclass":
        return Point(rng.randrange(10), rng.random())
    items = [random_value(rng, depth + 1) for _ in range(rng.randrange(5))]
    if kind == "list":
        return items
    if kind == "tuple":
        return tuple(items)
    keys = [rng.choice(TEXTS + ["k1", "k2", 1, 2.5, True, None, Name("k1")]) for _ in items]
    return dict(zip(keys, items))


def random_run(rng: random.Random) -> Any:
    calls = [
        (f"c{i}", rng.choice(NAMES), random_value(rng, 1), random_value(rng, 2))
        for i in range(rng.randrange(1, 5))
    ]
    args = [a if isinstance(a, dict) else {"v": a} for _, _, a, _ in calls]
    shape = rng.choice(["neutral", "chat", "anthropic"])
    if shape == "neutral":
        return [
            {"id": i, "name": n, "args": a, "output": o}
            for (i, n, _, o), a in zip(calls, args)
        ]
    if shape == "chat":
        messages: list = [{"role": "user", "content": random_value(rng, 3)}]
        for (i, n, _, o), a in zip(calls, args):
            encoded = json.dumps(a, default=toolspec._plain) if rng.random() < 0.5 else a
            function = {"name": n, "arguments": encoded}
            call = {"id": i, "type": "function", "function": function}
            messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
            messages.append({"role": "tool", "tool_call_id": i, "content": o})
        return messages
    blocks = []
    for (i, n, _, o), a in zip(calls, args):
        use = {"type": "tool_use", "id": i, "name": n, "input": a}
        result = {"type": "tool_result", "tool_use_id": i, "content": o}
        blocks.append({"role": "assistant", "content": [use]})
        blocks.append({"role": "user", "content": [result]})
    return blocks


def outcome(transcript: Any) -> Any:
    try:
        return toolspec.calls(transcript)
    except toolspec.TranscriptError as e:
        return type(e).__name__


@pytest.mark.parametrize("seed", range(300))
def test_random_runs_read_as_their_json_text(seed: int) -> None:
    run = random_run(random.Random(seed))
    assert outcome(run) == outcome(as_dumps(run))
