'use strict';
// SPEC §6 in a real embedder run as Electron's main process (process.type 'browser'): the
// scenarios are test/embedder/scenarios.js's, shared with test/embedder-renderer.test.js.
require('./embedder/scenarios').describeEmbedder('browser');
