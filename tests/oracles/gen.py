"""Seeded generators shared by the families: argument values, string splits, ids."""

import json
import random

WORDS = ["Oslo", "Lisboa", "naïve", "日本", "emoji 🚀", 'quote " and \\ back', "tab\tnew\nline",
         "", " ", "<b>&amp;</b>", "\u2028sep", "ünïcödé", "a/b", "null", "{}", "[1,2]"]
KEYS = ["city", "q", "query", "path", "n", "units", "limit", "filter", "x", "deep", "ids",
        "flag", "é", "key with space", "a.b", "$ref"]
TOOLS = ["get_weather", "search", "read_file", "write_file", "run", "lookup_order",
         "calc", "send_email", "browse", "mcp__fs__read"]


def scalar(rng: random.Random):
    k = rng.randrange(9)
    if k == 0:
        return rng.choice(WORDS)
    if k == 1:
        return rng.randint(-1000, 10**6)
    if k == 2:
        return round(rng.uniform(-1e4, 1e4), rng.randrange(1, 8))
    if k == 3:
        return rng.choice([True, False])
    if k == 4:
        return None
    if k == 5:
        return rng.choice([0, -0.5, 1e-7, 2.5e21, 123456789012, 0.1])
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz éü日🚀\"\\/\n") for _ in range(rng.randrange(0, 12)))


def value(rng: random.Random, depth=0):
    k = rng.randrange(10)
    if depth < 3 and k == 0:
        return [value(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    if depth < 3 and k == 1:
        return obj(rng, depth + 1)
    return scalar(rng)


def obj(rng: random.Random, depth=0, size=None):
    n = rng.randrange(0, 5) if size is None else size
    return {rng.choice(KEYS) + ("" if rng.random() < 0.7 else str(i)): value(rng, depth) for i in range(n)}


def args(rng: random.Random):
    """Tool arguments: an object, mostly small, sometimes empty or nested."""
    r = rng.random()
    if r < 0.1:
        return {}
    return obj(rng, 0, rng.randrange(1, 5))


def dumps(v, rng: random.Random | None = None) -> str:
    """JSON text as providers write it: compact or spaced, ASCII-escaped or not."""
    if rng is None:
        return json.dumps(v, ensure_ascii=False, separators=(",", ":"))
    sep = rng.choice([(",", ":"), (", ", ": ")])
    return json.dumps(v, ensure_ascii=rng.random() < 0.3, separators=sep)


def split(rng: random.Random, s: str, max_pieces=8, empty=True) -> list[str]:
    """`s` cut into 1..max_pieces pieces at random character positions (empty pieces allowed)."""
    if not s:
        return [""] if empty else []
    n = rng.randrange(1, max_pieces + 1)
    cuts = sorted(rng.randrange(0, len(s) + 1) for _ in range(n - 1))
    pieces, last = [], 0
    for c in cuts + [len(s)]:
        pieces.append(s[last:c])
        last = c
    if not empty:
        pieces = [p for p in pieces if p] or [s]
    return pieces


def ident(rng: random.Random, prefix: str) -> str:
    return prefix + "".join(rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") for _ in range(rng.randrange(6, 24)))


def tool(rng: random.Random) -> str:
    return rng.choice(TOOLS)


def sse_plain(events: list[tuple[str | None, object]]) -> str:
    """The same events as plainly framed server-sent events (what the SDKs are fed)."""
    return "".join(("" if n is None else f"event: {n}\n") + "data: " + dumps(p) + "\n\n" for n, p in events)


def sse(events: list[tuple[str | None, object]], rng: random.Random) -> str:
    """Server-sent events text of (event name or None, JSON payload) pairs: LF or CRLF line
    ends, comments, a payload sometimes written over several `data:` lines (joined with "\n",
    which JSON reads as whitespace)."""
    nl = "\r\n" if rng.random() < 0.15 else "\n"
    out = []
    for name, payload in events:
        if rng.random() < 0.05:
            out.append(": keep-alive" + nl + nl)
        lines = [] if name is None else [f"event: {name}"]
        if rng.random() < 0.1:
            lines += ["data: " + line for line in json.dumps(payload, indent=1).split("\n")]
        else:
            lines.append("data: " + dumps(payload, rng))
        out.append(nl.join(lines) + nl + nl)
    text = "".join(out)
    if rng.random() < 0.2:
        text = text.rstrip("\r\n")  # the blank line after the last event is often lost
    return text


def jsonl(payloads: list[object], rng: random.Random) -> str:
    """The same payloads one per line, as loggers save them."""
    nl = "\r\n" if rng.random() < 0.1 else "\n"
    return nl.join(dumps(p, rng) for p in payloads) + (nl if rng.random() < 0.8 else "")


def argument_string_rule(text: str):
    """FORMATS §0: an argument string is decoded; blank → {}; not JSON → kept as the string."""
    if not text.strip():
        return {}
    try:
        return json.loads(text)
    except ValueError:
        return text


def output_rule(v):
    """FORMATS §0: an output string verbatim; a non-empty list made only of text blocks → the
    texts joined with "\\n"; anything else as JSON."""
    if isinstance(v, list) and v and all(
            isinstance(b, dict) and b.get("type") in ("text", "input_text", "output_text") and isinstance(b.get("text"), str)
            for b in v):
        return "\n".join(b["text"] for b in v)
    return v
