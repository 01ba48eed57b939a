'use strict';
// The profile of a hang and its fingerprint (lib/profile.js), in one process: the sampler's
// bounds and answers, the heaviest path, and what the fingerprint keeps and ignores. The real
// sampling of a hung main thread by the stack thread is test/e2e/profile.test.js.
const assert = require('assert');
const profile = require('../lib/profile');

const SAMPLE = Symbol.for('lagwatch.sample');

function frame(functionName, url, lineNumber = 1, columnNumber = 1) {
  return { functionName, url, lineNumber, columnNumber };
}

// Innermost first, as the stacks are kept.
const APP = 'file:///srv/app';
const timers = [frame('processTimers', 'node:internal/timers', 512, 25), frame('listOnTimeout', 'node:internal/timers', 474, 25)];
function stack(count, ...inner) {
  return { frames: [...inner, frame('handle', `${APP}/server.js`, 30), ...timers.slice().reverse()], count };
}

describe('the profile of a hang (lib/profile.js)', () => {
  let id = 1000;
  let progress;
  beforeEach(() => {
    id++;
    progress = -Infinity;
    profile.register(id, () => progress);
  });

  it('counts each distinct stack; a stack taken after the main thread made progress is not taken', () => {
    const take = () => globalThis[SAMPLE](id, 500);
    assert.strictEqual(take(), 'ok');
    assert.strictEqual(take(), 'ok');
    const p = profile.profileOf(id, 500, (f) => f);
    assert.strictEqual(p.samples, 2);
    assert.strictEqual(p.intervalMs, profile.SAMPLE_INTERVAL_MS);
    assert.strictEqual(p.stacks.length, 1, 'one call site: one stack');
    assert.strictEqual(p.stacks[0].count, 2);
    // The innermost frame is the code that asked (this test's arrow), lagwatch's own are hidden.
    assert.ok(p.stacks[0].frames[0].url.endsWith('/test/profile.test.js'), JSON.stringify(p.stacks[0].frames[0]));
    assert.ok(p.stacks[0].frames.every((f) => !f.url.endsWith('/lib/profile.js')), JSON.stringify(p.stacks[0].frames));
    progress = 500; // progress at (or after) the detection: the hang is over
    assert.strictEqual(take(), 'ended');
    assert.strictEqual(profile.profileOf(id, 500, (f) => f).samples, 2);
  });

  it('at most MAX_SAMPLES samples and MAX_STACKS distinct stacks, the rest counted as other', () => {
    const callers = [];
    for (let i = 0; i <= profile.MAX_STACKS; i++) {
      // eslint-disable-next-line no-new-func
      callers.push(new Function('s', 'id', `return (function site${i}() { return s(id, 7); })();\n//# sourceURL=/tmp/site${i}.js`));
    }
    for (const c of callers) assert.strictEqual(c(globalThis[SAMPLE], id), 'ok');
    let p = profile.profileOf(id, 7, (f) => f);
    assert.strictEqual(p.stacks.length, profile.MAX_STACKS);
    assert.strictEqual(p.other, 1, 'the 101st distinct stack is counted, not kept');
    let last;
    for (let i = p.samples; i < profile.MAX_SAMPLES; i++) last = globalThis[SAMPLE](id, 7);
    assert.strictEqual(last, 'full', 'the last sample says so');
    assert.strictEqual(globalThis[SAMPLE](id, 7), 'full', 'and none is taken after it');
    p = profile.profileOf(id, 7, (f) => f);
    assert.strictEqual(p.samples, profile.MAX_SAMPLES);
    assert.strictEqual(p.stacks.reduce((n, s) => n + s.count, 0) + p.other, profile.MAX_SAMPLES, 'every sample counted once');
  });

  it('equal counts are listed in the order first sampled, and the heaviest path takes the first: a short block\'s last sample, taken after its call returned, is not its path', () => {
    // Two call sites under one caller, one sample each: the blocking one first, then the code
    // that ran after it returned (whose name sorts first).
    function zzParseBody() {
      return globalThis[SAMPLE](id, 13);
    }
    function aaAfterwards() {
      return globalThis[SAMPLE](id, 13);
    }
    function handler() {
      assert.strictEqual(zzParseBody(), 'ok');
      assert.strictEqual(aaAfterwards(), 'ok');
    }
    handler();
    const p = profile.profileOf(id, 13, (f) => f);
    assert.deepStrictEqual(p.stacks.map((st) => [st.count, st.frames[0].functionName]), [[1, 'zzParseBody'], [1, 'aaAfterwards']]);
    const names = profile.heaviestPath(p.stacks).map((f) => f.functionName);
    assert.deepStrictEqual(names.slice(names.indexOf('handler')), ['handler', 'zzParseBody'], names.join(' > '));
    assert.strictEqual(profile.fingerprint(p.stacks), profile.fingerprint([p.stacks[0]]));
  });

  it('a stopped set takes no more samples and keeps what it has; no samples: no profile', () => {
    assert.strictEqual(globalThis[SAMPLE](id, 9), 'ok');
    profile.stopSampling(id);
    assert.strictEqual(globalThis[SAMPLE](id, 9), 'gone');
    assert.strictEqual(profile.profileOf(id, 9, (f) => f).samples, 1);
    assert.strictEqual(profile.profileOf(id, 10, (f) => f), null);
    assert.strictEqual(globalThis[SAMPLE](id + 99, 9), 'gone', 'an unknown set');
  });

  it('asked while the hung code formats a stack trace (V8 gives no call sites then): nothing counted, the sampling goes on', () => {
    const prepare = Error.prepareStackTrace;
    let answer;
    try {
      Error.prepareStackTrace = () => {
        answer = globalThis[SAMPLE](id, 11);
        return '';
      };
      const holder = {};
      Error.captureStackTrace(holder);
      assert.strictEqual(holder.stack, '');
    } finally {
      Error.prepareStackTrace = prepare;
    }
    assert.strictEqual(answer, 'ok', 'not the end of the hang');
    assert.strictEqual(profile.profileOf(id, 11, (f) => f), null, 'no sample');
    assert.strictEqual(globalThis[SAMPLE](id, 11), 'ok');
    assert.strictEqual(profile.profileOf(id, 11, (f) => f).samples, 1);
  });

  it('the sample expression is one call of the sampler, so that its script is the only frame to drop', () => {
    assert.strictEqual(profile.sampleExpression(3, 1234.5), "globalThis[Symbol.for('lagwatch.sample')](3, 1234.5, false, false)");
    assert.strictEqual(profile.sampleExpression(3, 1234.5, true), "globalThis[Symbol.for('lagwatch.sample')](3, 1234.5, true, false)");
    // A block's (blocks.stacks): its first sample is its stack, kept in JS for its judgment.
    assert.strictEqual(profile.sampleExpression(3, 1234.5, true, true), "globalThis[Symbol.for('lagwatch.sample')](3, 1234.5, true, true)");
  });
});

