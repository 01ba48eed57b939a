'use strict';
// SPEC §9 (Electron), with §3 (lifecycle), §6 (pauseWhileHidden) and §8 (simulation): the main
// process's adapter attachElectron() driven by faithful fakes of Electron's powerMonitor, app and
// BrowserWindow (test/fakes/electron.js), on simulated time; bad input; and that the library never
// requires 'electron'. The renderer's attachDocument() is in test/electron-renderer.test.js.
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { EventEmitter } = require('events');
const { MeterProvider } = require('@opentelemetry/sdk-metrics');
const lagwatch = require('..');
const { assertRejects } = require('./helpers');
const {
  createFakeElectron, FakeBrowserWindow, listenerCounts, createFakeDocument,
} = require('./fakes/electron');
const {
  NAMES, PAUSED, NOT_PAUSED, VALIDATED, WINDOW_EVENTS, ManualReader, advanceTo, setup, probe, running, expectRunning, monitorCounts,
} = require('./electron/common');

const ROOT = path.resolve(__dirname, '..');

describe('Electron adapter (SPEC §9)', () => {
  describe('powerMonitor suspend / resume', () => {
    it('suspend opens a suspend interval at the exact time, resume closes it at the exact time', () => {
      const { sim, c, powerMonitor, logs } = setup();
      const detach = lagwatch.attachElectron(c, { powerMonitor });
      advanceTo(sim, 1234.5);
      assert.deepStrictEqual(c.tracker.intervals(), []);
      powerMonitor.fire('suspend');
      assert.deepStrictEqual(c.tracker.intervals(), [{ start: 1234.5, end: Infinity, reason: 'suspend' }]);
      advanceTo(sim, 4321.25);
      powerMonitor.fire('resume');
      assert.deepStrictEqual(c.tracker.intervals(), [{ start: 1234.5, end: 4321.25, reason: 'suspend' }]);
      // A sample over the interval is discarded as suspend; one after it is recorded.
      const v = c.createValidator({ name: 'v' });
      assert.strictEqual(v.submit(10, 100, () => {}), 'discarded');
      assert.strictEqual(c.stats().discarded.suspend, 1);
      advanceTo(sim, 4331.25);
      assert.strictEqual(v.submit(10, 10, () => {}), 'recorded');
      detach();
      assert.deepStrictEqual(logs, []);
    });

    it('a second suspend while one is open does nothing (one interval, start unchanged)', () => {
      const { sim, c, powerMonitor } = setup();
      lagwatch.attachElectron(c, { powerMonitor });
      advanceTo(sim, 1000);
      powerMonitor.fire('suspend');
      advanceTo(sim, 2000);
      powerMonitor.fire('suspend');
      assert.deepStrictEqual(c.tracker.intervals(), [{ start: 1000, end: Infinity, reason: 'suspend' }]);
      advanceTo(sim, 3000);
      powerMonitor.fire('resume');
      assert.deepStrictEqual(c.tracker.intervals(), [{ start: 1000, end: 3000, reason: 'suspend' }]);
      assert.strictEqual(c.stats().intervals, 1);
    });

    it('a resume with no suspend open does nothing', () => {
      const { sim, c, powerMonitor } = setup();
      lagwatch.attachElectron(c, { powerMonitor });
      advanceTo(sim, 1000);
      powerMonitor.fire('resume');
      assert.deepStrictEqual(c.tracker.intervals(), []);
      powerMonitor.fire('suspend');
      advanceTo(sim, 1500);
      powerMonitor.fire('resume');
      advanceTo(sim, 1700);
      powerMonitor.fire('resume'); // a duplicated resume
      assert.deepStrictEqual(c.tracker.intervals(), [{ start: 1000, end: 1500, reason: 'suspend' }]);
    });

    it('suspend … resume … suspend … resume gives two intervals', () => {
      const { sim, c, powerMonitor } = setup();
      lagwatch.attachElectron(c, { powerMonitor });
      advanceTo(sim, 100);
      powerMonitor.fire('suspend');
      advanceTo(sim, 200);
      powerMonitor.fire('resume');
      advanceTo(sim, 300);
      powerMonitor.fire('suspend');
      advanceTo(sim, 450);
      powerMonitor.fire('resume');
      assert.deepStrictEqual(c.tracker.intervals(), [
        { start: 100, end: 200, reason: 'suspend' },
        { start: 300, end: 450, reason: 'suspend' },
      ]);
    });
  });

  describe('lock-screen / unlock-screen', () => {
    it('with a visible focused window: hidden at lock, active again at unlock', () => {
      const { sim, c, lifecycle, powerMonitor, BrowserWindow } = setup();
      const win = new BrowserWindow();
      lagwatch.attachElectron(c, { powerMonitor, windows: [win] });
      assert.strictEqual(c.lifecycle.state, 'active');
      assert.deepStrictEqual(lifecycle, []);
      advanceTo(sim, 1000);
      powerMonitor.fire('lock-screen');
      assert.strictEqual(c.lifecycle.state, 'hidden');
      advanceTo(sim, 5000);
      assert.strictEqual(probe(c), 'discarded', 'a sample while locked is discarded');
      powerMonitor.fire('unlock-screen');
      assert.strictEqual(c.lifecycle.state, 'active');
      assert.deepStrictEqual(lifecycle, [
        { t: 1000, from: 'active', to: 'hidden' },
        { t: 5000, from: 'hidden', to: 'active' },
      ]);
      assert.deepStrictEqual(c.tracker.intervals(), [{ start: 1000, end: 5000, reason: 'hidden' }]);
      assert.strictEqual(c.stats().discarded.hidden, 1);
    });

    it("lockScreen: 'ignore' leaves the state active", () => {
      const { sim, c, lifecycle, powerMonitor, BrowserWindow } = setup();
      const win = new BrowserWindow();
      lagwatch.attachElectron(c, { powerMonitor, windows: [win], lockScreen: 'ignore' });
      advanceTo(sim, 1000);
      powerMonitor.fire('lock-screen');
      assert.strictEqual(c.lifecycle.state, 'active');
      advanceTo(sim, 2000);
      assert.strictEqual(probe(c), 'recorded', 'the reader does not count the lock either');
      powerMonitor.fire('unlock-screen');
      assert.strictEqual(c.lifecycle.state, 'active');
      assert.deepStrictEqual(lifecycle, []);
      assert.deepStrictEqual(c.tracker.intervals(), []);
    });

    it("lockScreen: 'hidden' (the default, given explicitly) behaves as the default", () => {
      const { sim, c, lifecycle, powerMonitor, BrowserWindow } = setup();
      const win = new BrowserWindow();
      lagwatch.attachElectron(c, { powerMonitor, windows: [win], lockScreen: 'hidden' });
      advanceTo(sim, 10);
      powerMonitor.fire('lock-screen');
      assert.deepStrictEqual(lifecycle, [{ t: 10, from: 'active', to: 'hidden' }]);
    });

    it('lock while minimized: hidden; unlock keeps it hidden until restore', () => {
      const { sim, c, lifecycle, powerMonitor, BrowserWindow } = setup();
      const win = new BrowserWindow();
      lagwatch.attachElectron(c, { powerMonitor, windows: [win] });
      advanceTo(sim, 1000);
      win.minimize();
      assert.strictEqual(c.lifecycle.state, 'hidden');
      advanceTo(sim, 2000);
      powerMonitor.fire('lock-screen');
      assert.strictEqual(c.lifecycle.state, 'hidden');
      advanceTo(sim, 3000);
      powerMonitor.fire('unlock-screen');
      assert.strictEqual(c.lifecycle.state, 'hidden', 'still minimized');
      advanceTo(sim, 3500);
      assert.strictEqual(probe(c), 'discarded');
      advanceTo(sim, 4000);
      win.restore(); // 'restore' (the window is still blurred: passive), then 'focus'
      assert.strictEqual(c.lifecycle.state, 'active');
      assert.deepStrictEqual(lifecycle, [
        { t: 1000, from: 'active', to: 'hidden' },
        { t: 4000, from: 'hidden', to: 'passive' },
        { t: 4000, from: 'passive', to: 'active' },
      ]);
      assert.deepStrictEqual(c.tracker.intervals(), [{ start: 1000, end: 4000, reason: 'hidden' }]);
    });

    it('a bad lockScreen is a RangeError naming options.lockScreen, and nothing is attached', () => {
      const { sim, c, powerMonitor, BrowserWindow } = setup();
      const win = new BrowserWindow();
      for (const lockScreen of ['visible', 'HIDDEN', '', null, 0, true]) {
        assertRejects(() => lagwatch.attachElectron(c, { powerMonitor, windows: [win], lockScreen }),
          RangeError, 'ERR_OUT_OF_RANGE', 'options.lockScreen', { c, sim });
      }
      assert.deepStrictEqual(listenerCounts(powerMonitor), {});
      assert.deepStrictEqual(listenerCounts(win), {});
    });
  });

  describe('shutdown flushes', () => {
    it('a pending episode is reported synchronously at shutdown, before the next advance', () => {
      const { sim, c, powerMonitor, logs } = setup();
      lagwatch.attachElectron(c, { powerMonitor });
      const stalls = [];
      c.on('stall', (s) => stalls.push({ t: sim.now(), ...s }));
      const v = c.createValidator({ name: 'main' });
      const recorded = [];
      advanceTo(sim, 10000);
      assert.strictEqual(v.submit(6000, 6000, (x) => recorded.push(x)), 'held');
      // The hold (2000 ms) ends: recorded, a hang stall sample; its episode is reported at 14000.
      advanceTo(sim, 12000);
      assert.deepStrictEqual(recorded, [6000]);
      advanceTo(sim, 13000);
      assert.deepStrictEqual(stalls, [], 'still waiting for episodeDelayMs');
      const e = powerMonitor.fire('shutdown');
      assert.strictEqual(e.defaultPrevented, false, 'the shutdown is not delayed');
      assert.deepStrictEqual(stalls, [{
        t: 13000, kind: 'hang', durationMs: 6000, start: 4000, end: 10000, samples: 1, monitors: ['main'], cause: null, thread: { id: 0, name: 'main' },
      }]);
      assert.deepStrictEqual(c.stats().stalls, { hang: 1, suspend: 0, pause: 0 });
      advanceTo(sim, 20000);
      assert.strictEqual(stalls.length, 1, 'reported once');
      assert.deepStrictEqual(logs, []);
    });

    it('a sample still held at shutdown is left to its hold (neither lost nor cancelled by the flush)', () => {
      const { sim, c, powerMonitor } = setup();
      lagwatch.attachElectron(c, { powerMonitor });
      const stalls = [];
      c.on('stall', (s) => stalls.push({ t: sim.now(), kind: s.kind, durationMs: s.durationMs }));
      const v = c.createValidator({ name: 'main' });
      const recorded = [];
      advanceTo(sim, 10000);
      assert.strictEqual(v.submit(6000, 6000, (x) => recorded.push(x)), 'held');
      advanceTo(sim, 11000);
      powerMonitor.fire('shutdown');
      const s = c.stats();
      assert.deepStrictEqual([s.submitted, s.recorded, s.held, s.cancelled], [1, 0, 1, 0]);
      advanceTo(sim, 12000);
      assert.deepStrictEqual(recorded, [6000]);
      advanceTo(sim, 14000);
      assert.deepStrictEqual(stalls, [{ t: 14000, kind: 'hang', durationMs: 6000 }]);
    });

    it('app \'will-quit\' (SPEC §14): a set reports the hang it still holds and stops, before Electron tears the process down', () => {
      const sim = lagwatch.createSimulation({ platform: 'linux' });
      const m = lagwatch.setupAllMonitors({ clock: sim });
      const { powerMonitor, app, BrowserWindow } = createFakeElectron();
      lagwatch.attachElectron(m.conditions, { powerMonitor, app });
      new BrowserWindow(); // shown: the app is visible, its hang counts
      const stalls = [];
      m.conditions.on('stall', (s) => stalls.push({ t: sim.now(), kind: s.kind }));
      advanceTo(sim, 10000);
      sim.block(6000);
      advanceTo(sim, 16100); // the hang has ended; its episode is still held
      assert.deepStrictEqual(stalls, []);
      app.emit('will-quit', { preventDefault() {} });
      assert.deepStrictEqual(stalls, [{ t: 16100, kind: 'hang' }]);
      assert.ok(Object.values(m.monitors).every((mon) => !mon.running), 'the set stopped');
    });

    it('with setupAllMonitors, shutdown hands the recorded samples to JS synchronously', () => {
      const sim = lagwatch.createSimulation({ platform: 'linux' });
      const m = lagwatch.setupAllMonitors({ clock: sim });
      const { powerMonitor } = createFakeElectron();
      const detach = lagwatch.attachElectron(m.conditions, { powerMonitor });
      const calls = [];
      m.conditions.on('samples', (b) => calls.push({ t: sim.now(), b }));
      advanceTo(sim, 10000);
      const before = calls.length;
      assert.ok(before > 0, 'the periodic flushes ran');
      // 500 ms after the last periodic flush: driftLag has recorded 25 samples since.
      advanceTo(sim, 10500);
      assert.strictEqual(calls.length, before, 'no periodic flush between 10000 and 10500');
      powerMonitor.fire('shutdown');
      assert.strictEqual(calls.length, before + 1, "one 'samples' call during the shutdown event");
      const last = calls[calls.length - 1];
      assert.strictEqual(last.t, 10500);
      assert.strictEqual(last.b.driftLag.length, 25, 'the driftLag samples of (10000, 10500]');
      // Nothing is delivered twice or lost: after stop() (its last flush), every recorded driftLag
      // sample reached JS exactly once.
      advanceTo(sim, 12000);
      assert.ok(calls.length >= before + 2, 'the periodic flushes go on');
      detach();
      m.stop();
      const total = calls.reduce((n, x) => n + ((x.b.driftLag || []).length), 0);
      assert.strictEqual(total, m.conditions.stats().monitors.driftLag.recorded);
      assert.strictEqual(total, 600, 'one driftLag sample every 20 ms over 12 s');
    });
  });

  describe('windows → lifecycle', () => {
    it('active if a window is visible, not minimized and focused; passive if visible and not minimized; else hidden', () => {
      const { sim, c, lifecycle, powerMonitor } = setup();
      const win = new FakeBrowserWindow({ show: false });
      lagwatch.attachElectron(c, { powerMonitor, windows: [win] });
      assert.strictEqual(c.lifecycle.state, 'hidden', 'a window not shown');
      advanceTo(sim, 100);
      win.showInactive();
      assert.strictEqual(c.lifecycle.state, 'passive');
      advanceTo(sim, 200);
      win.focus();
      assert.strictEqual(c.lifecycle.state, 'active');
      advanceTo(sim, 300);
      win.minimize(); // minimizing also blurs
      assert.strictEqual(c.lifecycle.state, 'hidden');
      advanceTo(sim, 400);
      win.restore(); // 'restore' (passive: minimize blurred it), then 'focus'
      assert.strictEqual(c.lifecycle.state, 'active');
      advanceTo(sim, 500);
      win.blur();
      assert.strictEqual(c.lifecycle.state, 'passive');
      advanceTo(sim, 600);
      win.hide();
      assert.strictEqual(c.lifecycle.state, 'hidden');
      advanceTo(sim, 700);
      win.show(); // 'show' (passive), then 'focus'
      assert.strictEqual(c.lifecycle.state, 'active');
      assert.deepStrictEqual(lifecycle, [
        { t: 0, from: 'active', to: 'hidden' },
        { t: 100, from: 'hidden', to: 'passive' },
        { t: 200, from: 'passive', to: 'active' },
        { t: 300, from: 'active', to: 'hidden' },
        { t: 400, from: 'hidden', to: 'passive' },
        { t: 400, from: 'passive', to: 'active' },
        { t: 500, from: 'active', to: 'passive' },
        { t: 600, from: 'passive', to: 'hidden' },
        { t: 700, from: 'hidden', to: 'passive' },
        { t: 700, from: 'passive', to: 'active' },
      ]);
      assert.deepStrictEqual(c.tracker.intervals(), [
        { start: 0, end: 100, reason: 'hidden' },
        { start: 300, end: 400, reason: 'hidden' },
        { start: 600, end: 700, reason: 'hidden' },
      ]);
    });

    it('a visible minimized focused window counts as hidden; an invisible focused one too', () => {
      const { c, powerMonitor } = setup();
      const win = new FakeBrowserWindow();
      lagwatch.attachElectron(c, { powerMonitor, windows: [win] });
      win.setState({ visible: true, minimized: true, focused: true });
      win.fire('minimize');
      assert.strictEqual(c.lifecycle.state, 'hidden');
      win.setState({ visible: false, minimized: false, focused: true });
      win.fire('restore');
      assert.strictEqual(c.lifecycle.state, 'hidden');
    });

    for (const [event, from, to] of [
      ['show', { visible: false, focused: true }, 'active'],
      ['hide', { visible: true, focused: true }, 'hidden'],
      ['minimize', { visible: true, focused: false }, 'hidden'],
      ['restore', { visible: true, minimized: true, focused: true }, 'active'],
      ['focus', { visible: true, focused: false }, 'active'],
      ['blur', { visible: true, focused: true }, 'passive'],
    ]) {
      it(`the state is recomputed on '${event}' (alone, with Electron's Event argument)`, () => {
        const { sim, c, lifecycle, powerMonitor } = setup();
        const win = new FakeBrowserWindow();
        win.setState({ minimized: false, ...from });
        const other = new FakeBrowserWindow({ show: false });
        lagwatch.attachElectron(c, { powerMonitor, windows: [other, win] });
        const start = c.lifecycle.state;
        assert.notStrictEqual(start, to);
        lifecycle.length = 0;
        advanceTo(sim, 777);
        // The OS changed the window; the event has not come yet.
        const after = {
          show: { visible: true }, hide: { visible: false }, minimize: { minimized: true },
          restore: { minimized: false }, focus: { focused: true }, blur: { focused: false },
        }[event];
        win.setState(after);
        assert.strictEqual(c.lifecycle.state, start, 'no change before the event (and no submit)');
        win.fire(event);
        assert.strictEqual(c.lifecycle.state, to);
        assert.deepStrictEqual(lifecycle, [{ t: 777, from: start, to }]);
      });
    }

    it("the state is recomputed on 'closed'; a closed window no longer counts and its listeners are removed", () => {
      const { sim, c, lifecycle, powerMonitor } = setup();
      const a = new FakeBrowserWindow(); // visible, focused
      const b = new FakeBrowserWindow({ show: false });
      const own = () => {};
      a.on('closed', own); // the app's own listener stays
      lagwatch.attachElectron(c, { powerMonitor, windows: [a, b] });
      assert.strictEqual(c.lifecycle.state, 'active');
      for (const name of WINDOW_EVENTS) assert.ok(a.listenerCount(name) >= 1, `listening to '${name}'`);
      advanceTo(sim, 500);
      a.close();
      assert.strictEqual(c.lifecycle.state, 'hidden');
      assert.deepStrictEqual(lifecycle, [{ t: 500, from: 'active', to: 'hidden' }]);
      assert.deepStrictEqual(listenerCounts(a), { closed: 1 }, "only the app's own listener is left");
      assert.deepStrictEqual(a.listeners('closed'), [own]);
      // b still counts.
      advanceTo(sim, 600);
      b.showInactive();
      assert.strictEqual(c.lifecycle.state, 'passive');
      advanceTo(sim, 700);
      assert.strictEqual(probe(c), 'recorded', 'the closed window is not read');
    });

    it('two windows: one minimized, one visible but unfocused → passive', () => {
      const { c, powerMonitor } = setup();
      const a = new FakeBrowserWindow();
      const b = new FakeBrowserWindow();
      lagwatch.attachElectron(c, { powerMonitor, windows: [a, b] });
      assert.strictEqual(c.lifecycle.state, 'active');
      a.minimize();
      assert.strictEqual(c.lifecycle.state, 'active', 'b is still visible and focused');
      b.blur();
      assert.strictEqual(c.lifecycle.state, 'passive');
      b.minimize();
      assert.strictEqual(c.lifecycle.state, 'hidden');
      a.restore();
      assert.strictEqual(c.lifecycle.state, 'active');
    });

    it('windows as a function: windows appearing later in its result are tracked', () => {
      const { sim, c, lifecycle, powerMonitor } = setup();
      const list = [];
      lagwatch.attachElectron(c, { powerMonitor, windows: () => list });
      assert.strictEqual(c.lifecycle.state, 'hidden', 'no windows yet');
      advanceTo(sim, 1000);
      const win = new FakeBrowserWindow(); // visible, focused, no event reaches lagwatch
      list.push(win);
      // The reader calls the function at the next submit and counts the new window at once (the
      // sample's window [990, 1000] was still hidden: discarded).
      assert.strictEqual(probe(c, 10), 'discarded');
      assert.strictEqual(c.lifecycle.state, 'active');
      advanceTo(sim, 1010);
      assert.strictEqual(probe(c, 10), 'recorded');
      // From then on its events are listened to.
      advanceTo(sim, 2000);
      win.minimize();
      assert.strictEqual(c.lifecycle.state, 'hidden');
      advanceTo(sim, 3000);
      win.restore();
      assert.deepStrictEqual(lifecycle, [
        { t: 0, from: 'active', to: 'hidden' },
        { t: 1000, from: 'hidden', to: 'active' },
        { t: 2000, from: 'active', to: 'hidden' },
        { t: 3000, from: 'hidden', to: 'passive' },
        { t: 3000, from: 'passive', to: 'active' },
      ]);
      for (const name of WINDOW_EVENTS) assert.strictEqual(win.listenerCount(name), 1, `one '${name}' listener`);
    });

    it('windows as BrowserWindow.getAllWindows: a new window counts at the next power event too', () => {
      const { c, powerMonitor, BrowserWindow } = setup();
      lagwatch.attachElectron(c, { powerMonitor, windows: BrowserWindow.getAllWindows });
      assert.strictEqual(c.lifecycle.state, 'hidden');
      const win = new BrowserWindow({ show: true, focused: false });
      powerMonitor.fire('unlock-screen');
      assert.strictEqual(c.lifecycle.state, 'passive');
      win.focus();
      assert.strictEqual(c.lifecycle.state, 'active');
    });

    it("windows from app 'browser-window-created' (added later) are tracked", () => {
      const { sim, c, lifecycle, powerMonitor, app, BrowserWindow } = setup();
      lagwatch.attachElectron(c, { powerMonitor, app });
      assert.strictEqual(c.lifecycle.state, 'hidden', 'no windows at all');
      advanceTo(sim, 1000);
      const a = new BrowserWindow({ show: false });
      assert.strictEqual(c.lifecycle.state, 'hidden');
      advanceTo(sim, 2000);
      a.showInactive();
      assert.strictEqual(c.lifecycle.state, 'passive');
      advanceTo(sim, 3000);
      const b = new BrowserWindow(); // shown and focused before browser-window-created
      assert.strictEqual(c.lifecycle.state, 'active');
      advanceTo(sim, 4000);
      b.close();
      assert.strictEqual(c.lifecycle.state, 'passive');
      assert.deepStrictEqual(lifecycle, [
        { t: 0, from: 'active', to: 'hidden' },
        { t: 2000, from: 'hidden', to: 'passive' },
        { t: 3000, from: 'passive', to: 'active' },
        { t: 4000, from: 'active', to: 'passive' },
      ]);
      assert.deepStrictEqual(listenerCounts(b), {});
    });

    it('destroyed windows are skipped by the reader', () => {
      const { sim, c, powerMonitor } = setup();
      const a = new FakeBrowserWindow(); // visible, focused
      const b = new FakeBrowserWindow({ show: true, focused: false });
      lagwatch.attachElectron(c, { powerMonitor, windows: [a, b] });
      assert.strictEqual(c.lifecycle.state, 'active');
      advanceTo(sim, 100);
      a.setState({ destroyed: true }); // destroyed, 'closed' not delivered yet
      assert.strictEqual(probe(c), 'recorded');
      assert.strictEqual(c.lifecycle.state, 'passive');
      b.setState({ destroyed: true });
      assert.strictEqual(probe(c), 'discarded');
      assert.strictEqual(c.lifecycle.state, 'hidden');
      // Skipped through isDestroyed(), not by calling methods that throw on a destroyed window.
      assert.strictEqual(a.destroyedCalls, 0);
      assert.strictEqual(b.destroyedCalls, 0);
    });

    it('no windows at all → hidden, with windows: [] and with app only', () => {
      for (const opts of [{ windows: [] }, { windows: () => [] }, { app: new EventEmitter() }]) {
        const { c, lifecycle, powerMonitor } = setup();
        lagwatch.attachElectron(c, { powerMonitor, ...opts });
        assert.strictEqual(c.lifecycle.state, 'hidden', Object.keys(opts)[0]);
        assert.deepStrictEqual(lifecycle, [{ t: 0, from: 'active', to: 'hidden' }]);
        assert.strictEqual(probe(c), 'discarded');
      }
    });

    it('without windows and app the lifecycle is left alone (only power events)', () => {
      const { sim, c, lifecycle, powerMonitor } = setup();
      c.setLifecycleState('passive');
      lifecycle.length = 0;
      lagwatch.attachElectron(c, { powerMonitor });
      assert.strictEqual(c.lifecycle.state, 'passive');
      advanceTo(sim, 100);
      powerMonitor.fire('lock-screen');
      assert.strictEqual(c.lifecycle.state, 'passive');
      assert.strictEqual(probe(c), 'recorded', 'no reader installed');
      powerMonitor.fire('unlock-screen');
      c.setLifecycleState('hidden');
      assert.strictEqual(probe(c), 'discarded', 'no reader overrides the state set by the app');
      assert.strictEqual(c.lifecycle.state, 'hidden');
      powerMonitor.fire('suspend');
      assert.deepStrictEqual(c.tracker.intervals(), [
        { start: 100, end: Infinity, reason: 'hidden' },
        { start: 100, end: Infinity, reason: 'suspend' },
      ]);
      assert.deepStrictEqual(lifecycle, [{ t: 100, from: 'passive', to: 'hidden' }]);
    });
  });

  describe('the lifecycle reader', () => {
    it('a window hidden without its event yet: the next submit sees it at once (discarded as hidden)', () => {
      const { sim, c, lifecycle, powerMonitor } = setup();
      const win = new FakeBrowserWindow();
      lagwatch.attachElectron(c, { powerMonitor, windows: [win] });
      const v = c.createValidator({ name: 'v' });
      advanceTo(sim, 1000);
      assert.strictEqual(v.submit(3, 10, () => {}), 'recorded');
      advanceTo(sim, 2000);
      win.setState({ visible: false, focused: false });
      assert.strictEqual(c.lifecycle.state, 'active', 'nothing told lagwatch yet');
      const got = [];
      assert.strictEqual(v.submit(3, 10, (x) => got.push(x)), 'discarded');
      assert.deepStrictEqual(got, []);
      assert.strictEqual(c.lifecycle.state, 'hidden');
      assert.deepStrictEqual(lifecycle, [{ t: 2000, from: 'active', to: 'hidden' }]);
      assert.strictEqual(c.stats().discarded.hidden, 1);
      assert.deepStrictEqual(c.tracker.intervals(), [{ start: 2000, end: Infinity, reason: 'hidden' }]);
      // The late events change nothing more.
      win.fire('hide');
      win.fire('blur');
      assert.strictEqual(lifecycle.length, 1);
    });

    it('a window shown and focused without its events: the next submit counts it active', () => {
      const { sim, c, powerMonitor } = setup();
      const win = new FakeBrowserWindow({ show: false });
      lagwatch.attachElectron(c, { powerMonitor, windows: [win] });
      advanceTo(sim, 1000);
      win.setState({ visible: true, focused: true });
      assert.strictEqual(c.lifecycle.state, 'hidden');
      probe(c);
      assert.strictEqual(c.lifecycle.state, 'active');
      assert.deepStrictEqual(c.tracker.intervals(), [{ start: 0, end: 1000, reason: 'hidden' }]);
    });

    it('the reader counts the lock too', () => {
      const { sim, c, powerMonitor } = setup();
      const win = new FakeBrowserWindow();
      lagwatch.attachElectron(c, { powerMonitor, windows: [win] });
      advanceTo(sim, 100);
      powerMonitor.fire('lock-screen');
      win.setState({ visible: true, focused: true, minimized: false });
      assert.strictEqual(probe(c), 'discarded');
      assert.strictEqual(c.lifecycle.state, 'hidden');
    });
  });

  describe('unresponsive … responsive', () => {
    async function collect(reader) {
      const { resourceMetrics, errors } = await reader.collect();
      assert.deepStrictEqual(errors, []);
      const out = {};
      for (const sm of resourceMetrics.scopeMetrics) {
        for (const md of sm.metrics) out[md.descriptor.name] = { unit: md.descriptor.unit, points: md.dataPoints };
      }
      return out;
    }

    it("one 'rendererUnresponsive' with the exact duration, and the OpenTelemetry counter and histogram", async () => {
      const reader = new ManualReader();
      const provider = new MeterProvider({ readers: [reader] });
      const { sim, c, powerMonitor, logs } = setup({ meter: provider.getMeter('lagwatch') });
      const win = new FakeBrowserWindow();
      const other = new FakeBrowserWindow();
      lagwatch.attachElectron(c, { powerMonitor, windows: [win, other] });
      const events = [];
      c.on('rendererUnresponsive', (e) => events.push({ t: sim.now(), e }));
      advanceTo(sim, 1000);
      win.fire('unresponsive');
      advanceTo(sim, 2500);
      win.fire('unresponsive'); // Electron repeats it: the clock does not restart
      advanceTo(sim, 4750.5);
      assert.deepStrictEqual(events, []);
      win.fire('responsive');
      assert.deepStrictEqual(events, [{ t: 4750.5, e: { windowId: win.id, durationMs: 3750.5, ended: 'responsive' } }]);
      win.fire('responsive'); // a responsive with none open: nothing
      assert.strictEqual(events.length, 1);
      const got = await collect(reader);
      assert.ok(got.lag_renderer_unresponsive, 'lag_renderer_unresponsive exported');
      assert.deepStrictEqual(got.lag_renderer_unresponsive.points.map((p) => [p.attributes, p.value]),
        [[{ window: String(win.id) }, 1]]);
      const h = got.lag_renderer_unresponsive_duration_histogram;
      assert.ok(h, 'lag_renderer_unresponsive_duration_histogram exported');
      assert.strictEqual(h.unit, 'ms');
      assert.strictEqual(h.points.length, 1);
      assert.deepStrictEqual(h.points[0].attributes, { window: String(win.id) });
      assert.strictEqual(h.points[0].value.count, 1);
      assert.strictEqual(h.points[0].value.sum, 3750.5);
      assert.strictEqual(h.points[0].value.min, 3750.5);
      assert.strictEqual(h.points[0].value.max, 3750.5);
      // Unresponsiveness of the renderer is not the main loop's lag: no stall, no lifecycle change.
      assert.deepStrictEqual(c.stats().stalls, { hang: 0, suspend: 0, pause: 0 });
      assert.strictEqual(c.lifecycle.state, 'active');
      assert.deepStrictEqual(logs, []);
    });

    it('two windows are timed separately', () => {
      const { sim, c, powerMonitor } = setup();
      const a = new FakeBrowserWindow();
      const b = new FakeBrowserWindow();
      lagwatch.attachElectron(c, { powerMonitor, windows: [a, b] });
      const events = [];
      c.on('rendererUnresponsive', (e) => events.push(e));
      advanceTo(sim, 1000);
      a.fire('unresponsive');
      advanceTo(sim, 2000);
      b.fire('unresponsive');
      advanceTo(sim, 3000);
      a.fire('responsive');
      advanceTo(sim, 7000);
      b.fire('responsive');
      assert.deepStrictEqual(events, [
        { windowId: a.id, durationMs: 2000, ended: 'responsive' },
        { windowId: b.id, durationMs: 5000, ended: 'responsive' },
      ]);
    });

    it('closing a window while it is unresponsive reports it', () => {
      const { sim, c, powerMonitor, BrowserWindow, app } = setup();
      lagwatch.attachElectron(c, { powerMonitor, app });
      const win = new BrowserWindow();
      const events = [];
      c.on('rendererUnresponsive', (e) => events.push({ t: sim.now(), e }));
      advanceTo(sim, 500);
      win.fire('unresponsive');
      advanceTo(sim, 1734);
      win.close();
      assert.deepStrictEqual(events, [{ t: 1734, e: { windowId: win.id, durationMs: 1234, ended: 'closed' } }]);
      assert.deepStrictEqual(listenerCounts(win), {});
    });

    it("a renderer that crashes while unresponsive ends the span with the reason (render-process-gone), and one 'processGone'", async () => {
      const reader = new ManualReader();
      const provider = new MeterProvider({ readers: [reader] });
      const { sim, c, powerMonitor, BrowserWindow, app } = setup({ meter: provider.getMeter('lagwatch') });
      lagwatch.attachElectron(c, { powerMonitor, app });
      const win = new BrowserWindow();
      const spans = [];
      const gone = [];
      c.on('rendererUnresponsive', (e) => spans.push({ t: sim.now(), e }));
      c.on('processGone', (e) => gone.push(e));
      advanceTo(sim, 1000);
      win.fire('unresponsive');
      advanceTo(sim, 4000);
      win.webContents.gone('crashed', 139);
      assert.deepStrictEqual(spans, [{ t: 4000, e: { windowId: win.id, durationMs: 3000, ended: 'crashed' } }]);
      assert.deepStrictEqual(gone, [{ type: 'renderer', reason: 'crashed', exitCode: 139, windowId: win.id }]);
      win.fire('responsive'); // a reload that responds later: nothing more for the old span
      assert.strictEqual(spans.length, 1);
      // A utility process that goes away (app 'child-process-gone').
      app.childGone({ type: 'Utility', reason: 'oom', exitCode: -1, serviceName: 'indexer' });
      assert.deepStrictEqual(gone[1], { type: 'Utility', reason: 'oom', exitCode: -1, name: 'indexer' });
      const { resourceMetrics } = await reader.collect();
      const points = resourceMetrics.scopeMetrics.flatMap((sm) => sm.metrics)
        .find((md) => md.descriptor.name === 'lag_process_gone').dataPoints;
      assert.deepStrictEqual(points.map((p) => [p.attributes, p.value]).sort((a, b) => (a[0].type < b[0].type ? -1 : 1)), [
        [{ type: 'Utility', reason: 'oom' }, 1],
        [{ type: 'renderer', reason: 'crashed' }, 1],
      ]);
    });
  });

  describe('detach()', () => {
    it('leaves no listener of its own on powerMonitor, app and every window; the app\'s own stay', () => {
      const { sim, c, powerMonitor, app, BrowserWindow } = setup();
      const ownPower = () => {};
      const ownApp = () => {};
      const ownWin = () => {};
      powerMonitor.on('suspend', ownPower);
      app.on('browser-window-created', ownApp);
      app.on('window-all-closed', ownApp);
      const fromArray = new BrowserWindow();
      fromArray.on('closed', ownWin);
      const fromFunction = new FakeBrowserWindow();
      const before = {
        powerMonitor: listenerCounts(powerMonitor), app: listenerCounts(app),
        fromArray: listenerCounts(fromArray), fromFunction: listenerCounts(fromFunction),
      };
      const list = [fromFunction];
      // Two adapters: the windows of `windows` as an array and as a function, and of `app`.
      const detach1 = lagwatch.attachElectron(c, { powerMonitor, app, windows: [fromArray] });
      const c2 = lagwatch.createConditions({ clock: sim });
      const detach2 = lagwatch.attachElectron(c2, { powerMonitor, windows: () => list });
      const fromApp = new BrowserWindow();
      assert.strictEqual(probe(c2), 'recorded'); // the function is read: fromFunction is tracked
      for (const w of [fromArray, fromFunction, fromApp]) {
        for (const name of WINDOW_EVENTS) assert.ok(w.listenerCount(name) >= 1, `window ${w.id} '${name}'`);
      }
      for (const name of ['suspend', 'resume', 'lock-screen', 'unlock-screen', 'shutdown']) {
        assert.ok(powerMonitor.listenerCount(name) >= 2, `powerMonitor '${name}'`);
      }
      assert.strictEqual(app.listenerCount('browser-window-created'), 2);
      detach1();
      detach2();
      assert.deepStrictEqual(listenerCounts(powerMonitor), before.powerMonitor);
      assert.deepStrictEqual(powerMonitor.listeners('suspend'), [ownPower]);
      assert.deepStrictEqual(listenerCounts(app), before.app);
      assert.deepStrictEqual(app.listeners('browser-window-created'), [ownApp]);
      assert.deepStrictEqual(listenerCounts(fromArray), before.fromArray);
      assert.deepStrictEqual(fromArray.listeners('closed'), [ownWin]);
      assert.deepStrictEqual(listenerCounts(fromFunction), before.fromFunction);
      assert.deepStrictEqual(listenerCounts(fromApp), {});
      for (const w of [fromArray, fromFunction, fromApp]) {
        for (const name of WINDOW_EVENTS.concat(['close'])) {
          assert.strictEqual(w.listenerCount(name), name === 'closed' && w === fromArray ? 1 : 0, `window ${w.id} '${name}'`);
        }
      }
    });

    it('closes an open suspend interval at the detach time; later events do nothing', () => {
      const { sim, c, lifecycle, powerMonitor } = setup();
      const win = new FakeBrowserWindow();
      const detach = lagwatch.attachElectron(c, { powerMonitor, windows: [win] });
      advanceTo(sim, 1000);
      powerMonitor.fire('suspend');
      advanceTo(sim, 2500);
      detach();
      assert.deepStrictEqual(c.tracker.intervals(), [{ start: 1000, end: 2500, reason: 'suspend' }]);
      advanceTo(sim, 3000);
      powerMonitor.fire('resume');
      powerMonitor.fire('suspend');
      powerMonitor.fire('lock-screen');
      win.minimize();
      win.fire('unresponsive');
      assert.deepStrictEqual(c.tracker.intervals(), [{ start: 1000, end: 2500, reason: 'suspend' }]);
      assert.deepStrictEqual(lifecycle, []);
    });

    it('removes the reader: a window hidden afterwards changes nothing at the next submit', () => {
      const { sim, c, lifecycle, powerMonitor } = setup();
      const win = new FakeBrowserWindow();
      const detach = lagwatch.attachElectron(c, { powerMonitor, windows: [win] });
      detach();
      advanceTo(sim, 100);
      win.setState({ visible: false, focused: false });
      assert.strictEqual(probe(c), 'recorded');
      assert.strictEqual(c.lifecycle.state, 'active');
      assert.deepStrictEqual(lifecycle, []);
    });

    it('is idempotent', () => {
      const { sim, c, powerMonitor, app } = setup();
      const win = new FakeBrowserWindow();
      const detach = lagwatch.attachElectron(c, { powerMonitor, app, windows: [win] });
      advanceTo(sim, 100);
      powerMonitor.fire('suspend');
      advanceTo(sim, 200);
      detach();
      const intervals = c.tracker.intervals();
      const state = c.lifecycle.state;
      // The app opens its own interval and sets a state: a second detach must not touch them.
      c.setLifecycleState('hidden');
      advanceTo(sim, 300);
      assert.strictEqual(detach(), undefined);
      assert.strictEqual(c.lifecycle.state, 'hidden');
      assert.deepStrictEqual(intervals, [{ start: 100, end: 200, reason: 'suspend' }]);
      assert.strictEqual(state, 'active');
      assert.deepStrictEqual(c.tracker.intervals(), [
        { start: 100, end: 200, reason: 'suspend' },
        { start: 200, end: Infinity, reason: 'hidden' },
      ]);
      assert.deepStrictEqual(listenerCounts(powerMonitor), {});
      assert.deepStrictEqual(listenerCounts(app), {});
      assert.deepStrictEqual(listenerCounts(win), {});
    });
  });

  describe('with setupAllMonitors on the simulation', () => {
    it('a window minimized for 60 s: the paused monitors stop and record nothing, then run and record after restore', () => {
      const sim = lagwatch.createSimulation({ platform: 'linux' });
      const m = lagwatch.setupAllMonitors({ clock: sim });
      const { powerMonitor, app, BrowserWindow } = createFakeElectron();
      const win = new BrowserWindow();
      const detach = lagwatch.attachElectron(m.conditions, { powerMonitor, app, windows: BrowserWindow.getAllWindows });
      assert.strictEqual(m.conditions.lifecycle.state, 'active');
      advanceTo(sim, 10000);
      expectRunning(m, NAMES, 'all run while the window is active');
      const rec = monitorCounts(m, 'recorded');
      const sub = monitorCounts(m, 'submitted');
      for (const n of VALIDATED) assert.ok(rec[n] > 0, `${n} recorded before`);
      win.minimize();
      assert.strictEqual(m.conditions.lifecycle.state, 'hidden');
      expectRunning(m, NOT_PAUSED, 'paused at once');
      for (const n of PAUSED) assert.strictEqual(m.monitors[n].running, false, n);
      advanceTo(sim, 70000);
      expectRunning(m, NOT_PAUSED, 'still paused after 60 s');
      assert.deepStrictEqual(monitorCounts(m, 'submitted'), sub, 'nothing submitted while minimized');
      assert.deepStrictEqual(monitorCounts(m, 'recorded'), rec, 'nothing recorded while minimized');
      win.restore();
      assert.strictEqual(m.conditions.lifecycle.state, 'active');
      expectRunning(m, NAMES, 'all run again');
      advanceTo(sim, 71020);
      const rec2 = monitorCounts(m, 'recorded');
      for (const n of VALIDATED) assert.ok(rec2[n] > rec[n], `${n} records again`);
      assert.strictEqual(rec2.driftLag, rec.driftLag + 51);
      assert.strictEqual(rec2.worker, rec.worker + 1);
      assert.strictEqual(rec2.idleAvailability, rec.idleAvailability + 1);
      const s = m.conditions.stats();
      assert.deepStrictEqual(s.stalls, { hang: 0, suspend: 0, pause: 0 });
      for (const n of VALIDATED) assert.strictEqual(s.monitors[n].discarded, 0, `${n}: nothing discarded`);
      assert.deepStrictEqual(m.conditions.tracker.intervals(), [{ start: 10000, end: 70000, reason: 'hidden' }]);
      detach();
      m.stop();
    });

    it("win32: powerMonitor suspend … resume around sim.sleep(30000): samples over it discarded as suspend, no hang, one suspend episode", () => {
      const sim = lagwatch.createSimulation({ platform: 'win32' });
      const m = lagwatch.setupAllMonitors({ clock: sim });
      const { powerMonitor, BrowserWindow, app } = createFakeElectron();
      const detach = lagwatch.attachElectron(m.conditions, { powerMonitor, app });
      new BrowserWindow(); // eslint-disable-line no-new
      const stalls = [];
      m.conditions.on('stall', (s) => stalls.push(s));
      advanceTo(sim, 10000);
      powerMonitor.fire('suspend');
      sim.sleep(30000);
      assert.strictEqual(sim.now(), 40000, 'the monotonic clock counts the sleep on win32');
      powerMonitor.fire('resume');
      advanceTo(sim, 60000);
      const s = m.conditions.stats();
      assert.ok(s.discarded.suspend >= 1, `discarded as suspend: ${JSON.stringify(s.discarded)}`);
      assert.strictEqual(s.stalls.hang, 0);
      assert.strictEqual(s.stalls.suspend, 1);
      assert.strictEqual(s.stalls.pause, 0);
      assert.strictEqual(stalls.length, 1);
      assert.strictEqual(stalls[0].kind, 'suspend');
      assert.ok(m.conditions.tracker.intervals().some((i) => i.reason === 'suspend' && i.start === 10000 && i.end === 40000),
        `the powerMonitor interval [10000, 40000]: ${JSON.stringify(m.conditions.tracker.intervals())}`);
      detach();
      m.stop();
    });
  });


  describe('bad input (SPEC §11)', () => {
    it('attachElectron: TypeError naming the argument; nothing attached', () => {
      const { sim, c, powerMonitor, app } = setup();
      const win = new FakeBrowserWindow();
      const ctx = { c, sim };
      const T = 'ERR_INVALID_ARG_TYPE';
      for (const bad of [undefined, null, {}, 1, 'c', lagwatch.createSimulation(), new EventEmitter()]) {
        assertRejects(() => lagwatch.attachElectron(bad, { powerMonitor }), TypeError, T, 'conditions');
      }
      assertRejects(() => lagwatch.attachElectron(c), TypeError, T, 'options.powerMonitor', ctx);
      assertRejects(() => lagwatch.attachElectron(c, {}), TypeError, T, 'options.powerMonitor', ctx);
      assertRejects(() => lagwatch.attachElectron(c, 'x'), TypeError, T, 'options', ctx);
      for (const bad of [null, 1, 'powerMonitor', {}, { on() {} }, () => {}, [], { on: 1, removeListener() {} }]) {
        assertRejects(() => lagwatch.attachElectron(c, { powerMonitor: bad, windows: [win] }), TypeError, T,
          'options.powerMonitor', ctx);
      }
      for (const bad of [null, 1, {}, { on() {} }, 'app']) {
        assertRejects(() => lagwatch.attachElectron(c, { powerMonitor, app: bad }), TypeError, T, 'options.app', ctx);
      }
      for (const bad of [null, 1, 'w', {}, win, new Set([win])]) {
        assertRejects(() => lagwatch.attachElectron(c, { powerMonitor, app, windows: bad }), TypeError, T,
          'options.windows', ctx);
      }
      assert.deepStrictEqual(listenerCounts(powerMonitor), {});
      assert.deepStrictEqual(listenerCounts(app), {});
      assert.deepStrictEqual(listenerCounts(win), {});
      // And the conditions still work with no reader: the hidden window does not count.
      win.setState({ visible: false });
      assert.strictEqual(probe(c), 'recorded');
    });

    it('attachDocument: TypeError naming the argument', () => {
      const { sim, c } = setup();
      const document = createFakeDocument();
      const T = 'ERR_INVALID_ARG_TYPE';
      for (const bad of [undefined, null, {}, 'c']) {
        assertRejects(() => lagwatch.attachDocument(bad, document), TypeError, T, 'conditions');
      }
      for (const bad of [undefined, null, {}, 1, 'document', new EventEmitter(), { addEventListener() {} }]) {
        assertRejects(() => lagwatch.attachDocument(c, bad), TypeError, T, 'document', { c, sim });
      }
      assert.strictEqual(document.added, 0);
    });

    it('a windows function that throws is logged and counts as no windows', () => {
      const { c, powerMonitor, logs } = setup();
      lagwatch.attachElectron(c, { powerMonitor, windows: () => { throw new Error('boom'); } });
      assert.strictEqual(c.lifecycle.state, 'hidden');
      assert.strictEqual(probe(c), 'discarded');
      assert.ok(logs.length >= 1 && logs.every((l) => /boom/.test(l)), JSON.stringify(logs));
    });
  });

  describe("the library never requires 'electron'", () => {
    const isElectronModule = (key) => /[\\/]node_modules[\\/]electron[\\/]/.test(key) || key === 'electron';

    it('require.cache has no electron module after requiring lagwatch and using attachElectron', () => {
      const { c, powerMonitor, app, BrowserWindow } = setup();
      const detach = lagwatch.attachElectron(c, { powerMonitor, app, windows: BrowserWindow.getAllWindows });
      new BrowserWindow().close();
      detach();
      assert.deepStrictEqual(Object.keys(require.cache).filter(isElectronModule), []);
    });

    it("a fresh process: no require('electron') is attempted while loading and using lagwatch", () => {
      const script = `
        const Module = require('module');
        const asked = [];
        const load = Module._load;
        Module._load = function (request, ...rest) {
          if (/^electron(\\/|$)/.test(request)) asked.push(request);
          return load.call(this, request, ...rest);
        };
        const lagwatch = require(${JSON.stringify(ROOT)});
        const { createFakeElectron } = require(${JSON.stringify(path.join(__dirname, 'fakes', 'electron.js'))});
        const { app, powerMonitor, BrowserWindow } = createFakeElectron();
        const sim = lagwatch.createSimulation({ platform: 'darwin' });
        const m = lagwatch.setupAllMonitors({ clock: sim });
        const detach = lagwatch.attachElectron(m.conditions, { powerMonitor, app, windows: BrowserWindow.getAllWindows });
        const w = new BrowserWindow();
        powerMonitor.emit('suspend', {}); sim.sleep(1000); powerMonitor.emit('resume', {});
        w.minimize(); sim.advance(2000); w.restore(); w.close();
        powerMonitor.emit('shutdown', {});
        detach(); m.stop();
        process.stdout.write(JSON.stringify({ asked, cached: Object.keys(require.cache).filter((k) => /[\\\\/]node_modules[\\\\/]electron[\\\\/]/.test(k)) }));
      `;
      const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });
      assert.deepStrictEqual(JSON.parse(out), { asked: [], cached: [] });
    });

    it("no require('electron') or import of it anywhere in lib/", () => {
      const files = [];
      const walk = (dir) => {
        for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
          const p = path.join(dir, e.name);
          if (e.isDirectory()) walk(p);
          else if (/\.(c|m)?js$|\.ts$/.test(e.name)) files.push(p);
        }
      };
      walk(path.join(ROOT, 'lib'));
      assert.ok(files.some((f) => f.endsWith(`${path.sep}electron.js`)), 'lib/electron.js was scanned');
      const re = /require\s*\(\s*['"`]electron(\/[^'"`]*)?['"`]\s*\)|import\s*\(\s*['"`]electron|from\s+['"`]electron['"`]/;
      // Code only: comments may mention require('electron') (lib/electron.js explains why it never does).
      const code = (f) => fs.readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
      assert.match(code(path.join(ROOT, 'lib', 'index.js')), /require\('\.\/electron'\)/, 'the stripping keeps code');
      const hits = files.filter((f) => re.test(code(f))).map((f) => path.relative(ROOT, f));
      assert.deepStrictEqual(hits, []);
    });
  });
});
