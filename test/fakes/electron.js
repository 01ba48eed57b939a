'use strict';
// Fakes of the parts of Electron's main-process API that lagwatch's adapter uses (Electron cannot
// be installed here). They keep Electron's names, signatures and emission order:
//
// - `powerMonitor` is an EventEmitter (Electron: `class PowerMonitor extends EventEmitter`). Its
//   events 'suspend', 'resume', 'lock-screen', 'unlock-screen', 'shutdown' are emitted from C++
//   through gin_helper's Emit(), which passes an Event object first (the one of 'shutdown' has
//   preventDefault(), to delay the shutdown).
// - `app` is an EventEmitter; a BrowserWindow's constructor ends with
//   `app.emit('browser-window-created', event, window)` after the window is shown (show: true).
// - `BrowserWindow` extends EventEmitter, has a process-unique integer `id`, the methods
//   isVisible(), isMinimized(), isFocused(), isDestroyed(), and after destruction every other
//   method throws TypeError('Object has been destroyed'). Its events ('show', 'hide', 'minimize',
//   'restore', 'focus', 'blur', 'close', 'closed', 'unresponsive', 'responsive') also receive an
//   Event first. show() shows and focuses; showInactive() only shows; minimize() and hide() of a
//   focused window also blur it; restore() restores and focuses; close() emits 'close' then, unless
//   prevented, destroys the window and emits 'closed'; destroy() emits only 'closed'.
//   `BrowserWindow.getAllWindows()` returns the windows not destroyed.
//
// Test helpers (not Electron API): `win.setState({ visible, minimized, focused, destroyed })`
// changes the state WITHOUT emitting anything (the OS changed it and the event is still on its
// way); `win.fire(name)` emits one event with an Event first, as Electron does.
//
// The renderer side: `createFakeDocument()` returns a Document-like EventTarget with a writable
// `visibilityState` (and `hidden`), `hasFocus()`, and a `defaultView` Window-like EventTarget. As
// in a browser, 'visibilitychange', 'freeze' and 'resume' are dispatched at the document, while
// 'pagehide' / 'pageshow' (PageTransitionEvent with `persisted`) and the window's 'focus' / 'blur'
// are dispatched at the Window (document.defaultView). Both targets count their listeners.
const { EventEmitter } = require('events');

// The Event object that gin_helper passes as the first argument of a main-process event.
function electronEvent() {
  const e = {
    defaultPrevented: false,
    preventDefault() {
      e.defaultPrevented = true;
    },
  };
  return e;
}

class FakePowerMonitor extends EventEmitter {
  constructor() {
    super();
    this.onBatteryPower = false;
  }

  getSystemIdleState(idleThreshold) {
    if (typeof idleThreshold !== 'number') throw new TypeError('Insufficient number of arguments.');
    return 'active';
  }

  getSystemIdleTime() {
    return 0;
  }

  getCurrentThermalState() {
    return 'nominal';
  }

  isOnBatteryPower() {
    return this.onBatteryPower;
  }

  // Emits a power event as Electron does: an Event first.
  fire(name) {
    const event = electronEvent();
    this.emit(name, event);
    return event;
  }
}

// webContents: Electron emits 'render-process-gone' (event, details) on a window's webContents
// when its renderer crashes or is killed, and app 'render-process-gone' (event, webContents,
// details); details: { reason: 'clean-exit' | 'abnormal-exit' | 'killed' | 'crashed' | 'oom' |
// 'launch-failed' | 'integrity-failure', exitCode }.
class FakeWebContents extends EventEmitter {
  constructor(app) {
    super();
    this._app = app;
  }

  // The renderer goes away with `reason`.
  gone(reason, exitCode = 1) {
    const details = { reason, exitCode };
    this.emit('render-process-gone', electronEvent(), details);
    if (this._app) this._app.emit('render-process-gone', electronEvent(), this, details);
  }
}

