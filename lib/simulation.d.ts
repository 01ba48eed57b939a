// Type declarations of the deterministic clock (SPEC §8, lib/simulation.js). Part of
// lib/index.d.ts, which exports them all; apps import them from 'lagwatch'.

export type Platform = 'linux' | 'darwin' | 'win32';

export interface SimulationOptions {
  /** Default 'linux'. */
  platform?: Platform;
  /** Default 0. */
  startMs?: number;
  /** Default 'node'. 'embedded': the loop is run from outside, as Electron's (SPEC §6). */
  loop?: 'node' | 'embedded';
}

export interface Simulation {
  readonly platform: Platform;
  readonly loop: 'node' | 'embedded';
  /** Monotonic ms of the simulated main thread. */
  now(): number;
  /** Time passes normally; due work runs at its due time, in order. */
  advance(ms: number): void;
  /** The main thread is busy: only the worker runs; overdue main work runs late, after. */
  block(ms: number, state?: 'cpu' | 'gc' | 'blocked' | 'starved' | 'throttled'): void;
  /** The whole process is runnable but gets no CPU: nothing runs; every clock advances. */
  starve(ms: number): void;
  /** System suspend: nothing runs; wall and sleep-inclusive clocks advance; monotonic only on darwin/win32. */
  sleep(ms: number): void;
  /** The process is stopped, and nothing tells it (a cgroup freezer, a paused VM): nothing runs; every clock advances. */
  pause(ms: number): void;
  /** The process is stopped by a signal (SIGSTOP, SIGTSTP) and continued by SIGCONT: as pause, and the continue is known at once. */
  sigstop(ms: number): void;
  /** A debugger holds the main thread (a breakpoint): no progress, no hang; samples over it discarded as 'debugger'. */
  debug(ms: number): void;
  /** A synchronous wait in a callback after the poll (execSync, Atomics.wait): off-CPU; the app's block in Node's loop, time available to the loop in an embedded one, which cannot tell it from the embedder's own waiting (docs/electron.md). */
  wait(ms: number): void;
  /** Embedded loop only: the embedder's message loop holds the thread outside uv_run, off-CPU: idle. */
  outside(ms: number): void;
  /** A signal reaches the main thread while its loop waits (SIGTERM, a child's SIGCHLD): libuv's idle time loses the wait so far, as libuv's does; the loop wakes for the handler. */
  signal(): void;
  /** The wall clock jumps by ms (negative: back). */
  stepWall(ms: number): void;
  /** Only the worker thread stops. */
  stallWorker(ms: number): void;
  /** For ms, main-thread timers fire only at multiples of alignMs (default 1000). */
  throttle(ms: number, alignMs?: number): void;
  /**
   * One callback of the main loop made of steps: a stop ('pause') or a sleep inside it lands
   * mid-iteration; the iteration ends after the last step.
   */
  iteration(steps: Array<
    | ['block', number]
    | ['block', number, 'cpu' | 'gc' | 'blocked' | 'starved' | 'throttled']
    | ['wait' | 'pause' | 'sigstop' | 'sleep' | 'stepWall' | 'debug', number]
  >): void;
}

export function createSimulation(options?: SimulationOptions): Simulation;
/** The class of createSimulation()'s objects. */
export const Simulation: { new (options?: SimulationOptions): Simulation; readonly prototype: Simulation };
