"""OpenAI Chat Completions streams against the OpenAI Python SDK's chat-completion stream state
(`client.chat.completions.stream(...).get_final_completion()`, fed the same chunks over an
in-memory HTTP transport: the SDK's SSE decoder, `ChatCompletionStreamState` and its
`accumulate_delta`)."""

import json
import random

import httpx2 as httpx
import openai

import gen

NAME = "openai_chat"
SEED = 3802
FORMAT = "openai-chat"
SDK = ["openai", "httpx2"]


def _chunk(cid, choices, rng, **extra):
    c = {"id": cid, "object": "chat.completion.chunk", "created": 1700000000, "model": "gpt-test",
         "choices": choices}
    if rng.random() < 0.3:
        c["system_fingerprint"] = "fp_1"
    c.update(extra)
    return c


def _choice(index, delta, finish=None):
    return {"index": index, "delta": delta, "logprobs": None, "finish_reason": finish}


def _calls_of_choice(rng, tags, ids):
    """The tool-call delta entries of one choice, in the order a server sends them."""
    calls = []
    for k in range(rng.choices([0, 1, 2, 3, 4], [2, 5, 3, 1, 1])[0]):
        name = gen.tool(rng)
        args = gen.args(rng)
        cid = gen.ident(rng, "call_")
        r = rng.random()
        if ids and r < 0.06:
            tags.add("reused-id")
            cid = rng.choice(ids)
        ids.append(cid)
        # Function calls only: the SDK's chunk model (`ChoiceDeltaToolCall`) streams no
        # custom-tool calls.
        text = gen.dumps(args, rng)
        pieces = gen.split(rng, text, 8)
        first = {"index": k, "id": cid, "type": "function"}
        fn, field = "function", "arguments"
        # The first delta: the name, sometimes with the first piece of the arguments.
        first[fn] = {"name": name, field: pieces.pop(0) if rng.random() < 0.3 else ""}
        entries = [first]
        id_mode = rng.random()
        for p in pieces:
            e = {"index": k, fn: {field: p}}
            if id_mode < 0.12:
                tags.add("empty-id-piece")
                e["id"] = ""
            elif id_mode < 0.2:
                tags.add("repeated-id-piece")
                e["id"] = cid
            if rng.random() < 0.1:
                e["type"] = first["type"]
            if rng.random() < 0.05:
                e[fn]["name"] = ""
            entries.append(e)
        calls.append(entries)
    return calls


