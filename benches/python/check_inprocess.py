"""In-process `toolspec.check` of a 50-call conversation given as Python dicts, and DeepEval's
ToolCorrectnessMetric on the same case, in the same run (docs/performance.md).

    python benches/python/check_inprocess.py [SECONDS]

The conversation is an OpenAI Chat message list (the shape `client.chat.completions.create`
takes): a user turn, then 50 assistant turns of one tool call each, each followed by its tool
result. The spec (below) expects 8 of those calls by name and arguments, in order, and forbids
one tool. `toolspec.check` (the spec by path, compiled once and kept) and
`toolspec.Spec(...).check` are timed (reading `passed`), and `Spec(...).passes` (the verdicts
alone, no report built); then `passes` of the same conversation as JSON bytes, and `json.dumps`
of the dicts; then reading the whole report. The case DeepEval gets is the same: 50 tools
called (name, input parameters, output) and the 8 expected, with input parameters compared.
Each side is timed over about SECONDS (default 5) of repeated calls; the figure is the median of
7 rounds. `cargo bench --bench check -- inprocess` times the same case without Python.

Needs the toolspec-cli package; DeepEval (deepeval==4.3.1, benches/peers/setup.sh) is measured
when it can be imported.
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import toolspec

TOOLS = ["search_docs", "get_order", "lookup_customer", "check_stock", "send_email"]
EXPECTED = [
    ("lookup_customer", {"email": "ada@example.com"}),
    ("get_order", {"order_id": "ORD-1001"}),
    ("check_stock", {"sku": "SKU-7"}),
    ("get_order", {"order_id": "ORD-1002"}),
    ("search_docs", {"query": "refund policy"}),
    ("check_stock", {"sku": "SKU-9"}),
    ("lookup_customer", {"email": "bob@example.com"}),
    ("send_email", {"to": "ada@example.com", "subject": "Your order"}),
]
#: The spec, shared with the `inprocess` section of benches/check.rs.
SPEC = (Path(__file__).resolve().parent.parent / "inprocess.toolspec").read_text()


def conversation() -> list:
    """50 calls: the 8 expected ones spread among 42 others."""
    calls = []
    slots = {i * 6 + 2: e for i, e in enumerate(EXPECTED)}
    for i in range(50):
        if i in slots:
            calls.append(slots[i])
        else:
            name = TOOLS[i % len(TOOLS)]
            calls.append((name, {"query": f"q{i}", "page": i % 3}))
    messages = [{"role": "user", "content": "Sort out Ada's order ORD-1001 and ORD-1002."}]
    for i, (name, args) in enumerate(calls):
        cid = f"call_{i:03}"
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": cid,
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps(args)},
                    }
                ],
            }
        )
        messages.append({"role": "tool", "tool_call_id": cid, "content": f'{{"ok": true, "n": {i}}}'})
    return messages, calls


def per_call(f, seconds: float) -> float:
    """Median over 7 rounds of the time of one call of `f`, in seconds."""
    n = 1
    while True:
        start = time.perf_counter()
        for _ in range(n):
            f()
        took = time.perf_counter() - start
        if took > seconds / 7:
            break
        n *= 2
    rounds = []
    for _ in range(7):
        start = time.perf_counter()
        for _ in range(n):
            f()
        rounds.append((time.perf_counter() - start) / n)
    return statistics.median(rounds)


def deepeval_case(calls):
    os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")
    os.environ.setdefault("DEEPEVAL_DISABLE_PROGRESS_BAR", "YES")
    stdout, sys.stdout = sys.stdout, open(os.devnull, "w")  # deepeval prints banners
    try:
        from deepeval.metrics import ToolCorrectnessMetric
        from deepeval.models import DeepEvalBaseLLM
        from deepeval.test_case import LLMTestCase, ToolCall, ToolCallParams
    finally:
        sys.stdout = stdout

    class Stub(DeepEvalBaseLLM):
        """No LLM is asked (no `available_tools`); the metric wants a model all the same."""

        def __init__(self) -> None:
            super().__init__("stub")

        def load_model(self):
            return None

        def generate(self, *args, **kwargs):
            return json.dumps({"score": 1.0, "reason": "stub"})

        async def a_generate(self, *args, **kwargs):
            return self.generate(*args, **kwargs)

        def get_model_name(self):
            return "stub"

    def measure():
        metric = ToolCorrectnessMetric(
            threshold=1.0,
            evaluation_params=[ToolCallParams.INPUT_PARAMETERS],
            model=Stub(),
            include_reason=True,
            async_mode=False,
            should_consider_ordering=True,
        )
        case = LLMTestCase(
            input="Sort out Ada's order",
            tools_called=[
                ToolCall(name=n, input_parameters=a, output={"ok": True, "n": i})
                for i, (n, a) in enumerate(calls)
            ],
            expected_tools=[ToolCall(name=n, input_parameters=a) for n, a in EXPECTED],
        )
        return metric.measure(case)

    return measure


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    messages, calls = conversation()
    with tempfile.TemporaryDirectory() as d:
        spec = os.path.join(d, "fifty.toolspec")
        with open(spec, "w") as f:
            f.write(SPEC)
        report = toolspec.check(spec, messages, allow_outside_root=True)
        (r,) = report.results
        assert r.passed and r.raw["calls"] == 50 and r.format == "openai-chat", r.explain()
        t = per_call(lambda: toolspec.check(spec, messages, allow_outside_root=True).passed, seconds)
        print(f"toolspec.check, 50 calls as Python dicts: {t * 1e6:.0f} µs per check")
        compiled = toolspec.Spec(spec, allow_outside_root=True)
        assert compiled.check(messages).results[0].raw == r.raw
        t_spec = per_call(lambda: compiled.check(messages).passed, seconds)
        print(f"toolspec.Spec(...).check, same: {t_spec * 1e6:.0f} µs per check")
        assert compiled.passes(messages)
        t_passes = per_call(lambda: compiled.passes(messages), seconds)
        print(f"toolspec.Spec(...).passes, same (no report built): {t_passes * 1e6:.0f} µs per check")
        # The same conversation as JSON text (what a file holds: read by parsing it), and the
        # time Python's json encoder takes to write that text.
        data = json.dumps(messages).encode()
        t_dumps = per_call(lambda: json.dumps(messages).encode(), seconds)
        t_bytes = per_call(lambda: compiled.passes(data), seconds)
        t_compile = per_call(lambda: toolspec.Spec(spec, allow_outside_root=True), seconds)
        print(
            f"  the same conversation as JSON bytes: {t_bytes * 1e6:.0f} µs per check (json.dumps "
            f"of the dicts alone: {t_dumps * 1e6:.0f} µs; compiling the spec, done once: "
            f"{t_compile * 1e6:.0f} µs)"
        )
        # Reading the results too: every result and finding as Python objects.
        t_results = per_call(lambda: compiled.check(messages).results[0].findings, seconds)
        print(f"toolspec.Spec(...).check(...).results, the whole report: {t_results * 1e6:.0f} µs")
        try:
            measure = deepeval_case(calls)
        except ImportError:
            print("DeepEval: not installed (benches/peers/setup.sh)")
            return
        # The metric writes to standard output on each measure.
        with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(
            devnull
        ), contextlib.redirect_stderr(devnull):
            score = measure()
            d_t = per_call(measure, seconds)
        print(
            f"DeepEval ToolCorrectnessMetric, same case: {d_t * 1e6:.0f} µs per measure "
            f"(score {score:.2f}); toolspec.check is {d_t / t:.1f}× as fast, "
            f"Spec.check {d_t / t_spec:.1f}×, Spec.passes {d_t / t_passes:.1f}×"
        )


if __name__ == "__main__":
    main()
