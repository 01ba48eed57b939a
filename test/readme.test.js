'use strict';
// Docs that run: every JavaScript block of README.md and of each docs/*.md runs here, in its own
// process, and prints what the text says it prints; every relative link of those files (and of
// CONTRIBUTING.md and CHANGELOG.md) points to a file that the packed tarball ships, and every
// `#anchor` to a heading of its target; README.md stays short and the user-facing docs carry no
// logbook; docs/spec.md is the shared SPEC.md that the sources cite as "SPEC §N".
//
// THE CONVENTION (for whoever adds a section to README.md or docs/*.md):
//
// - A ```js (also ```javascript, ```cjs, ```mjs, ```ts, ```typescript) block is a whole program:
//   it has its own `require('lagwatch')` / `import … from 'lagwatch'` and runs alone, as
//   `node app.js` (`app.cjs`, `app.mjs` as ESM) in a directory of its own inside a temporary
//   project whose node_modules has `lagwatch` (a link to this checkout) and a link to every
//   package of this checkout's node_modules (the OpenTelemetry SDK, …); the project is the working
//   directory. A ```ts block is transpiled to CommonJS with the project's TypeScript
//   (`transpileModule`, no type check: compiling is the types test's job) and then run the same way.
// - Right after the block (blank lines aside) comes ONE of these HTML comments:
//     <!-- output -->                 then a fenced block (```text, ```json, …): its exact stdout
//     <!-- output: numbers vary -->   the same, but every number in it stands for any number
//     <!-- output: none -->           it prints nothing on stdout
//   Options go after `output:`, comma-separated:
//     `numbers vary`;
//     `stop after <ms> ms`   a server that runs on: it is sent SIGTERM after that long, and what it
//                            printed until then is compared;
//     `timeout <ms> ms`      default 30000;
//     `node <arguments>`     Node's own arguments before the file, e.g. `node -r lagwatch/register`
//                            (for a block the text says to run that way);
//     `port <NAME>`          the environment variable NAME is set to a free TCP port (a server
//                            that reads its port from the environment, as its text says to set it);
//     `env <NAME>=<value>`   any other variable. LAGWATCH_* and OTEL_* are otherwise unset.
// - In a stated output, `…` stands for any text within a line, and a line that is only `…` for any
//   number of lines (zero included). A ```json output is compared as JSON (whitespace and key order
//   do not matter): `…` inside a string stands for any text, and an array element "…" for any
//   number of elements; the block's stdout must then be one JSON value. Prefer `…` to `numbers
//   vary` where some numbers are exact (counts): `numbers vary` loosens every number of the block.
// - Each block must exit 0 (or still be running at its `stop after`) within its timeout, with
//   stdout as stated; stderr is compared only where stated: a `<!-- stderr -->` comment before the
//   next runnable block, then a fenced block whose lines the run's stderr must print in that order
//   (other lines between them allowed), every number, path and cause (busy, starved, …: the
//   machine's load decides it) standing for any.
// - A block that is not JavaScript meant to run (a fragment, pseudo-code) says so right before its
//   opening fence: `<!-- not run: <why> -->`. Keep these rare: they are counted and listed.
// - A block that needs Electron is shown as real code; here `require('electron')` gets
//   test/fixtures/readme-electron.js (test/fakes/electron.js's fakes, plus the methods the docs
//   call that the adapter does not need), put in the temporary node_modules as `electron`.
// - docs/spec.md is the contract's own text, copied byte for byte from ../shared/SPEC.md: its
//   blocks are not run (its §7 block is a sketch) and the logbook rules below do not apply to it;
//   its links are checked like the others'.
//
// ```sh, ```promql, ```json (unless it is an output), ``` and other blocks are not run.
//
// LINKS: a relative link ([t](x), ![a](x), [r]: x, <a href>, <img src>, outside code) resolves
// against its file's directory to a file of this checkout that `npm pack` ships (package.json's
// "files"); `x#anchor` and `#anchor` name a heading of the target Markdown file by GitHub's slug
// rule (lower case, punctuation dropped, spaces to hyphens, `-1`, `-2` for repeated headings).
//
// THE LOGBOOK RULES (README.md and docs/*.md but docs/spec.md): README.md has at most 250 lines;
// no commit hash (a 7–40 character hex word with a digit and a letter), no issue or pull-request
// number ("issue 14", "#14"), no CI log figure (a run's duration in seconds such as "2301 s",
// "CI's duration", "clean-clone run"). History goes to CHANGELOG.md. The duration of `npm test`,
// stated once in README's Start section, is given in minutes.
const assert = require('assert');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');
const { spawn, execFileSync } = require('child_process');

