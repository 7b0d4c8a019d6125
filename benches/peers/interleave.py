"""toolspec score against a peer, per CPU-second, the two timed in turn.

    python3 interleave.py BIN PROFILE PEER_CASES ROUNDS PEER_SECONDS FILE[:THREADS]... -- [PEER_CMD...]

Each round runs the peer's driver (PEER_CMD PEER_CASES PEER_SECONDS, which prints `N
cases/CPU-s`), then `BIN score --profile PROFILE -j THREADS FILE` for each FILE (output to
/dev/null; its CPU time is the child's user + system time, from wait4). The load of a shared
machine moves between minutes and moves both figures of a round alike, so each round gives a
ratio; the medians over the rounds are reported, of each figure and of each ratio. Without
PEER_CMD, toolspec alone.
"""
import os
import re
import statistics
import subprocess
import sys


def peer_rate(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    m = re.search(r"(\d+) cases/CPU-s", out)
    if not m:
        sys.exit(f"no `cases/CPU-s` in the peer's output: {out!r}")
    return float(m.group(1)), out.strip()


def toolspec_cpu(binary, profile, path, threads):
    """CPU-seconds and peak RSS (KB) of one `toolspec score` run."""
    with open(os.devnull, "wb") as null:
        p = subprocess.Popen(
            [binary, "score", "--profile", profile, "-j", str(threads), path],
            stdout=null,
            stderr=subprocess.DEVNULL,
        )
        _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"toolspec score --profile {profile} {path} failed ({status})")
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss


def times(x):
    return f"{x:.0f}x" if x >= 100 else f"{x:.2f}x"


def span(xs, fmt):
    return f"median {fmt(statistics.median(xs))} (range {fmt(min(xs))}-{fmt(max(xs))})"


def main():
    args = sys.argv[1:]
    sep = args.index("--")
    binary, profile, peer_cases, rounds, secs, *files = args[:sep]
    peer_cmd = args[sep + 1 :] + [peer_cases, secs] if args[sep + 1 :] else None
    runs = []
    for f in files:
        path, _, j = f.rpartition(":") if ":" in f else (f, "", "1")
        runs.append((path, int(j)))
    cases = {path: sum(1 for l in open(path, "rb") if l.strip()) for path, _ in runs}
    peers, rates, rss = [], {r: [] for r in runs}, {r: 0 for r in runs}
    text = ""
    for k in range(int(rounds)):
        row = [f"round {k + 1}:"]
        if peer_cmd:
            rate, text = peer_rate(peer_cmd)
            peers.append(rate)
            row.append(f"peer {rate:,.0f} cases/CPU-s;")
        for r in runs:
            cpu, maxrss = toolspec_cpu(binary, profile, *r)
            rates[r].append(cases[r[0]] / cpu)
            rss[r] = max(rss[r], maxrss)
            ratio = f" ({times(rates[r][-1] / peers[-1])})" if peer_cmd else ""
            row.append(f"{os.path.basename(r[0])} -j {r[1]} {rates[r][-1]:,.0f}{ratio};")
        print(" ".join(row).rstrip(";"), flush=True)
    if peer_cmd:
        print(f"peer, last round: {text}")
        print(f"peer: {span(peers, lambda x: f'{x:,.0f}')} cases/CPU-s over {rounds} rounds")
    for r in runs:
        line = (f"toolspec score --profile {profile} -j {r[1]} {r[0]} ({cases[r[0]]} cases): "
                f"{span(rates[r], lambda x: f'{x:,.0f}')} cases/CPU-s, max RSS {rss[r] / 1024:.1f} MB")
        if peer_cmd:
            ratios = [t / p for t, p in zip(rates[r], peers)]
            line += f"; to the peer of the same round: {span(ratios, times)}"
        print(line)


if __name__ == "__main__":
    main()
