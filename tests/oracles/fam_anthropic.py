"""Anthropic Messages stream events against the Anthropic Python SDK's stream accumulator
(`client.messages.stream(...).get_final_message()`, fed the same bytes over an in-memory
HTTP transport: the SDK's own SSE decoder and `accumulate_event`)."""

import json
import random

import anthropic
import httpx2 as httpx

import gen

NAME = "anthropic"
SEED = 3801
FORMAT = "anthropic-messages"
SDK = ["anthropic", "httpx2"]


def _tool_block(rng, tags, ids, kind):
    if kind == "server_tool_use":
        name, args = "web_search", {"query": gen.scalar(rng) if rng.random() < 0.2 else "q " + gen.ident(rng, "")}
        cid = gen.ident(rng, "srvtoolu_")
    else:
        name, args = gen.tool(rng), gen.args(rng)
        cid = gen.ident(rng, "toolu_")
    r = rng.random()
    if ids and r < 0.08:
        tags.add("repeated-id")
        prev = rng.choice(ids)
        cid = prev[0]
        if rng.random() < 0.5:  # the same call again (history resent) or a reused id
            name, args = prev[1], prev[2]
    elif r < 0.12:
        tags.add("empty-id")
        cid = ""
    ids.append((cid, name, args))
    return {"type": kind, "id": cid, "name": name, "input": {}}, args


def _result_block(rng, ids):
    servers = [i for i in ids if i[1] == "web_search"]
    target = rng.choice(servers)[0] if servers and rng.random() < 0.9 else gen.ident(rng, "srvtoolu_")
    if rng.random() < 0.25:
        content = {"type": "web_search_tool_result_error", "error_code": rng.choice(["max_uses_exceeded", "unavailable"])}
    else:
        content = [{"type": "web_search_result", "url": "https://example.com/" + gen.ident(rng, ""),
                    "title": str(gen.scalar(rng)), "encrypted_content": gen.ident(rng, "E"), "page_age": None}
                   for _ in range(rng.randrange(0, 3))]
    return {"type": "web_search_tool_result", "tool_use_id": target, "content": content}


