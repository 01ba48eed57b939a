'use strict';
// SPEC §6 in a real embedder run as an Electron renderer: the scenarios are
// test/embedder/scenarios.js's, shared with test/embedder-main.test.js.
require('./embedder/scenarios').describeEmbedder('renderer');
