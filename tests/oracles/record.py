"""Record the oracle fixtures: seeded cases of each format family, each read by the format
owner's own code (an official SDK's stream accumulator, a framework's loader), with toolspec's universal rules applied
on top. Writes `cases/<family>.jsonl.gz`: a header line (seed, count, the SDK versions that gave the
truth), then one case a line: `{"name", "text", "calls", "tags"}`. The Rust test
`tests/it/readers_oracles.rs` reads every case with toolspec and compares, so `cargo test` needs
no SDK. See README.md in this folder for how to re-record.

    python record.py [--count N] [--family NAME ...] [--out DIR]
    python record.py --check     # record again in memory; fail unless the committed files say the same
"""

import argparse
import gzip
import importlib
import importlib.metadata
import json
import os
import random
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

FAMILIES = ["anthropic", "openai_chat", "openai_responses", "gemini", "langchain", "pydantic_ai"]
DEFAULT_COUNT = 1000


def same_call(earlier, later):
    """Whether `later` repeats `earlier`: same name, and the same arguments or none recorded
    (`_no_args`: nothing to tell them apart by)."""
    return earlier["name"] == later["name"] and (later.get("_no_args") or earlier["args"] == later["args"])


def universal(items, results):
    """toolspec's universal rules (docs/formats.md, "Universal rules"): a call whose id was
    already seen with the same name and arguments (or none recorded) is the same call (counted once, at its first
    place); a result links to the latest call with its id, and the first result wins; a result
    for no call is an orphan (not a call)."""
    calls, decisions = [], set()
    for it in items:
        if "result_for" in it:
            target = next((c for c in reversed(calls) if c["id"] == it["result_for"]), None)
            if target is None:
                decisions.add("orphan-result")
                continue
            if target.get("_answered"):
                decisions.add("first-result-wins")
                continue
            target["output"], target["is_error"] = results(it["content"])
            target["_answered"] = True
            continue
        if it["id"] and any(c["id"] == it["id"] and same_call(c, it) for c in calls):
            decisions.add("duplicate-id")
            continue
        calls.append(dict(it))
    for c in calls:
        c.pop("_answered", None)
        c.pop("_no_args", None)
    return calls, decisions


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=DEFAULT_COUNT)
    ap.add_argument("--family", action="append")
    ap.add_argument("--out", default=os.path.join(HERE, "cases"))
    ap.add_argument("--check", action="store_true",
                    help="compare with the files in --out instead of writing them; exit 1 on a difference")
    opts = ap.parse_args()
    if not opts.check:
        os.makedirs(opts.out, exist_ok=True)
    failed = False
    # The SDKs' models warn when a block type they type strictly holds another (unknown
    # blocks): the warning is theirs, the data is what the case wants.
    warnings.simplefilter("ignore")
    for fam_name in opts.family or FAMILIES:
        fam = importlib.import_module("fam_" + fam_name)
        rng = random.Random(fam.SEED)
        started = time.time()
        lines, refused, tags = [], 0, {}
        for i in range(opts.count):
            case = fam.generate(rng, i)
            try:
                items = fam.oracle(case)
            except Exception as e:  # noqa: BLE001 - a case the SDK refuses is counted, not kept
                refused += 1
                print(f"  {fam_name} {i}: the SDK refused: {type(e).__name__}: {e}"[:300], file=sys.stderr)
                continue
            calls, decisions = universal(items, fam.results)
            case["tags"] |= decisions
            for t in case["tags"]:
                tags[t] = tags.get(t, 0) + 1
            lines.append({"name": f"{fam_name}-{i:05d}{case['ext']}", "text": case["text"],
                          "calls": calls, "tags": sorted(case["tags"])})
        header = {"family": fam_name, "format": fam.FORMAT, "seed": fam.SEED, "count": opts.count,
                  "recorded": len(lines), "refused_by_sdk": refused,
                  "sdk": {p: importlib.metadata.version(p) for p in fam.SDK},
                  "python": sys.version.split()[0], "tags": dict(sorted(tags.items()))}
        path = os.path.join(opts.out, fam_name + ".jsonl.gz")
        if opts.check:
            failed |= not check(path, header, lines, time.time() - started)
            continue
        text = "".join(json.dumps(obj, sort_keys=True) + "\n" for obj in [header] + lines)
        # mtime 0: the same cases give the same bytes.
        with open(path, "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as z:
            z.write(text.encode("utf-8"))
        print(f"{fam_name}: {len(lines)} cases recorded, {refused} refused by the SDK, "
              f"{time.time() - started:.1f} s -> {os.path.relpath(path, HERE)}")
    return 1 if failed else 0


def check(path, header, lines, seconds):
    """Whether the recording at `path` is what the installed SDKs give now: the same header (but
    the Python version, which does not change what the SDKs build) and the same cases, compared
    as JSON. Prints the first differences."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        committed = [json.loads(line) for line in f]
    # Through JSON both ways, so tuples and lists compare alike.
    fresh = [json.loads(json.dumps(obj, sort_keys=True)) for obj in [header] + lines]
    for h in (committed[0], fresh[0]):
        h.pop("python", None)
    diffs = []
    if committed[0] != fresh[0]:
        diffs.append(f"header: committed {json.dumps(committed[0], sort_keys=True)}\n"
                     f"        now       {json.dumps(fresh[0], sort_keys=True)}")
    for old, new in zip(committed[1:], fresh[1:]):
        if old != new:
            diffs.append(f"{new.get('name')}: committed calls {json.dumps(old.get('calls'))[:400]}\n"
                         f"        now calls {json.dumps(new.get('calls'))[:400]}")
    if len(committed) != len(fresh):
        diffs.append(f"{len(committed) - 1} cases committed, {len(fresh) - 1} recorded now")
    name = os.path.basename(path)
    if diffs:
        print(f"{name}: {len(diffs)} differences between the committed recording and the SDKs now "
              f"({seconds:.1f} s):", file=sys.stderr)
        for d in diffs[:10]:
            print("  " + d, file=sys.stderr)
        return False
    print(f"{name}: the {len(fresh) - 1} committed cases are what the SDKs build ({seconds:.1f} s)")
    return True


if __name__ == "__main__":
    sys.exit(main())
