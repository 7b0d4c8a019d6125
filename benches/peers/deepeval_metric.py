"""Cases per CPU-second of DeepEval's ToolCorrectnessMetric, the baseline of `toolspec score
--profile deepeval` (see docs/performance.md).

    python deepeval_metric.py CASES.jsonl [SECONDS]

CASES.jsonl is what `toolspec score --profile deepeval` reads: {id, tools_called,
expected_tools, options}. Every case is parsed first (json.loads, not timed); then the loop
DeepEval users run is timed: build the metric and the test case, `measure()` (reason included,
as toolspec writes one), for every case, over and over for about SECONDS (default 10). CPU
time is the process's (time.process_time), so a busy machine does not inflate it. The LLM part
(tool selection over available_tools) is never asked: a stub model answers a fixed score, as
in ../shared/oracles/deepeval/oracle.py.

Needs deepeval==4.3.1 (benches/peers/setup.sh installs it in a virtual environment).
"""
import json
import os
import sys
import time

os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")
os.environ.setdefault("DEEPEVAL_DISABLE_PROGRESS_BAR", "YES")
_stdout = sys.stdout
sys.stdout = open(os.devnull, "w")  # deepeval prints banners

import deepeval  # noqa: E402
from deepeval.metrics import ToolCorrectnessMetric  # noqa: E402
from deepeval.models import DeepEvalBaseLLM  # noqa: E402
from deepeval.test_case import LLMTestCase, ToolCall, ToolCallParams  # noqa: E402


class Stub(DeepEvalBaseLLM):
    def __init__(self, score):
        self.score = 1.0 if score is None else score
        super().__init__("stub")

    def load_model(self):
        return None

    def generate(self, *args, **kwargs):
        return json.dumps({"score": self.score, "reason": "stub"})

    async def a_generate(self, *args, **kwargs):
        return self.generate(*args, **kwargs)

    def get_model_name(self):
        return "stub"


PARAMS = {"INPUT_PARAMETERS": ToolCallParams.INPUT_PARAMETERS, "OUTPUT": ToolCallParams.OUTPUT}


def tool(d):
    kw = {"name": d["name"], "input_parameters": d.get("input_parameters"), "output": d.get("output")}
    for k in ("type", "description", "reasoning"):
        if d.get(k) is not None:
            kw[k] = d[k]
    return ToolCall(**kw)


def score(case):
    opts = case.get("options") or {}
    avail = opts.get("available_tools")
    metric = ToolCorrectnessMetric(
        available_tools=[tool(t) for t in avail] if avail else None,
        threshold=opts.get("threshold", 0.5),
        evaluation_params=[PARAMS[p] for p in opts.get("evaluation_params", [])],
        model=Stub(opts.get("llm_tool_selection_score")),
        include_reason=True,
        async_mode=False,
        strict_mode=bool(opts.get("strict_mode", False)),
        should_exact_match=bool(opts.get("should_exact_match", False)),
        should_consider_ordering=bool(opts.get("should_consider_ordering", False)),
    )
    tc = LLMTestCase(
        input=case.get("input", "bench"),
        tools_called=[tool(t) for t in case.get("tools_called", [])],
        expected_tools=[tool(t) for t in case.get("expected_tools", [])],
    )
    try:
        return metric.measure(tc, _show_indicator=False)
    except Exception:  # a case DeepEval rejects still cost its time
        return None


def main():
    path = sys.argv[1]
    budget = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
    cases = [json.loads(l) for l in open(path) if l.strip()]
    for c in cases[:200]:  # warm-up
        score(c)
    n, cpu0, wall0 = 0, time.process_time(), time.perf_counter()
    while time.process_time() - cpu0 < budget:
        for c in cases:
            score(c)
            n += 1
            if n % 1000 == 0 and time.process_time() - cpu0 >= budget:
                break
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    print(f"deepeval {deepeval.__version__} ToolCorrectnessMetric: {n} cases, {cpu:.2f} CPU-s, "
          f"{wall:.2f} s wall: {n / cpu:.0f} cases/CPU-s, {1e6 * cpu / n:.0f} us/case", file=_stdout)


if __name__ == "__main__":
    main()
