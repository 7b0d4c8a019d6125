"""Inputs built to exhaust memory never end the Python interpreter: each reproduction runs in a
child interpreter whose address space is capped (`RLIMIT_AS`, the `ulimit -v` of the command
line's hostile tests), and the child must finish with a report that holds the budget's finding
and every other result (`docs/robustness.md`, *Built-in rules*)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Dict

# 1 GiB, as the command line's tests: far below what the unbounded schema check took (a DAG of
# 20 levels took 1.5 GB, one of 24 ended the interpreter).
CAP = 1 << 30

CHILD = textwrap.dedent(
    """
    import json, os, resource, sys
    resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap}))
    import toolspec

    os.chdir(sys.argv[1])
    messages = json.load(open("runs/dag.json"))
    out = {{}}
    for how, report in [
        ("check_project", toolspec.check_project(".")),
        ("check", toolspec.check("spec.toolspec", messages)),
    ]:
        out[how] = [
            {{
                "transcript": r.transcript,
                "passed": r.passed,
                "findings": [{{"code": f.code, "message": f.message}} for f in r.findings],
            }}
            for r in report.results
        ]
    print(json.dumps(out))
    """
)


def dag(levels: int, keyword: str) -> Dict[str, Any]:
    """A `$ref` DAG for `x`: each level's two branches, under `keyword`, refer to the next."""
    defs: Dict[str, Any] = {}
    for i in range(levels):
        nxt = {"$ref": f"#/$defs/d{i + 1}"}
        defs[f"d{i}"] = {keyword: [nxt, nxt]}
    defs[f"d{levels}"] = {"type": "string"}
    return {"type": "object", "$defs": defs, "properties": {"x": {"$ref": "#/$defs/d0"}}}


def test_a_ref_dag_schema_does_not_end_the_interpreter(tmp_path: Path) -> None:
    """A 2 KB transcript declaring `$ref` DAGs of 24 levels under `anyOf`, `allOf` and `oneOf`
    (which ended the interpreter with an allocation failure), checked by `check_project` and by
    `check` with the transcript as Python objects: each call gets a `rule-limit` note, the other
    tool's call is checked, and the good transcript beside it passes."""
    keywords = ["anyOf", "allOf", "oneOf"]
    tools = [
        {"type": "function", "function": {"name": k, "parameters": dag(24, k)}}
        for k in keywords
    ]
    tools.append(
        {
            "type": "function",
            "function": {"name": "lookup", "parameters": {"type": "object", "required": ["q"]}},
        }
    )
    calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": k, "arguments": '{"x": 1}'}}
        for i, k in enumerate(keywords)
    ]
    calls.append(
        {"id": "c9", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
    )
    dag_json = {
        "model": "m",
        "tools": tools,
        "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": None, "tool_calls": calls},
        ],
    }
    good = {
        "model": "m",
        "messages": [
            {"role": "user", "content": "find x"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "g",
                        "type": "function",
                        "function": {"name": "lookup", "arguments": '{"q": "x"}'},
                    }
                ],
            },
        ],
    }
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "dag.json").write_text(json.dumps(dag_json))
    (tmp_path / "runs" / "good.json").write_text(json.dumps(good))
    (tmp_path / "spec.toolspec").write_text(
        'spec lookup_once {\n  transcripts "runs/*"\n  call lookup\n}\n'
    )
    child = subprocess.run(
        [sys.executable, "-c", CHILD.format(cap=CAP), str(tmp_path)],
        capture_output=True,
        timeout=600,
    )
    assert child.returncode == 0, child.stderr.decode(errors="replace")[-4000:]
    out = json.loads(child.stdout)
    for how, results in out.items():
        by_name = {Path(r["transcript"]).name: r for r in results}
        if how == "check_project":
            assert by_name["good.json"]["passed"], by_name
        findings = by_name["dag.json"]["findings"]
        notes = [f["message"] for f in findings if f["code"] == "rule-limit"]
        assert len(notes) == 3, (how, findings)
        for keyword, note in zip(keywords, notes):
            assert (
                f"checking this call of `{keyword}` against its schema would take more than"
                " 1000000 steps" in note
            ), (how, note)
        violations = [f["message"] for f in findings if f["code"] == "schema-violation"]
        assert any('"q" is a required property' in m for m in violations), (how, findings)
