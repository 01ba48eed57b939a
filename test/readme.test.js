'use strict';
// Docs that run (issue 13): every JavaScript block of README.md runs here, in its own process, and
// prints what the README says it prints; every relative link of README.md points to a file that
// the packed tarball ships.
//
// THE CONVENTION (for whoever adds a README section):
//
// - A ```js (also ```javascript, ```cjs, ```mjs, ```ts, ```typescript) block is a whole program:
//   it has its own `require('lagwatch')` / `import … from 'lagwatch'` and runs alone, as
//   `node app.js` (`app.cjs`, `app.mjs` as ESM) in a directory of its own inside a temporary
//   project whose node_modules has `lagwatch` (a link to this checkout) and a link to every
//   package of this checkout's node_modules (the OpenTelemetry SDK, …). A ```ts block is transpiled to CommonJS with the project's TypeScript
//   (`transpileModule`, no type check: compiling is the types test's job) and then run the same way.
// - Right after the block (blank lines aside) comes ONE of these HTML comments:
//     <!-- output -->                 then a fenced block (```text, ```json, …): its exact stdout
//     <!-- output: numbers vary -->   the same, but every number in it stands for any number
//     <!-- output: none -->           it prints nothing on stdout
//   Options go after `output:`, comma-separated: `numbers vary`, `stop after <ms> ms` (a server
//   that runs on: it is sent SIGTERM after that long, and what it printed until then is compared),
//   `timeout <ms> ms` (default 30000).
// - In a stated output, `…` stands for any text within a line, and a line that is only `…` for any
//   number of lines (zero included). A ```json output is compared as JSON (whitespace and key order
//   do not matter): `…` inside a string stands for any text, and an array element "…" for any
//   number of elements; the block's stdout must then be one JSON value. Prefer `…` to `numbers
//   vary` where some numbers are exact (counts): `numbers vary` loosens every number of the block.
// - Each block must exit 0 (or still be running at its `stop after`) within its timeout, with
//   stdout as stated; stderr is not compared (it is shown when the block fails).
// - A block that is not JavaScript meant to run (a fragment, pseudo-code) says so right before its
//   opening fence: `<!-- not run: <why> -->`. Keep these rare: they are counted and listed.
// - A block that needs Electron is shown as real code; here `require('electron')` gets
//   test/fixtures/readme-electron.js (test/fakes/electron.js's fakes, plus the methods the README
//   calls that the adapter does not need), put in the temporary node_modules as `electron`.
//
// ```sh, ```promql, ```json (unless it is an output), ``` and other blocks are not run.
const assert = require('assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn, execFileSync } = require('child_process');

const ROOT = path.resolve(__dirname, '..');
const README = path.join(ROOT, 'README.md');
const RUNNABLE = { js: '.js', javascript: '.js', cjs: '.cjs', mjs: '.mjs', ts: '.ts', typescript: '.ts' };
const DEFAULT_TIMEOUT_MS = 30000;
const ELLIPSIS = '…';
const NUMBER = /(?<![\w.])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![\w])/gi;
const MARKER = /^\s*<!--\s*(output|not run)\b\s*(?::\s*([\s\S]*?))?\s*-->\s*$/;

