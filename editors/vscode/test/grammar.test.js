// The TextMate grammar (syntaxes/toolspec.tmLanguage.json) run by the engine VS Code runs it with
// (vscode-textmate on the Oniguruma WebAssembly build): every .toolspec file of the repository and
// every `toolspec` block of docs/*.md tokenizes with no non-whitespace text left unscoped, every
// word of the language's tables (src/syntax/words.rs) gets its scope, and the scopes of one rich
// spec equal a recorded snapshot (UPDATE_SNAPSHOTS=1 rewrites it).
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const HERE = __dirname;
const ROOT = path.resolve(HERE, '../../..');
const SNAPSHOT_SPEC = 'specs/02_refund_flow.toolspec';
const SNAPSHOT = path.join(HERE, 'snapshots', 'scopes.txt');

let grammarPromise;
function grammar() {
  grammarPromise ??= (async () => {
    const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
    await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
    const registry = new vsctm.Registry({
      onigLib: Promise.resolve({
        createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
        createOnigString: (s) => new oniguruma.OnigString(s),
      }),
      loadGrammar: async (scopeName) => {
        if (scopeName !== 'source.toolspec') return null;
        const file = path.join(HERE, '..', 'syntaxes', 'toolspec.tmLanguage.json');
        return vsctm.parseRawGrammar(fs.readFileSync(file, 'utf8'), file);
      },
    });
    return registry.loadGrammar('source.toolspec');
  })();
  return grammarPromise;
}

// Tokens of a text: { line, col, text, scopes } with the root scope left out.
async function tokenize(text) {
  const g = await grammar();
  let stack = vsctm.INITIAL;
  const out = [];
  text.split('\n').forEach((line, i) => {
    const r = g.tokenizeLine(line, stack);
    for (const t of r.tokens) {
      out.push({
        line: i + 1,
        col: t.startIndex + 1,
        text: line.slice(t.startIndex, t.endIndex),
        scopes: t.scopes.slice(1),
      });
    }
    stack = r.ruleStack;
  });
  return out;
}

