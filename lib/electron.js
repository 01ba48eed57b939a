'use strict';
// Electron (SPEC §9): powerMonitor and window events onto the conditions' tracker and lifecycle,
// and the renderer adapter for a document. The app passes its Electron modules in: this file
// never requires 'electron' (from Electron 42 a plain-Node require('electron') downloads a binary).
const native = require('./native');
// A window's flags for the core's rule (windowsState), and a renderer page's, as the core
// numbers them.
const WIN = native.windowFlags();
const { Conditions } = require('./conditions');
const { typeError, checkOptions, checkKeys } = require('./util');

const WINDOW_EVENTS = ['show', 'hide', 'minimize', 'restore', 'focus', 'blur'];

function checkConditions(conditions) {
  if (!(conditions instanceof Conditions)) {
    throw typeError('The "conditions" argument must be made by lagwatch.createConditions() or setupAllMonitors()');
  }
}

function isEmitter(x) {
  return x !== null && typeof x === 'object' && typeof x.on === 'function' &&
    typeof x.removeListener === 'function';
}

function checkEmitter(x, name) {
  if (!isEmitter(x)) throw typeError(`The "${name}" argument must be an EventEmitter (Electron's ${name.split('.').pop()})`);
}

// Adds listeners and remembers them, so that detach() removes exactly those.
class Listeners {
  constructor() {
    this.list = [];
  }

  on(target, event, fn) {
    target.on(event, fn);
    this.list.push([target, event, fn]);
  }

  removeTarget(target) {
    this.list = this.list.filter(([t, event, fn]) => {
      if (t !== target) return true;
      t.removeListener(event, fn);
      return false;
    });
  }

  removeAll() {
    for (const [t, event, fn] of this.list) t.removeListener(event, fn);
    this.list = [];
  }
}

// A window's flags for the core's rule (src/core: lw_state_from_windows); a destroyed window or
// one whose methods throw counts as not there.
function windowFlags(win) {
  try {
    if (typeof win.isDestroyed === 'function' && win.isDestroyed()) return 0;
    return (win.isVisible() ? WIN.visible : 0) | (win.isMinimized() ? WIN.minimized : 0) | (win.isFocused() ? WIN.focused : 0);
  } catch {
    return 0;
  }
}

function attachElectron(conditions, options) {
  checkConditions(conditions);
  const o = checkKeys(checkOptions(options), ['powerMonitor', 'app', 'windows', 'lockScreen']);
  checkEmitter(o.powerMonitor, 'options.powerMonitor');
  if (o.app !== undefined) checkEmitter(o.app, 'options.app');
  if (o.windows !== undefined && !Array.isArray(o.windows) && typeof o.windows !== 'function') {
    throw typeError('The "options.windows" argument must be an array of BrowserWindows or a function returning one');
  }
  const lockScreen = o.lockScreen === undefined ? 'hidden' : o.lockScreen;
  if (lockScreen !== 'hidden' && lockScreen !== 'ignore') {
    const err = new RangeError('The "options.lockScreen" argument must be \'hidden\' or \'ignore\'');
    err.code = 'ERR_OUT_OF_RANGE';
    throw err;
  }

  const listeners = new Listeners();
  const tracked = new Set(); // windows with our listeners
  const unresponsiveSince = new Map(); // window -> when it became unresponsive
  const manageLifecycle = o.windows !== undefined || o.app !== undefined;
  let closeSuspend = null;
  let locked = false;
  let detached = false;

  // Every window the app has now: the tracked ones and those the `windows` function returns.
  function windowsNow() {
    if (typeof o.windows === 'function') {
      let list;
      try {
        list = o.windows();
      } catch (err) {
        conditions._log('error', `lagwatch: the windows function threw: ${err && err.message}`);
        list = [];
      }
      if (Array.isArray(list)) for (const w of list) track(w);
    }
    return [...tracked];
  }

  function stateNow() {
    return native.windowsState(windowsNow().map(windowFlags), locked && lockScreen === 'hidden');
  }

  function recompute() {
    if (!detached && manageLifecycle) conditions.setLifecycleState(stateNow());
  }

  // An unresponsive span ends when the window responds again, closes, or its renderer goes
  // away (`ended` says which: 'responsive', 'closed', or the render-process-gone reason).
  function reportUnresponsive(win, end, ended) {
    const since = unresponsiveSince.get(win);
    if (since === undefined) return;
    unresponsiveSince.delete(win);
    conditions._onRendererUnresponsive({ windowId: win.id, durationMs: end - since, ended });
  }

  function processGone(ev) {
    conditions._onProcessGone(ev);
  }

  function track(win) {
    if (!isEmitter(win) || tracked.has(win)) return;
    tracked.add(win);
    for (const event of WINDOW_EVENTS) listeners.on(win, event, recompute);
    listeners.on(win, 'unresponsive', () => {
      if (!unresponsiveSince.has(win)) unresponsiveSince.set(win, conditions.now());
    });
    listeners.on(win, 'responsive', () => reportUnresponsive(win, conditions.now(), 'responsive'));
    if (isEmitter(win.webContents)) {
      listeners.on(win.webContents, 'render-process-gone', (event, details) => {
        const reason = details && typeof details.reason === 'string' ? details.reason : 'unknown';
        reportUnresponsive(win, conditions.now(), reason);
        processGone({ type: 'renderer', reason, exitCode: details ? details.exitCode : undefined, windowId: win.id });
      });
    }
    listeners.on(win, 'closed', () => {
      reportUnresponsive(win, conditions.now(), 'closed');
      listeners.removeTarget(win);
      tracked.delete(win);
      recompute();
    });
  }

  // The power events: Electron has delivered duplicated and unpaired ones; Linux without logind
  // delivers none (clockDrift's sleep clock still sees the suspend).
  listeners.on(o.powerMonitor, 'suspend', () => {
    if (closeSuspend === null) closeSuspend = conditions.tracker.open('suspend');
  });
  listeners.on(o.powerMonitor, 'resume', () => {
    if (closeSuspend === null) return;
    closeSuspend();
    closeSuspend = null;
  });
  listeners.on(o.powerMonitor, 'lock-screen', () => {
    locked = true;
    recompute();
  });
  listeners.on(o.powerMonitor, 'unlock-screen', () => {
    locked = false;
    recompute();
  });
  listeners.on(o.powerMonitor, 'shutdown', () => conditions.flush());

  // Fatal hangs: an app's records belong with its data (the default directory is per entry point,
  // which an Electron app shares with every other), unless the app chose a directory itself.
  const set = conditions._set;
  if (o.app !== undefined && typeof o.app.getPath === 'function' && set && set._state.isDefault && set._state.on) {
    let userData = null;
    try {
      userData = o.app.getPath('userData');
    } catch {
      userData = null; // before 'ready' on some versions, or a stub without it
    }
    if (typeof userData === 'string' && userData !== '') set._state.useDir(require('path').join(userData, 'lagwatch'));
  }
  if (o.app !== undefined) {
    // SPEC §14: the app is quitting. A monitor set reports what it holds now, as at a signal
    // (every held episode and block, then its end hooks), before Electron tears the process down;
    // a bare conditions hands over its recorded samples.
    listeners.on(o.app, 'will-quit', () => {
      if (set) set.stop();
      else conditions.flush();
    });
    listeners.on(o.app, 'browser-window-created', (event, win) => {
      track(win);
      recompute();
    });
    // Utility processes, the GPU process and other children (renderers come through their
    // window's webContents above).
    listeners.on(o.app, 'child-process-gone', (event, details) => {
      const d = details || {};
      processGone({
        type: typeof d.type === 'string' ? d.type : 'unknown',
        reason: typeof d.reason === 'string' ? d.reason : 'unknown',
        exitCode: d.exitCode,
        name: d.name || d.serviceName,
      });
    });
  }
  if (Array.isArray(o.windows)) for (const w of o.windows) track(w);

  // A change that happened before its event already counts at the next submit.
  const reader = () => stateNow();
  if (manageLifecycle) {
    conditions.setLifecycleReader(reader);
    recompute();
  }

  return function detach() {
    if (detached) return;
    detached = true;
    listeners.removeAll();
    tracked.clear();
    unresponsiveSince.clear();
    if (closeSuspend !== null) closeSuspend();
    closeSuspend = null;
    if (manageLifecycle) {
      if (conditions._reader === reader) conditions.setLifecycleReader(null);
      // Nobody tracks the windows any more: the app counts as active, as a server does.
      conditions.setLifecycleState('active');
    }
  };
}