// Fenced blocks, with the HTML comment lines around them: [{ kind: 'fence', info, lang, body,
// line } | { kind: 'comment', text, line }] in the order of the file (other lines are dropped).
function scan(text) {
  const lines = text.split('\n');
  const items = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,}|~{3,})\s*([^`]*)$/.exec(lines[i]);
    if (open) {
      const fence = open[1];
      const info = open[2].trim();
      const body = [];
      let j = i + 1;
      for (; j < lines.length; j++) {
        const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(lines[j]);
        if (close && close[1][0] === fence[0] && close[1].length >= fence.length) break;
        body.push(lines[j]);
      }
      assert.ok(j < lines.length, `README.md:${i + 1}: a fenced block that is never closed`);
      items.push({ kind: 'fence', info, lang: info.split(/\s+/)[0].toLowerCase(), body: body.join('\n'), line: i + 1 });
      i = j;
      continue;
    }
    const m = MARKER.exec(lines[i]);
    if (m) items.push({ kind: 'marker', type: m[1], options: m[2] || '', line: i + 1 });
    else if (lines[i].trim() !== '') items.push({ kind: 'text', line: i + 1 });
  }
  return items;
}

function parseOptions(type, options, line) {
  const out = { none: false, numbersVary: false, stopAfterMs: null, timeoutMs: DEFAULT_TIMEOUT_MS };
  for (const raw of options.split(',').map((s) => s.trim()).filter(Boolean)) {
    let m;
    if (raw === 'none') out.none = true;
    else if (raw === 'numbers vary') out.numbersVary = true;
    else if ((m = /^stop after (\d+) ms$/.exec(raw))) out.stopAfterMs = Number(m[1]);
    else if ((m = /^timeout (\d+) ms$/.exec(raw))) out.timeoutMs = Number(m[1]);
    else assert.fail(`README.md:${line}: unknown option "${raw}" in <!-- ${type}: … -->`);
  }
  return out;
}

// The README's code blocks: { runnable: [{ lang, code, line, expected: { none, text, json, …} }],
// notRun: [{ line, lang, why }] }. Throws on a runnable block with no stated output, and on a
// marker that belongs to no block.
function readmeBlocks(text) {
  const items = scan(text);
  const runnable = [];
  const notRun = [];
  const used = new Set();
  for (let i = 0; i < items.length; i++) {
    const it = items[i];
    if (it.kind !== 'fence' || !(it.lang in RUNNABLE)) continue;
    const before = items[i - 1];
    if (before && before.kind === 'marker' && before.type === 'not run') {
      assert.ok(before.options.trim(), `README.md:${before.line}: <!-- not run: … --> needs a reason`);
      used.add(before);
      notRun.push({ line: it.line, lang: it.lang, why: before.options.trim() });
      continue;
    }
    const marker = items[i + 1];
    assert.ok(marker && marker.kind === 'marker' && marker.type === 'output',
      `README.md:${it.line}: this \`\`\`${it.lang} block has no stated output: follow it with ` +
      '<!-- output --> and a fenced block, or <!-- output: none --> (see test/readme.test.js)');
    used.add(marker);
    const expected = parseOptions('output', marker.options, marker.line);
    if (!expected.none) {
      const out = items[i + 2];
      assert.ok(out && out.kind === 'fence', `README.md:${marker.line}: <!-- output --> must be followed by a fenced block`);
      used.add(out);
      expected.line = out.line;
      if (out.lang === 'json') expected.json = JSON.parse(out.body); // a syntax error fails here
      else expected.text = out.body;
    }
    runnable.push({ lang: it.lang, code: it.body, line: it.line, expected });
  }
  for (const it of items) {
    if (it.kind === 'marker') assert.ok(used.has(it), `README.md:${it.line}: <!-- ${it.type} --> belongs to no block`);
  }
  return { runnable, notRun };
}

function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// A stated line as a regular expression: `…` is any text, and with numbersVary every number is
// any number.
function linePattern(line, numbersVary) {
  const parts = line.split(ELLIPSIS).map((piece) => {
    if (!numbersVary) return escapeRegExp(piece);
    let out = '';
    let last = 0;
    for (const m of piece.matchAll(NUMBER)) {
      out += escapeRegExp(piece.slice(last, m.index)) + NUMBER.source;
      last = m.index + m[0].length;
    }
    return out + escapeRegExp(piece.slice(last));
  });
  return new RegExp(`^${parts.join('.*')}$`);
}