describe('the heaviest path and the fingerprint (lib/profile.js)', () => {
  const hotA = [stack(30, frame('spin', `${APP}/util.js`, 3), frame('parseReport', `${APP}/report.js`, 10)),
    stack(10, frame('spin', `${APP}/util.js`, 3), frame('renderPage', `${APP}/page.js`, 20))];
  const hotB = [stack(10, frame('spin', `${APP}/util.js`, 3), frame('parseReport', `${APP}/report.js`, 10)),
    stack(30, frame('spin', `${APP}/util.js`, 3), frame('renderPage', `${APP}/page.js`, 20))];

  it('the heaviest path follows the child with the most samples, outermost first', () => {
    const names = profile.heaviestPath(hotA).map((f) => f.functionName);
    assert.deepStrictEqual(names, ['processTimers', 'listOnTimeout', 'handle', 'parseReport', 'spin']);
    // Not the heaviest single stack: here two stacks of 20 under `a` outweigh one of 30 under `b`.
    const split = [stack(20, frame('x', `${APP}/a.js`), frame('a', `${APP}/a.js`)),
      stack(20, frame('y', `${APP}/a.js`), frame('a', `${APP}/a.js`)),
      stack(30, frame('b', `${APP}/b.js`))];
    assert.deepStrictEqual(profile.heaviestPath(split).slice(3).map((f) => f.functionName), ['a', 'x']);
    assert.deepStrictEqual(profile.heaviestPath([]), []);
  });

  it('the same profile gives the same fingerprint; a different hot function a different one', () => {
    const a = profile.fingerprint(hotA, '/srv/app');
    assert.match(a, /^[0-9a-f]{16}$/);
    assert.strictEqual(profile.fingerprint(hotA.slice().reverse(), '/srv/app'), a, 'the order of the stacks does not matter');
    assert.notStrictEqual(profile.fingerprint(hotB, '/srv/app'), a);
    assert.strictEqual(profile.fingerprint([], '/srv/app'), null);
  });

  it('moved lines, other counts of the same shape, another install directory: the same fingerprint', () => {
    const a = profile.fingerprint(hotA, '/srv/app');
    const moved = hotA.map((s) => ({ count: s.count * 3, frames: s.frames.map((f) => (f.url.startsWith('file:') ? { ...f, lineNumber: f.lineNumber + 7, columnNumber: 5 } : f)) }));
    assert.strictEqual(profile.fingerprint(moved, '/srv/app'), a);
    const elsewhere = hotA.map((s) => ({ count: s.count, frames: s.frames.map((f) => ({ ...f, url: f.url.replace(APP, 'file:///home/me/app') })) }));
    assert.strictEqual(profile.fingerprint(elsewhere, '/home/me/app'), a);
  });

  it('app frames first: Node\'s internals and a dependency under the app\'s frames do not change it', () => {
    const a = profile.fingerprint(hotA, '/srv/app');
    const newerNode = hotA.map((s) => ({ count: s.count, frames: s.frames.map((f) => (f.url.startsWith('node:') ? { ...f, lineNumber: 999, functionName: `${f.functionName}2` } : f)) }));
    assert.strictEqual(profile.fingerprint(newerNode, '/srv/app'), a, 'a Node upgrade renames internals');
    // With no app frame at all, a dependency's frames make it, by their path under node_modules.
    const dep = (root) => [{ frames: [frame('parse', `file://${root}/node_modules/yaml/dist/index.js`, 4), ...timers], count: 5 }];
    assert.strictEqual(profile.fingerprint(dep('/srv/app'), '/srv/app'), profile.fingerprint(dep('/opt/x'), '/opt/x'));
    assert.notStrictEqual(profile.fingerprint(dep('/srv/app'), '/srv/app'), profile.fingerprint([{ frames: timers, count: 5 }], '/srv/app'));
    assert.strictEqual(profile.scriptOf('file:///srv/app/node_modules/a/node_modules/b/i.js', '/srv/app'), 'b/i.js');
    assert.strictEqual(profile.scriptOf('file:///srv/app/lib/x.js', '/srv/app'), 'lib/x.js');
    assert.strictEqual(profile.scriptOf('node:internal/timers', '/srv/app'), 'node:internal/timers');
  });

  it('folded stacks: outermost first, one line a stack with its count, heaviest first', () => {
    const text = profile.folded({ stacks: [hotA[0]] });
    assert.strictEqual(text, 'processTimers (node:internal/timers:512);listOnTimeout (node:internal/timers:474);handle (file:///srv/app/server.js:30);' +
      'parseReport (file:///srv/app/report.js:10);spin (file:///srv/app/util.js:3) 30');
  });
});