const ROOT = path.resolve(__dirname, '..');
const DOCS_DIR = path.join(ROOT, 'docs');
const SPEC = 'docs/spec.md';
const SHARED_SPEC = path.resolve(ROOT, '..', 'shared', 'SPEC.md');
const README_MAX_LINES = 250;
// The files whose blocks run and whose links are checked, by path from the checkout's root.
const DOCS = ['README.md', ...(fs.existsSync(DOCS_DIR) ? fs.readdirSync(DOCS_DIR) : [])
  .filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
// Linked from README.md and checked for links too, but not run: they hold no JavaScript to run.
const LINKED_ONLY = ['CONTRIBUTING.md', 'CHANGELOG.md'];
// The bench's results the package ships (package.json "files"), read from README.md and docs/.
const SHIPPED_RESULTS = ['bench/RESULTS.md', 'bench/RESULTS-diagnosis.md'];
const RUNNABLE = { js: '.js', javascript: '.js', cjs: '.cjs', mjs: '.mjs', ts: '.ts', typescript: '.ts' };
const DEFAULT_TIMEOUT_MS = 30000;
const ELLIPSIS = '…';
const NUMBER = /(?<![\w.])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![\w])/gi;
const MARKER = /^\s*<!--\s*(output|not run|stderr)\b\s*(?::\s*([\s\S]*?))?\s*-->\s*$/;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})\s*([^`]*)$/;
const FENCE_CLOSE = /^ {0,3}(`{3,}|~{3,})\s*$/;

const read = (file) => fs.readFileSync(path.join(ROOT, file), 'utf8');

// Fenced blocks, with the HTML comment lines around them: [{ kind: 'fence', info, lang, body,
// line } | { kind: 'marker', type, options, line } | { kind: 'text', line }] in the order of the
// file.
function scan(text, file = 'README.md') {
  const lines = text.split('\n');
  const items = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE_OPEN.exec(lines[i]);
    if (open) {
      const fence = open[1];
      const info = open[2].trim();
      const body = [];
      let j = i + 1;
      for (; j < lines.length; j++) {
        const close = FENCE_CLOSE.exec(lines[j]);
        if (close && close[1][0] === fence[0] && close[1].length >= fence.length) break;
        body.push(lines[j]);
      }
      assert.ok(j < lines.length, `${file}:${i + 1}: a fenced block that is never closed`);
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

function parseOptions(type, options, line, file = 'README.md') {
  const out = {
    none: false, numbersVary: false, stopAfterMs: null, timeoutMs: DEFAULT_TIMEOUT_MS,
    nodeArgs: [], ports: [], env: {},
  };
  for (const raw of options.split(',').map((s) => s.trim()).filter(Boolean)) {
    let m;
    if (raw === 'none') out.none = true;
    else if (raw === 'numbers vary') out.numbersVary = true;
    else if ((m = /^stop after (\d+) ms$/.exec(raw))) out.stopAfterMs = Number(m[1]);
    else if ((m = /^timeout (\d+) ms$/.exec(raw))) out.timeoutMs = Number(m[1]);
    else if ((m = /^node (\S.*)$/.exec(raw))) out.nodeArgs = m[1].split(/\s+/);
    else if ((m = /^port ([A-Z_][A-Z0-9_]*)$/.exec(raw))) out.ports.push(m[1]);
    else if ((m = /^env ([A-Z_][A-Z0-9_]*)=(.*)$/.exec(raw))) out.env[m[1]] = m[2];
    else assert.fail(`${file}:${line}: unknown option "${raw}" in <!-- ${type}: … -->`);
  }
  return out;
}

// A file's code blocks: { runnable: [{ file, lang, code, line, expected: { none, text, json, …} }],
// notRun: [{ line, lang, why }] }. Throws on a runnable block with no stated output, and on a
// marker that belongs to no block.
function docBlocks(text, file = 'README.md') {
  const items = scan(text, file);
  const runnable = [];
  const notRun = [];
  const used = new Set();
  for (let i = 0; i < items.length; i++) {
    const it = items[i];
    if (it.kind !== 'fence' || !(it.lang in RUNNABLE)) continue;
    const before = items[i - 1];
    if (before && before.kind === 'marker' && before.type === 'not run') {
      assert.ok(before.options.trim(), `${file}:${before.line}: <!-- not run: … --> needs a reason`);
      used.add(before);
      notRun.push({ line: it.line, lang: it.lang, why: before.options.trim() });
      continue;
    }
    const marker = items[i + 1];
    assert.ok(marker && marker.kind === 'marker' && marker.type === 'output',
      `${file}:${it.line}: this \`\`\`${it.lang} block has no stated output: follow it with ` +
      '<!-- output --> and a fenced block, or <!-- output: none --> (see test/readme.test.js)');
    used.add(marker);
    const expected = parseOptions('output', marker.options, marker.line, file);
    if (!expected.none) {
      const out = items[i + 2];
      assert.ok(out && out.kind === 'fence', `${file}:${marker.line}: <!-- output --> must be followed by a fenced block`);
      used.add(out);
      expected.line = out.line;
      if (out.lang === 'json') expected.json = JSON.parse(out.body); // a syntax error fails here
      else expected.text = out.body;
    }
    // A `<!-- stderr -->` marker before the next runnable block: the fenced block after it is
    // what the run writes on stderr (see checkRun).
    for (let j = i + 1; j < items.length; j++) {
      const x = items[j];
      if (x.kind === 'fence' && x.lang in RUNNABLE) break;
      if (x.kind !== 'marker' || x.type !== 'stderr') continue;
      const out = items[j + 1];
      assert.ok(out && out.kind === 'fence', `${file}:${x.line}: <!-- stderr --> must be followed by a fenced block`);
      used.add(x);
      expected.stderr = out.body;
      expected.stderrLine = out.line;
      break;
    }
    runnable.push({ file, lang: it.lang, code: it.body, line: it.line, expected });
  }
  for (const it of items) {
    if (it.kind === 'marker') assert.ok(used.has(it), `${file}:${it.line}: <!-- ${it.type} --> belongs to no block`);
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
// and every other package of this checkout's node_modules is linked in (the docs may use the
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

// A TCP port that was free a moment ago (the OS's pick for port 0).
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

// Runs one block; resolves { code, signal, stdout, stderr, stopped, timedOut }.
async function runBlock(dir, block) {
  const ext = RUNNABLE[block.lang];
  // Each block is app.js (app.mjs, app.cjs) in a directory of its own, under the project.
  const own = path.join(dir, `${block.file.replace(/[^\w]+/g, '-')}-${block.line}`);
  fs.mkdirSync(own);
  const file = path.join(own, `app${ext === '.ts' ? '.js' : ext}`);
  fs.writeFileSync(file, ext === '.ts' ? transpileTs(block.code) : block.code);
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (/^(LAGWATCH_|OTEL_)/.test(k)) delete env[k];
  Object.assign(env, block.expected.env);
  for (const name of block.expected.ports) env[name] = String(await freePort());
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...block.expected.nodeArgs, file], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
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
  return `${block.file}:${block.line} (\`\`\`${block.lang})\n--- stdout ---\n${r.stdout}--- stderr ---\n${r.stderr}` +
    `--- exit: ${r.code === null ? r.signal : r.code}${r.timedOut ? ' (timed out)' : ''}`;
}

// A stderr line with its paths masked: any absolute path (or file:// URL) stands for any (the
// block runs as app.js in a directory of its own; the text names it as its reader would).
const maskPaths = (l) => l.replace(/(file:\/\/)?\/[^\s():<>]*/g, '<path>');
// And its causes (a hang's, so far or in all, a site's in the profile): one run's `busy` is
// another's `starved` on a machine running other suites beside it. (The causes themselves are
// test/e2e/cause.test.js's.)
const maskCauses = (l) => l.replace(/\b(busy|starved|blocked|gc|throttled)(?= \(|:)/g, '<cause>');
// And a block's stack, in its line and the profile's: on a machine starved by other suites the
// stack thread's sample can come after the block ended (`no stack: late`, the profile's `(no
// stack)`; the stacks themselves are test/e2e/blocks.test.js's). A block never seen while it ran
// (`no stack: unseen`) stays what it is.
const maskStacks = (l) => l
  .replace(/^(lagwatch: (?:[^:]*: )?block of \S+ ms) (?:at .*?|\(no stack: (?:late|native)\))( \(a hang: its stall follows\))?$/, '$1 <stack>$2')
  .replace(/^( {2}\d+\. .*?, \S+: )(?:\(no stack\)|.* \[(?:\S+|…)\])$/, '$1<stack>');
const mask = (l) => maskStacks(maskCauses(maskPaths(l)));

// Each stated stderr line, in order, matches a line of the run's stderr (other lines between them
// allowed: a stated stderr shows what a run prints, not all of it), numbers and directories aside.
// But a hang, a stall, or a block lagwatch never saw while it ran (`no stack: unseen`: the loop was
// not held, as after an idle wait) must be stated: one the text does not show is returned as
// missing from it. (A block the run saw and the text does not state, such as the observer's own
// first scrape on a loaded machine, is let through.)
const MUST_BE_STATED = /^lagwatch: (.*\bhang\b|.*\bstall\b|block of .*no stack: unseen)/;
function stderrShown(stated, actual) {
  const lines = toLines(actual).map(mask);
  const patterns = toLines(stated).map((l) => linePattern(mask(l), true));
  let at = 0;
  for (const [i, l] of toLines(stated).entries()) {
    while (at < lines.length && !patterns[i].test(lines[at])) at++;
    if (at === lines.length) return l;
    at++;
  }
  // Each stated line stands for one line of the run.
  const used = new Set();
  const unstated = lines.find((l) => {
    if (!MUST_BE_STATED.test(l)) return false;
    const i = patterns.findIndex((re, k) => !used.has(k) && re.test(l));
    if (i >= 0) used.add(i);
    return i < 0;
  });
  return unstated === undefined ? null : `(not in the text) ${unstated}`;
}

function checkRun(block, r) {
  const e = block.expected;
  const at = `${block.file}:${e.line}`;
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
      assert.fail(`${at} states JSON, stdout is not one JSON value (${err.message}): ${describeRun(block, r)}`);
    }
    const diff = jsonDiff(e.json, actual, e.numbersVary);
    assert.strictEqual(diff, null, `stdout differs from ${at} at ${diff}: ${describeRun(block, r)}`);
  } else {
    assert.ok(linesMatch(toLines(e.text), toLines(r.stdout), e.numbersVary),
      `stdout differs from ${at}${e.numbersVary ? ' (numbers vary)' : ''}:\n--- stated ---\n${e.text}\n${describeRun(block, r)}`);
  }
  if (e.stderr !== undefined) {
    const missing = stderrShown(e.stderr, r.stderr);
    assert.strictEqual(missing, null, `${block.file}:${e.stderrLine} states a stderr line (numbers and directories ` +
      `aside) that the run did not print in that order, or the run printed a lagwatch line it does not state: ${describeRun(block, r)}`);
  }
}

// Markdown links and images ([t](x), ![a](x), [r]: x) and HTML href/src, outside code: every
// target that is not a URL (`#anchor` alone included).
function relativeLinks(text) {
  const prose = text.replace(/^ {0,3}(`{3,}|~{3,})[\s\S]*?^ {0,3}\1[^\S\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
  const out = [];
  const add = (target) => {
    const t = target.trim().replace(/^<|>$/g, '').split(/\s+/)[0];
    if (!t || /^[a-z][a-z0-9+.-]*:/i.test(t) || t.startsWith('//')) return;
    out.push(t);
  };
  for (const m of prose.matchAll(/!?\[[^\]]*\]\(([^)]*)\)/g)) add(m[1]);
  for (const m of prose.matchAll(/^ {0,3}\[[^\]]+\]:\s*(\S+)/gm)) add(m[1]);
  for (const m of prose.matchAll(/<(?:a|img)\b[^>]*\b(?:href|src)\s*=\s*["']([^"']*)["']/gi)) add(m[1]);
  return out;
}

// GitHub's anchor of a heading's text (github-slugger): the rendered text in lower case, with
// everything but letters, digits, `_`, `-` and spaces dropped, each space a hyphen.
function slug(heading) {
  const textOf = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
    .replace(/<[^>]+>/g, '') // HTML tags
    .replace(/`/g, '') // code spans: their content
    .replace(/\*/g, ''); // emphasis
  return textOf.trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

// The anchors of a Markdown file: its ATX headings' slugs (repeated ones get -1, -2, …, as on
// GitHub) and the ids and names of its HTML elements; headings inside code blocks do not count.
function anchors(text) {
  const out = new Set();
  const seen = new Map();
  const prose = text.replace(/^ {0,3}(`{3,}|~{3,})[\s\S]*?^ {0,3}\1[^\S\n]*$/gm, '');
  for (const m of prose.matchAll(/^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/gm)) {
    const base = slug(m[1]);
    const n = seen.get(base) || 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of prose.matchAll(/<[a-z][^>]*\b(?:id|name)\s*=\s*["']([^"']+)["']/gi)) out.add(m[1]);
  return out;
}

let packedFiles = null;
// The paths `npm pack` would ship, once per run.
function packed() {
  if (!packedFiles) {
    const json = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
    }));
    packedFiles = new Set(json[0].files.map((f) => f.path));
  }
  return packedFiles;
}

const inCheckout = {
  exists: (rel) => fs.existsSync(path.join(ROOT, rel)),
  text: (rel) => read(rel),
};

// What is wrong with each relative link of `file` (a path from the root): ['link: why', …].
// `shipped`: the paths the tarball ships; `files`: how to see the checkout's files.
function brokenLinks(file, text, shipped, files = inCheckout) {
  const problems = [];
  for (const link of relativeLinks(text)) {
    const hash = link.indexOf('#');
    const target = decodeURIComponent((hash < 0 ? link : link.slice(0, hash)).split('?')[0]);
    const fragment = hash < 0 ? null : decodeURIComponent(link.slice(hash + 1));
    const rel = target === '' ? file
      : path.posix.normalize(path.posix.join(path.posix.dirname(file), target)).replace(/\/$/, '');
    if (rel.startsWith('..') || path.posix.isAbsolute(rel)) {
      problems.push(`${link}: outside the package`);
      continue;
    }
    if (!files.exists(rel)) {
      problems.push(`${link}: no such file (${rel})`);
      continue;
    }
    if (!shipped.has(rel) && ![...shipped].some((f) => f.startsWith(`${rel}/`))) {
      problems.push(`${link}: the tarball does not ship ${rel} (package.json "files")`);
      continue;
    }
    if (fragment !== null) {
      if (!rel.endsWith('.md')) problems.push(`${link}: an anchor into a file that is not Markdown`);
      else if (!anchors(files.text(rel)).has(fragment)) problems.push(`${link}: ${rel} has no heading with the anchor #${fragment}`);
    }
  }
  return problems;
}

// What an installed package's doc names that the package does not have: ['line N: why', …]. A
// path of the repository's (examples/, bench/, test/, scripts/, …) that the tarball does not ship
// must be said to be the repository's: in its paragraph, or in the document's opening (the text
// before its first `##` heading), as "the repository's"; and no sample output may show the
// checkout it was made in (its absolute path, or a file:// URL of anything but a neutral /srv/).
function unshippedMentions(text, shipped, checkout = ROOT) {
  const problems = [];
  const opening = text.split(/^## /m)[0];
  const whole = /\brepository's\b/.test(opening);
  // Paragraphs: runs of non-blank lines, each with the number of its first line.
  const paras = [];
  text.split('\n').forEach((l, i) => {
    if (!l.trim()) paras.push(null);
    else if (paras.length && paras[paras.length - 1]) paras[paras.length - 1].lines.push(l);
    else paras.push({ first: i + 1, lines: [l] });
  });
  for (const para of paras.filter(Boolean)) {
    const said = whole || /\brepository's\b/.test(para.lines.join('\n'));
    para.lines.forEach((l, i) => {
      const at = `line ${para.first + i}`;
      for (const m of l.matchAll(/(?<![\w./-])((?:examples|bench|test|scripts|src|lib|prebuilds|dashboards)\/[\w./-]*[\w/])/g)) {
        const rel = m[1].replace(/\/$/, '');
        const ships = [...shipped].some((f) => f.startsWith(rel)); // a file, a directory or a name's stem
        if (!ships && !said) problems.push(`${at}: ${m[1]} is not in the package: say it is the repository's`);
      }
      if (l.includes(checkout)) problems.push(`${at}: shows the checkout's path ${checkout}`);
      for (const m of l.matchAll(/file:\/\/(\/[^\s"')]*)/g)) {
        if (!/^\/(srv|…)\//.test(m[1])) problems.push(`${at}: file://${m[1]} is a machine's path: use /srv/`);
      }
    });
  }
  return problems;
}

// Hex words that are not commit hashes, should a user-facing file need one: the hang
// fingerprints of README.md's example and of docs/diagnosis.md's real profile.
const HEX_WORDS_ALLOWED = new Set(['e597b366588df8ad', '41ff853eeab42f7b', '2f9a364863045c5b', '8871e1500c279f0d']);

// What a user-facing file must not hold: [`line: what`, …].
function logbook(text) {
  const found = [];
  text.split('\n').forEach((line, i) => {
    const at = `line ${i + 1}`;
    for (const m of line.matchAll(/\b[0-9a-f]{7,40}\b/g)) {
      if (/[0-9]/.test(m[0]) && /[a-f]/.test(m[0]) && !HEX_WORDS_ALLOWED.has(m[0])) found.push(`${at}: "${m[0]}" looks like a commit hash`);
    }
    for (const m of line.matchAll(/\b(?:issues?|pull requests?|PRs?)\s*#?\d+\b/gi)) found.push(`${at}: "${m[0]}" is an issue number`);
    for (const m of line.matchAll(/(?:^|[^\w&/])(#\d+)(?![\w-])/g)) found.push(`${at}: "${m[1]}" is an issue number`);
    for (const m of line.matchAll(/\b\d{3,}(?:\.\d+)? ?s\b(?!\/)/g)) found.push(`${at}: "${m[0]}" reads as a CI run's duration`);
    for (const m of line.matchAll(/\bCI(?:'s)? (?:duration|run|log)s?\b|\bclean[- ]clone runs?\b|\blanding (?:run|try)\b/gi)) {
      found.push(`${at}: "${m[0]}" is a CI log`);
    }
  });
  return found;
}

describe('docs: the convention of test/readme.test.js is enforced', function () {
  const good = '```js\nconsole.log(1)\n```\n<!-- output -->\n```text\n1\n```\n';

  it('a block with no stated output fails', function () {
    assert.throws(() => docBlocks('```js\nconsole.log(1)\n```\n'), /no stated output/);
    assert.strictEqual(docBlocks(good).runnable.length, 1);
  });

  it('a marker of no block fails', function () {
    assert.throws(() => docBlocks('<!-- output: none -->\ntext\n'), /belongs to no block/);
  });

  it('options: node arguments, free ports, environment', function () {
    const o = parseOptions('output', 'node -r lagwatch/register, port PORT, env A=b c, stop after 10 ms', 1);
    assert.deepStrictEqual([o.nodeArgs, o.ports, o.env, o.stopAfterMs], [['-r', 'lagwatch/register'], ['PORT'], { A: 'b c' }, 10]);
    assert.throws(() => parseOptions('output', 'port lower', 1), /unknown option/);
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

  it("stated stderr: its lines in order, others between; but every lagwatch line stated", function () {
    const stated = 'lagwatch: hang stall of 6013 ms (loopBlock)\nlagwatch: blocking profile: 1 block(s)';
    assert.strictEqual(stderrShown(stated, 'app\nlagwatch: hang stall of 6020 ms (loopBlock)\nx\nlagwatch: blocking profile: 1 block(s)\n'), null);
    assert.notStrictEqual(stderrShown(stated, 'lagwatch: blocking profile: 1 block(s)\nlagwatch: hang stall of 6020 ms (loopBlock)\n'), null);
    assert.match(stderrShown(stated, 'lagwatch: hang stall of 6020 ms (loopBlock)\nlagwatch: block of 1327 ms (no stack: unseen)\n' +
      'lagwatch: blocking profile: 2 block(s)\n'), /not in the text.*block of 1327/);
    // A cause stands for any, the load deciding it; the words around it do not.
    const cause = 'lagwatch: hang stall of 6013 ms (worker), cause: busy (…)\n  1. 6013 ms, busy: spin (/srv/a.js:1)';
    assert.strictEqual(stderrShown(cause, 'lagwatch: hang stall of 6036 ms (worker), cause: starved (run queue 3223 ms)\n' +
      '  1. 6036 ms, starved: spin (/tmp/x/app.js:1)\n'), null);
    assert.notStrictEqual(stderrShown(cause, 'lagwatch: hang stall of 6036 ms (worker), cause: nothing (x)\n  1. 6036 ms, busy: spin (/a.js:1)\n'), null);
    assert.match(stderrShown(stated, 'lagwatch: hang stall of 6020 ms (loopBlock)\nlagwatch: hang stall of 7774 ms (loopBlock)\n' +
      'lagwatch: blocking profile: 1 block(s)\n'), /not in the text.*7774/);
    assert.strictEqual(stderrShown(stated, 'lagwatch: hang stall of 6020 ms (loopBlock)\nlagwatch: block of 102 ms (no stack: late)\n' +
      'lagwatch: blocking profile: 2 block(s)\n'), null);
    // A block's stack that came late stands for the stated one; an unseen block does not.
    const block = 'lagwatch: block of 6013 ms at spin (/srv/a.js:6) < (anonymous) (/srv/a.js:9) (a hang: its stall follows)\n' +
      '  1. 6013 ms in 1 block(s), max 6013 ms, p50 6013 ms, busy: spin (/srv/a.js:6) < (anonymous) (/srv/a.js:9) […]';
    assert.strictEqual(stderrShown(block, 'lagwatch: block of 6034 ms (no stack: late) (a hang: its stall follows)\n' +
      '  1. 6034 ms in 1 block(s), max 6034 ms, p50 6034 ms, starved: (no stack)\n'), null);
    assert.strictEqual(stderrShown(block, 'lagwatch: block of 6034 ms at spin (/tmp/x/app.js:6) < (anonymous) (/tmp/x/app.js:9) (a hang: its stall follows)\n' +
      '  1. 6034 ms in 1 block(s), max 6034 ms, p50 6034 ms, busy: spin (/tmp/x/app.js:6) < (anonymous) (/tmp/x/app.js:9) [e597b366588df8ad]\n'), null);
    assert.notStrictEqual(stderrShown(block, 'lagwatch: block of 6034 ms (no stack: unseen) (a hang: its stall follows)\n' +
      '  1. 6034 ms in 1 block(s), max 6034 ms, p50 6034 ms, starved: (no stack)\n'), null);
  });

  it('stated JSON: numbers vary, `…` in strings and arrays, key sets', function () {
    assert.strictEqual(jsonDiff({ a: 1, u: 'file:///…/app.js', m: ['…', 'x', '…'] },
      { u: 'file:///tmp/q/app.js', a: 2.5, m: ['y', 'x'] }, true), null);
    assert.notStrictEqual(jsonDiff({ a: 1 }, { a: 2 }, false), null);
    assert.notStrictEqual(jsonDiff({ a: 1 }, { a: 1, b: 2 }, true), null);
    assert.notStrictEqual(jsonDiff({ m: ['…', 'x', '…'] }, { m: ['y'] }, true), null);
  });

  it('relativeLinks finds links, images and anchors, not code or URLs', function () {
    assert.deepStrictEqual(relativeLinks('[a](x.md) ![i](img/p.png "t") [b](https://e.org) [c](#s)\n' +
      '`[d](no.md)`\n```md\n[e](no2.md)\n```\n[r]: ref.md\n<img src="h.png">'), ['x.md', 'img/p.png', '#s', 'ref.md', 'h.png']);
  });

  it("anchors follow GitHub's heading slugs", function () {
    assert.strictEqual(slug('Zero code: `node -r lagwatch/register`'), 'zero-code-node--r-lagwatchregister');
    assert.strictEqual(slug("What a `'stall'` event looks like"), 'what-a-stall-event-looks-like');
    assert.strictEqual(slug('10. Metrics (OpenTelemetry instrument names, unit ms unless said)'),
      '10-metrics-opentelemetry-instrument-names-unit-ms-unless-said');
    assert.strictEqual(slug('Windows: one file for `node.exe`, Electron and [any](x.md) renamed'), 'windows-one-file-for-nodeexe-electron-and-any-renamed');
    assert.strictEqual(slug('Decisions — where SPEC §4 is silent'), 'decisions--where-spec-4-is-silent');
    assert.deepStrictEqual([...anchors('# A\n## A\n```\n# B\n```\n### C ##\n<a id="d"></a>\n')], ['a', 'a-1', 'c', 'd']);
  });

  it('broken links are found: a missing file, an unshipped one, a missing anchor', function () {
    const shipped = new Set(['README.md', 'docs/api.md', 'lib/index.js']);
    const files = {
      exists: (rel) => ['README.md', 'docs/api.md', 'lib', 'lib/index.js', 'package-lock.json'].includes(rel),
      text: (rel) => ({ 'README.md': '# lagwatch\n## Start\n', 'docs/api.md': '# API\n## Calls\n' })[rel],
    };
    assert.deepStrictEqual(brokenLinks('docs/api.md', '[a](../README.md#start) [b](api.md#nope) [c](../package-lock.json) ' +
      '[d](nothing.md) [e](../lib/) [f](#calls) [g](../../x.md) [h](../lib/index.js#x)', shipped, files), [
      'api.md#nope: docs/api.md has no heading with the anchor #nope',
      '../package-lock.json: the tarball does not ship package-lock.json (package.json "files")',
      'nothing.md: no such file (docs/nothing.md)',
      '../../x.md: outside the package',
      '../lib/index.js#x: an anchor into a file that is not Markdown',
    ]);
  });

  it("unshipped files are said to be the repository's; no checkout's path, no machine's file:// URL", function () {
    const shipped = new Set(['lib/index.js', 'examples/demo.js', 'src/core/ev-sigcont.c']);
    const text = '# T\n## A\nRun `node bench/loop.js`, `examples/demo.js` and src/core/ev.\n\nThe repository\'s `test/a.test.js`.\n\n' +
      'at /home/me/lagwatch/lib/index.js\n\n```\nfile:///home/me/app.js file:///srv/app.js file:///…/app.js\n```\n';
    assert.deepStrictEqual(unshippedMentions(text, shipped, '/home/me/lagwatch'), [
      "line 3: bench/loop.js is not in the package: say it is the repository's",
      "line 7: shows the checkout's path /home/me/lagwatch",
      "line 10: file:///home/me/app.js is a machine's path: use /srv/",
    ]);
    assert.deepStrictEqual(unshippedMentions("# T\nThe paths it names are the repository's.\n\n## A\n\n`bench/loop.js`\n", shipped), []);
  });

  it('the logbook rules find hashes, issue numbers and CI durations, not ordinary figures', function () {
    const bad = logbook("at 9c984a8, fixed in de2db1c.\nissue 14 and #12\nCI's duration: 2301 s, the last clean-clone run\n");
    assert.strictEqual(bad.length, 7, bad.join('\n'));
    assert.deepStrictEqual(logbook('a 6 s hang, 5000.9 ms, 0xc06d007e, [x](spec.md#6-monitors), deadbeef, 1234567, ' +
      'SPEC §12, 1.14 M iterations/s, 20 minutes\n'), []);
  });
});

describe('docs: README.md and docs/*.md', function () {
  // The blocks of every file run in one temporary project.
  let project = null;
  before(function () {
    project = makeProject();
  });
  after(function () {
    if (project) fs.rmSync(project, { recursive: true, force: true });
  });

  for (const file of DOCS) {
    const title = file === SPEC ? `${file}: every relative link resolves (its blocks are the contract's, not run)`
      : `${file}: every JavaScript block runs and prints what it says; every relative link resolves`;
    describe(title, function () {
      const text = read(file);
      const runs = file !== SPEC;
      let parsed = { runnable: [], notRun: [] };
      let parseError = null;
      if (runs) {
        try {
          parsed = docBlocks(text, file);
        } catch (err) {
          parseError = err;
        }
      }
      const { runnable, notRun } = parsed;

      if (runs) {
        it('follows the convention (a stated output or <!-- not run: … --> for every block)', function () {
          if (parseError) throw parseError;
        });

        if (file === 'README.md') {
          it('has runnable blocks', function () {
            assert.ok(runnable.length > 0, 'README.md has no runnable ```js block');
          });
        }

        if (notRun.length) {
          it(`marks ${notRun.length} block(s) as not run`, function () {
            for (const b of notRun) console.log(`      not run: ${file}:${b.line} (\`\`\`${b.lang}): ${b.why}`);
          });
        }

        for (const block of runnable) {
          const what = block.expected.none ? 'prints nothing' : `prints ${file}:${block.expected.line}`;
          it(`${file}:${block.line} (\`\`\`${block.lang}) runs and ${what}`, async function () {
            this.timeout(block.expected.timeoutMs + 10000);
            checkRun(block, await runBlock(project, block));
          });
        }
      }

      it('every relative link points to a file the tarball ships, and every #anchor to a heading', function () {
        this.timeout(60000);
        const problems = brokenLinks(file, text, packed());
        assert.deepStrictEqual(problems, [], `${file}:\n  ${problems.join('\n  ')}`);
      });

      if (runs) {
        it("names no file the package lacks but as the repository's, and no checkout's path", function () {
          this.timeout(60000);
          const problems = unshippedMentions(text, packed());
          assert.deepStrictEqual(problems, [], `${file}:\n  ${problems.join('\n  ')}`);
        });

        it('holds no commit hash, issue number or CI log', function () {
          const found = logbook(text);
          assert.deepStrictEqual(found, [], `${file} is for users; history goes to CHANGELOG.md:\n  ${found.join('\n  ')}`);
        });
      }
    });
  }
});

// Error codes (`ERR_…`) the docs promise: each must be printed by a block that runs (its stated
// output names it), so that a documented code the code does not set fails here.
function errorCodes(text) {
  return new Set([...text.matchAll(/\bERR_[A-Z0-9_]+\b/g)].map((m) => m[0]));
}

describe('docs: every documented error code is one a block that runs prints', function () {
  it('each ERR_… code named in README.md or docs/*.md appears in the stated output of a runnable block', function () {
    const named = new Map();
    const shown = new Set();
    for (const file of DOCS.filter((f) => f !== SPEC)) {
      const text = read(file);
      for (const code of errorCodes(text)) if (!named.has(code)) named.set(code, file);
      for (const block of docBlocks(text, file).runnable) {
        if (block.expected.text !== undefined) for (const code of errorCodes(block.expected.text)) shown.add(code);
      }
    }
    assert.ok(named.size > 0, 'the docs name no error code');
    const missing = [...named].filter(([code]) => !shown.has(code)).map(([code, file]) => `${code} (${file})`);
    assert.deepStrictEqual(missing, [], 'documented error codes that no runnable block shows: add them to the example ' +
      'under "Errors and bad input" in docs/api.md');
  });
});

describe('README.md: short, and its neighbours linked', function () {
  it(`has at most ${README_MAX_LINES} lines`, function () {
    const text = read('README.md');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    assert.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines: move the detail to docs/`);
  });

  it("names every panel of dashboards/grafana.json, each on one line (the Prometheus test reads them here)", function () {
    const text = read('README.md');
    const dashboard = JSON.parse(read('dashboards/grafana.json'));
    const missing = dashboard.panels.map((p) => p.title).filter((t) => !text.includes(t));
    assert.deepStrictEqual(missing, [], `README.md does not name the panels ${missing.join('; ')}`);
  });

  it('links every docs/*.md page, CONTRIBUTING.md and CHANGELOG.md', function () {
    const links = new Set(relativeLinks(read('README.md')).map((l) => l.split('#')[0]));
    const missing = [...DOCS.filter((f) => f !== 'README.md'), ...LINKED_ONLY].filter((f) => !links.has(f));
    assert.deepStrictEqual(missing, [], `README.md does not link ${missing.join(', ')}`);
  });

  for (const file of LINKED_ONLY) {
    it(`${file}: every relative link points to a file the tarball ships, and every #anchor to a heading`, function () {
      this.timeout(60000);
      const problems = brokenLinks(file, read(file), packed());
      assert.deepStrictEqual(problems, [], `${file}:\n  ${problems.join('\n  ')}`);
    });
  }

  for (const file of [...LINKED_ONLY, ...SHIPPED_RESULTS]) {
    it(`${file}: names no file the package lacks but as the repository's, and no checkout's path`, function () {
      this.timeout(60000);
      const problems = unshippedMentions(read(file), packed());
      assert.deepStrictEqual(problems, [], `${file}:\n  ${problems.join('\n  ')}`);
    });
  }
});

describe('docs/spec.md: the contract the sources cite', function () {
  const sections = (text) => new Set([...text.matchAll(/^## (\d+)\. /gm)].map((m) => Number(m[1])));

  if (fs.existsSync(SHARED_SPEC)) {
    it('is ../shared/SPEC.md, byte for byte', function () {
      assert.ok(fs.existsSync(path.join(ROOT, SPEC)), `${SPEC} is missing: cp ../shared/SPEC.md ${SPEC}`);
      assert.ok(fs.readFileSync(SHARED_SPEC).equals(fs.readFileSync(path.join(ROOT, SPEC))),
        `${SPEC} differs from ../shared/SPEC.md: copy it (cp ../shared/SPEC.md ${SPEC})`);
    });
  } else {
    // No shared directory beside this checkout (a clone of its own, a tarball): what can be checked
    // without the original is that the copy is there and whole.
    it('is there, not empty, with its numbered sections from §1 on (../shared/SPEC.md is not beside this checkout)', function () {
      assert.ok(fs.existsSync(path.join(ROOT, SPEC)), `${SPEC} is missing: copy the shared SPEC.md there`);
      const text = read(SPEC);
      assert.ok(/^# lagwatch — specification/m.test(text), `${SPEC} does not start as the specification does`);
      const found = [...sections(text)].sort((a, b) => a - b);
      assert.ok(found.length >= 12, `${SPEC} has sections ${found.join(', ')}`);
      assert.deepStrictEqual(found, found.map((_, i) => i + 1), `${SPEC}'s sections are not §1…§${found.length} in order`);
    });
  }

  it('has every section that a "SPEC §N" in src/ and lib/ names', function () {
    const have = sections(read(SPEC));
    const cited = new Set();
    const walk = (dir) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.(c|h|js|ts)$/.test(e.name)) {
          for (const m of fs.readFileSync(p, 'utf8').matchAll(/SPEC\s*((?:§\d+(?:\s*[–-]\s*§?\d+)?[,\s]*)+)/g)) {
            for (const n of m[1].matchAll(/\d+/g)) cited.add(Number(n[0]));
          }
        }
      }
    };
    walk(path.join(ROOT, 'src'));
    walk(path.join(ROOT, 'lib'));
    assert.ok(cited.size > 0, 'no "SPEC §N" found in src/ and lib/');
    const missing = [...cited].filter((n) => !have.has(n)).sort((a, b) => a - b);
    assert.deepStrictEqual(missing, [], `the sources cite SPEC §${missing.join(', §')}, which ${SPEC} lacks`);
  });
});
