"""OpenAI Responses streams against the OpenAI Python SDK's Responses stream state
(`client.responses.stream(...).get_final_response()`, fed the same events over an in-memory HTTP
transport: the SDK's SSE decoder and `ResponseStreamState.accumulate_event`)."""

import json
import random

import httpx2 as httpx
import openai

import gen

NAME = "openai_responses"
SEED = 3803
FORMAT = "openai-responses"
SDK = ["openai", "httpx2"]


def _item_events(rng, tags, ids, out_index, seq):
    """One output item: its events from `output_item.added` to `output_item.done`, and the
    done item."""
    kind = rng.choices(["function_call", "custom_tool_call", "message", "reasoning", "web_search_call", "future"],
                       [8, 1.5, 3, 1.5, 1, 0.5])[0]
    ev = []

    def e(payload):
        payload["sequence_number"] = next(seq)
        ev.append(payload)

    if kind in ("function_call", "custom_tool_call"):
        name = gen.tool(rng)
        item_id = gen.ident(rng, "fc_" if kind == "function_call" else "ctc_")
        call_id = gen.ident(rng, "call_")
        # A call id of an earlier response again (the SDK refuses one twice in a response).
        earlier = [x for x in ids[0] if x not in ids[1]]
        if earlier and rng.random() < 0.1:
            tags.add("repeated-call-id")
            call_id = rng.choice(earlier)
        ids[1].append(call_id)
        if kind == "function_call":
            args = gen.args(rng)
            text = gen.dumps(args, rng)
            field, delta_type = "arguments", "response.function_call_arguments"
        else:
            tags.add("custom-tool")
            text = str(gen.scalar(rng))
            field, delta_type = "input", "response.custom_tool_call_input"
        added = {"type": kind, "id": item_id, "call_id": call_id, "name": name, field: "", "status": "in_progress"}
        e({"type": "response.output_item.added", "output_index": out_index, "item": added})
        for p in gen.split(rng, text, 10):
            e({"type": delta_type + ".delta", "item_id": item_id, "output_index": out_index, "delta": p})
        done_ev = {"type": delta_type + ".done", "item_id": item_id, "output_index": out_index, field: text}
        if kind == "function_call" and rng.random() < 0.5:
            done_ev["name"] = name
        e(done_ev)
        done = dict(added, **{field: text, "status": "completed"})
    elif kind == "message":
        item_id = gen.ident(rng, "msg_")
        added = {"type": "message", "id": item_id, "role": "assistant", "status": "in_progress", "content": []}
        e({"type": "response.output_item.added", "output_index": out_index, "item": added})
        text = str(gen.scalar(rng))
        part = {"type": "output_text", "text": "", "annotations": []}
        e({"type": "response.content_part.added", "item_id": item_id, "output_index": out_index, "content_index": 0, "part": part})
        for p in gen.split(rng, text, 4, empty=False):
            e({"type": "response.output_text.delta", "item_id": item_id, "output_index": out_index, "content_index": 0,
               "delta": p, "logprobs": []})
        e({"type": "response.output_text.done", "item_id": item_id, "output_index": out_index, "content_index": 0,
           "text": text, "logprobs": []})
        e({"type": "response.content_part.done", "item_id": item_id, "output_index": out_index, "content_index": 0,
           "part": dict(part, text=text)})
        done = dict(added, status="completed", content=[dict(part, text=text)])
    elif kind == "reasoning":
        added = {"type": "reasoning", "id": gen.ident(rng, "rs_"), "summary": []}
        e({"type": "response.output_item.added", "output_index": out_index, "item": added})
        done = dict(added, encrypted_content=gen.ident(rng, "E"))
    elif kind == "web_search_call":
        added = {"type": "web_search_call", "id": gen.ident(rng, "ws_"), "status": "in_progress"}
        e({"type": "response.output_item.added", "output_index": out_index, "item": added})
        e({"type": "response.web_search_call.searching", "item_id": added["id"], "output_index": out_index})
        e({"type": "response.web_search_call.completed", "item_id": added["id"], "output_index": out_index})
        done = dict(added, status="completed", action={"type": "search", "query": "q " + gen.ident(rng, "")})
    else:
        tags.add("unknown-item")
        added = {"type": "future_item_" + gen.ident(rng, ""), "id": gen.ident(rng, "fi_"), "payload": gen.args(rng)}
        e({"type": "response.output_item.added", "output_index": out_index, "item": added})
        done = added
    e({"type": "response.output_item.done", "output_index": out_index, "item": done})
    return ev, done


