'use strict';
// The blocking profile of a monitor set (`m.blockingProfile()`): every block of the run (reported
// one by one or over the budget, never one explained by evidence), grouped by the call site that
// blocked, i.e. its fingerprint (lib/profile.js: the heaviest path of its samples, app frames,
// no line numbers). Blocks without a stack (`blocks.stacks` off, or a block that ended before the
// worker saw it reach the threshold) are one group of their own, fingerprint null.
//
// The same blocks are also grouped by the name of the OpenTelemetry span each held (`spanName`,
// with `blocks.stacks` and a context manager: the request, e.g. `GET /report`), each with the call
// site where most of its blocked time went, so that a server's profile says which route blocks.
//
// Bounded: MAX_SITES groups of each kind (the rest counted in `other` and `spansOther`), and per
// group the durations of MAX_DURATIONS blocks for its median (beyond that a uniform sample of
// them: reservoir sampling).

const { printable } = require('./util');
const MAX_SITES = 1000;
const MAX_DURATIONS = 1000;

// A group's durations, for its median, and its total.
function addDuration(g, ms) {
  g.count++;
  g.totalMs += ms;
  if (ms > g.maxMs) g.maxMs = ms;
  if (g.durations.length < MAX_DURATIONS) g.durations.push(ms);
  else {
    const j = Math.floor(Math.random() * g.count);
    if (j < MAX_DURATIONS) g.durations[j] = ms;
  }
}

function median(durations) {
  const sorted = durations.slice().sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

class BlockingProfile {
  constructor() {
    this._sites = new Map(); // fingerprint (null: no stack) -> site
    this._count = 0;
    this._totalMs = 0;
    this._other = { count: 0, totalMs: 0 };
    this._spans = new Map(); // span name -> { count, totalMs, maxMs, durations, sites: fingerprint -> ms }
    this._spansOther = { count: 0, totalMs: 0 };
  }

  // By the span it held, when it is known.
  addSpan(block) {
    if (typeof block.spanName !== 'string') return;
    let g = this._spans.get(block.spanName);
    if (g === undefined) {
      if (this._spans.size >= MAX_SITES) {
        this._spansOther.count++;
        this._spansOther.totalMs += block.durationMs;
        return;
      }
      g = { count: 0, totalMs: 0, maxMs: 0, durations: [], sites: new Map() };
      this._spans.set(block.spanName, g);
    }
    addDuration(g, block.durationMs);
    const key = typeof block.fingerprint === 'string' ? block.fingerprint : null;
    if (g.sites.has(key) || g.sites.size < MAX_SITES) g.sites.set(key, (g.sites.get(key) || 0) + block.durationMs);
  }

  // One block: { durationMs, cause (or null), stack (or null/absent), fingerprint (or null/absent) }.
  add(block) {
    this._count++;
    this._totalMs += block.durationMs;
    this.addSpan(block);
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
    addDuration(s, block.durationMs);
    const cause = block.cause ? block.cause.dominant : 'unknown';
    s.causes.set(cause, (s.causes.get(cause) || 0) + 1);
    // The representative stack: that of the site's longest block with one.
    if (Array.isArray(block.stack) && block.stack.length > 0 && block.durationMs > s.stackMs) {
      s.stack = block.stack;
      s.stackMs = block.durationMs;
    }
  }

  // { blocks, totalMs, sites: [{ fingerprint, count, totalMs, maxMs, p50Ms, cause, causes, stack }]
  // (the most blocked time first), other: { count, totalMs }, spans: [{ name, count, totalMs, maxMs,
  // p50Ms, fingerprint, stack }] (the same order; `fingerprint` and `stack`: the site of most of
  // its blocked time), spansOther: { count, totalMs } }.
  read() {
    const sites = [];
    for (const [fingerprint, s] of this._sites) {
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
        p50Ms: median(s.durations),
        cause, causes: Object.fromEntries(s.causes), stack: s.stack,
      });
    }
    sites.sort((a, b) => b.totalMs - a.totalMs || b.count - a.count);
    const spans = [];
    for (const [name, g] of this._spans) {
      let top = null;
      for (const [fp, ms] of g.sites) if (top === null || ms > top.ms) top = { fp, ms };
      const site = top === null ? undefined : this._sites.get(top.fp);
      spans.push({
        name, count: g.count, totalMs: g.totalMs, maxMs: g.maxMs, p50Ms: median(g.durations),
        fingerprint: top === null ? null : top.fp, stack: site === undefined ? null : site.stack,
      });
    }
    spans.sort((a, b) => b.totalMs - a.totalMs || b.count - a.count);
    return { blocks: this._count, totalMs: this._totalMs, sites, other: { ...this._other }, spans, spansOther: { ...this._spansOther } };
  }
}

// A site's place for a terminal: its innermost frames outside Node's own (at most 3, innermost
// first), each `function (file:line)`.
function where(stack) {
  const frames = Array.isArray(stack) ? stack.filter((f) => f.url !== '' && !f.url.startsWith('node:')).slice(0, 3) : [];
  if (frames.length === 0) return '(no stack)';
  return frames.map((f) => `${printable(f.functionName || '(anonymous)')} (${printable(f.url.replace(/^file:\/\//, ''))}:${f.lineNumber})`).join(' < ');
}

// The profile as lines for a terminal: the `top` sites.
function format(profile, top = 10) {
  const lines = [`lagwatch: blocking profile: ${profile.blocks} block(s), ${Math.round(profile.totalMs)} ms blocked in all`];
  profile.sites.slice(0, top).forEach((s, i) => {
    lines.push(`  ${i + 1}. ${Math.round(s.totalMs)} ms in ${s.count} block(s), max ${Math.round(s.maxMs)} ms, ` +
      `p50 ${Math.round(s.p50Ms)} ms, ${s.cause}: ${where(s.stack)}${s.fingerprint ? ` [${s.fingerprint}]` : ''}`);
  });
  if (profile.other.count > 0) lines.push(`  and ${profile.other.count} block(s) at more sites than kept`);
  // By the request (span) each block held, when spans were known.
  const spans = profile.spans || [];
  if (spans.length > 0) {
    lines.push('lagwatch: blocking profile by span:');
    for (const g of spans.slice(0, top)) {
      lines.push(`  ${printable(g.name)}: ${g.count} block(s), ${Math.round(g.totalMs)} ms, max ${Math.round(g.maxMs)} ms, ` +
        `p50 ${Math.round(g.p50Ms)} ms, at ${where(g.stack)}${g.fingerprint ? ` [${g.fingerprint}]` : ''}`);
    }
    if (profile.spansOther && profile.spansOther.count > 0) lines.push(`  and ${profile.spansOther.count} block(s) in more spans than kept`);
  }
  return lines.join('\n');
}

module.exports = { BlockingProfile, format, where, MAX_SITES, MAX_DURATIONS };
