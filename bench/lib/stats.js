'use strict';
// Small statistics and formatting helpers shared by the benchmarks.

const sorted = (xs) => [...xs].sort((a, b) => a - b);

// The median (mean of the two middle values for an even count).
function median(xs) {
  if (xs.length === 0) return NaN;
  const s = sorted(xs);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// Nearest-rank quantile, q in [0, 1].
function quantile(xs, q) {
  if (xs.length === 0) return NaN;
  const s = sorted(xs);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

// { median, min, max, n } of a list.
function summary(xs) {
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs), n: xs.length };
}

// A deterministic PRNG (mulberry32), so that an injection schedule can be replayed.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle(xs, rand) {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

// Options of a command line: opt(args, '--rounds', 5); flag(args, '--json').
function opt(args, name, dflt) {
  const i = args.indexOf(name);
  if (i < 0) return dflt;
  const v = args[i + 1];
  return typeof dflt === 'number' ? Number(v) : v;
}
const flag = (args, name) => args.includes(name);

module.exports = { median, quantile, summary, rng, shuffle, opt, flag };