class FakeApp extends EventEmitter {
  // A child process (utility, GPU, ...) went away: app 'child-process-gone' (event, details) with
  // details { type, reason, exitCode, serviceName?, name? }.
  childGone(details) {
    this.emit('child-process-gone', electronEvent(), details);
  }

  getName() {
    return 'fake-app';
  }

  // app.getPath(name): only 'userData' here (set `userData` first); Electron throws on an
  // unknown name.
  getPath(name) {
    if (name !== 'userData' || typeof this.userData !== 'string') throw new Error(`Failed to get '${name}' path`);
    return this.userData;
  }

  isReady() {
    return true;
  }

  whenReady() {
    return Promise.resolve();
  }
}

let nextId = 1;

function destroyedError() {
  return new TypeError('Object has been destroyed');
}

// A BrowserWindow class bound to one app (as Electron's BrowserWindow is bound to its app).
function makeBrowserWindowClass(app) {
  const all = new Set();

  class FakeBrowserWindow extends EventEmitter {
    // options: { show = true, focused = show } (Electron's BrowserWindowConstructorOptions has
    // `show`; a shown new window normally gets the focus).
    constructor(options = {}) {
      super();
      const show = options.show === undefined ? true : Boolean(options.show);
      Object.defineProperty(this, 'id', { value: nextId++, enumerable: true, writable: false });
      this.webContents = new FakeWebContents(app);
      this._visible = show;
      this._minimized = false;
      this._focused = options.focused === undefined ? show : Boolean(options.focused);
      this._destroyed = false;
      this.destroyedCalls = 0; // methods called after destruction (each threw, as in Electron)
      all.add(this);
      if (app) app.emit('browser-window-created', { preventDefault() {} }, this);
    }

    static getAllWindows() {
      return [...all].filter((w) => !w._destroyed);
    }

    static fromId(id) {
      return FakeBrowserWindow.getAllWindows().find((w) => w.id === id) || null;
    }

    _alive() {
      if (this._destroyed) {
        this.destroyedCalls++;
        throw destroyedError();
      }
    }

    isDestroyed() {
      return this._destroyed;
    }

    isVisible() {
      this._alive();
      return this._visible;
    }

    isMinimized() {
      this._alive();
      return this._minimized;
    }

    isFocused() {
      this._alive();
      return this._focused;
    }

    fire(name) {
      const event = electronEvent();
      this.emit(name, event);
      return event;
    }

    // Changes the state without emitting any event (test helper).
    setState(s) {
      if (s.visible !== undefined) this._visible = Boolean(s.visible);
      if (s.minimized !== undefined) this._minimized = Boolean(s.minimized);
      if (s.focused !== undefined) this._focused = Boolean(s.focused);
      if (s.destroyed !== undefined) {
        this._destroyed = Boolean(s.destroyed);
        if (this._destroyed) all.delete(this);
      }
    }

    _blurIfFocused() {
      if (this._focused) {
        this._focused = false;
        this.fire('blur');
      }
    }

    show() {
      this._alive();
      if (!this._visible) {
        this._visible = true;
        this.fire('show');
      }
      if (!this._focused) {
        this._focused = true;
        this.fire('focus');
      }
    }

    showInactive() {
      this._alive();
      if (!this._visible) {
        this._visible = true;
        this.fire('show');
      }
    }

    hide() {
      this._alive();
      if (this._visible) {
        this._visible = false;
        this.fire('hide');
      }
      this._blurIfFocused();
    }

    minimize() {
      this._alive();
      if (!this._minimized) {
        this._minimized = true;
        this.fire('minimize');
      }
      this._blurIfFocused();
    }

    restore() {
      this._alive();
      if (this._minimized) {
        this._minimized = false;
        this.fire('restore');
      }
      if (!this._focused && this._visible) {
        this._focused = true;
        this.fire('focus');
      }
    }

    focus() {
      this._alive();
      if (!this._focused) {
        this._focused = true;
        this.fire('focus');
      }
    }

    blur() {
      this._alive();
      this._blurIfFocused();
    }

    close() {
      if (this._destroyed) return;
      const e = this.fire('close');
      if (e.defaultPrevented) return;
      this.destroy();
    }

    destroy() {
      if (this._destroyed) return;
      this._destroyed = true;
      this._visible = false;
      this._focused = false;
      all.delete(this);
      this.fire('closed');
    }
  }

  return FakeBrowserWindow;
}

