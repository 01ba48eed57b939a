'use strict';
// The stack and the profile of a hang (SPEC §12, `stacks: true`): where the main thread was when
// the hang was flagged, where it spent the hang from then to its end, and a fingerprint that
// groups the same hang across runs.
//
// Sampling. When the C worker flags a hang, the stack thread (lib/stack-worker.js) asks the main
// thread, through its inspector session, to evaluate sampleExpression(): the inspector runs it in
// an interrupt of the hung code, on the main thread, on top of its stack (the first moment V8 can
// be interrupted). sample() captures that stack (V8's structured call sites, no debugger pause: a
// fraction of a Debugger.pause's cost, whose event also carries every frame's scopes and, once
// enabled, every script of the app) and counts it in this thread's memory, where the report of the
// hang reads it later on the same thread: no hand-over, nothing to wait for. The first sample is
// also the hang's stack: stored in C (lib/native's stackPut) with the OpenTelemetry span the hang
// blocked (lib/trace.js, read here, in the hung code's async context), where the hang record of a
// fatal hang and the reports find it. The stack thread asks again every SAMPLE_INTERVAL_MS; a
// sample asked once the main thread has made progress since the detection (the progress stamp the C
// worker reads) is not taken: the hang is over and the asking stops. Bounded: MAX_SAMPLES samples a
// hang (a minute at the interval), MAX_STACKS distinct stacks (the rest counted as `other`),
// MAX_DEPTH frames a profile's stack (STACK_DEPTH the first stack's), KEPT hangs a set.
//
// Fingerprint. The heaviest path of the profile's call tree (from the root, the child with the
// most samples each time; ties, the one sampled first), reduced to the frames of the app (not
// `node:` internals, not node_modules; else those of node_modules; else all), each as its
// function's name and its script relative to the app's directory: no line or column, so an edit
// that only moves lines keeps it; a different hot function changes it. 64-bit FNV-1a, 16 hex
// digits.
const path = require('path');
const { pathToFileURL, fileURLToPath } = require('url');
const { hash64 } = require('./util');
const { activeSpanContext } = require('./trace');

const SAMPLE_INTERVAL_MS = 50;
const MAX_SAMPLES = 1200;
const MAX_STACKS = 100;
const MAX_DEPTH = 64;
const STACK_DEPTH = 128;
const KEPT = 4;
// Blocks watched (`blocks.stacks`) whose samples wait for their judgment, a hold later; read once.
const BLOCKS_KEPT = 64;
// A block's first sample taken more than this after its detection: the main thread was, until
// then, where the inspector cannot interrupt it (a synchronous native call: fs, crypto, zlib; a
// long builtin such as JSON.parse; a GC), so the frames show where it went on after that part,
// not where it blocked. Such a block gets no stack (`stackMissing: 'native'`), rather than a
// wrong one. (The stack thread's own delay is a few ms; this leaves it room under load.)
const LATE_MS = 50;
const KEY = Symbol.for('lagwatch.sample');

// Set id -> { progressAt(): number, hangs: Map(detectedAt -> { samples, other, stacks: Map }) }.
const sets = new Map();
const urls = new Map(); // a script's file name -> its URL, as the inspector names it

function urlOf(fileName) {
  if (!fileName) return '';
  let url = urls.get(fileName);
  if (url === undefined) {
    url = path.isAbsolute(fileName) ? pathToFileURL(fileName).href : fileName;
    if (urls.size < 10000) urls.set(fileName, url);
  }
  return url;
}

// The call sites of the main thread's stack under the evaluated expression, innermost first.
function capture() {
  const prepare = Error.prepareStackTrace;
  const limit = Error.stackTraceLimit;
  const holder = {};
  let sites;
  try {
    Error.stackTraceLimit = STACK_DEPTH + 1;
    Error.prepareStackTrace = (_, callSites) => callSites;
    Error.captureStackTrace(holder, sample);
    sites = holder.stack; // formatted (here: handed over) at the first read
  } finally {
    Error.prepareStackTrace = prepare;
    Error.stackTraceLimit = limit;
  }
  if (!Array.isArray(sites)) return [];
  // Under sample() is the evaluated expression's script (it has no name), then the hung code.
  return sites.length > 0 && !scriptOfSite(sites[0]) ? sites.slice(1) : sites;
}

// A call site's script name, or its //# sourceURL (eval'd and bundled code); '' for V8's own.
function scriptOfSite(s) {
  return (typeof s.getScriptNameOrSourceURL === 'function' ? s.getScriptNameOrSourceURL() : s.getFileName()) || '';
}

// The hang's stack, as a debugger shows it: the frames of scripts, each where it was, 1-based.
function stackOf(sites) {
  const frames = [];
  for (const s of sites) {
    const url = scriptOfSite(s);
    if (url) frames.push({ functionName: s.getFunctionName() || '', url: urlOf(url), lineNumber: s.getLineNumber() || 0, columnNumber: s.getColumnNumber() || 0 });
  }
  return frames;
}

