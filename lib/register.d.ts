// `node -r lagwatch/register app.js`, `require('lagwatch/register')`, `import 'lagwatch/register'`:
// starts every monitor on this thread. Its module.exports is the monitor set it started, or null
// when it could not start one (the reason is printed on stderr; the app runs on). It is also
// lagwatch.current(). `export =`: module.exports itself is the value (no `.default`), so
// TypeScript's CommonJS code takes it with `import set = require('lagwatch/register')`, and ESM
// with a default import.
import type { MonitorSet } from './index.js';

declare const set: MonitorSet | null;
export = set;
