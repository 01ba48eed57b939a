'use strict';
// Idle overhead: CPU time per second of an idle process, one child process per run
// (bench/fixtures/idle-child.js), configurations alternated (the order rotates every round, so a
// drift in the machine's load falls on all of them). Ratios are taken within a round, to the
// reference configuration measured in that same round.
const { spawnSync } = require('child_process');
const path = require('path');
const { summary } = require('./stats');

const child = path.join(__dirname, '..', 'fixtures', 'idle-child.js');

function runOne(name, seconds) {
  const r = spawnSync(process.execPath, [child, name, String(seconds)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`idle ${name}: exit ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

// -> { rounds, seconds, reference, configs: { name: { cpuMsPerSecond: summary, ratio: summary,
//      netRatio: summary, wakeupsPerSecond: summary, byThread: {comm: median} } }, runs: [...] }
function runIdle({ configs, rounds = 5, seconds = 5, reference = 'monitorEventLoopDelay', log = () => {} }) {
  const runs = [];
  for (let i = 0; i < rounds; i++) {
    const order = configs.map((_, k) => configs[(k + i) % configs.length]);
    const got = {};
    for (const name of order) got[name] = runOne(name, seconds);
    runs.push(got);
    log(`idle round ${i + 1}/${rounds}: ` + order.map((n) => `${n} ${(got[n].cpuMs / got[n].seconds).toFixed(3)}`).join(', '));
  }
  const perSec = (r) => r.cpuMs / r.seconds;
  const out = { rounds, seconds, reference, configs: {}, runs };
  for (const name of configs) {
    const byThread = {};
    for (const r of runs) {
      for (const [k, v] of Object.entries(r[name].byThread)) (byThread[k] = byThread[k] || []).push(v);
    }
    out.configs[name] = {
      cpuMsPerSecond: summary(runs.map((r) => perSec(r[name]))),
      // Raw ratio to the reference, and the ratio of what each adds to an idle process
      // (less the 'nothing' run of the same round), when 'nothing' is measured.
      ratio: configs.includes(reference) ? summary(runs.map((r) => perSec(r[name]) / perSec(r[reference]))) : null,
      netRatio: configs.includes(reference) && configs.includes('nothing')
        ? summary(runs.map((r) => (perSec(r[name]) - perSec(r.nothing)) / (perSec(r[reference]) - perSec(r.nothing))))
        : null,
      wakeupsPerSecond: summary(runs.map((r) => r[name].wakeupsPerSecond)),
      byThread: Object.fromEntries(Object.entries(byThread).map(([k, v]) => [k, summary(v).median])),
    };
  }
  return out;
}

module.exports = { runIdle };