// A profile's frames: each at its function's start (one node per function, as V8's own
// profiles), V8's built-ins included (JSON.stringify is where a hang may be), 1-based.
function profileFrames(sites) {
  const frames = [];
  for (let i = 0; i < sites.length && frames.length < MAX_DEPTH; i++) {
    const s = sites[i];
    const line = typeof s.getEnclosingLineNumber === 'function' ? s.getEnclosingLineNumber() : s.getLineNumber();
    const col = typeof s.getEnclosingColumnNumber === 'function' ? s.getEnclosingColumnNumber() : s.getColumnNumber();
    frames.push({ functionName: s.getFunctionName() || '', url: urlOf(scriptOfSite(s)), lineNumber: line || 0, columnNumber: col || 0 });
  }
  return frames;
}

// Main thread, in an interrupt of the hung code: 'ok' (taken), 'full' (the last one taken),
// 'ended' (the main thread made progress since `detectedAt`) or 'gone' (the set stopped). The
// first sample of a hang (`first`) is also its stack; so is a block's (`block`), kept here with
// its samples until the block is judged (blockOf), not in C: a block never outlives the process.
function sample(id, detectedAt, first, block) {
  try {
    return take(id, detectedAt, first === true, block === true);
  } catch {
    return 'error'; // never a throw into the hung code's interrupt
  }
}

function take(id, detectedAt, first, block) {
  const s = sets.get(id);
  if (s === undefined || s.stopped) return 'gone';
  if (!(s.progressAt() < detectedAt)) return 'ended';
  const kept = block ? s.blocks : s.hangs;
  let h = kept.get(detectedAt);
  if (h === undefined) {
    h = { samples: 0, other: 0, empty: 0, stacks: new Map(), stack: null, delayMs: null, late: false, trace: null };
    kept.set(detectedAt, h);
    if (kept.size > (block ? BLOCKS_KEPT : KEPT)) kept.delete(kept.keys().next().value);
  }
  if (h.samples + h.empty >= MAX_SAMPLES) return 'full';
  if (first && block) {
    h.delayMs = require('./native').now() - detectedAt;
    if (h.delayMs > LATE_MS) {
      h.late = true;
      return 'ended'; // what follows is after the part that blocked: no sample of it
    }
  }
  const sites = capture();
  if (first && block) {
    // The request it held: the span active in this interrupt, the block's own async context.
    h.stack = stackOf(sites);
    h.trace = activeSpanContext();
  } else if (first) {
    const json = JSON.stringify({ frames: stackOf(sites), trace: activeSpanContext() });
    require('./native').stackPut(id, detectedAt, json);
  }
  const frames = profileFrames(sites);
  if (frames.length === 0) {
    // No JS under it (a stack trace being formatted, where V8 gives no call sites): not counted.
    h.empty++;
    return 'ok';
  }
  h.samples++;
  const key = frames.map((f) => `${f.functionName}\u0000${f.url}\u0000${f.lineNumber}:${f.columnNumber}`).join('\u0001');
  const known = h.stacks.get(key);
  if (known !== undefined) known.count++;
  else if (h.stacks.size < MAX_STACKS) h.stacks.set(key, { frames, count: 1 });
  else h.other++;
  return h.samples + h.empty >= MAX_SAMPLES ? 'full' : 'ok';
}

// Main thread, once per process: the function the stack thread's evaluation calls.
function install() {
  if (typeof globalThis[KEY] !== 'function') {
    Object.defineProperty(globalThis, KEY, { value: sample, configurable: true });
  }
}

// A set with stacks: `progressAt()` is when its main thread last made progress. A thread has
// one real-clock set at a time (lib/monitors.js): the profiles of one stopped before go with it.
function register(id, progressAt) {
  install();
  sets.clear();
  sets.set(id, { progressAt, stopped: false, hangs: new Map(), blocks: new Map() });
}

// The set stopped: no more samples; the profiles it has are still read by its last reports.
function stopSampling(id) {
  const s = sets.get(id);
  if (s !== undefined) s.stopped = true;
}

// The expression the stack thread evaluates for a sample of the hang (or block) flagged at
// `detectedAt`. One call, no function of its own: the sampled stack is this script's frame, then
// the hung code.
function sampleExpression(id, detectedAt, first = false, block = false) {
  return `globalThis[Symbol.for('lagwatch.sample')](${Number(id)}, ${Number(detectedAt)}, ${first === true}, ${block === true})`;
}

// The profile of the hang flagged at `detectedAt`: { samples, intervalMs, stacks: [{ frames,
// count }] (heaviest first, equals in the order first sampled), other }, each frame through `map`
// (source maps); null if no sample.
function profileOf(id, detectedAt, map) {
  const s = sets.get(id);
  return profileFrom(s === undefined ? undefined : s.hangs.get(detectedAt), map);
}

