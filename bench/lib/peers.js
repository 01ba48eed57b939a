'use strict';
// The configurations compared by the benchmarks: nothing, lagwatch with its defaults, and each
// peer set up the way its documentation shows. Used in the child processes (idle, http server,
// accuracy), so that every benchmark measures the same set-up.
//   setup(name, { lagwatch: options, onBlocked(ms, at) }) -> { name, stop() }
const path = require('path');

const root = path.resolve(__dirname, '..', '..');

const CONFIGS = ['nothing', 'lagwatch', 'monitorEventLoopDelay', 'prom-client', 'event-loop-stats',
  '@datadog/native-metrics', 'blocked-at'];
// Variants of lagwatch itself, named with --configs: `stacks: true` (SPEC §12), `blocks: true`
// (the default threshold, 100 ms); and Node 26's monitorEventLoopDelay that samples
// every iteration (the option is ignored by older Nodes: bench/loop.js runs it on 26 and later).
// `stacks: true, blocks: true` watches each block while it runs (blocks.stacks). Sentry's
// event-loop-block detector (@sentry/node-native) as the fault table sets it up, its DSN and
// tunnel on a local port nobody listens on (an idle process sends nothing).
const VARIANTS = ['lagwatch-stacks', 'lagwatch-blocks', 'lagwatch-blocks-stacks', 'monitorEventLoopDelay-iteration', 'sentry'];

// One line per configuration, for the reports: what exactly runs.
const DESCRIBE = {
  nothing: 'no monitor',
  lagwatch: "require('lagwatch').setupAllMonitors() (every monitor, defaults)",
  'lagwatch-stacks': "require('lagwatch').setupAllMonitors({ stacks: true }) (defaults and the stack thread)",
  'lagwatch-blocks': "require('lagwatch').setupAllMonitors({ blocks: true }) (defaults and blocks at 100 ms)",
  'lagwatch-blocks-stacks': "require('lagwatch').setupAllMonitors({ stacks: true, blocks: true }) (blocks at 100 ms, each watched: cause, stack)",
  'monitorEventLoopDelay-iteration': "require('perf_hooks').monitorEventLoopDelay({ samplePerIteration: true }).enable() (Node 26)",
  monitorEventLoopDelay: "require('perf_hooks').monitorEventLoopDelay({ resolution: 10 }).enable()",
  'prom-client': "require('prom-client').collectDefaultMetrics() (defaults; never scraped)",
  'event-loop-stats': "require('event-loop-stats').sense() polled every 1000 ms (its README's example)",
  '@datadog/native-metrics': "require('@datadog/native-metrics').start()",
  'blocked-at': "require('blocked-at')(callback) with its defaults (threshold 20 ms)",
  sentry: "Sentry.init({ dsn, tunnel, integrations: [eventLoopBlockIntegration()] }) (@sentry/node-native, its defaults)",
};

function setup(name, options = {}) {
  switch (name) {
    case 'nothing':
      return { name, stop() {} };
    case 'lagwatch': {
      const m = require(root).setupAllMonitors(options.lagwatch);
      return { name, set: m, stop: () => m.stop() };
    }
    case 'lagwatch-stacks': {
      const m = require(root).setupAllMonitors({ ...options.lagwatch, stacks: true });
      return { name, set: m, stop: () => m.stop() };
    }
    case 'lagwatch-blocks': {
      const m = require(root).setupAllMonitors({ ...options.lagwatch, blocks: true });
      return { name, set: m, stop: () => m.stop() };
    }
    case 'lagwatch-blocks-stacks': {
      const m = require(root).setupAllMonitors({ ...options.lagwatch, stacks: true, blocks: true });
      return { name, set: m, stop: () => m.stop() };
    }
    case 'monitorEventLoopDelay-iteration': {
      const h = require('perf_hooks').monitorEventLoopDelay({ samplePerIteration: true });
      h.enable();
      return { name, histogram: h, stop: () => h.disable() };
    }
    case 'monitorEventLoopDelay': {
      const h = require('perf_hooks').monitorEventLoopDelay({ resolution: 10 });
      h.enable();
      return { name, histogram: h, stop: () => h.disable() };
    }
    case 'prom-client': {
      const client = require('prom-client');
      client.collectDefaultMetrics();
      return { name, client, stop: () => client.register.clear() };
    }
    case 'event-loop-stats': {
      const els = require('event-loop-stats');
      const last = { value: null };
      const timer = setInterval(() => { last.value = els.sense(); }, 1000);
      timer.unref();
      return { name, els, last, stop: () => clearInterval(timer) };
    }
    case '@datadog/native-metrics': {
      const dd = require('@datadog/native-metrics');
      dd.start();
      return { name, dd, stop: () => dd.stop() };
    }
    case 'blocked-at': {
      const blocked = require('blocked-at');
      const onBlocked = options.onBlocked || (() => {});
      const h = blocked((ms) => onBlocked(ms, performance.now()));
      return { name, stop: () => h.stop() };
    }
    case 'sentry': {
      const Sentry = require('@sentry/node');
      const { eventLoopBlockIntegration } = require('@sentry/node-native');
      Sentry.init({
        dsn: 'http://public@127.0.0.1:9/1',
        tunnel: 'http://127.0.0.1:9/tunnel',
        integrations: [eventLoopBlockIntegration()],
      });
      return { name, stop: () => Sentry.close() };
    }
    default:
      throw new Error(`unknown configuration: ${name}`);
  }
}

module.exports = { CONFIGS, VARIANTS, DESCRIBE, setup, root };
