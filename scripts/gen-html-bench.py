#!/usr/bin/env python3
"""Write a project of N spec x transcript pairs for the HTML report benchmark (docs/performance.md).

    scripts/gen-html-bench.py OUT [N]   (default N: 10000)

One spec file with one spec, and a dataset (`runs/dataset.jsonl`, one transcript per line, in
toolspec's own call-list format) of N runs of a support agent: most right, one in four failing
(an amount over the limit, a missing call, a forbidden call), so both kinds of section are sized.
"""
import json
import os
import random
import sys

out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
rng = random.Random(7)
os.makedirs(os.path.join(out, "runs"), exist_ok=True)
with open(os.path.join(out, "toolspec.toml"), "w") as f:
    f.write("# benchmark project\n")
with open(os.path.join(out, "refund.toolspec"), "w") as f:
    f.write(
        "spec refund {\n"
        '  transcripts "runs/*.jsonl"\n'
        "  customer: call lookup_customer(email: /@/)\n"
        "  refund: call issue_refund(order_id: /^ORD-[0-9]+$/, amount_cents: 1..=12999)\n"
        "  call send_email(to: customer.args.email)\n"
        "  never close_account\n"
        "}\n"
    )
with open(os.path.join(out, "runs", "dataset.jsonl"), "w") as f:
    for i in range(n):
        email = f"user{i}@example.com"
        amount = rng.randint(100, 12999)
        calls = [
            {"name": "lookup_customer", "args": {"email": email}},
            {"name": "get_order", "args": {"order_id": f"ORD-{i}"}},
            {"name": "issue_refund", "args": {"order_id": f"ORD-{i}", "amount_cents": amount, "reason": "damaged in transit"}},
            {"name": "send_email", "args": {"to": email, "subject": "Your refund", "body": "We have refunded your order."}},
        ]
        kind = i % 12
        if kind == 1:
            calls[2]["args"]["amount_cents"] = 14999 + i
        elif kind == 5:
            del calls[3]
        elif kind == 9:
            calls.insert(3, {"name": "close_account", "args": {"customer_id": f"C-{i}"}})
        f.write(json.dumps(calls) + "\n")
