'use strict';
// Run first in every Worker the app starts after lagwatch loads (lib/sessions.js puts it in the
// worker's execArgv): wraps inspector.Session there, so that a session the app connects to the
// main thread is heard as a debugger. Nothing here may break the app's worker: a runtime without
// an inspector gets no wrap.
try {
  require('./sessions').hookSessions();
} catch {
  // no inspector in this runtime: nothing to hear
}
