// Renders the bundled examples' `--format html` report in headless Chromium and checks it:
// no console error, no request leaves the page, and the DOM holds every spec, every transcript
// and the counts of the same run's `--format json` report; the status filter shows the failing
// pairs. With --screenshot FILE, writes a screenshot of the page with its failing pair open.
//
//   node tests/browser/html-report.test.mjs [--bin target/debug/toolspec] [--screenshot FILE]
//
// Needs /usr/bin/chromium (Debian's `chromium`) and `npm ci` in tests/browser (playwright-core).
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import assert from 'node:assert/strict';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const bin = resolve(arg('--bin', join(root, 'target/debug/toolspec')));
const shot = arg('--screenshot');
const examples = join(root, 'examples');
const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
assert.ok(existsSync(bin), `no toolspec binary at ${bin}`);
assert.ok(existsSync(chromiumPath), `no Chromium at ${chromiumPath}`);

const work = mkdtempSync(join(tmpdir(), 'toolspec-html-'));
// `check` exits 1 when a pair fails (the examples hold one failing run): not an error here.
const run = (args) => {
  try {
    return execFileSync(bin, args, { cwd: examples, encoding: 'utf8' });
  } catch (e) {
    if (e.status === 1) return e.stdout;
    throw e;
  }
};
const page_path = join(work, 'report.html');
const stdout = run(['check', '.', '--format', 'html', '--output-file', page_path]);
assert.equal(stdout, '', '--output-file writes nothing on stdout');
const report = JSON.parse(run(['check', '.', '--format', 'json']));

const profile = join(work, 'profile');
const context = await chromium.launchPersistentContext(profile, {
  executablePath: chromiumPath,
  headless: true,
  viewport: { width: 1080, height: 900 },
  args: [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
  ],
});
const problems = [];
const url = pathToFileURL(page_path).href;
try {
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => { if (r.url() !== url) problems.push(`request: ${r.url()}`); });
  await page.goto(url, { waitUntil: 'load' });

  const dom = await page.evaluate(() => {
    const counts = {};
    for (const dd of document.querySelectorAll('#counts dd')) counts[dd.dataset.count] = Number(dd.textContent);
    const specs = [...document.querySelectorAll('#spec-table tbody tr')].map((tr) => ({
      spec: tr.dataset.spec,
      passed: Number(tr.querySelector('.passed').textContent),
      total: Number(tr.querySelector('.total').textContent),
    }));
    const pairs = [...document.querySelectorAll('details.pair')].map((d) => ({
      spec: d.dataset.spec,
      status: d.dataset.status,
      transcript: d.querySelector('summary .tr').textContent,
    }));
    const sources = [...document.querySelectorAll('details.source summary')].map((s) => s.textContent);
    return { counts, specs, pairs, sources, charts: document.querySelectorAll('svg.chart').length };
  });

  const s = report.summary;
  for (const k of ['passed', 'failed', 'checked', 'specs', 'transcripts', 'errors', 'warnings']) {
    assert.equal(dom.counts[k], s[k], `count ${k}`);
  }
  const key = (r) => `${r.spec_file}::${r.spec}`;
  const perSpec = new Map();
  for (const r of report.results) {
    const row = perSpec.get(key(r)) ?? { passed: 0, total: 0 };
    row.total += 1;
    row.passed += r.passed ? 1 : 0;
    perSpec.set(key(r), row);
  }
  assert.deepEqual(
    dom.specs.map((r) => [r.spec, r.passed, r.total]).sort(),
    [...perSpec].map(([spec, r]) => [spec, r.passed, r.total]).sort(),
    'the spec table holds every spec with its counts',
  );
  const expected = report.results.map((r) => ({
    spec: key(r),
    status: r.passed ? 'pass' : 'fail',
    transcript: r.record ? `${r.transcript}:${r.record}` : r.transcript,
  }));
  const order = (a) => a.map((p) => JSON.stringify(p)).sort();
  assert.deepEqual(order(dom.pairs), order(expected), 'a section per spec × transcript');
  const firstPass = dom.pairs.findIndex((p) => p.status === 'pass');
  assert.ok(dom.pairs.slice(firstPass).every((p) => p.status === 'pass'), 'failing pairs first');
  assert.deepEqual(dom.sources, [...new Set(report.results.map((r) => r.spec_file))].sort());
  assert.equal(dom.charts, 2, 'the pass-rate and score charts');

  // The filter: failing pairs only.
  await page.selectOption('#filter select[name=status]', 'fail');
  const shown = await page.$$eval('details.pair', (ds) => ds.filter((d) => d.style.display !== 'none').length);
  assert.equal(shown, s.failed, 'the status filter shows the failing pairs');
  assert.equal(await page.textContent('#shown'), `${s.failed} of ${s.checked} shown`);
  await page.selectOption('#filter select[name=status]', '');

  if (shot) {
    await page.click('#open-failing');
    await page.screenshot({ path: shot, fullPage: true, clip: { x: 0, y: 0, width: 1080, height: 880 } });
  }
  await page.close();
} finally {
  await context.close();
  rmSync(work, { recursive: true, force: true });
}
assert.deepEqual(problems, [], 'no console error, no request');
console.log('html report: ok (%d pairs, %d specs)', report.results.length, report.summary.specs);