// The block flagged at `detectedAt`, read once as it is judged: { stack (its first sample's
// frames, through `map`), profile (each null if not taken), delayMs (from its detection to its
// first sample), late (that sample came past LATE_MS: not taken), trace (the span active in that
// sample's interrupt, lib/trace.js, or null) }, or null if nothing was asked.
function blockOf(id, detectedAt, map) {
  const s = sets.get(id);
  const h = s === undefined ? undefined : s.blocks.get(detectedAt);
  if (h === undefined) return null;
  s.blocks.delete(detectedAt);
  return { stack: h.stack === null ? null : h.stack.map(map), profile: profileFrom(h, map), delayMs: h.delayMs, late: h.late, trace: h.trace };
}

function profileFrom(h, map) {
  if (h === undefined || h.samples === 0) return null;
  const stacks = [...h.stacks.values()]
    .map((st) => ({ frames: st.frames.map(map), count: st.count }))
    .sort((a, b) => b.count - a.count);
  return { samples: h.samples, intervalMs: SAMPLE_INTERVAL_MS, stacks, other: h.other };
}

function label(f) {
  return `${f.functionName} ${f.url} ${f.lineNumber}:${f.columnNumber}`;
}

// The heaviest path of the stacks' call tree, outermost first: from the root, the child through
// which most samples went. Ties go to the child of the stack listed first: a profile lists its
// stacks heaviest first and, among equals, in the order they were first sampled, so a tie goes to
// where the code was nearest its detection (a short block's last sample may come after the
// blocking call returned, in the rest of the same iteration).
function heaviestPath(stacks) {
  const path_ = [];
  let cur = stacks.map((st) => ({ frames: st.frames.slice().reverse(), count: st.count }));
  for (let depth = 0; cur.length > 0; depth++) {
    const by = new Map(); // in the order of the first stack through each child
    for (const st of cur) {
      if (st.frames.length <= depth) continue;
      const k = label(st.frames[depth]);
      const e = by.get(k);
      if (e === undefined) by.set(k, { frame: st.frames[depth], count: st.count, stacks: [st] });
      else {
        e.count += st.count;
        e.stacks.push(st);
      }
    }
    let best = null;
    for (const e of by.values()) if (best === null || e.count > best.count) best = e;
    if (best === null) break;
    path_.push(best.frame);
    cur = best.stacks;
  }
  return path_;
}

function kindOf(url) {
  if (url === '' || url.startsWith('node:') || !/[\\/]/.test(url)) return 'internal';
  return /[\\/]node_modules[\\/]/.test(url) ? 'dependency' : 'app';
}

// A script's name that does not depend on where the app is installed: the path under the last
// node_modules for a dependency, else relative to the app's directory (the entry script's), else
// the file's name.
function scriptOf(url, root) {
  let file = url;
  if (!url.startsWith('file:') && !path.isAbsolute(url)) return url; // node:internal/…, eval
  if (url.startsWith('file:')) {
    try {
      file = fileURLToPath(url);
    } catch {
      file = url;
    }
  }
  file = file.split(path.sep).join('/');
  const nm = file.lastIndexOf('/node_modules/');
  if (nm >= 0) return file.slice(nm + '/node_modules/'.length);
  if (root && file.startsWith(`${root}/`)) return file.slice(root.length + 1);
  return file.includes('/') ? file.slice(file.lastIndexOf('/') + 1) : file;
}

function appRoot() {
  const entry = process.argv[1];
  return entry ? path.dirname(path.resolve(entry)).split(path.sep).join('/') : '';
}

// The fingerprint of a hang from its profile's stacks ([{ frames, count }]); null if none.
function fingerprint(stacks, root = appRoot()) {
  const heavy = heaviestPath(stacks);
  if (heavy.length === 0) return null;
  let frames = heavy.filter((f) => kindOf(f.url) === 'app');
  if (frames.length === 0) frames = heavy.filter((f) => kindOf(f.url) === 'dependency');
  if (frames.length === 0) frames = heavy;
  const text = frames.map((f) => `${f.functionName || '(anonymous)'} ${scriptOf(f.url, root)}`).join('\n');
  return hash64(text);
}

// A hang's or a block's fingerprint: from its profile, else from its one stack, else null.
function fingerprintOf(profile, stack) {
  if (profile !== null && profile !== undefined) return fingerprint(profile.stacks);
  return Array.isArray(stack) && stack.length > 0 ? fingerprint([{ frames: stack, count: 1 }]) : null;
}

// Folded stacks ("outer;...;inner count" lines, heaviest first), as flame graph tools read them.
function folded(profile) {
  return profile.stacks.map((st) => `${st.frames.slice().reverse()
    .map((f) => `${f.functionName || '(anonymous)'} (${f.url}:${f.lineNumber})`).join(';')} ${st.count}`).join('\n');
}

module.exports = {
  SAMPLE_INTERVAL_MS, MAX_SAMPLES, MAX_STACKS, MAX_DEPTH, LATE_MS,
  register, stopSampling, sampleExpression, profileOf, blockOf, heaviestPath, fingerprint, fingerprintOf, folded,
  scriptOf,
};
