'use strict';
// The main process of an Electron app with lagwatch (not run in CI: Electron's binary cannot be
// installed there; test/electron-main.test.js runs the adapter against faithful fakes of this API).
//
//   npm install lagwatch           # Node-API is ABI-stable: no rebuild against Electron's headers
//   electron examples/electron-main.js
//
// The app passes its own Electron modules in; lagwatch never requires 'electron'.
const { app, BrowserWindow, powerMonitor } = require('electron');
const lagwatch = require('lagwatch');

let monitors = null;
let detach = null;

app.whenReady().then(() => {
  // Every monitor of SPEC §6 on the main process's event loop, with its own worker thread.
  monitors = lagwatch.setupAllMonitors({
    logger: { log: (level, message) => console.error(`[lagwatch] ${level}: ${message}`) },
    // meter: an OpenTelemetry Meter from your MeterProvider, to export the metrics.
  });
  const c = monitors.conditions;

  // System sleep, the lock screen, shutdown, and the app's lifecycle from its windows: the
  // paused monitors stop while no window is visible (minimized, hidden, or the screen locked).
  detach = lagwatch.attachElectron(c, {
    powerMonitor,
    app,                                   // windows created later are tracked through it
    windows: () => BrowserWindow.getAllWindows(),
    lockScreen: 'hidden',
  });

  c.on('stall', (s) => console.log(`stall: ${s.kind} ${Math.round(s.durationMs)} ms (${s.monitors.join(', ')})`));
  c.on('rendererUnresponsive', (r) => console.log(`window ${r.windowId} was unresponsive ${Math.round(r.durationMs)} ms`));
  c.on('jump', (j) => console.log(`clock jump: ${j.kind} ${Math.round(j.deltaMs)} ms`));

  const win = new BrowserWindow({
    width: 800,
    height: 600,
    // A renderer may load lagwatch too (context-aware addon): attachDocument(conditions, document)
    // there needs Node integration in that renderer.
    webPreferences: { nodeIntegration: true, contextIsolation: false, sandbox: false },
  });
  win.loadURL('data:text/html,<h1>lagwatch</h1><button onclick="const t=Date.now();while(Date.now()-t<6000);">block the renderer 6 s</button>');
});

app.on('window-all-closed', () => {
  if (detach) detach();
  if (monitors) monitors.stop(); // reports waiting episodes, flushes the metrics
  app.quit();
});
