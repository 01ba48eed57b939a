'use strict';
// The fault table: seven faults a server or an app meets, each played on each peer in a fresh
// process (bench/fixtures/fault-child.js), and each cell scored right or wrong by the rule of its
// row. The peers: a bare process (the reference for memory and loop cost), perf_hooks'
// monitorEventLoopDelay, Sentry's event-loop-block detector (@sentry/node-native, its defaults;
// its events reach a collector of this script's on 127.0.0.1 through Sentry's `tunnel` option)
// and lagwatch with `stacks: true` (and `blocks` in the blocks row). Memory is the RSS after
// start-up and a GC, the loop cost the iterations of a setImmediate chain in 1 s, both as the
// median over the peer's processes against the bare process's in the same run.
// Exits 1 when a lagwatch cell is wrong, so that a regression shows.
// Usage: node bench/faults.js [--runs 1] [--peers a,b] [--faults a,b] [--json]
const { spawn } = require('child_process');
const http = require('http');
const path = require('path');
const zlib = require('zlib');
const { opt, flag, summary } = require('./lib/stats');

const args = process.argv.slice(2);
const runs = opt(args, '--runs', 1);
const asJson = flag(args, '--json');
const list = (name, all) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1].split(',') : all;
};
const child = path.join(__dirname, 'fixtures', 'fault-child.js');

const PEERS = list('--peers', ['nothing', 'monitorEventLoopDelay', 'sentry', 'lagwatch']);
const near = (ms, want, tol) => Math.abs(ms - want) <= tol;
const hangs = (o) => o.saw.stalls.filter((s) => s.kind === 'hang');
const kinds = (o) => o.saw.stalls.map((s) => `${s.kind} ${Math.round(s.durationMs)} ms`).join(', ') || 'nothing';
const maxMs = (o) => `max ${Math.round(o.saw.maxMs)} ms`;
const events = (o) => `${o.events.length} event${o.events.length === 1 ? '' : 's'}`;

// Each row: what is played, and for each peer a judge of what it saw: [right, what it reported].
// A lag monitor is right on a fault when its figure is the app's lag (a stop or a debugger's
// pause is not); a hang detector when it reports the app's hangs, each once, and nothing else.
const FAULTS = [
  {
    id: 'hang6', what: 'a 6 s hang',
    monitorEventLoopDelay: (o) => [near(o.saw.maxMs, 6000, 300), maxMs(o)],
    sentry: (o) => [o.events.length === 1, events(o)],
    lagwatch: (o) => [hangs(o).length === 1 && near(hangs(o)[0].durationMs, 6000, 300) && o.saw.stalls.length === 1, kinds(o)],
  },
  {
    id: 'sigstop8', what: 'SIGSTOP 8 s',
    monitorEventLoopDelay: (o) => [o.saw.maxMs < 1000, maxMs(o)],
    sentry: (o) => [o.events.length === 0, events(o)],
    lagwatch: (o) => [hangs(o).length === 0, kinds(o)],
  },
  {
    id: 'sigstop2', what: 'SIGSTOP 2 s',
    monitorEventLoopDelay: (o) => [o.saw.maxMs < 1000, maxMs(o)],
    sentry: (o) => [o.events.length === 0, events(o)],
    lagwatch: (o) => [hangs(o).length === 0, kinds(o)],
  },
  {
    id: 'work7stop3', what: '7 s of work with a 3 s stop inside',
    monitorEventLoopDelay: (o) => [near(o.saw.maxMs, 7000, 500), maxMs(o)],
    sentry: (o) => [o.events.length === 1, `${events(o)} (no duration)`],
    lagwatch: (o) => [hangs(o).length === 1 && near(hangs(o)[0].durationMs, 7000, 500), kinds(o)],
  },
  {
    id: 'debugger6', what: 'a debugger holding 6 s (--inspect)', inspect: true,
    monitorEventLoopDelay: (o) => [o.saw.maxMs < 1000, maxMs(o)],
    sentry: (o) => [o.events.length === 0, events(o)],
    lagwatch: (o) => [hangs(o).length === 0, kinds(o)],
  },
  {
    id: 'twohangs', what: 'two 6 s hangs 1.2 s apart',
    monitorEventLoopDelay: (o) => [false, `one number: ${maxMs(o)}`],
    sentry: (o) => [o.events.length === 2, events(o)],
    lagwatch: (o) => [hangs(o).length === 2 && hangs(o).every((h) => near(h.durationMs, 6000, 300)), kinds(o)],
  },
  {
    id: 'blocks5', what: 'five 1.5 s blocks',
    monitorEventLoopDelay: (o) => [false, `one number: ${maxMs(o)}`],
    sentry: (o) => [o.events.length === 5, events(o)],
    lagwatch: (o) => {
      const b = o.saw.blocks;
      const ok = b.length === 5 && b.every((x) => near(x.durationMs, 1500, 300) && x.top !== null);
      return [ok, `${b.length} blocks${b.every((x) => x.top !== null) ? ', each with its stack' : ''}`];
    },
  },
].filter((f) => list('--faults', null) === null || list('--faults', null).includes(f.id));

