"""Python objects given as a transcript are read as the JSON document `json.dumps` writes for
them (with `toolspec._plain` as its `default`), without writing it: the same calls, the same
check, and the same refusals."""

from __future__ import annotations

import dataclasses
import enum
import json
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
    1: "int key",
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
