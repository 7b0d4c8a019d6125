// Cases per CPU-second of Evalite's toolCallAccuracy, the baseline of `toolspec score --profile
// evalite` (see docs/performance.md).
//
//   EVALITE_DIR=DIR node evalite_scorer.mjs CASES.jsonl [SECONDS]
//
// CASES.jsonl is what `toolspec score --profile evalite` reads: {id, actualCalls, expectedCalls,
// mode, weights}. Every case is parsed first (JSON.parse, not timed), as a user who already holds
// the calls as JavaScript objects would; then the scorer is run on every case, over and over for
// about SECONDS (default 10). CPU time is the process's (process.cpuUsage). Needs
// evalite@1.0.0-beta.16 in DIR (benches/peers/setup.sh).
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import path from "node:path";
import fs from "node:fs";

const dir = process.env.EVALITE_DIR || "/tmp/toolspec-peers/evalite";
const req = createRequire(path.join(path.resolve(dir), "package.json"));
const { toolCallAccuracy } = await import(pathToFileURL(req.resolve("evalite/scorers/deterministic")).href);
const version = JSON.parse(
  fs.readFileSync(path.join(path.resolve(dir), "node_modules", "evalite", "package.json"), "utf8"),
).version;

const file = process.argv[2];
const budget = Number(process.argv[3] || 10) * 1e6; // microseconds
const cases = fs
  .readFileSync(file, "utf8")
  .split("\n")
  .filter((l) => l.trim() !== "")
  .map((l) => JSON.parse(l))
  .map((c) => {
    const o = { actualCalls: c.actualCalls, expectedCalls: c.expectedCalls };
    if (c.mode != null) o.mode = c.mode;
    if (c.weights != null) o.weights = c.weights;
    return o;
  });

async function one(o) {
  try {
    return (await toolCallAccuracy(o)).score;
  } catch {
    return 0; // a case Evalite rejects still cost its time
  }
}

for (const o of cases.slice(0, 2000)) await one(o); // warm-up (JIT)
const cpu0 = process.cpuUsage();
const wall0 = process.hrtime.bigint();
let n = 0;
const used = () => {
  const u = process.cpuUsage(cpu0);
  return u.user + u.system;
};
outer: for (;;) {
  for (const o of cases) {
    await one(o);
    n++;
    if (n % 1000 === 0 && used() >= budget) break outer;
  }
}
const cpu = used() / 1e6;
const wall = Number(process.hrtime.bigint() - wall0) / 1e9;
console.log(
  `evalite ${version} toolCallAccuracy (node ${process.version}): ${n} cases, ${cpu.toFixed(2)} CPU-s, ` +
    `${wall.toFixed(2)} s wall: ${Math.round(n / cpu)} cases/CPU-s`,
);