function toLines(s) {
  const lines = s.split('\n').map((l) => l.trimEnd());
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

// Whether the actual lines match the stated ones (a line `…` matches any number of lines).
function linesMatch(stated, actual, numbersVary) {
  const patterns = stated.map((l) => (l.trim() === ELLIPSIS ? null : linePattern(l, numbersVary)));
  const memo = new Map();
  const go = (i, j) => {
    const key = i * (actual.length + 1) + j;
    if (memo.has(key)) return memo.get(key);
    let ok;
    if (i === patterns.length) ok = j === actual.length;
    else if (patterns[i] === null) ok = go(i + 1, j) || (j < actual.length && go(i, j + 1));
    else ok = j < actual.length && patterns[i].test(actual[j]) && go(i + 1, j + 1);
    memo.set(key, ok);
    return ok;
  };
  return go(0, 0);
}

// Compares a stated JSON value with the actual one; returns the path of the first difference, or
// null.
function jsonDiff(stated, actual, numbersVary, at = '$') {
  if (typeof stated === 'string') {
    if (typeof actual !== 'string') return at;
    if (!stated.includes(ELLIPSIS)) return stated === actual ? null : at;
    return new RegExp(`^${stated.split(ELLIPSIS).map(escapeRegExp).join('[\\s\\S]*')}$`).test(actual) ? null : at;
  }
  if (typeof stated === 'number') {
    if (numbersVary) return typeof actual === 'number' ? null : at;
    return stated === actual ? null : at;
  }
  if (Array.isArray(stated)) {
    if (!Array.isArray(actual)) return at;
    const go = (i, j) => {
      if (i === stated.length) return j === actual.length;
      if (stated[i] === ELLIPSIS) return go(i + 1, j) || (j < actual.length && go(i, j + 1));
      return j < actual.length && jsonDiff(stated[i], actual[j], numbersVary, `${at}[${j}]`) === null && go(i + 1, j + 1);
    };
    return go(0, 0) ? null : at;
  }
  if (stated && typeof stated === 'object') {
    if (!actual || typeof actual !== 'object' || Array.isArray(actual)) return at;
    const a = Object.keys(stated).sort();
    const b = Object.keys(actual).sort();
    if (a.join('\0') !== b.join('\0')) return `${at} (keys ${JSON.stringify(b)}, stated ${JSON.stringify(a)})`;
    for (const k of a) {
      const d = jsonDiff(stated[k], actual[k], numbersVary, `${at}.${k}`);
      if (d) return d;
    }
    return null;
  }
  return stated === actual ? null : at;
}

// A temporary project: node_modules/lagwatch is this checkout, node_modules/electron the fakes,
// and every other package of this checkout's node_modules is linked in (the README may use the
// OpenTelemetry packages).
function makeProject() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagwatch-readme-'));
  const nm = path.join(dir, 'node_modules');
  fs.mkdirSync(nm);
  const own = path.join(ROOT, 'node_modules');
  for (const name of fs.existsSync(own) ? fs.readdirSync(own) : []) {
    if (name.startsWith('.') || name === 'lagwatch' || name === 'electron') continue;
    fs.symlinkSync(path.join(own, name), path.join(nm, name));
  }
  fs.symlinkSync(ROOT, path.join(nm, 'lagwatch'), 'dir');
  // The adaptation for blocks that need a real Electron: the fakes, as the `electron` package.
  const electron = path.join(nm, 'electron');
  fs.mkdirSync(electron);
  fs.writeFileSync(path.join(electron, 'package.json'), JSON.stringify({ name: 'electron', main: 'index.js' }));
  fs.writeFileSync(path.join(electron, 'index.js'),
    `module.exports = require(${JSON.stringify(path.join(__dirname, 'fixtures', 'readme-electron.js'))});\n`);
  return dir;
}

function transpileTs(code) {
  const ts = require('typescript');
  return ts.transpileModule(code, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2020, esModuleInterop: true },
  }).outputText;
}