// Sentry's envelopes: a header line, then an item header and its payload per item. Events (not
// sessions or client reports) are what it raised.
function eventsIn(body) {
  const lines = body.toString('utf8').split('\n');
  const out = [];
  for (let i = 1; i + 1 < lines.length; i += 2) {
    let header;
    try { header = JSON.parse(lines[i]); } catch { continue; }
    if (header.type !== 'event') continue;
    try {
      const e = JSON.parse(lines[i + 1]);
      const ex = e.exception && e.exception.values && e.exception.values[0];
      out.push({ at: Date.now(), type: ex ? ex.type : null, value: ex ? ex.value : e.message || null });
    } catch { out.push({ at: Date.now(), type: null, value: null }); }
  }
  return out;
}

function collector() {
  const got = [];
  const server = http.createServer((req, res) => {
    const parts = [];
    req.on('data', (d) => parts.push(d));
    req.on('end', () => {
      let body = Buffer.concat(parts);
      if (req.headers['content-encoding'] === 'gzip') body = zlib.gunzipSync(body);
      got.push(...eventsIn(body));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: server.address().port, got })));
}

// One process: the peer, the fault, the stops it asks for, the events that reached the collector.
async function cell(peer, fault, col) {
  const from = col.got.length;
  const nodeArgs = ['--expose-gc', ...(fault.inspect ? ['--inspect=127.0.0.1:0'] : [])];
  const p = spawn(process.execPath, [...nodeArgs, child, peer, fault.id, String(col.port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let result = null;
  p.stderr.on('data', (d) => { err += d; });
  p.stdout.setEncoding('utf8').on('data', (d) => {
    out += d;
    let nl;
    while ((nl = out.indexOf('\n')) >= 0) {
      const line = out.slice(0, nl);
      out = out.slice(nl + 1);
      const m = JSON.parse(line);
      if (m.type === 'stop') {
        setTimeout(() => {
          p.kill('SIGSTOP');
          setTimeout(() => p.kill('SIGCONT'), m.ms);
        }, m.afterMs);
      } else if (m.type === 'result') result = m;
    }
  });
  // A cell lasts about 30 s at most; one that outlives a minute is stuck, and so fails.
  const guard = setTimeout(() => p.kill('SIGKILL'), 60000);
  const code = await new Promise((resolve) => p.on('close', resolve));
  clearTimeout(guard);
  if (code !== 0 || !result) throw new Error(`${peer} ${fault.id}: exit ${code}\n${err}`);
  await new Promise((resolve) => setTimeout(resolve, 1000)); // a last envelope in flight
  result.events = col.got.slice(from);
  return result;
}

async function main() {
  const col = await collector();
  const cells = [];
  for (let r = 0; r < runs; r++) {
    for (const fault of FAULTS) {
      for (const peer of PEERS) {
        const o = await cell(peer, fault, col);
        const judged = fault[peer] ? fault[peer](o) : [null, ''];
        cells.push({ run: r + 1, fault: fault.id, peer, right: judged[0], reported: judged[1], rssMiB: o.rssMiB, loopRate: o.loopRate,
          saw: o.saw, events: o.events });
        console.error(`faults: ${fault.id} ${peer}: ${judged[0] === null ? '-' : judged[0] ? 'right' : 'WRONG'} (${judged[1]})`);
      }
    }
  }
  col.server.close();
  const median = (peer, key) => summary(cells.filter((c) => c.peer === peer).map((c) => c[key])).median;
  const base = { rss: median('nothing', 'rssMiB'), loop: median('nothing', 'loopRate') };
  const peers = PEERS.filter((p) => p !== 'nothing').map((peer) => ({
    peer,
    right: cells.filter((c) => c.peer === peer && c.right).length,
    cells: cells.filter((c) => c.peer === peer).length,
    rssOverBareMiB: PEERS.includes('nothing') ? median(peer, 'rssMiB') - base.rss : null,
    loopRatio: PEERS.includes('nothing') ? median(peer, 'loopRate') / base.loop : null,
  }));
  const result = { runs, faults: FAULTS.map((f) => ({ id: f.id, what: f.what })), peers, cells,
    lagwatchWrong: cells.filter((c) => c.peer === 'lagwatch' && c.right === false).map((c) => `${c.fault} (${c.reported})`) };
  if (asJson) console.log(JSON.stringify(result, null, 2));
  else {
    for (const f of FAULTS) {
      console.log(`${f.what}: ${PEERS.filter((p) => p !== 'nothing').map((p) => {
        const c = cells.filter((x) => x.fault === f.id && x.peer === p);
        return `${p} ${c.map((x) => `${x.right ? 'right' : 'wrong'} (${x.reported})`).join('; ')}`;
      }).join(' | ')}`);
    }
    for (const p of peers) {
      console.log(`${p.peer}: ${p.right}/${p.cells} right${p.rssOverBareMiB === null ? '' : `, RSS +${p.rssOverBareMiB.toFixed(1)} MiB, loop ${p.loopRatio.toFixed(3)} of a bare process`}`);
    }
  }
  if (result.lagwatchWrong.length) {
    console.error(`faults: lagwatch wrong on ${result.lagwatchWrong.join(', ')}`);
    process.exitCode = 1;
  }
}

main().catch((err) => { console.error(err); process.exit(2); });
