'use strict';
// The deterministic clock of SPEC §8. Everything driven by it runs through the same C core as in
// real time; advance() runs due work at its due time, in order.
const native = require('./native');
const { checkOptions } = require('./util');

const handles = new WeakMap();

class Simulation {
  constructor(options) {
    const o = checkOptions(options);
    const platform = o.platform === undefined ? 'linux' : o.platform;
    const startMs = o.startMs === undefined ? 0 : o.startMs;
    handles.set(this, native.simCreate(platform, startMs));
    this.platform = platform;
    Object.freeze(this);
  }

  now() {
    return native.simNow(handles.get(this));
  }

  advance(ms) {
    native.simAdvance(handles.get(this), ms);
  }
}

// The native handle of a simulation, or undefined for anything else.
function simHandle(clock) {
  return handles.get(clock);
}

function createSimulation(options) {
  return new Simulation(options);
}

module.exports = { Simulation, createSimulation, simHandle };