def _block_events(rng, tags, ids, index):
    """One content block: its start, deltas and stop events (as lists, so they can interleave)."""
    kind = rng.choices(["text", "thinking", "tool_use", "server_tool_use", "web_search_tool_result", "future"],
                       [3, 1, 6, 2, 1, 0.5])[0]
    if kind == "text":
        text = str(gen.scalar(rng))
        start = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": p} for p in gen.split(rng, text, 4, empty=False)]
    elif kind == "thinking":
        start = {"type": "thinking", "thinking": "", "signature": ""}
        deltas = [{"type": "thinking_delta", "thinking": "hmm"}, {"type": "signature_delta", "signature": "sig"}]
    elif kind in ("tool_use", "server_tool_use"):
        start, args = _tool_block(rng, tags, ids, kind)
        text = gen.dumps(args, rng)
        r = rng.random()
        if r < 0.1 and args:
            tags.add("input-in-start")
            start["input"] = args
            deltas = []
        elif r < 0.15 and not args:
            deltas = []
        else:
            deltas = [{"type": "input_json_delta", "partial_json": p} for p in gen.split(rng, text, 10)]
    elif kind == "web_search_tool_result":
        start, deltas = _result_block(rng, ids), []
    else:
        tags.add("unknown-block")
        start, deltas = {"type": "future_block_" + gen.ident(rng, ""), "payload": gen.args(rng)}, []
    return (
        [("content_block_start", {"type": "content_block_start", "index": index, "content_block": start})],
        [("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d}) for d in deltas],
        [("content_block_stop", {"type": "content_block_stop", "index": index})],
        kind,
    )


def _stream(rng, tags, ids):
    pre = []
    if rng.random() < 0.25:
        tags.add("message-start-blocks")
        for _ in range(rng.randrange(1, 4)):
            k = rng.choice(["tool_use", "tool_use", "text", "server_tool_use"])
            if k == "text":
                pre.append({"type": "text", "text": str(gen.scalar(rng))})
            else:
                block, args = _tool_block(rng, tags, ids, k)
                block["input"] = args
                pre.append(block)
    events = [("message_start", {"type": "message_start", "message": {
        "id": gen.ident(rng, "msg_"), "type": "message", "role": "assistant", "model": "claude-test",
        "content": pre, "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1}}})]
    blocks = [_block_events(rng, tags, ids, len(pre) + i) for i in range(rng.randrange(0, 5))]
    tools = [b for b in blocks if b[3] in ("tool_use", "server_tool_use")]
    if len(tools) >= 2 and rng.random() < 0.3:
        # Parallel calls whose deltas interleave: every block opened, the deltas shuffled by
        # index (each block's own in order), then closed.
        tags.add("interleaved")
        for b in blocks:
            events += b[0]
        queues = [list(b[1]) for b in blocks]
        while any(queues):
            q = rng.choice([q for q in queues if q])
            events.append(q.pop(0))
        for b in blocks:
            events += b[2]
    else:
        for b in blocks:
            events += b[0] + b[1] + b[2]
    # Pings and event types of later API versions anywhere after message_start.
    for _ in range(rng.randrange(0, 3)):
        at = rng.randrange(1, len(events) + 1)
        if rng.random() < 0.5:
            events.insert(at, ("ping", {"type": "ping"}))
        else:
            tags.add("unknown-event")
            events.insert(at, ("future_event", {"type": "future_event", "index": 0, "data": {"x": 1}}))
    events.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                                     "usage": {"output_tokens": 20}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def generate(rng: random.Random, i: int) -> dict:
    tags: set[str] = set()
    ids: list = []
    n = 1 if rng.random() < 0.85 else rng.randrange(2, 4)
    if n > 1:
        tags.add("several-messages")
    streams = [_stream(rng, tags, ids) for _ in range(n)]
    if rng.random() < 0.05:
        tags.add("truncated")
        last = streams[-1]
        del last[rng.randrange(1, len(last)):]
    sse = rng.random() < 0.5
    events = [e for s in streams for e in s]
    text = gen.sse(events, rng) if sse else gen.jsonl([p for _, p in events], rng)
    return {"ext": ".sse" if sse else ".jsonl", "text": text, "tags": tags,
            "streams": streams}


_current = [b""]
_client = anthropic.Anthropic(
    api_key="test", max_retries=0,
    http_client=httpx.Client(transport=httpx.MockTransport(
        lambda request: httpx.Response(200, headers={"content-type": "text/event-stream"}, content=_current[0]))))


def _final_message(sse_text: str):
    _current[0] = sse_text.encode()
    with _client.messages.stream(model="claude-test", max_tokens=1, messages=[{"role": "user", "content": "x"}]) as s:
        return s.get_final_message()


def oracle(case: dict) -> list[dict]:
    """The calls of the SDK's messages: tool blocks in content order, each `*_tool_result` block
    giving the output of the call with its `tool_use_id` (error: an `…_error` content)."""
    calls = []
    for events in case["streams"]:
        message = _final_message(gen.sse_plain(events))
        unfinished = _unfinished(events)
        for k, block in enumerate(message.content):
            b = block.to_dict()
            if b.get("type") in ("tool_use", "server_tool_use"):
                args = b.get("input")
                if k in unfinished:
                    # The SDK reads a block cut short in partial mode; toolspec keeps its text.
                    args = gen.argument_string_rule(unfinished[k])
                    case["tags"].add("decision:unfinished-block-raw")
                calls.append({"name": b["name"], "args": args, "id": b["id"], "output": None, "is_error": False})
            elif str(b.get("type", "")).endswith("_tool_result") and "tool_use_id" in b:
                calls.append({"result_for": b["tool_use_id"], "content": b.get("content")})
    return calls


def _unfinished(events):
    """The argument text of each tool block (by snapshot position) that never stopped."""
    text, stopped = {}, set()
    for name, p in events:
        if name == "content_block_delta" and p["delta"].get("type") == "input_json_delta":
            text[p["index"]] = text.get(p["index"], "") + p["delta"]["partial_json"]
        elif name == "content_block_stop":
            stopped.add(p["index"])
    return {k: t for k, t in text.items() if k not in stopped and t.strip()}


def results(content):
    err = isinstance(content, dict) and ("error_code" in content or str(content.get("type", "")).endswith("_error"))
    return content, err
