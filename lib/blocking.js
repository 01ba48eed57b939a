'use strict';
// The blocking profile of a monitor set (`m.blockingProfile()`): every block of the run (reported
// one by one or over the budget, never one explained by evidence), grouped by the call site that
// blocked, i.e. its fingerprint (lib/profile.js: the heaviest path of its samples, app frames,
// no line numbers). Blocks without a stack (`blocks.stacks` off, or a block that ended before the
// worker saw it reach the threshold) are one group of their own, fingerprint null.
//
// Bounded: MAX_SITES groups (the rest counted in `other`), and per group the durations of
// MAX_DURATIONS blocks for its median (beyond that a uniform sample of them: reservoir sampling).

const MAX_SITES = 1000;
const MAX_DURATIONS = 1000;

class BlockingProfile {
  constructor() {
    this._sites = new Map(); // fingerprint (null: no stack) -> site
    this._count = 0;
    this._totalMs = 0;
    this._other = { count: 0, totalMs: 0 };
  }

  // One block: { durationMs, cause (or null), stack (or null/absent), fingerprint (or null/absent) }.
  add(block) {
    this._count++;
    this._totalMs += block.durationMs;
    const key = typeof block.fingerprint === 'string' ? block.fingerprint : null;
    let s = this._sites.get(key);
    if (s === undefined) {
      if (this._sites.size >= MAX_SITES) {
        this._other.count++;
        this._other.totalMs += block.durationMs;
        return;
      }
      s = { count: 0, totalMs: 0, maxMs: 0, durations: [], causes: new Map(), stack: null, stackMs: -1 };
      this._sites.set(key, s);
    }
    s.count++;
    s.totalMs += block.durationMs;
    if (block.durationMs > s.maxMs) s.maxMs = block.durationMs;
    if (s.durations.length < MAX_DURATIONS) s.durations.push(block.durationMs);
    else {
      const j = Math.floor(Math.random() * s.count);
      if (j < MAX_DURATIONS) s.durations[j] = block.durationMs;
    }
    const cause = block.cause ? block.cause.dominant : 'unknown';
    s.causes.set(cause, (s.causes.get(cause) || 0) + 1);
    // The representative stack: that of the site's longest block with one.
    if (Array.isArray(block.stack) && block.stack.length > 0 && block.durationMs > s.stackMs) {
      s.stack = block.stack;
      s.stackMs = block.durationMs;
    }
  }

  // { blocks, totalMs, sites: [{ fingerprint, count, totalMs, maxMs, p50Ms, cause, causes, stack }]
  // (the most blocked time first), other: { count, totalMs } }.
  read() {
    const sites = [];
    for (const [fingerprint, s] of this._sites) {
      const sorted = s.durations.slice().sort((a, b) => a - b);
      let cause = 'unknown';
      let most = 0;
      for (const [c, n] of s.causes) {
        // The dominant cause: the most frequent; a known one over 'unknown' at a tie.
        if (n > most || (n === most && cause === 'unknown')) {
          cause = c;
          most = n;
        }
      }
      sites.push({
        fingerprint, count: s.count, totalMs: s.totalMs, maxMs: s.maxMs,
        p50Ms: sorted[Math.floor((sorted.length - 1) / 2)],
        cause, causes: Object.fromEntries(s.causes), stack: s.stack,
      });
    }
    sites.sort((a, b) => b.totalMs - a.totalMs || b.count - a.count);
    return { blocks: this._count, totalMs: this._totalMs, sites, other: { ...this._other } };
  }
}

// A site's place for a terminal: its innermost frames outside Node's own (at most 3, innermost
// first), each `function (file:line)`.
function where(stack) {
  const frames = Array.isArray(stack) ? stack.filter((f) => f.url !== '' && !f.url.startsWith('node:')).slice(0, 3) : [];
  if (frames.length === 0) return '(no stack)';
  return frames.map((f) => `${f.functionName || '(anonymous)'} (${f.url.replace(/^file:\/\//, '')}:${f.lineNumber})`).join(' < ');
}

// The profile as lines for a terminal: the `top` sites.
function format(profile, top = 10) {
  const lines = [`lagwatch: blocking profile: ${profile.blocks} block(s), ${Math.round(profile.totalMs)} ms blocked in all`];
  profile.sites.slice(0, top).forEach((s, i) => {
    lines.push(`  ${i + 1}. ${Math.round(s.totalMs)} ms in ${s.count} block(s), max ${Math.round(s.maxMs)} ms, ` +
      `p50 ${Math.round(s.p50Ms)} ms, ${s.cause}: ${where(s.stack)}${s.fingerprint ? ` [${s.fingerprint}]` : ''}`);
  });
  if (profile.other.count > 0) lines.push(`  and ${profile.other.count} block(s) at more sites than kept`);
  return lines.join('\n');
}

module.exports = { BlockingProfile, format, where, MAX_SITES, MAX_DURATIONS };