// Runs one block; resolves { code, signal, stdout, stderr, stopped, timedOut }.
function runBlock(dir, block) {
  const ext = RUNNABLE[block.lang];
  // Each block is app.js (app.mjs, app.cjs) in a directory of its own, under the project.
  fs.mkdirSync(path.join(dir, `readme-${block.line}`));
  const file = path.join(dir, `readme-${block.line}`, `app${ext === '.ts' ? '.js' : ext}`);
  fs.writeFileSync(file, ext === '.ts' ? transpileTs(block.code) : block.code);
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (/^(LAGWATCH_|OTEL_)/.test(k)) delete env[k];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let stopped = false;
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
    const stopTimer = block.expected.stopAfterMs === null ? null : setTimeout(() => {
      stopped = true;
      child.kill('SIGTERM');
    }, block.expected.stopAfterMs);
    const killTimer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, block.expected.timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(stopTimer);
      clearTimeout(killTimer);
      resolve({ code, signal, stdout, stderr, stopped, timedOut });
    });
  });
}

function describeRun(block, r) {
  return `README.md:${block.line} (\`\`\`${block.lang})\n--- stdout ---\n${r.stdout}--- stderr ---\n${r.stderr}` +
    `--- exit: ${r.code === null ? r.signal : r.code}${r.timedOut ? ' (timed out)' : ''}`;
}

function checkRun(block, r) {
  const e = block.expected;
  assert.ok(!r.timedOut, `timed out after ${e.timeoutMs} ms: ${describeRun(block, r)}`);
  if (r.stopped) assert.strictEqual(r.signal, 'SIGTERM', `did not stop on SIGTERM: ${describeRun(block, r)}`);
  else assert.strictEqual(r.code, 0, `did not exit 0: ${describeRun(block, r)}`);
  if (e.none) {
    assert.strictEqual(r.stdout, '', `stated <!-- output: none --> but it printed: ${describeRun(block, r)}`);
  } else if (e.json !== undefined) {
    let actual;
    try {
      actual = JSON.parse(r.stdout);
    } catch (err) {
      assert.fail(`README.md:${e.line} states JSON, stdout is not one JSON value (${err.message}): ${describeRun(block, r)}`);
    }
    const diff = jsonDiff(e.json, actual, e.numbersVary);
    assert.strictEqual(diff, null, `stdout differs from README.md:${e.line} at ${diff}: ${describeRun(block, r)}`);
  } else {
    assert.ok(linesMatch(toLines(e.text), toLines(r.stdout), e.numbersVary),
      `stdout differs from README.md:${e.line}${e.numbersVary ? ' (numbers vary)' : ''}:\n--- stated ---\n${e.text}\n${describeRun(block, r)}`);
  }
}