// Every .toolspec file the repository tracks, and the `toolspec` blocks of docs/*.md.
function corpus() {
  const files = execFileSync('git', ['ls-files', '-z', '*.toolspec'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean);
  const out = files.map((f) => ({ name: f, text: fs.readFileSync(path.join(ROOT, f), 'utf8') }));
  for (const doc of fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md'))) {
    const text = fs.readFileSync(path.join(ROOT, 'docs', doc), 'utf8');
    const re = /^```toolspec\n([\s\S]*?)^```/gm;
    let m;
    while ((m = re.exec(text))) {
      const line = text.slice(0, m.index).split('\n').length;
      out.push({ name: `docs/${doc}:${line}`, text: m[1] });
    }
  }
  return out;
}

test('the corpus is the repository\'s specs and the docs\' examples', () => {
  const c = corpus();
  assert.ok(c.filter((f) => f.name.startsWith('specs/')).length >= 40, 'specs/ holds 40 specs or more');
  assert.ok(c.filter((f) => f.name.startsWith('docs/')).length >= 20, 'the docs hold 20 examples or more');
});

test('every spec tokenizes with no unscoped text', async () => {
  const unscoped = [];
  let tokens = 0;
  for (const { name, text } of corpus()) {
    for (const t of await tokenize(text)) {
      tokens++;
      if (t.scopes.length === 0 && /\S/.test(t.text)) {
        unscoped.push(`${name}:${t.line}:${t.col}: ${JSON.stringify(t.text)}`);
      }
    }
  }
  assert.ok(tokens > 5000, `${tokens} tokens`);
  assert.deepEqual(unscoped, []);
});

test('no spec has text marked illegal', async () => {
  const illegal = [];
  for (const { name, text } of corpus()) {
    for (const t of await tokenize(text)) {
      if (t.scopes.some((s) => s.startsWith('invalid.'))) illegal.push(`${name}:${t.line}: ${t.text}`);
    }
  }
  assert.deepEqual(illegal, []);
});

// The scope a word's token carries last (the most specific one).
async function scopeOf(text, word) {
  const t = (await tokenize(text)).find((x) => x.text === word);
  assert.ok(t, `${JSON.stringify(word)} is one token of ${JSON.stringify(text)}`);
  return t.scopes[t.scopes.length - 1] ?? '';
}

test('every word of the language tables has a scope of its own', async () => {
  const src = fs.readFileSync(path.join(ROOT, 'src/syntax/words.rs'), 'utf8');
  const tables = {};
  for (const m of src.matchAll(/pub enum (\w+) \{([\s\S]*?)\n    \}/g)) {
    tables[m[1]] = [...m[2].matchAll(/= "([^"]+)",/g)].map((x) => x[1]);
  }
  assert.ok(tables.Keyword.length >= 50, `${tables.Keyword.length} keywords`);
  assert.ok(tables.TypeWord.length >= 7);
  for (const [table, words] of Object.entries(tables)) {
    for (const word of words) {
      const [text, expected] =
        table === 'TypeWord' ? [`call x(a: type ${word})`, /^support\.type\./] : [word, /^(keyword|storage|constant|support)\./];
      assert.match(await scopeOf(text, word), expected, `${table} \`${word}\` in ${JSON.stringify(text)}`);
    }
  }
});

test('names, regexes, labels and references are told apart', async () => {
  const cases = [
    ['call github/create-issue(title: /^bug/i)', 'github/create-issue', 'entity.name.function.toolspec'],
    ['call github/create-issue(title: /^bug/i)', '^bug', 'string.regexp.toolspec'],
    ['call github/create-issue(title: /^bug/i)', 'i', 'keyword.other.flag.regexp.toolspec'],
    ['call github/create-issue(title: /^bug/i)', 'title', 'variable.parameter.toolspec'],
    ['never "my server"::"send mail"', '"my server"', 'entity.name.namespace.toolspec'],
    ['never "my server"::"send mail"', '"send mail"', 'entity.name.function.toolspec'],
    ['call github::search(query: present)', 'github', 'entity.name.namespace.toolspec'],
    ['call functions.lookup', 'functions.lookup', 'entity.name.function.toolspec'],
    ['never * errored', '*', 'keyword.operator.wildcard.toolspec'],
    ['lookup: critical call lookup_order', 'lookup', 'entity.name.label.toolspec'],
    ['call x(a: lookup.output.items[0].sku)', 'lookup', 'variable.other.label.toolspec'],
    ['call x(a: lookup.output.items[0].sku)', 'output', 'variable.language.toolspec'],
    ['call x(a: lookup.output.items[0].sku)', 'sku', 'variable.other.property.toolspec'],
    ['call x(filters.date.from: present)', 'filters', 'variable.parameter.toolspec'],
    ['call x(n: 1..=12999, m: ..5)', '..=', 'keyword.operator.range.toolspec'],
    ['call x(n: 1..=12999, m: ..5)', '5', 'constant.numeric.toolspec'],
    ['call x(n: -2.5e3)', '-2.5e3', 'constant.numeric.toolspec'],
    ['call x(s: "a # b") # note', ' note', 'comment.line.number-sign.toolspec'],
    ['call x(s: "a\\tb")', '\\t', 'constant.character.escape.toolspec'],
    ['call x(s: "a\\qb")', '\\q', 'invalid.illegal.escape.toolspec'],
    ['spec refund_flow {', 'refund_flow', 'entity.name.type.spec.toolspec'],
    ['tool lookup_order(order_id: type string)', 'lookup_order', 'entity.name.function.toolspec'],
    ['  lookup before refund', 'refund', 'entity.name.function.toolspec'],
    ['after last Edit {', 'Edit', 'entity.name.function.toolspec'],
    ['rules deny schema-violation, repeated-call', 'repeated-call', 'constant.other.rule-code.toolspec'],
    ['order in_order', 'in_order', 'support.constant.toolspec'],
    ['profile deepeval { should_consider_ordering: true }', 'deepeval', 'support.constant.toolspec'],
    ['odrer in_order', 'odrer', 'variable.other.toolspec'],
  ];
  for (const [text, word, scope] of cases) {
    assert.equal(await scopeOf(text, word), scope, `${JSON.stringify(word)} in ${JSON.stringify(text)}`);
  }
});

test(`the scopes of ${SNAPSHOT_SPEC} equal the snapshot`, async () => {
  const text = fs.readFileSync(path.join(ROOT, SNAPSHOT_SPEC), 'utf8');
  const lines = (await tokenize(text))
    .filter((t) => /\S/.test(t.text))
    .map((t) => `${t.line}:${t.col}\t${JSON.stringify(t.text)}\t${t.scopes.join(' ')}`);
  const actual = `# ${SNAPSHOT_SPEC}: line:column, token, scopes (source.toolspec left out)\n${lines.join('\n')}\n`;
  if (process.env.UPDATE_SNAPSHOTS === '1') {
    fs.mkdirSync(path.dirname(SNAPSHOT), { recursive: true });
    fs.writeFileSync(SNAPSHOT, actual);
  }
  assert.equal(actual, fs.readFileSync(SNAPSHOT, 'utf8'), 'UPDATE_SNAPSHOTS=1 node --test test/ rewrites it');
});