describe('the request a block held (lib/profile.js, lib/trace.js, lib/blocking.js)', () => {
  const api = require('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks');
  const { TracerProvider } = require('@opentelemetry/sdk-trace');
  const native = require('../lib/native');
  const { BlockingProfile, format } = require('../lib/blocking');
  let id = 5000;
  before(() => {
    api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    api.trace.setGlobalTracerProvider(new TracerProvider());
  });
  after(() => {
    api.context.disable();
    api.trace.disable();
  });

  it('a block\'s first sample reads the span active in its interrupt: its ids and name; none outside a span', async () => {
    id++;
    profile.register(id, () => -Infinity);
    const tracer = api.trace.getTracer('test');
    let expected;
    let at;
    await tracer.startActiveSpan('GET /report', async (span) => {
      expected = span.spanContext();
      await new Promise((resolve) => setImmediate(resolve)); // an async hop: the context is AsyncLocalStorage's
      // Detected just now: a first sample later than LATE_MS after detection is no sample of the
      // block ('ended'), and a loaded machine can hold the hop above that long.
      at = native.now();
      assert.strictEqual(globalThis[SAMPLE](id, at, true, true), 'ok');
      span.end();
    });
    const got = profile.blockOf(id, at, (f) => f);
    assert.deepStrictEqual(got.trace, { traceId: expected.traceId, spanId: expected.spanId, traceFlags: expected.traceFlags, name: 'GET /report' });
    const outside = native.now();
    assert.strictEqual(globalThis[SAMPLE](id, outside, true, true), 'ok');
    assert.strictEqual(profile.blockOf(id, outside, (f) => f).trace, null);
  });

  it('the blocking profile ranks by span name as well, each with the site of most of its time', () => {
    const p = new BlockingProfile();
    const site = (name) => [frame(name, `${APP}/server.js`, 7)];
    for (let i = 0; i < 40; i++) p.add({ durationMs: 300, cause: null, fingerprint: 'aaaa', stack: site('resizeThumbnail'), spanName: 'GET /report' });
    p.add({ durationMs: 900, cause: null, fingerprint: 'bbbb', stack: site('renderPdf'), spanName: 'GET /report' });
    for (let i = 0; i < 3; i++) p.add({ durationMs: 120, cause: null, fingerprint: 'cccc', stack: site('parseBody'), spanName: 'POST /upload' });
    p.add({ durationMs: 150, cause: null, fingerprint: 'cccc', stack: site('parseBody') }); // no span known
    const r = p.read();
    assert.deepStrictEqual(r.spans.map((g) => [g.name, g.count, g.totalMs, g.maxMs, g.p50Ms, g.fingerprint]), [
      ['GET /report', 41, 40 * 300 + 900, 900, 300, 'aaaa'],
      ['POST /upload', 3, 360, 120, 120, 'cccc'],
    ]);
    assert.strictEqual(r.spans[0].stack[0].functionName, 'resizeThumbnail');
    assert.strictEqual(r.blocks, 45, 'every block is in the profile by site, a span known or not');
    const text = format(r);
    assert.match(text, /^lagwatch: blocking profile by span:$/m);
    assert.match(text, /^ {2}GET \/report: 41 block\(s\), 12900 ms, max 900 ms, p50 300 ms, at resizeThumbnail \(\/srv\/app\/server\.js:7\) \[aaaa\]$/m);
  });
});
