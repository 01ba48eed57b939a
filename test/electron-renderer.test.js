'use strict';
// SPEC §9 (Electron), §3 (lifecycle): a renderer's adapter attachDocument() driven by a faithful
// fake of its document (test/fakes/electron.js), on simulated time.
const assert = require('assert');
const lagwatch = require('..');
const { createFakeDocument } = require('./fakes/electron');
const { advanceTo, setup, probe } = require('./electron/common');

describe('Electron adapter (SPEC §9), renderer', () => {
  describe('attachDocument (renderer)', () => {
    function docSetup(docOptions) {
      const ctx = setup();
      const document = createFakeDocument(docOptions);
      return { ...ctx, document };
    }

    it('visibilitychange to hidden and back to visible', () => {
      const { sim, c, lifecycle, document } = docSetup();
      lagwatch.attachDocument(c, document);
      assert.strictEqual(c.lifecycle.state, 'active');
      advanceTo(sim, 100);
      document.setVisibility('hidden');
      assert.strictEqual(c.lifecycle.state, 'hidden');
      advanceTo(sim, 300);
      document.setVisibility('visible');
      assert.strictEqual(c.lifecycle.state, 'active');
      assert.deepStrictEqual(lifecycle, [
        { t: 100, from: 'active', to: 'hidden' },
        { t: 300, from: 'hidden', to: 'active' },
      ]);
      assert.deepStrictEqual(c.tracker.intervals(), [{ start: 100, end: 300, reason: 'hidden' }]);
    });

    it('a document that starts hidden is hidden at attach', () => {
      const { c, lifecycle, document } = docSetup({ visibilityState: 'hidden' });
      lagwatch.attachDocument(c, document);
      assert.deepStrictEqual(lifecycle, [{ t: 0, from: 'active', to: 'hidden' }]);
    });

    it('hasFocus() false → passive (at attach; through the reader)', () => {
      const a = docSetup({ focused: false });
      lagwatch.attachDocument(a.c, a.document);
      assert.strictEqual(a.c.lifecycle.state, 'passive');
      a.document.focused = true;
      probe(a.c);
      assert.strictEqual(a.c.lifecycle.state, 'active');
      a.document.focused = false;
      probe(a.c);
      assert.strictEqual(a.c.lifecycle.state, 'passive');
    });

    it("the window's blur / focus (fired at the Window, as in a browser) → passive / active at once", () => {
      const { sim, c, lifecycle, document } = docSetup();
      lagwatch.attachDocument(c, document);
      advanceTo(sim, 100);
      document.setFocus(false); // 'blur' at the Window, as a browser fires it
      assert.strictEqual(c.lifecycle.state, 'passive', "the window's blur changes the state at once");
      advanceTo(sim, 200);
      document.setFocus(true);
      assert.strictEqual(c.lifecycle.state, 'active');
      assert.deepStrictEqual(lifecycle, [
        { t: 100, from: 'active', to: 'passive' },
        { t: 200, from: 'passive', to: 'active' },
      ]);
    });

    it('freeze → frozen, resume → back (hidden, then visible)', () => {
      const { sim, c, lifecycle, document } = docSetup();
      lagwatch.attachDocument(c, document);
      advanceTo(sim, 100);
      document.setVisibility('hidden');
      advanceTo(sim, 200);
      document.freeze();
      assert.strictEqual(c.lifecycle.state, 'frozen');
      advanceTo(sim, 500);
      document.resume();
      assert.strictEqual(c.lifecycle.state, 'hidden');
      advanceTo(sim, 600);
      document.setVisibility('visible');
      assert.deepStrictEqual(lifecycle, [
        { t: 100, from: 'active', to: 'hidden' },
        { t: 200, from: 'hidden', to: 'frozen' },
        { t: 500, from: 'frozen', to: 'hidden' },
        { t: 600, from: 'hidden', to: 'active' },
      ]);
      assert.deepStrictEqual(c.tracker.intervals(), [
        { start: 100, end: 600, reason: 'hidden' },
        { start: 200, end: 500, reason: 'frozen' },
      ]);
    });

    it('freeze of a visible page → frozen (hidden opened first), resume → active', () => {
      const { sim, c, lifecycle, document } = docSetup();
      lagwatch.attachDocument(c, document);
      advanceTo(sim, 100);
      document.freeze();
      advanceTo(sim, 400);
      document.resume();
      assert.deepStrictEqual(lifecycle, [
        { t: 100, from: 'active', to: 'frozen' },
        { t: 400, from: 'frozen', to: 'active' },
      ]);
      assert.deepStrictEqual(c.tracker.intervals(), [
        { start: 100, end: 400, reason: 'hidden' },
        { start: 100, end: 400, reason: 'frozen' },
      ]);
    });

    it('pagehide with persisted → frozen; pageshow persisted → back (events at the Window, as in a browser)', () => {
      const { sim, c, lifecycle, document } = docSetup();
      lagwatch.attachDocument(c, document);
      advanceTo(sim, 100);
      document.pagehide(true); // into the back/forward cache; visibilityState still 'visible'
      assert.strictEqual(c.lifecycle.state, 'frozen');
      document.setVisibility('hidden');
      assert.strictEqual(c.lifecycle.state, 'frozen');
      advanceTo(sim, 900);
      document.setVisibility('visible'); // restored: visible first, then pageshow
      document.pageshow(true);
      assert.strictEqual(c.lifecycle.state, 'active');
      assert.deepStrictEqual(lifecycle, [
        { t: 100, from: 'active', to: 'frozen' },
        { t: 900, from: 'frozen', to: 'active' },
      ]);
      assert.deepStrictEqual(c.tracker.intervals(), [
        { start: 100, end: 900, reason: 'hidden' },
        { start: 100, end: 900, reason: 'frozen' },
      ]);
    });

    it('pagehide not persisted → terminated', () => {
      const { sim, c, lifecycle, document } = docSetup();
      lagwatch.attachDocument(c, document);
      advanceTo(sim, 100);
      document.pagehide(false);
      assert.strictEqual(c.lifecycle.state, 'terminated');
      document.setVisibility('hidden');
      assert.strictEqual(c.lifecycle.state, 'terminated');
      assert.deepStrictEqual(lifecycle, [{ t: 100, from: 'active', to: 'terminated' }]);
    });

    it('the reader sees a visibilityState changed without an event', () => {
      const { sim, c, lifecycle, document } = docSetup();
      lagwatch.attachDocument(c, document);
      advanceTo(sim, 100);
      document.visibilityState = 'hidden';
      assert.strictEqual(c.lifecycle.state, 'active');
      assert.strictEqual(probe(c), 'discarded');
      assert.strictEqual(c.lifecycle.state, 'hidden');
      assert.strictEqual(c.stats().discarded.hidden, 1);
      advanceTo(sim, 200);
      document.visibilityState = 'visible';
      document.focused = false;
      assert.strictEqual(probe(c, 50), 'discarded', '[150, 200] was hidden until 200');
      assert.strictEqual(c.lifecycle.state, 'passive');
      advanceTo(sim, 260);
      assert.strictEqual(probe(c, 50), 'recorded');
      assert.deepStrictEqual(lifecycle, [
        { t: 100, from: 'active', to: 'hidden' },
        { t: 200, from: 'hidden', to: 'passive' },
      ]);
    });

    it('detach removes every listener it added (document and window) and the reader; idempotent', () => {
      const { sim, c, lifecycle, document } = docSetup();
      const own = () => {};
      document.addEventListener('visibilitychange', own);
      const win = document.defaultView;
      const addedBefore = document.added + win.added;
      const detach = lagwatch.attachDocument(c, document);
      const added = document.added + win.added - addedBefore;
      assert.ok(added >= 4, `listeners added: ${added}`);
      detach();
      assert.strictEqual(document.removed + win.removed, added, 'every added listener removed');
      assert.strictEqual(document.listenerTotal(), 1);
      assert.deepStrictEqual([...document.listeners.get('visibilitychange')], [own]);
      assert.strictEqual(win.listenerTotal(), 0);
      // No listener, no reader.
      advanceTo(sim, 100);
      document.setVisibility('hidden');
      document.freeze();
      document.pagehide(false);
      document.visibilityState = 'hidden';
      assert.strictEqual(probe(c), 'recorded');
      assert.strictEqual(c.lifecycle.state, 'active');
      assert.deepStrictEqual(lifecycle, []);
      detach();
      assert.strictEqual(document.removed + win.removed, added, 'a second detach removes nothing more');
    });
  });
});
