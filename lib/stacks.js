'use strict';
// A set's stacks as its reports carry them (SPEC §12): the hang's stack and profile, a block's
// stack with why it is missing and the span it held, each frame source-mapped when the app runs
// with --enable-source-maps. lib/profile.js, which takes and keeps them, is loaded at the first
// stack read (the stack thread loads it in its own thread).
const native = require('./native');
const { addTrace } = require('./trace');

// A frame where the source map of its script says (with --enable-source-maps), else as taken.
function sourceMapped(frame) {
  let map;
  try {
    // The module module, at the first hang with a stack (its source-map code costs RSS).
    map = frame.url ? require('module').findSourceMap(frame.url) : undefined;
  } catch {
    map = undefined;
  }
  const entry = map && map.findEntry(frame.lineNumber - 1, frame.columnNumber - 1);
  if (!entry || entry.originalSource === undefined) return frame;
  return {
    functionName: entry.name || frame.functionName,
    url: entry.originalSource,
    lineNumber: entry.originalLine + 1,
    columnNumber: entry.originalColumn + 1,
  };
}

// The stack the stack thread took for the hang of set `id` flagged at `detectedAt`:
// { stack: [{ functionName, url, lineNumber, columnNumber }], takenAt, trace }, or null.
function hangStack(id, detectedAt) {
  const got = native.stackGet(id, detectedAt);
  if (got === null) return null;
  const { frames, trace } = JSON.parse(got[0]);
  return { stack: frames.map(sourceMapped), takenAt: got[1], trace };
}

// The profile of that hang (lib/profile.js), or null.
function hangProfile(id, detectedAt) {
  return require('./profile').profileOf(id, detectedAt, sourceMapped);
}

// A judged block's stack, taken while it ran (the worker flagged it at `detectedAt`, null if it
// ended before), how long after its detection (stackDelayMs), its fingerprint, and why a stack is
// missing: 'unseen' (it ended before the worker saw its threshold reached), 'late' (flagged, but
// it ended before the stack thread's first sample ran), 'native' (that sample ran only once the
// thread left code the inspector cannot interrupt: its frames would be where it went on after,
// lib/profile.js's LATE_MS); and the OpenTelemetry span active while it ran (traceId, spanId,
// traceFlags, spanName), if any. Set on `block`.
function blockStack(block, id, detectedAt) {
  const profile = require('./profile');
  const got = typeof detectedAt === 'number' ? profile.blockOf(id, detectedAt, sourceMapped) : null;
  block.stack = got === null || got.late ? null : got.stack;
  block.stackDelayMs = got === null ? null : got.delayMs;
  block.fingerprint = got !== null && got.late ? null : profile.fingerprintOf(got === null ? null : got.profile, block.stack);
  if (block.stack === null) block.stackMissing = got !== null && got.late ? 'native' : typeof detectedAt === 'number' ? 'late' : 'unseen';
  // The request it held: the span active where its stack was taken (none for a late sample,
  // which ran after the part that blocked).
  addTrace(block, got !== null && !got.late ? got.trace : null, true);
}

module.exports = { hangStack, hangProfile, blockStack };
