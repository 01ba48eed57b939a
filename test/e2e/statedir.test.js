'use strict';
// The state directory on a shared machine, end to end on real processes (SPEC §13, lib/fatal.js,
// src/driver/hangrec.c, src/core/statedir.h): another local user must neither hijack it (files
// planted so that a hang writes through them) nor spoof it (records planted so that they are
// reported as the user's hangs). The tests run as root, so a directory or file chowned to
// `nobody` stands for another user's.
// The hanging processes run with a stall threshold of 2 s (THRESHOLD): a hang is flagged, its
// record written (or its directory checked again), 2 s into it rather than at the default's 5 s,
// so each waits 3 s less for the same rules.
const assert = require('assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { spawnFixture, killAll, sleep, tmpDir } = require('./helpers');

const THRESHOLD = 2000;
const T = `threshold:${THRESHOLD}`;
const NOBODY = 65534;
const GONE_PID = 2 ** 22 + 1; // above Linux's pid_max: no process has it
const records = (dir) => fs.readdirSync(dir).filter((n) => n.startsWith('hang-')).sort();

// A well-formed record of a gone process, as the worker writes one.
function plantRecord(file, pid = GONE_PID) {
  fs.writeFileSync(file, JSON.stringify({
    lagwatchHang: 1, process: { pid, startTicks: '1' }, wallOrigin: Date.now() - 60000, start: 1000,
    detectedAt: 6000, lastSeen: 9000, cause: null, stackLeftOut: false, stack: null,
  }));
}

describe('e2e: the state directory on a shared machine (real processes)', function () {
  this.timeout(90000);
  afterEach(killAll);
  before(function () {
    if (typeof process.geteuid !== 'function' || process.geteuid() !== 0) {
      throw new Error('these tests chown files to another user: run them as root (as npm test and CI do)');
    }
  });

  it('links planted at every name the worker may write: their target unchanged, the hang (threshold 2 s, killed 4 s in) recorded and reported by the next process', async () => {
    const base = tmpDir('statedir-links');
    const dir = path.join(base, 'state');
    fs.mkdirSync(dir, { mode: 0o700 });
    const target = path.join(base, 'precious');
    fs.writeFileSync(target, 'precious');
    const f = spawnFixture('fatal.js', [dir, 'hang:6000', T]);
    // The names of earlier versions' records and temporary files, for every set id the process
    // may use (a record's name now holds random bytes as well: src/driver/hangrec.c).
    const planted = [];
    for (let id = 0; id < 32; id++) {
      for (const name of [`hang-${f.child.pid}-${id}.json`, `hang-${f.child.pid}-${id}.json.tmp`]) {
        fs.symlinkSync(target, path.join(dir, name));
        planted.push(name);
      }
    }
    await f.waitFor('busy', 20000);
    await sleep(4000);
    const seen = records(dir).filter((n) => !fs.lstatSync(path.join(dir, n)).isSymbolicLink());
    f.signal('SIGKILL');
    await f.exited;
    const why = f.describe();
    assert.strictEqual(fs.readFileSync(target, 'utf8'), 'precious', `written through a link\n${why}`);
    assert.strictEqual(seen.length, 1, `the running hang is recorded in a file of its own: ${seen}\n${why}`);
    const next = spawnFixture('fatal.js', [dir, 'report']);
    const r = await next.result(30000);
    const detail = `${JSON.stringify(r.events.stall)}\n${next.describe()}`;
    assert.strictEqual(r.events.stall.length, 1, detail);
    assert.strictEqual(r.events.stall[0].fatal, true, detail);
    assert.strictEqual(r.events.stall[0].pid, f.child.pid, detail);
    assert.ok(r.events.stall[0].durationMs >= 3500, detail);
    // The link at the record's own name was replaced by the record (a rename replaces a link,
    // not its target); the others named as records are skipped and counted, all left alone.
    const left = planted.filter((n) => n !== seen[0]);
    assert.strictEqual(r.stats.stateSkipped, left.filter((n) => n.endsWith('.json')).length, detail);
    assert.strictEqual(r.stats.stateRefused, 0, detail);
    assert.deepStrictEqual(records(dir), left.sort(), detail);
    assert.match(next.stderr, /skipped, not your own regular files \(hang-\d+-\d+\.json: a symbolic link/, detail);
    assert.strictEqual(fs.readFileSync(target, 'utf8'), 'precious');
  });

  const refused = [
    {
      what: 'a directory of mode 0777',
      make(dir) {
        fs.mkdirSync(dir);
        fs.chmodSync(dir, 0o777);
        return dir;
      },
      why: 'mode 0777, writable by group or others',
    },
    {
      what: 'a directory owned by another user',
      make(dir) {
        fs.mkdirSync(dir, { mode: 0o700 });
        fs.chownSync(dir, NOBODY, NOBODY);
        return dir;
      },
      why: `owned by uid ${NOBODY}`,
    },
    {
      what: 'a symbolic link to a directory of the user\'s own',
      make(dir) {
        const real = `${dir}-real`;
        fs.mkdirSync(real, { mode: 0o700 });
        fs.symlinkSync(real, dir);
        return real;
      },
      why: 'a symbolic link',
    },
  ];
  for (const c of refused) {
    it(`${c.what}: refused with one error, a record planted under a gone pid not reported, nothing written at a 3 s hang (threshold 2 s)`, async () => {
      const dir = path.join(tmpDir('statedir-refused'), 'state');
      const inside = c.make(dir);
      plantRecord(path.join(inside, `hang-${GONE_PID}-1.json`));
      const f = spawnFixture('fatal.js', [dir, 'hang:3000', T]);
      const r = await f.result(40000);
      const why = `${JSON.stringify(r.events.stall)}\n${f.describe()}`;
      assert.deepStrictEqual(r.stats.stalls, { hang: 1, suspend: 0, pause: 0 }, `monitoring goes on\n${why}`);
      assert.strictEqual(r.events.stall.filter((s) => s.fatal).length, 0, why);
      assert.strictEqual(r.stats.fatalHangs, 0, why);
      assert.strictEqual(r.stats.stateRefused, 1, why);
      assert.strictEqual(r.stats.stateErrors, 0, why);
      const errors = f.stderr.split('\n').filter((l) => l.startsWith('error: '));
      assert.strictEqual(errors.length, 1, why);
      assert.ok(errors[0].includes(`the state directory ${dir} is refused (${c.why})`), why);
      assert.deepStrictEqual(records(inside), [`hang-${GONE_PID}-1.json`], `neither written nor read\n${why}`);
    });
  }

  it('a directory made writable by others after setup: the worker refuses it at the 3 s hang (threshold 2 s), nothing written, one error', async () => {
    const dir = path.join(tmpDir('statedir-swapped'), 'state');
    fs.mkdirSync(dir, { mode: 0o700 });
    const f = spawnFixture('fatal.js', [dir, 'hang:3000', T]);
    await f.waitFor('busy', 20000);
    fs.chmodSync(dir, 0o777); // before the hang is flagged, 2 s into it
    const r = await f.result(40000);
    const why = `${JSON.stringify(r.events.stall)}\n${f.describe()}`;
    assert.deepStrictEqual(r.stats.stalls, { hang: 1, suspend: 0, pause: 0 }, why);
    assert.strictEqual(r.stats.stateRefused, 1, why);
    assert.strictEqual(r.stats.stateErrors, 0, why);
    const errors = f.stderr.split('\n').filter((l) => l.startsWith('error: '));
    assert.strictEqual(errors.length, 1, why);
    assert.ok(errors[0].includes(`the state directory ${dir} was refused at a hang (mode 0777, writable by group or others)`), why);
    assert.deepStrictEqual(records(dir), [], why);
  });

  it('in the user\'s own directory: a record that is a symbolic link, another user\'s and an oversized one are skipped and counted, never reported', async () => {
    const base = tmpDir('statedir-skip');
    const dir = path.join(base, 'state');
    fs.mkdirSync(dir, { mode: 0o700 });
    plantRecord(path.join(dir, `hang-${GONE_PID}-1.json`));
    plantRecord(path.join(base, 'elsewhere.json'), GONE_PID + 1);
    fs.symlinkSync(path.join(base, 'elsewhere.json'), path.join(dir, `hang-${GONE_PID + 1}-1.json`));
    plantRecord(path.join(dir, `hang-${GONE_PID + 2}-1.json`), GONE_PID + 2);
    fs.chownSync(path.join(dir, `hang-${GONE_PID + 2}-1.json`), NOBODY, NOBODY);
    plantRecord(path.join(dir, `hang-${GONE_PID + 3}-1.json`), GONE_PID + 3);
    fs.appendFileSync(path.join(dir, `hang-${GONE_PID + 3}-1.json`), ' '.repeat(200 * 1024));
    const f = spawnFixture('fatal.js', [dir, 'report']);
    const r = await f.result(30000);
    const why = `${JSON.stringify(r.events.stall)}\n${f.describe()}`;
    assert.deepStrictEqual(r.events.stall.map((s) => [s.fatal, s.pid]), [[true, GONE_PID]], `the user's own record alone\n${why}`);
    assert.strictEqual(r.stats.fatalHangs, 1, why);
    assert.strictEqual(r.stats.stateSkipped, 3, why);
    assert.strictEqual(r.stats.stateRefused, 0, why);
    assert.match(f.stderr, /: a symbolic link/, why);
    assert.match(f.stderr, new RegExp(`: owned by uid ${NOBODY}`), why);
    assert.match(f.stderr, /: larger than \d+ bytes/, why);
    // Taken records are removed; skipped ones are left alone (they are not the user's to remove).
    assert.deepStrictEqual(records(dir), [1, 2, 3].map((k) => `hang-${GONE_PID + k}-1.json`), why);
  });

  it('the default directory is under the user\'s home ($XDG_STATE_HOME, else ~/.local/state); the temporary directory only without a usable home', () => {
    const home = tmpDir('statedir-home');
    const probe = (env) => {
      const out = spawnSync(process.execPath, ['-e', `process.stdout.write(require(${JSON.stringify(path.resolve(__dirname, '../../lib/fatal.js'))}).defaultStateDir())`], {
        env: { PATH: process.env.PATH, ...env },
        encoding: 'utf8',
      });
      assert.strictEqual(out.status, 0, out.stderr);
      return out.stdout;
    };
    assert.ok(probe({ HOME: home }).startsWith(path.join(home, '.local', 'state', 'lagwatch') + path.sep));
    const xdg = path.join(home, 'xdg');
    assert.ok(probe({ HOME: home, XDG_STATE_HOME: xdg }).startsWith(path.join(xdg, 'lagwatch') + path.sep));
    // A relative XDG_STATE_HOME is ignored, as the XDG spec says.
    assert.ok(probe({ HOME: home, XDG_STATE_HOME: 'rel' }).startsWith(path.join(home, '.local', 'state', 'lagwatch') + path.sep));
    // A home that is not the user's own: the temporary directory, in a directory per user.
    fs.chownSync(home, NOBODY, NOBODY);
    assert.ok(probe({ HOME: home }).startsWith(path.join(os.tmpdir(), `lagwatch-${process.geteuid()}`) + path.sep));
    // The other platforms' bases.
    const { stateBase } = require('../../lib/fatal');
    assert.strictEqual(stateBase({ LOCALAPPDATA: 'C:\\Users\\a\\AppData\\Local' }, 'win32'), 'C:\\Users\\a\\AppData\\Local');
    assert.strictEqual(stateBase({ XDG_STATE_HOME: '/x' }, 'darwin'), path.join(os.homedir(), 'Library', 'Caches'));
  });

  // A running hang's writer replaces its record (a rename) as the hang goes on: a reader that
  // looked at the old file and opened the new one reads the new one, or a container's running
  // hang would be skipped as not the user's own instead of left alone.
  it('a record its writer replaces between the reader\'s look and its open is read again, never skipped', () => {
    const { takeRecords } = require('../../lib/fatal');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagwatch-replaced-'));
    const file = path.join(dir, `hang-${process.pid}-1.json`);
    fs.writeFileSync(file, '{}', { mode: 0o600 });
    const open = fs.openSync;
    let replaced = 0;
    fs.openSync = function (p, ...rest) {
      if (p === file && replaced++ === 0) {
        fs.writeFileSync(`${file}.new`, '{"again":1}', { mode: 0o600 });
        fs.renameSync(`${file}.new`, file);
      }
      return open.call(fs, p, ...rest);
    };
    try {
      const out = takeRecords(dir);
      assert.strictEqual(replaced, 2, 'read again');
      assert.deepStrictEqual(out.skips, []);
      assert.strictEqual(out.skipped, 0);
      assert.ok(fs.existsSync(file), 'a live process\'s record is left');
    } finally {
      fs.openSync = open;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a directory moved away after setup and a link (or another directory) put at its path: the record goes to the directory opened at setup, nothing to what has its path now', async () => {
    const base = tmpDir('statedir-link-swapped');
    const dir = path.join(base, 'state');
    const moved = path.join(base, 'moved');
    const other = path.join(base, 'other');
    fs.mkdirSync(other, { mode: 0o700 });
    const f = spawnFixture('fatal.js', [dir, 'hang:6000', T]);
    await f.waitFor('busy', 20000); // set up: the directory made (mode 0700) and opened
    assert.strictEqual(fs.statSync(dir).mode & 0o777, 0o700, f.describe());
    fs.renameSync(dir, moved);
    fs.symlinkSync(other, dir); // before the hang is flagged, 2 s into it
    await sleep(4000);
    const seen = records(moved);
    f.signal('SIGKILL');
    await f.exited;
    const why = f.describe();
    assert.deepStrictEqual(fs.readdirSync(other), [], `nothing written through the link\n${why}`);
    assert.strictEqual(seen.length, 1, `the hang recorded in the directory opened at setup: ${seen}\n${why}`);
    assert.match(seen[0], new RegExp(`^hang-${f.child.pid}-\\d+-[0-9a-f]{8}\\.json$`));
    const next = await spawnFixture('fatal.js', [moved, 'report']).result(30000);
    assert.deepStrictEqual(next.events.stall.map((s) => [s.fatal, s.pid]), [[true, f.child.pid]], why);
  });

  it('a default-configured process (but a threshold of 2 s) keeps its record under $XDG_STATE_HOME/lagwatch (each level it makes of mode 0700), reported by the next', async () => {
    const xdg = path.join(tmpDir('statedir-xdg'), 'state');
    const env = { XDG_STATE_HOME: xdg, HOME: tmpDir('statedir-home-unused') };
    const f = spawnFixture('fatal.js', ['default', 'hang:6000', T], { env });
    await f.waitFor('busy', 20000);
    await sleep(4000);
    f.signal('SIGKILL');
    await f.exited;
    const apps = fs.readdirSync(path.join(xdg, 'lagwatch'));
    assert.strictEqual(apps.length, 1, `${apps}\n${f.describe()}`);
    assert.match(apps[0], /^fatal\.js-[0-9a-f]{12}$/);
    const app = path.join(xdg, 'lagwatch', apps[0]);
    assert.strictEqual(records(app).length, 1, f.describe());
    for (const level of [xdg, path.join(xdg, 'lagwatch'), app]) {
      assert.strictEqual(fs.statSync(level).mode & 0o777, 0o700, level);
    }
    assert.deepStrictEqual(fs.readdirSync(env.HOME), [], 'nothing under HOME when XDG_STATE_HOME is set');
    const next = spawnFixture('fatal.js', ['default', 'report'], { env });
    const r = await next.result(30000);
    assert.deepStrictEqual(r.events.stall.map((s) => [s.fatal, s.pid]), [[true, f.child.pid]], next.describe());
  });

  // In this process (Electron's main process, faked): attachElectron moves the records to the
  // app's userData/lagwatch, which is refused here; the default directory, accepted at setup, is
  // let go too, so a hang writes no record anywhere.
  it('Electron: userData/lagwatch refused: one error, its record not reported, the default directory let go (nothing written at a 3 s hang, threshold 2 s)', async () => {
    const lagwatch = require('../..');
    const { createFakeElectron } = require('../fakes/electron');
    const xdg = path.join(tmpDir('statedir-electron-xdg'), 'state');
    const userData = tmpDir('statedir-electron');
    const dir = path.join(userData, 'lagwatch');
    fs.mkdirSync(dir);
    fs.chmodSync(dir, 0o777);
    plantRecord(path.join(dir, `hang-${GONE_PID}-1.json`));
    const { app, powerMonitor } = createFakeElectron();
    app.userData = userData;
    const logs = [];
    const saved = process.env.XDG_STATE_HOME;
    process.env.XDG_STATE_HOME = xdg;
    let m;
    try {
      m = lagwatch.setupAllMonitors({ stallThresholdMs: THRESHOLD, logger: { log: (level, message) => logs.push(`${level}: ${message}`) } });
    } finally {
      if (saved === undefined) delete process.env.XDG_STATE_HOME;
      else process.env.XDG_STATE_HOME = saved;
    }
    const stalls = [];
    m.conditions.on('stall', (st) => stalls.push(st));
    let stats;
    let hangs;
    try {
      assert.ok(m._state.dir.startsWith(path.join(xdg, 'lagwatch') + path.sep), m._state.dir);
      lagwatch.attachElectron(m.conditions, { powerMonitor, app })(); // detached at once: the move stays
      assert.strictEqual(m._state.dir, null);
      await sleep(300);
      const t = performance.now();
      while (performance.now() - t < 3000); // a hang, flagged 2 s in: its record would be written then
      await sleep(300);
      stats = m.conditions.stats();
      hangs = m.workerStats().workerHangs.count;
    } finally {
      m.stop();
    }
    const why = `${JSON.stringify(stalls)}\n${logs.join('\n')}`;
    assert.strictEqual(hangs, 1, `the worker flagged the hang\n${why}`);
    assert.strictEqual(stalls.filter((st) => st.fatal).length, 0, why);
    assert.strictEqual(stats.stateRefused, 1, why);
    const errors = logs.filter((l) => l.startsWith('error: '));
    assert.strictEqual(errors.length, 1, why);
    assert.ok(errors[0].includes(`the state directory ${dir} is refused (mode 0777, writable by group or others)`), why);
    // The default directory was made at setup (before the move): nothing written in it.
    const files = (d) => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(d, e.name)) : [e.name]));
    assert.deepStrictEqual(files(xdg), [], `nothing written in the default directory: ${xdg}`);
    assert.deepStrictEqual(records(dir), [`hang-${GONE_PID}-1.json`], why);
  });

  it('the default without a usable home: <tmp>/lagwatch-<uid> planted with mode 0777 by someone else is refused, its planted record not reported', async () => {
    const tmp = tmpDir('statedir-tmpdir');
    const home = tmpDir('statedir-nohome');
    fs.chownSync(home, NOBODY, NOBODY);
    const level = path.join(tmp, `lagwatch-${process.geteuid()}`);
    fs.mkdirSync(level);
    fs.chmodSync(level, 0o777);
    // The app's own level, as the user's own, with a record planted in it through the open level.
    const { hash64 } = require('../../lib/util');
    const entry = path.resolve(__dirname, 'fixtures', 'fatal.js');
    const app = path.join(level, `fatal.js-${hash64(entry).slice(0, 12)}`);
    fs.mkdirSync(app, { mode: 0o700 });
    plantRecord(path.join(app, `hang-${GONE_PID}-1.json`));
    const f = spawnFixture('fatal.js', ['default', 'report'], { env: { TMPDIR: tmp, HOME: home, XDG_STATE_HOME: '' } });
    const r = await f.result(30000);
    const why = `${JSON.stringify(r.events.stall)}\n${f.describe()}`;
    assert.deepStrictEqual(r.events.stall, [], why);
    assert.strictEqual(r.stats.stateRefused, 1, why);
    const errors = f.stderr.split('\n').filter((l) => l.startsWith('error: '));
    assert.strictEqual(errors.length, 1, why);
    assert.ok(errors[0].includes(`the state directory ${app} is refused (${level}: mode 0777, writable by group or others)`), why);
    assert.deepStrictEqual(records(app), [`hang-${GONE_PID}-1.json`], why);
  });
});