// The renderer (a page with Node integration): the Page Lifecycle onto the conditions.
function attachDocument(conditions, document) {
  checkConditions(conditions);
  if (document === null || typeof document !== 'object' || typeof document.addEventListener !== 'function' ||
      typeof document.removeEventListener !== 'function') {
    throw typeError('The "document" argument must be a Document (an EventTarget with visibilityState)');
  }
  let page = 0; // WIN.pageFrozen, WIN.pageTerminated (the core's rule ranks them over windows)
  let detached = false;
  const added = [];
  const stateNow = () => {
    // The page is one window for the core's rule: visible, never minimized, focused or not.
    const visible = document.visibilityState === 'visible';
    const focused = typeof document.hasFocus === 'function' ? document.hasFocus() : true;
    return native.windowsState([(visible ? WIN.visible : 0) | (focused ? WIN.focused : 0)], false, page);
  };
  const update = () => {
    if (!detached) conditions.setLifecycleState(stateNow());
  };
  // visibilitychange, freeze and resume are fired at the document; pagehide, pageshow, focus and
  // blur at its window (document.defaultView).
  const win = document.defaultView && typeof document.defaultView.addEventListener === 'function'
    ? document.defaultView : document;
  const on = (target, event, fn) => {
    target.addEventListener(event, fn);
    added.push([target, event, fn]);
  };
  on(document, 'visibilitychange', update);
  on(document, 'freeze', () => {
    page |= WIN.pageFrozen;
    update();
  });
  on(document, 'resume', () => {
    page &= ~WIN.pageFrozen;
    update();
  });
  on(win, 'focus', update);
  on(win, 'blur', update);
  // The back/forward cache: persisted pagehide freezes the page (the only sign of it outside
  // Chromium); a pagehide that is not persisted is the end of the page.
  on(win, 'pagehide', (event) => {
    page |= event && event.persisted ? WIN.pageFrozen : WIN.pageTerminated;
    update();
  });
  on(win, 'pageshow', (event) => {
    if (event && event.persisted) page = 0;
    update();
  });
  const reader = () => stateNow();
  conditions.setLifecycleReader(reader);
  update();
  return function detach() {
    if (detached) return;
    detached = true;
    for (const [target, event, fn] of added) target.removeEventListener(event, fn);
    if (conditions._reader === reader) conditions.setLifecycleReader(null);
  };
}

module.exports = { attachElectron, attachDocument };
