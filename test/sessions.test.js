'use strict';
// lib/sessions.js in one process: every Worker started after lagwatch loads wraps
// inspector.Session's connectToMainThread, and nothing of lagwatch's runs there until the app
// connects a session: then the main thread's set is the one told of pauses. lagwatch's own
// threads are not wrapped. (The 6 s pause itself: test/e2e/debugger-session.test.js.)
const assert = require('assert');
const lagwatch = require('..');

// Runs `code` in a Worker made from worker_threads' Worker as of now; resolves its message.
function inWorker(code, workerData) {
  const { Worker } = require('worker_threads');
  return new Promise((resolve, reject) => {
    const w = new Worker(code, { eval: true, workerData });
    w.once('message', resolve);
    w.once('error', reject);
  });
}

const PROBE = `
const { parentPort } = require('worker_threads');
const inspector = require('inspector');
const loaded = () => Object.keys(require.cache).some((k) => /lib[\\\\/]native\\.js$/.test(k));
const wrapped = inspector.Session.prototype.connectToMainThread.lagwatch === true;
const before = loaded();
const s = new inspector.Session();
s.connectToMainThread();
const after = loaded();
const native = after ? require(Object.keys(require.cache).find((k) => /lib[\\\\/]native\\.js$/.test(k))) : null;
const mainId = native ? native.debuggerMainId() : 0;
s.disconnect();
parentPort.postMessage({ wrapped, before, after, mainId });
`;

describe('an in-process inspector session is a debugger (lib/sessions.js)', () => {
  it('a worker started after lagwatch loads is wrapped; nothing of lagwatch runs there until a session connects, then it hears for the main thread\'s set', async () => {
    const m = lagwatch.setupAllMonitors();
    try {
      const r = await inWorker(PROBE);
      assert.strictEqual(r.wrapped, true);
      assert.strictEqual(r.before, false, 'no addon loaded in the worker before a session');
      assert.strictEqual(r.after, true, 'the listening session once the app connected one');
      assert.ok(r.mainId > 0, 'the main thread\'s set is registered');
    } finally {
      m.stop();
    }
    const r = await inWorker(PROBE);
    assert.strictEqual(r.mainId, 0, 'a stopped set is no longer the main thread\'s');
  });

  it('lagwatch\'s own threads (workerData.lagwatchOwnThread) are not wrapped', async () => {
    const r = await inWorker(`
      const { parentPort } = require('worker_threads');
      parentPort.postMessage({ wrapped: require('inspector').Session.prototype.connectToMainThread.lagwatch === true });
    `, { lagwatchOwnThread: 'stacks' });
    assert.strictEqual(r.wrapped, false);
  });
});
