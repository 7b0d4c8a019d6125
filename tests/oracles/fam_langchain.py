"""LangChain message lists (`messages_to_dict()` form, `[{type, data}]`) against
`langchain_core.messages.messages_from_dict`: each `AIMessage`'s `tool_calls` then
`invalid_tool_calls` (LangChain's own parse of legacy `additional_kwargs.tool_calls` included),
each `ToolMessage` the result of its `tool_call_id` (`status: "error"` an error)."""

import json
import random

from langchain_core.messages import messages_from_dict

import gen

NAME = "langchain"
SEED = 3805
FORMAT = "langchain"
SDK = ["langchain-core"]


def _raw_call(rng, tags, ids):
    """An OpenAI-style `additional_kwargs.tool_calls` entry, and its parsed call."""
    cid = gen.ident(rng, "call_")
    name, args = gen.tool(rng), gen.args(rng)
    r = rng.random()
    if r < 0.1:
        tags.add("legacy-invalid-json")
        text = gen.dumps(args)[:-1] if args else "{"
    elif r < 0.15:
        tags.add("legacy-empty-arguments")
        text = ""
    elif r < 0.2:
        tags.add("legacy-null-arguments")
        text = "null"
    else:
        text = gen.dumps(args, rng)
    ids.append(cid)
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": text}}


def _ai(rng, tags, ids):
    data = {"content": "", "additional_kwargs": {}, "response_metadata": {}, "type": "ai", "name": None,
            "id": gen.ident(rng, "run-"), "example": False, "usage_metadata": None}
    if rng.random() < 0.4:
        data["content"] = str(gen.scalar(rng))
    mode = rng.random()
    if mode < 0.2:
        # Written by an older LangChain: the provider's calls only in `additional_kwargs`.
        tags.add("legacy-additional-kwargs")
        data["additional_kwargs"]["tool_calls"] = [_raw_call(rng, tags, ids) for _ in range(rng.randrange(1, 4))]
        r = rng.random()
        if r < 0.4:
            data["tool_calls"], data["invalid_tool_calls"] = [], []
            tags.add("legacy-with-empty-lists")
        elif r < 0.7:
            pass  # no `tool_calls` key at all
        else:
            del data["additional_kwargs"]  # nothing at all then: a plain message
            data["additional_kwargs"] = {}
    else:
        calls = []
        for _ in range(rng.choices([0, 1, 2, 3], [2, 5, 2, 1])[0]):
            cid = gen.ident(rng, "call_")
            if ids and rng.random() < 0.08:
                tags.add("repeated-id")
                cid = rng.choice(ids)
            ids.append(cid)
            calls.append({"name": gen.tool(rng), "args": gen.args(rng), "id": cid, "type": "tool_call"})
        invalid = []
        if rng.random() < 0.15:
            tags.add("invalid-tool-calls")
            for _ in range(rng.randrange(1, 3)):
                args = rng.choice(['{"a": 1', "", "not json", None, '{"q": "x"}'])
                invalid.append({"name": gen.tool(rng), "args": args, "id": gen.ident(rng, "call_"),
                                "error": "bad", "type": "invalid_tool_call"})
        data["tool_calls"], data["invalid_tool_calls"] = calls, invalid
        if calls and rng.random() < 0.3:
            # The provider's raw calls mirrored beside the parsed ones (LangChain keeps both).
            tags.add("mirrored-additional-kwargs")
            data["additional_kwargs"]["tool_calls"] = [
                {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": json.dumps(c["args"])}}
                for c in calls]
    return {"type": "ai", "data": data}


def _tool(rng, tags, ids):
    target = rng.choice(ids) if ids and rng.random() < 0.9 else gen.ident(rng, "call_")
    r = rng.random()
    if r < 0.6:
        content = str(gen.scalar(rng))
    elif r < 0.8:
        tags.add("text-block-content")
        content = [{"type": "text", "text": str(gen.scalar(rng))} for _ in range(rng.randrange(1, 3))]
    else:
        tags.add("structured-content")
        content = [{"type": "text", "text": "x"}, {"type": "image_url", "image_url": {"url": "data:,"}}]
    data = {"content": content, "type": "tool", "name": None, "id": None, "tool_call_id": target,
            "artifact": None, "additional_kwargs": {}, "response_metadata": {}}
    if rng.random() < 0.2:
        tags.add("error-status")
        data["status"] = "error"
    elif rng.random() < 0.5:
        data["status"] = "success"
    return {"type": "tool", "data": data}


def generate(rng: random.Random, i: int) -> dict:
    tags: set[str] = set()
    ids: list = []
    msgs = []
    if rng.random() < 0.5:
        msgs.append({"type": "system", "data": {"content": "be brief", "type": "system"}})
    for _ in range(rng.randrange(1, 6)):
        kind = rng.choices(["human", "ai", "tool"], [2, 5, 4])[0]
        if kind == "human":
            msgs.append({"type": "human", "data": {"content": str(gen.scalar(rng)) or "hi", "type": "human"}})
        elif kind == "ai":
            msgs.append(_ai(rng, tags, ids))
        else:
            msgs.append(_tool(rng, tags, ids))
    doc = msgs if rng.random() < 0.7 else {"messages": msgs}
    if isinstance(doc, dict):
        tags.add("state-object")
    return {"ext": ".json", "text": json.dumps(doc, ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 1])),
            "tags": tags, "msgs": msgs}


def oracle(case: dict) -> list[dict]:
    items = []
    for m in messages_from_dict(case["msgs"]):
        if m.type == "ai":
            for tc in m.tool_calls:
                items.append({"name": tc["name"], "args": tc["args"], "id": tc["id"], "output": None, "is_error": False})
            for tc in m.invalid_tool_calls:
                args = tc.get("args")
                items.append({"name": tc["name"], "args": gen.argument_string_rule(args) if isinstance(args, str) else (args or {}),
                              "id": tc["id"], "output": None, "is_error": False})
        elif m.type == "tool":
            items.append({"result_for": m.tool_call_id, "content": {"content": m.content, "status": m.status}})
    return items


def results(content):
    return gen.output_rule(content["content"]), content["status"] == "error"
