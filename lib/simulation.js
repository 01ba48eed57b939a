'use strict';
// The deterministic clock of SPEC §8. Everything driven by it runs through the same C core as in
// real time; advance() runs due work at its due time, in order.
const native = require('./native');
const { checkOptions, checkKeys, typeError } = require('./util');

const handles = new WeakMap();
// The verbs a step of iteration() may be, from the native table (its order).
const STEP_VERBS = native.simStepVerbs();

class Simulation {
  constructor(options) {
    const o = checkKeys(checkOptions(options), ['platform', 'startMs', 'loop']);
    const platform = o.platform === undefined ? 'linux' : o.platform;
    const startMs = o.startMs === undefined ? 0 : o.startMs;
    const loop = o.loop === undefined ? 'node' : o.loop;
    handles.set(this, native.simCreate(platform, startMs, loop));
    this.platform = platform;
    // Who runs the main thread's loop: Node itself, or an embedder such as Electron (SPEC §6).
    this.loop = loop;
    Object.freeze(this);
  }

  now() {
    return native.simNow(handles.get(this));
  }

  advance(ms) {
    native.simVerb(handles.get(this), 'advance', ms);
  }

  // The main thread is busy for ms: only the worker runs; overdue main work runs late, after.
  // `state` is what it does meanwhile (SPEC §12): 'cpu' (default), 'gc', 'blocked' (a syscall),
  // 'starved' (runnable, no CPU free), 'throttled' (held back by its cgroup's CPU quota).
  block(ms, state) {
    native.simVerb(handles.get(this), 'block', ms, state);
  }

  // The whole process is runnable but gets no CPU for ms: nothing runs; every clock advances;
  // on linux the worker tells this from a stop by its own run-queue delay.
  starve(ms) {
    native.simVerb(handles.get(this), 'starve', ms);
  }

  // A system suspend: nothing runs; wall and sleep-inclusive clocks advance; the monotonic clock
  // only on darwin and win32.
  sleep(ms) {
    native.simVerb(handles.get(this), 'sleep', ms);
  }

  // The process is stopped: nothing runs; every clock advances. Nothing tells the process (a
  // cgroup freezer, a paused VM): the worker sees the stop by its own lateness.
  pause(ms) {
    native.simVerb(handles.get(this), 'pause', ms);
  }

  // The process is stopped by a signal (SIGSTOP, SIGTSTP) for ms and continued by SIGCONT: as
  // pause, and both threads read the continue's time when they next run, so a stop shorter than
  // the worker's check is known too.
  sigstop(ms) {
    native.simVerb(handles.get(this), 'sigstop', ms);
  }

  // A debugger holds the main thread for ms (a breakpoint, a step, an inspector's
  // Debugger.pause): it makes no progress and is no hang; the samples over it are discarded as
  // 'debugger' (what lagwatch's watcher of an open inspector tells in real time).
  debug(ms) {
    native.simVerb(handles.get(this), 'debug', ms);
  }

  // A synchronous wait of ms in a callback that runs after the poll (a timer, an immediate):
  // fs.readFileSync of a slow file, execSync, Atomics.wait. The main thread is off every CPU and
  // busy for its loop: the app's block, in either loop model.
  wait(ms) {
    native.simVerb(handles.get(this), 'wait', ms);
  }

  // Embedded loop only: the embedder's message loop holds the thread outside uv_run for ms, off
  // every CPU (Chromium waiting for its next task). The loop's work waits; the thread is idle.
  outside(ms) {
    native.simVerb(handles.get(this), 'outside', ms);
  }

  // A signal reaches the main thread while its loop waits (SIGTERM, SIGUSR2, a child's SIGCHLD):
  // libuv's idle time loses the wait so far (it counts a wait from its last entry into the
  // kernel, and the signal interrupts it), and the loop wakes for the signal's handler.
  signal() {
    native.simVerb(handles.get(this), 'signal', 0);
  }

  // The wall clock jumps by ms (negative: back).
  stepWall(ms) {
    native.simVerb(handles.get(this), 'stepWall', ms);
  }

  // Only the worker thread stops for ms.
  stallWorker(ms) {
    native.simVerb(handles.get(this), 'stallWorker', ms);
  }

  // One callback of the main loop made of steps, each [verb, ms, state?]: 'block' (the callback
  // works; state as for block()), 'wait' (a synchronous wait in it), 'pause' or 'sigstop' (the
  // process is stopped inside it), 'sleep' (the system sleeps inside it), 'debug' (a breakpoint
  // in it), 'stepWall'. A stop or a sleep lands mid-iteration: its time is the iteration's (the
  // loop does not wait in its poll), and the iteration ends after the last step, when overdue
  // main work runs (SPEC §5's compound cases: a stop then the app's work, the app's work with a
  // stop inside).
  iteration(steps) {
    if (!Array.isArray(steps)) throw typeError('The "steps" argument must be an array of [verb, ms, state?]');
    for (const [i, step] of steps.entries()) {
      if (!Array.isArray(step) || typeof step[0] !== 'string') {
        throw typeError(`The "steps[${i}]" argument must be an array [verb, ms, state?]`);
      }
      if (!STEP_VERBS.includes(step[0])) {
        const names = STEP_VERBS.map((v) => `'${v}'`);
        const err = new RangeError(`The "steps[${i}]" argument must name ${names.slice(0, -1).join(', ')} or ${names.at(-1)}`);
        err.code = 'ERR_OUT_OF_RANGE';
        throw err;
      }
    }
    const h = handles.get(this);
    native.simVerb(h, 'callback', 0);
    try {
      for (const [verb, ms, state] of steps) native.simVerb(h, verb, ms, state);
    } finally {
      native.simVerb(h, 'return', 0);
    }
  }

  // For ms, main-thread timers fire only at multiples of alignMs (App Nap, background throttling;
  // the native side's default when absent).
  throttle(ms, alignMs) {
    native.simVerb(handles.get(this), 'throttle', ms, alignMs);
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