def _stream(rng, tags, ids):
    cid = gen.ident(rng, "chatcmpl-")
    n_choices = 1 if rng.random() < 0.9 else 2
    if n_choices > 1:
        tags.add("several-choices")
    chunks = []
    if rng.random() < 0.08:
        tags.add("azure-filter")
        chunks.append({"choices": [], "created": 0, "id": "", "model": "", "object": "",
                       "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": {}}]})
    chunks.append(_chunk(cid, [_choice(c, {"role": "assistant", "content": None if rng.random() < 0.5 else "", "refusal": None})
                               for c in range(n_choices)], rng))
    # Per choice, a queue of deltas: text pieces, then tool-call entries.
    queues = []
    for c in range(n_choices):
        q = []
        if rng.random() < 0.3:
            q += [{"content": p} for p in gen.split(rng, str(gen.scalar(rng)), 3, empty=False)]
        calls = _calls_of_choice(rng, tags, ids)
        if len(calls) >= 2 and rng.random() < 0.35:
            # Parallel calls whose pieces interleave; each call's first delta still comes in
            # index order (the SDK places a new index at the end of its list).
            tags.add("interleaved")
            pending = [list(e) for e in calls]
            started = 0
            while any(pending):
                choices = [i for i in range(len(pending)) if pending[i] and i <= started]
                i = rng.choice(choices)
                q.append({"tool_calls": [pending[i].pop(0)]})
                if i == started:
                    started += 1
        else:
            for entries in calls:
                q += [{"tool_calls": [e]} for e in entries]
        # Several entries in one delta, as some servers batch them.
        merged = []
        for d in q:
            if merged and "tool_calls" in d and "tool_calls" in merged[-1] and rng.random() < 0.15:
                tags.add("batched-entries")
                merged[-1] = {"tool_calls": merged[-1]["tool_calls"] + d["tool_calls"]}
            else:
                merged.append(d)
        queues.append(merged)
    while any(queues):
        c = rng.choice([i for i, q in enumerate(queues) if q])
        chunks.append(_chunk(cid, [_choice(c, queues[c].pop(0))], rng))
        if rng.random() < 0.03:
            tags.add("azure-filter")
            chunks.append({"choices": [{"index": 0, "finish_reason": None, "content_filter_results": {},
                                        "content_filter_offsets": {"check_offset": 0, "start_offset": 0, "end_offset": 1}}],
                           "created": 0, "id": "", "model": "", "object": ""})
    for c in range(n_choices):
        chunks.append(_chunk(cid, [_choice(c, {}, "tool_calls")], rng))
    if rng.random() < 0.4:
        chunks.append(_chunk(cid, [], rng, usage={"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}))
    return chunks


def generate(rng: random.Random, i: int) -> dict:
    tags: set[str] = set()
    ids: list = []
    n = 1 if rng.random() < 0.88 else rng.randrange(2, 4)
    if n > 1:
        tags.add("several-completions")
    streams = [_stream(rng, tags, ids) for _ in range(n)]
    chunks = [c for s in streams for c in s]
    r = rng.random()
    if r < 0.45:
        ext, text = ".sse", gen.sse([(None, c) for c in chunks] + [(None, "[DONE]")], rng).replace('data: "[DONE]"', "data: [DONE]")
    elif r < 0.9:
        ext, text = ".jsonl", gen.jsonl(chunks, rng)
    else:
        tags.add("json-array")
        ext, text = ".json", json.dumps(chunks, ensure_ascii=False)
    return {"ext": ext, "text": text, "tags": tags, "streams": streams}


_current = [b""]
_client = openai.OpenAI(
    api_key="test", max_retries=0,
    http_client=httpx.Client(transport=httpx.MockTransport(
        lambda request: httpx.Response(200, headers={"content-type": "text/event-stream"}, content=_current[0]))))


def _final(chunks):
    _current[0] = ("".join("data: " + gen.dumps(c) + "\n\n" for c in chunks) + "data: [DONE]\n\n").encode()
    with _client.chat.completions.stream(model="gpt-test", messages=[{"role": "user", "content": "x"}]) as s:
        return s.get_final_completion()


def _id_pieces(chunks):
    """Each (choice, tool-call index)'s id pieces, in order."""
    pieces = {}
    for ch in chunks:
        if ch.get("object") != "chat.completion.chunk":
            continue
        for c in ch["choices"]:
            for e in c["delta"].get("tool_calls") or []:
                if "id" in e:
                    pieces.setdefault((c["index"], e["index"]), []).append(e["id"])
    return pieces


def oracle(case: dict) -> list[dict]:
    calls = []
    for chunks in case["streams"]:
        completion = _final(chunks)
        pieces = _id_pieces(chunks)
        for choice in completion.choices:
            for k, tc in enumerate(choice.message.tool_calls or []):
                d = tc.to_dict()
                name, args = d["function"]["name"], gen.argument_string_rule(d["function"].get("arguments") or "")
                sdk_id = d.get("id")
                mine = pieces.get((choice.index, k), [])
                assert sdk_id == "".join(mine), (sdk_id, mine)
                first = next((p for p in mine if p), sdk_id)
                if first != sdk_id:
                    # The SDK concatenates every string of a delta, ids included; toolspec takes
                    # the first non-empty id (later deltas repeat it or send "").
                    case["tags"].add("decision:first-non-empty-id")
                calls.append({"name": name, "args": args, "id": first, "output": None, "is_error": False})
    return calls


def results(content):
    return content, False
