'use strict';
// Loads the addon for this JS thread and ties it to this thread's performance.now() and to the
// thread its events name.
const path = require('path');

// node-gyp-build finds the addon: build/Release (built from source) first, then a prebuilt one
// for this platform in prebuilds/<platform>-<arch>/. LAGWATCH_ADDON names another build of the
// same sources (the sanitizer build of `npm test`). Loading node-gyp-build (and the os module it
// needs) costs every process about 0.1 MiB of private memory, so the two files it would pick here
// are required by their paths first: the build from source (unless its PREBUILDS_ONLY says
// otherwise), and the prebuild `npm run prebuild` made for this platform (prebuildify's name for
// it: `.glibc` on Linux, where node-gyp-build takes it unless the C library is another: its LIBC,
// else musl where /etc/alpine-release exists), for the platform and architecture node-gyp-build
// reads (npm's config in the environment first). Anything else, a file that does not load
// included, is node-gyp-build's to find.
function direct(root) {
  const fs = require('fs');
  const built = path.join(root, 'build', 'Release', 'lagwatch.node');
  if (!process.env.PREBUILDS_ONLY && fs.existsSync(built)) return built;
  const platform = process.env.npm_config_platform || process.platform;
  const arch = process.env.npm_config_arch || process.arch;
  const linux = platform === 'linux';
  if (linux && (process.env.LIBC || (fs.existsSync('/etc/alpine-release') ? 'musl' : 'glibc')) !== 'glibc') return null;
  const pre = path.join(root, 'prebuilds', `${platform}-${arch}`, `lagwatch${linux ? '.glibc' : ''}.node`);
  return fs.existsSync(pre) ? pre : null;
}

// LAGWATCH_ADDON's build, loaded as a native addon only (process.dlopen: a file that is not one
// is refused, never run as JavaScript); null, and one line on stderr, when it cannot be: the
// package's own addon is used, and the app runs.
function named(file) {
  const m = { exports: {} };
  try {
    process.dlopen(m, path.resolve(file));
    return m.exports;
  } catch (err) {
    const why = String((err && err.message) || err).split('\n')[0];
    process.stderr.write(`lagwatch: LAGWATCH_ADDON=${JSON.stringify(file)} cannot be loaded (${why}): the package's own addon is used\n`);
    return null;
  }
}

function load() {
  const chosen = process.env.LAGWATCH_ADDON ? named(process.env.LAGWATCH_ADDON) : null;
  if (chosen !== null) return chosen;
  const root = path.join(__dirname, '..');
  const file = direct(root);
  if (file !== null) {
    try {
      return require(file);
    } catch {
      // node-gyp-build below says why nothing loads, if nothing does
    }
  }
  try {
    return require('node-gyp-build')(root);
  } catch (err) {
    err.message = `lagwatch: no addon for ${process.platform}-${process.arch} (no prebuilt one, and it was not ` +
      'built: was it installed with --ignore-scripts, or by a package manager that skips install scripts?). ' +
      `Run \`npm rebuild lagwatch\` (needs a C compiler, make and Python). ${err.message}`;
    throw err;
  }
}

const native = load();

// uv_hrtime() at performance.now() === 0 on this thread. performance.now() is uv_hrtime() less a
// per-thread origin that Node does not expose, so it is measured: the read of hrtime bracketed
// most tightly by two reads of performance.now() pins the origin to a fraction of a microsecond.
function timeOriginNs() {
  let best = Infinity;
  let origin = 0n;
  // Up to 200 reads; once 20 are done and one was bracketed within 0.5 µs, the origin is pinned
  // far closer than SPEC §1's 0.01 ms (the rest would cost start-up time for nothing).
  for (let i = 0; i < 200 && !(i >= 20 && best <= 0.0005); i++) {
    const a = performance.now();
    const h = process.hrtime.bigint();
    const b = performance.now();
    if (b - a < best) {
      best = b - a;
      origin = h - BigInt(Math.round(((a + b) / 2) * 1e6));
    }
  }
  return origin;
}

// SPEC §14: the thread every event and log record is about: { id: 0, name: 'main' }, or a
// worker's threadId and name (its `name` option, where the runtime exposes it; else null). The
// addon puts this one object in every event it builds. The main thread is told by the addon, so
// that a process with lagwatch does not load worker_threads for it (a worker has it loaded already).
function threadOf() {
  if (native.isMainThread()) return Object.freeze({ id: 0, name: 'main' });
  const wt = require('worker_threads');
  return Object.freeze({ id: wt.threadId, name: typeof wt.threadName === 'string' && wt.threadName !== '' ? wt.threadName : null });
}

// Every conditions receives its events (held samples decided, episodes reported, held samples
// cancelled) through this one function: one call per run of the conditions, the events as
// (type, payload, note) triples in one flat array (src/binding/events.c).
function dispatch(conditions, events) {
  conditions._onEvents(events);
}

// This JS thread, as events and records name it.
native.thread = threadOf();
native.init(dispatch, timeOriginNs(), native.thread);

module.exports = native;
