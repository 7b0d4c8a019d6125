"""pydantic-ai message histories written and read by pydantic-ai itself: the generator builds
`ModelRequest`/`ModelResponse` objects and writes them with `ModelMessagesTypeAdapter.dump_json`
(the file a user saves); the oracle reads the file back with
`ModelMessagesTypeAdapter.validate_json` and takes its `ToolCallPart`s (arguments by
`args_as_dict()`), answered by the `ToolReturnPart`/`RetryPromptPart` with their
`tool_call_id`."""

import datetime
import random

from pydantic_ai.messages import (ModelMessagesTypeAdapter, ModelRequest, ModelResponse, RetryPromptPart,
                                  TextPart, ThinkingPart, ToolCallPart, ToolReturnPart, UserPromptPart)

import gen

NAME = "pydantic_ai"
SEED = 3806
FORMAT = "pydantic-ai"
SDK = ["pydantic-ai-slim", "pydantic"]
# Fixed: the parts default their timestamp to the clock, which would make every recording differ.
WHEN = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)


def _call(rng, tags, ids):
    args = gen.args(rng)
    r = rng.random()
    if r < 0.4:
        tags.add("args-json-string")
        a = gen.dumps(args, rng)
    elif r < 0.45:
        tags.add("args-none")
        a = None
    else:
        a = args
    cid = gen.ident(rng, "call_")
    if ids and rng.random() < 0.06:
        tags.add("repeated-id")
        cid = rng.choice(ids)[0]
    part = ToolCallPart(tool_name=gen.tool(rng), args=a, tool_call_id=cid)
    ids.append((cid, part.tool_name))
    return part


def _result(rng, tags, ids):
    cid, name = rng.choice(ids) if ids and rng.random() < 0.9 else (gen.ident(rng, "call_"), gen.tool(rng))
    r = rng.random()
    if r < 0.2:
        tags.add("retry-prompt")
        return RetryPromptPart(tool_name=name, content=str(gen.scalar(rng)) or "bad", tool_call_id=cid,
                               timestamp=WHEN)
    content = rng.choice([str(gen.scalar(rng)), gen.args(rng), [gen.scalar(rng), gen.scalar(rng)]])
    if r < 0.35:
        tags.add("outcome")
        return ToolReturnPart(tool_name=name, content=content, tool_call_id=cid,
                              outcome=rng.choice(["failed", "denied", "retried", "interrupted", "success"]),
                              timestamp=WHEN)
    return ToolReturnPart(tool_name=name, content=content, tool_call_id=cid, timestamp=WHEN)


def generate(rng: random.Random, i: int) -> dict:
    tags: set[str] = set()
    ids: list = []
    msgs = [ModelRequest(parts=[UserPromptPart(content=str(gen.scalar(rng)) or "hi", timestamp=WHEN)])]
    for _ in range(rng.randrange(1, 5)):
        parts = []
        if rng.random() < 0.2:
            parts.append(ThinkingPart(content="hmm"))
        if rng.random() < 0.4:
            parts.append(TextPart(content=str(gen.scalar(rng)) or "ok"))
        parts += [_call(rng, tags, ids) for _ in range(rng.choices([0, 1, 2, 3], [1, 5, 2, 1])[0])]
        msgs.append(ModelResponse(parts=parts, model_name="test", timestamp=WHEN))
        if ids and rng.random() < 0.85:
            msgs.append(ModelRequest(parts=[_result(rng, tags, ids) for _ in range(rng.randrange(1, 3))]))
    text = ModelMessagesTypeAdapter.dump_json(msgs, indent=rng.choice([None, 2])).decode()
    return {"ext": ".json", "text": text, "tags": tags}


def oracle(case: dict) -> list[dict]:
    items = []
    for m in ModelMessagesTypeAdapter.validate_json(case["text"]):
        for p in m.parts:
            if isinstance(p, ToolCallPart):
                items.append({"name": p.tool_name, "args": p.args_as_dict(), "id": p.tool_call_id,
                              "output": None, "is_error": False})
            elif isinstance(p, ToolReturnPart):
                items.append({"result_for": p.tool_call_id, "content": (p.content, p.outcome in ("failed", "retried"))})
            elif isinstance(p, RetryPromptPart) and p.tool_name is not None:
                items.append({"result_for": p.tool_call_id, "content": (p.content, True)})
    return items


def results(content):
    return gen.output_rule(content[0]), content[1]