def _stream(rng, tags, ids):
    counter = iter(range(10**9))
    ids = (list(ids), ids)
    rid = gen.ident(rng, "resp_")
    base = {"id": rid, "object": "response", "created_at": 1700000000, "model": "gpt-test", "output": [],
            "tools": [], "parallel_tool_calls": True, "tool_choice": "auto"}
    events = [{"type": "response.created", "sequence_number": next(counter), "response": dict(base, status="in_progress")}]
    if rng.random() < 0.7:
        events.append({"type": "response.in_progress", "sequence_number": next(counter),
                       "response": dict(base, status="in_progress")})
    items = [_item_events(rng, tags, ids, k, counter) for k in range(rng.choices([0, 1, 2, 3, 4], [1, 4, 3, 2, 1])[0])]
    if len(items) >= 2 and rng.random() < 0.3:
        # Parallel items whose events interleave, each item's own in order.
        tags.add("interleaved")
        queues = [list(ev) for ev, _ in items]
        while any(queues):
            q = rng.choice([q for q in queues if q])
            events.append(q.pop(0))
    else:
        for ev, _ in items:
            events += ev
    completed = dict(base, status="completed", output=[done for _, done in items])
    if rng.random() < 0.15:
        # Compatible servers that leave the items out of `response.completed` (the SDK then
        # takes the `output_item.done` items).
        tags.add("completed-without-output")
        completed["output"] = None
    events.append({"type": "response.completed", "sequence_number": next(counter), "response": completed})
    for _ in range(rng.randrange(0, 2)):
        if rng.random() < 0.3:
            tags.add("unknown-event")
            at = rng.randrange(1, len(events))
            events.insert(at, {"type": "response.future_event", "sequence_number": 0, "data": {"x": 1}})
    return events


def generate(rng: random.Random, i: int) -> dict:
    tags: set[str] = set()
    ids: list = []
    n = 1 if rng.random() < 0.85 else rng.randrange(2, 4)
    if n > 1:
        tags.add("several-responses")
    streams = [_stream(rng, tags, ids) for _ in range(n)]
    events = [e for s in streams for e in s]
    if rng.random() < 0.5:
        ext, text = ".sse", gen.sse([(p["type"], p) for p in events], rng)
    else:
        ext, text = ".jsonl", gen.jsonl(events, rng)
    return {"ext": ext, "text": text, "tags": tags, "streams": streams}


_current = [b""]
_client = openai.OpenAI(
    api_key="test", max_retries=0,
    http_client=httpx.Client(transport=httpx.MockTransport(
        lambda request: httpx.Response(200, headers={"content-type": "text/event-stream"}, content=_current[0]))))


def _final(events):
    _current[0] = gen.sse_plain([(p["type"], p) for p in events]).encode()
    with _client.responses.stream(model="gpt-test", input="x") as s:
        return s.get_final_response()


def oracle(case: dict) -> list[dict]:
    """The calls of the SDK's final responses' output items: `function_call` (arguments by the
    argument-string rule) and `custom_tool_call` (input kept as text) by `call_id`; a hosted
    `web_search_call` is a call of `web_search` with its `action`, answered without output
    (toolspec's documented reading of hosted tools)."""
    calls = []
    for events in case["streams"]:
        for item in _final(events).output:
            d = item.to_dict()
            if d["type"] == "function_call":
                calls.append({"name": d["name"], "args": gen.argument_string_rule(d.get("arguments") or ""),
                              "id": d.get("call_id"), "output": None, "is_error": False})
            elif d["type"] == "custom_tool_call":
                calls.append({"name": d["name"], "args": d.get("input", ""), "id": d.get("call_id"),
                              "output": None, "is_error": False})
            elif d["type"] == "web_search_call":
                calls.append({"name": "web_search", "args": d.get("action", {}), "id": d.get("id"),
                              "output": None, "is_error": d.get("status") == "failed"})
    return calls


def results(content):
    return content, False