// { app, powerMonitor, BrowserWindow }: one fake Electron main process.
function createFakeElectron() {
  const app = new FakeApp();
  const powerMonitor = new FakePowerMonitor();
  const BrowserWindow = makeBrowserWindowClass(app);
  return { app, powerMonitor, BrowserWindow };
}

// A window made without any app (for windows given as an array or a function).
const FakeBrowserWindow = makeBrowserWindowClass(null);

// Every event name with listeners, and their counts.
function listenerCounts(emitter) {
  const out = {};
  for (const name of emitter.eventNames()) out[String(name)] = emitter.listenerCount(name);
  return out;
}

// An EventTarget that counts the listeners added and removed through it.
class CountingEventTarget extends EventTarget {
  constructor() {
    super();
    this.listeners = new Map(); // type -> Set of listeners currently added
    this.added = 0;
    this.removed = 0;
  }

  addEventListener(type, listener, options) {
    this.added++;
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type).add(listener);
    return super.addEventListener(type, listener, options);
  }

  removeEventListener(type, listener, options) {
    this.removed++;
    const set = this.listeners.get(type);
    if (set) {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(type);
    }
    return super.removeEventListener(type, listener, options);
  }

  // Number of listeners currently added, over every type.
  listenerTotal() {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }
}

class PageTransitionEvent extends Event {
  constructor(type, init = {}) {
    super(type, init);
    Object.defineProperty(this, 'persisted', { value: Boolean(init.persisted), enumerable: true });
  }
}

class FakeWindowGlobal extends CountingEventTarget {}

class FakeDocument extends CountingEventTarget {
  constructor({ visibilityState = 'visible', focused = true } = {}) {
    super();
    this.visibilityState = visibilityState;
    this.focused = focused;
    this.defaultView = new FakeWindowGlobal();
    this.defaultView.document = this;
  }

  get hidden() {
    return this.visibilityState !== 'visible';
  }

  hasFocus() {
    return this.focused;
  }

  // As a browser does when the page becomes hidden or visible: the state, then the event.
  setVisibility(state) {
    this.visibilityState = state;
    this.dispatchEvent(new Event('visibilitychange'));
  }

  // The window loses or gets the focus: 'blur' / 'focus' at the Window (document.defaultView).
  setFocus(focused) {
    this.focused = focused;
    this.defaultView.dispatchEvent(new Event(focused ? 'focus' : 'blur'));
  }

  // Chromium's Page Lifecycle: 'freeze' / 'resume' at the document.
  freeze() {
    this.dispatchEvent(new Event('freeze'));
  }

  resume() {
    this.dispatchEvent(new Event('resume'));
  }

  // The back/forward cache and unloading: a PageTransitionEvent at the Window (a browser fires
  // 'pagehide' while visibilityState is still 'visible', then 'visibilitychange'; on a restore,
  // 'visibilitychange' to visible comes before 'pageshow'). Only the one event here.
  pagehide(persisted) {
    this.defaultView.dispatchEvent(new PageTransitionEvent('pagehide', { persisted }));
  }

  pageshow(persisted) {
    this.defaultView.dispatchEvent(new PageTransitionEvent('pageshow', { persisted }));
  }
}

function createFakeDocument(options) {
  return new FakeDocument(options);
}

module.exports = {
  createFakeElectron, FakeBrowserWindow, FakePowerMonitor, FakeApp, electronEvent, listenerCounts,
  createFakeDocument, FakeDocument, PageTransitionEvent,
};
