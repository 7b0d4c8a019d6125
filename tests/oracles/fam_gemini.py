"""Gemini `streamGenerateContent` responses against Google's `google-genai` SDK
(`client.models.generate_content_stream(...)`, fed the same SSE bytes over an in-memory HTTP
transport: the SDK's stream decoder and its `GenerateContentResponse` model), each chunk's calls
as the SDK gives them (`response.function_calls`: the first candidate's `functionCall` parts).
The SDK does not assemble Vertex's partial arguments, so calls arrive whole here."""

import base64
import random

import httpx2 as httpx
from google import genai
from google.genai import types

import gen

NAME = "gemini"
SEED = 3804
FORMAT = "gemini"
SDK = ["google-genai", "httpx2"]


def _part(rng, tags, ids):
    kind = rng.choices(["call", "text", "thought", "code", "future"], [6, 3, 1, 0.5, 0.5])[0]
    if kind == "call":
        fc = {"name": gen.tool(rng)}
        r = rng.random()
        if r < 0.8:
            fc["args"] = gen.args(rng)
        elif r < 0.9:
            tags.add("no-args")
        else:
            tags.add("empty-args")
            fc["args"] = {}
        if rng.random() < 0.5:
            tags.add("call-id")
            fc["id"] = gen.ident(rng, "")
            if ids and rng.random() < 0.1:
                tags.add("repeated-id")
                prev = rng.choice(ids)
                fc["id"] = prev["id"]
                if rng.random() < 0.5:
                    fc = dict(prev)  # the same call sent again
            ids.append(fc)
        part = {"functionCall": fc}
        if rng.random() < 0.3:
            part["thoughtSignature"] = base64.b64encode(rng.randbytes(rng.randrange(1, 24))).decode()
        return part
    if kind == "text":
        return {"text": str(gen.scalar(rng))}
    if kind == "thought":
        return {"text": "thinking " + gen.ident(rng, ""), "thought": True}
    if kind == "code":
        return {"executableCode": {"language": "PYTHON", "code": "print(1)"}}
    tags.add("unknown-part")
    return {"futurePart" + gen.ident(rng, "")[:4]: gen.args(rng)}


def _chunk(rng, tags, ids, last):
    parts = [_part(rng, tags, ids) for _ in range(rng.choices([0, 1, 2, 3], [1, 5, 2, 1])[0])]
    cand = {"content": {"role": "model", "parts": parts}, "index": 0}
    if last:
        cand["finishReason"] = "STOP"
    c = {"candidates": [cand], "modelVersion": "gemini-test", "responseId": gen.ident(rng, "")}
    if last or rng.random() < 0.3:
        c["usageMetadata"] = {"promptTokenCount": 3, "candidatesTokenCount": 5, "totalTokenCount": 8}
    return c


def generate(rng: random.Random, i: int) -> dict:
    tags: set[str] = set()
    ids: list = []
    n = rng.randrange(1, 6)
    chunks = [_chunk(rng, tags, ids, k == n - 1) for k in range(n)]
    if not any("functionCall" in p for c in chunks for p in c["candidates"][0]["content"]["parts"]) and rng.random() < 0.7:
        # Mostly cases with calls.
        chunks[0]["candidates"][0]["content"]["parts"].append({"functionCall": {"name": gen.tool(rng), "args": gen.args(rng)}})
    r = rng.random()
    if r < 0.5:
        ext, text = ".sse", gen.sse([(None, c) for c in chunks], rng)
    elif r < 0.8:
        ext, text = ".jsonl", gen.jsonl(chunks, rng)
    else:
        # `streamGenerateContent` without `alt=sse` answers one JSON array of the responses.
        tags.add("json-array")
        ext, text = ".json", "[" + ",\n".join(gen.dumps(c, rng) for c in chunks) + "]"
    return {"ext": ext, "text": text, "tags": tags, "chunks": chunks}


_current = [b""]
_client = genai.Client(
    api_key="test",
    http_options=types.HttpOptions(httpx_client=httpx.Client(transport=httpx.MockTransport(
        lambda request: httpx.Response(200, headers={"content-type": "text/event-stream"}, content=_current[0])))))


def oracle(case: dict) -> list[dict]:
    _current[0] = gen.sse_plain([(None, c) for c in case["chunks"]]).encode()
    calls = []
    for response in _client.models.generate_content_stream(model="gemini-test", contents="x"):
        for fc in response.function_calls or []:
            calls.append({"name": fc.name, "args": fc.args if fc.args is not None else {}, "id": fc.id,
                          "output": None, "is_error": False, "_no_args": fc.args is None})
    return calls


def results(content):
    return content, False