describe('README.md: every JavaScript block runs and prints what the README says', function () {
  let parsed = { runnable: [], notRun: [] };
  let parseError = null;
  try {
    parsed = readmeBlocks(fs.readFileSync(README, 'utf8'));
  } catch (err) {
    parseError = err;
  }
  const { runnable, notRun } = parsed;
  let dir;

  before(function () {
    dir = makeProject();
  });

  after(function () {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('follows the convention (a stated output or <!-- not run: … --> for every block)', function () {
    if (parseError) throw parseError;
  });

  it('has runnable blocks', function () {
    assert.ok(runnable.length > 0, 'README.md has no runnable ```js block');
  });

  it(`marks ${notRun.length} block(s) as not run`, function () {
    for (const b of notRun) console.log(`      not run: README.md:${b.line} (\`\`\`${b.lang}): ${b.why}`);
  });

  for (const block of runnable) {
    const what = block.expected.none ? 'prints nothing' : `prints README.md:${block.expected.line}`;
    it(`README.md:${block.line} (\`\`\`${block.lang}) runs and ${what}`, async function () {
      this.timeout(block.expected.timeoutMs + 10000);
      checkRun(block, await runBlock(dir, block));
    });
  }
});

describe('README.md: the convention of test/readme.test.js is enforced', function () {
  const good = '```js\nconsole.log(1)\n```\n<!-- output -->\n```text\n1\n```\n';

  it('a block with no stated output fails', function () {
    assert.throws(() => readmeBlocks('```js\nconsole.log(1)\n```\n'), /no stated output/);
    assert.strictEqual(readmeBlocks(good).runnable.length, 1);
  });

  it('a marker of no block fails', function () {
    assert.throws(() => readmeBlocks('<!-- output: none -->\ntext\n'), /belongs to no block/);
  });

  it('stated lines: `…`, a line of `…`, numbers vary', function () {
    assert.ok(linesMatch(['recorded …'], ['recorded 1.5'], false));
    assert.ok(!linesMatch(['recorded 2'], ['recorded 1.5'], false));
    assert.ok(linesMatch(['recorded 2'], ['recorded 1.5'], true));
    assert.ok(!linesMatch(['recorded 2'], ['recorded x'], true));
    assert.ok(linesMatch(['a', '…', 'b'], ['a', 'b'], false));
    assert.ok(linesMatch(['a', '…', 'b'], ['a', '1', '2', 'b'], false));
    assert.ok(!linesMatch(['a', 'b'], ['a', 'b', 'c'], false));
  });

  it('stated JSON: numbers vary, `…` in strings and arrays, key sets', function () {
    assert.strictEqual(jsonDiff({ a: 1, u: 'file:///…/app.js', m: ['…', 'x', '…'] },
      { u: 'file:///tmp/q/app.js', a: 2.5, m: ['y', 'x'] }, true), null);
    assert.notStrictEqual(jsonDiff({ a: 1 }, { a: 2 }, false), null);
    assert.notStrictEqual(jsonDiff({ a: 1 }, { a: 1, b: 2 }, true), null);
    assert.notStrictEqual(jsonDiff({ m: ['…', 'x', '…'] }, { m: ['y'] }, true), null);
  });
});

describe('README.md: every relative link points to a file the tarball ships', function () {
  // Markdown links and images ([t](x), ![a](x), [r]: x) and HTML href/src, outside code.
  function relativeLinks(text) {
    const prose = text.replace(/^ {0,3}(`{3,}|~{3,})[\s\S]*?^ {0,3}\1[^\S\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
    const out = [];
    const add = (target) => {
      const t = target.trim().replace(/^<|>$/g, '').split(/\s+/)[0];
      if (!t || t.startsWith('#') || /^[a-z][a-z0-9+.-]*:/i.test(t) || t.startsWith('//')) return;
      out.push(t);
    };
    for (const m of prose.matchAll(/!?\[[^\]]*\]\(([^)]*)\)/g)) add(m[1]);
    for (const m of prose.matchAll(/^ {0,3}\[[^\]]+\]:\s*(\S+)/gm)) add(m[1]);
    for (const m of prose.matchAll(/<(?:a|img)\b[^>]*\b(?:href|src)\s*=\s*["']([^"']*)["']/gi)) add(m[1]);
    return out;
  }

  it('relativeLinks finds links and images, not code', function () {
    assert.deepStrictEqual(relativeLinks('[a](x.md) ![i](img/p.png "t") [b](https://e.org) [c](#s)\n' +
      '`[d](no.md)`\n```md\n[e](no2.md)\n```\n[r]: ref.md\n<img src="h.png">'), ['x.md', 'img/p.png', 'ref.md', 'h.png']);
  });

  it('npm pack ships every file README.md links to', function () {
    this.timeout(60000);
    const packed = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
    }));
    const files = new Set(packed[0].files.map((f) => f.path));
    const missing = [];
    for (const link of relativeLinks(fs.readFileSync(README, 'utf8'))) {
      const rel = path.posix.normalize(decodeURIComponent(link.split(/[?#]/)[0])).replace(/^\.\//, '').replace(/\/$/, '');
      const shipped = files.has(rel) || [...files].some((f) => f.startsWith(`${rel}/`));
      if (!shipped) missing.push(link);
    }
    assert.deepStrictEqual(missing, [], `README.md links to files the tarball lacks: ${missing.join(', ')}`);
  });
});
