// Type declarations of lagwatch's public API (SPEC §2–§5, §7, §8), for every way in: require(),
// ESM import (named or default) and TypeScript under node10/node16/nodenext/bundler resolution.
// lib/index.js is CommonJS; these declarations describe its exports one by one (what Node's ESM
// loader detects), plus `default`: lib/index.js sets module.exports.default to the module itself,
// so a default import gives the module object under every loader, with or without esModuleInterop.
// They stand alone: nothing here needs Node's types (@types/node), which TypeScript 7 no longer
// includes unless a project lists them in "types"; the only imports are the peer dependency's,
// lib/reports.d.ts's (what lagwatch reports) and lib/simulation.d.ts's (the deterministic clock),
// both exported from here.
import type { Meter } from '@opentelemetry/api';
import type { Block, BlockingProfile, ClockJump, HangCause, Stall, WorkerHang } from './reports.js';
export * from './reports.js';
import type { Simulation } from './simulation.js';
export * from './simulation.js';

declare const lagwatch: typeof import('./index.js');
export default lagwatch;

/** Monotonic ms of this thread, on the origin of its `performance.now()`. */
export function now(): number;

export type LifecycleState = 'active' | 'passive' | 'hidden' | 'frozen' | 'terminated';
export type StallKind = 'hang' | 'suspend' | 'pause';
/** What a clock jump was: the system slept, or the wall clock was set. */
export type JumpKind = 'suspend' | 'step';
export type Verdict = 'recorded' | 'discarded' | 'held' | 'disposed';

/** A reason is 1–64 characters of [a-z0-9_.-]; built-in: hidden, frozen, suspend, pause, throttled, debugger. */
export type Reason = 'hidden' | 'frozen' | 'suspend' | 'pause' | 'throttled' | 'debugger' | (string & {});

export interface Interval {
  start: number;
  /** `Infinity` while the interval is open. */
  end: number;
  reason: Reason;
}

export interface ReliabilityTracker {
  /** Opens an interval at now(); the returned function closes it (later calls do nothing). */
  open(reason: Reason): () => void;
  /** Adds a closed interval; `end < start` is ignored. */
  add(start: number, end: number, reason: Reason): void;
  /** The first interval (earliest start, then earliest added) overlapping [start, end]. */
  findOverlap(start: number, end: number, reason?: Reason): Interval | undefined;
  /** The intervals kept now, by start. */
  intervals(): Interval[];
}

export interface Validator {
  readonly name: string;
  /** Window = [now() − windowMs, now()]. `record` runs synchronously for a recorded sample. */
  submit(value: number, windowMs: number, record: (value: number) => void): Verdict;
  /** Cancels held samples (SPEC §4: counted `cancelled`); later submits return 'disposed'. Idempotent. */
  dispose(): void;
}

export interface ValidatorOptions {
  /** 1–64 bytes; the `monitor` attribute of its metrics and its key in stats().monitors. */
  name: string;
  /** Default: the conditions' stallThresholdMs. `Infinity` for ratio monitors. */
  stallThresholdMs?: number;
}

export interface MonitorStats {
  submitted: number;
  recorded: number;
  discarded: number;
  held: number;
  cancelled: number;
  /** Of the recorded samples; null until one is recorded. p50/p99 are exact to about 1.6 %. */
  min: number | null;
  max: number | null;
  mean: number | null;
  p50: number | null;
  p99: number | null;
}

export interface Stats {
  submitted: number;
  recorded: number;
  discarded: Record<Reason, number>;
  held: number;
  cancelled: number;
  /** Samples, evidence or events lost because memory ran out (each loss is also logged). */
  lost: number;
  stalls: Record<StallKind, number>;
  jumps: Record<JumpKind, number>;
  /** Hang episodes by the dominant part of their cause (SPEC §12). */
  causes: Record<HangCause['dominant'], number>;
  /** Hang episodes of earlier processes that died hung (`stall` events with `fatal: true`). */
  fatalHangs: number;
  /** Writes of this process's hang records that failed (a read-only or full state directory). */
  stateErrors: number;
  /** State directories refused (a symbolic link, not a directory, owned by another user, or
   * writable by group or others: SPEC §13), at setup or by the worker at a hang's first write;
   * each logged once, no record written or read there. */
  stateRefused: number;
  /** Entries of the state directory named as hang records that were not the user's own regular
   * files (a symbolic link, another user's file, one too large): skipped, neither reported nor
   * removed. */
  stateSkipped: number;
  /** This run's own hang episodes (fatal ones excluded) per hour since the conditions were made. */
  hangsPerHour: number;
  /** Their summed duration, in seconds per hour. */
  hangSecondsPerHour: number;
  /** Whether this run has had a hang of its own. */
  hadHang: boolean;
  /** Intervals kept now. */
  intervals: number;
  monitors: Record<string, MonitorStats>;
  /** In a monitor set's conditions: its blocks (`blocks` option), reported or not, and those
   * that evidence explained, by reason (never reported as the app's). */
  blocks?: BlockStats;
}

export interface BlockStats {
  /** Blocks of the app's own (each counted in lag_blocks). */
  count: number;
  /** Reported one by one ('block' events). */
  reported: number;
  /** Over the budget (`maxReportsPerMinute`): counted and measured, not reported. */
  unreported: number;
  /** Flagged by the worker while they ran (`blocks.stacks`), discarded ones included. */
  watched: number;
  discarded: Partial<Record<Reason, number>>;
}

export interface Logger {
  log(level: 'error' | 'warn' | 'info' | 'debug', message: string): void;
}

/** A log record as lagwatch emits it (`lag.stall`, and its own messages when there is no log()). */
export interface OtelLogRecord {
  eventName?: string;
  severityNumber?: number;
  severityText?: string;
  body?: unknown;
  attributes?: Record<string, unknown>;
}

/** An OpenTelemetry Logger (`@opentelemetry/api-logs`'s `Logger`, e.g. `logs.getLogger('app')`),
 * described by the one method lagwatch calls, so that these types need no `@opentelemetry/api-logs`
 * (an optional peer dependency) where it is not installed. */
export interface OtelLogger {
  emit(logRecord: OtelLogRecord): void;
}

export interface ConditionsOptions {
  /** A clock from createSimulation(); default: the real clock. */
  clock?: Simulation;
  /** { log(level, message) } for lagwatch's own messages, and/or an OpenTelemetry Logger, which
   * also receives one `lag.stall` record per episode. Default: the global API's
   * `logs.getLogger('lagwatch', version)` when @opentelemetry/api-logs is installed, read when the
   * conditions are made (none until the app registers a LoggerProvider). */
  logger?: Logger | OtelLogger;
  /** An OpenTelemetry Meter; default: the global API's `metrics.getMeter('lagwatch', version)`,
   * read when the conditions are made (a no-op until the app registers an SDK). */
  meter?: Meter;
  /** Default 5000; > 0, Infinity allowed. */
  stallThresholdMs?: number;
  /** Default 2000. */
  holdMs?: number;
  /** Default 2000. */
  episodeDelayMs?: number;
  /** Default 120000. */
  retentionMs?: number;
}

/** Node's EventEmitter as a Conditions is one at run time (lib/conditions.js extends it), with
 * Node's signatures for untyped events: assignable to `EventEmitter` of `node:events` where
 * @types/node is loaded (`events.once(conditions, 'stall')`), and needing nothing where it is not. */
export interface EventEmitter {
  addListener(eventName: string | symbol, listener: (...args: any[]) => void): this;
  on(eventName: string | symbol, listener: (...args: any[]) => void): this;
  once(eventName: string | symbol, listener: (...args: any[]) => void): this;
  removeListener(eventName: string | symbol, listener: (...args: any[]) => void): this;
  off(eventName: string | symbol, listener: (...args: any[]) => void): this;
  removeAllListeners(eventName?: string | symbol): this;
  setMaxListeners(n: number): this;
  getMaxListeners(): number;
  listeners(eventName: string | symbol): Function[];
  rawListeners(eventName: string | symbol): Function[];
  emit(eventName: string | symbol, ...args: any[]): boolean;
  listenerCount(eventName: string | symbol, listener?: Function): number;
  prependListener(eventName: string | symbol, listener: (...args: any[]) => void): this;
  prependOnceListener(eventName: string | symbol, listener: (...args: any[]) => void): this;
  eventNames(): Array<string | symbol>;
}

export interface Conditions extends EventEmitter {
  readonly tracker: ReliabilityTracker;
  readonly lifecycle: { readonly state: LifecycleState };
  setLifecycleState(state: LifecycleState): void;
  /** Called at step 1 of every submit; null removes it. */
  setLifecycleReader(reader: (() => LifecycleState) | null): void;
  createValidator(options: ValidatorOptions): Validator;
  stats(): Stats;
  /** Gathers the final evidence, resolves every held sample now, reports every waiting episode,
   * then disposes every validator (SPEC §4). Idempotent. */
  dispose(): void;
  /** Reports waiting episodes now and hands the monitors' recorded samples to the metrics. */
  flush(): void;
  /** The conditions' clock: monotonic ms of its thread, or of its simulation. */
  now(): number;
  on(event: 'stall', listener: (stall: Stall) => void): this;
  on(event: 'lifecycle', listener: (change: { from: LifecycleState; to: LifecycleState }) => void): this;
  on(event: 'jump', listener: (jump: ClockJump) => void): this;
  on(event: 'workerHang', listener: (hang: WorkerHang) => void): this;
  /** A block of the app's (setupAllMonitors' `blocks`), within the budget of reports. */
  on(event: 'block', listener: (block: Block) => void): this;
  /** One call per flush: the values each monitor recorded since the last one. */
  on(event: 'samples', listener: (batches: Partial<Record<MonitorName, Float64Array>>) => void): this;
  /** `ended`: 'responsive', 'closed', or the reason its renderer went away ('crashed', 'killed', 'oom', ...). */
  on(event: 'rendererUnresponsive', listener: (ev: { windowId: number; durationMs: number; ended: string }) => void): this;
  /** A renderer (from its window's webContents) or a child process (app 'child-process-gone') went away. */
  on(event: 'processGone', listener: (ev: { type: string; reason: string; exitCode?: number; windowId?: number; name?: string }) => void): this;
  on(event: string | symbol, listener: (...args: any[]) => void): this;
}

export type MonitorName = 'driftLag' | 'macrotaskLag' | 'loopBlock' | 'idleAvailability' | 'worker' |
  'liveness' | 'clockDrift' | 'timerThrottle';

export interface Monitor {
  readonly name: MonitorName;
  /** Idempotent. */
  start(): void;
  /** Idempotent; the monitor's last samples are flushed. */
  stop(): void;
  readonly running: boolean;
}

export interface IntervalOptions { intervalMs?: number }

export interface MonitorsOptions {
  driftLag?: boolean | IntervalOptions;
  macrotaskLag?: boolean | IntervalOptions;
  loopBlock?: boolean | {};
  idleAvailability?: boolean | IntervalOptions;
  worker?: boolean | IntervalOptions;
  liveness?: boolean | IntervalOptions;
  clockDrift?: boolean | (IntervalOptions & { suspendMinMs?: number; stepMinMs?: number; sleepClock?: boolean });
  timerThrottle?: boolean | { lateMs?: number; firings?: number };
}

export interface BlocksOptions {
  thresholdMs?: number;
  maxReportsPerMinute?: number;
  /** The worker watches each block while it runs: its cause, and (with the set's `stacks`, which
   * it needs) its stack and samples, for `fingerprint` and blockingProfile(). Costs the worker a
   * wake-up per block threshold while the loop is idle. Default: the set's `stacks`. */
  stacks?: boolean;
}

export interface SetupOptions extends ConditionsOptions {
  /** Per monitor: options, or false to leave it out. */
  monitors?: MonitorsOptions;
  /** How often recorded samples reach JS; default 1000. */
  flushIntervalMs?: number;
  /** Real clock: stop() on process.on('exit'), so a hang right before exit is still reported;
   * on the main thread also at SIGINT, SIGTERM and SIGHUP, re-raised after the report when the
   * app has no listener of its own for it (docs/api.md); default true. */
  exitHook?: boolean;
  /** Real clock, main thread: while a hang runs, the C worker says so once on stderr (its length,
   * cause and top frames so far), the main thread being held. Default false (`register`: true). */
  hangLine?: boolean;
  /** Real clock: a stack thread (worker_threads + inspector) takes the main thread's JavaScript
   * stack when a hang is flagged; no JS runs for it while the loop is healthy. Default false. */
  stacks?: boolean;
  /** Real clock: where the C worker keeps the record of a running hang, so that the next process
   * with the same directory reports a hang that ended in the process's death (`fatal: true`).
   * Nothing is written while the loop is healthy. It must be the user's own: a directory that is
   * a symbolic link, owned by another user or writable by group or others is refused (logged,
   * stats().stateRefused). Default: per user and app under the user's home (Linux and other
   * Unixes: $XDG_STATE_HOME or ~/.local/state; macOS: ~/Library/Caches; Windows: %LOCALAPPDATA%;
   * the OS's temporary directory only without a usable home), `register`: LAGWATCH_STATE_DIR;
   * Electron: attachElectron's `app` moves it under userData; false: no records. */
  stateDir?: string | false;
  /** Report blocks: every loop iteration of `thresholdMs` (default 100, at least 50) or more that
   * no evidence explains, as 'block' events (at most `maxReportsPerMinute`, default 10; the rest
   * counted in stats().blocks) and lag_blocks / lag_block_duration_histogram. Needs loopBlock.
   * Default false. */
  blocks?: boolean | BlocksOptions;
  /** Producers (createMetricProducer()) that export the histograms of recorded samples — one per
   * monitor and the worker's self-lag — from the core's aggregates, with no JS per sample; the
   * meter then records none of them. Each serves one running set at a time. */
  metricProducers?: MetricProducer[];
}

export interface MetricProducerOptions {
  /** The kind of histogram: OpenTelemetry's explicit-bucket one (lagwatch's boundaries), or its
   * base-2 exponential one (at most 160 buckets, as the SDK's). Default 'explicit'. */
  aggregation?: 'explicit' | 'exponential';
  /** Since the set started, or since the previous collection. Default 'cumulative'. */
  temporality?: 'cumulative' | 'delta';
}

/** An OpenTelemetry SDK MetricProducer (@opentelemetry/sdk-metrics): give it to a reader's
 * `metricProducers` and to setupAllMonitors()'s. Made only by createMetricProducer(). */
declare class MetricProducer {
  private constructor();
  readonly aggregation: 'explicit' | 'exponential';
  readonly temporality: 'cumulative' | 'delta';
  /** The SDK's MetricProducer.collect(): one scope, 'lagwatch', with the six histograms. */
  collect(options?: { timeoutMillis?: number }): Promise<{
    resourceMetrics: { resource: any; scopeMetrics: any[] };
    errors: unknown[];
  }>;
}
export type { MetricProducer };

/** The histograms of recorded samples, for an OpenTelemetry SDK reader, with no JS per sample. */
export function createMetricProducer(options?: MetricProducerOptions): MetricProducer;

export interface WorkerStats {
  workerSelfLag: { count: number; max: number | null; p99: number | null };
  workerHangs: { count: number; ended: number; max: number | null };
  /** Who runs the thread's loop, as recognised from its iterations: Node itself, or an embedder
   * such as Electron that runs one non-waiting iteration at a time. */
  loop: 'node' | 'embedded';
  /** The suspend-inclusive/exclusive clock pair that tells system sleep from a hang:
   * 'CLOCK_BOOTTIME-CLOCK_MONOTONIC' (Linux), 'mach_continuous_time-mach_absolute_time' (macOS),
   * 'QueryInterruptTimePrecise-QueryUnbiasedInterruptTimePrecise' (Windows 10+), 'simulated';
   * null when the option clockDrift.sleepClock is false or the pair cannot be read here (then the
   * wall-clock rule decides alone). */
  sleepClock: string | null;
}

/** What setupAllMonitors() returns (and current(), and require('lagwatch/register')). Declared as
 * the class it is at run time (lib/monitors.js), made only by setupAllMonitors() and not exported
 * as a value: so TypeScript does not offer its members as named ESM exports of
 * 'lagwatch/register', whose module.exports is one. */
declare class MonitorSet {
  private constructor();
  readonly conditions: Conditions;
  readonly monitors: Readonly<Record<MonitorName, Monitor>>;
  /** Stops every monitor, then disposes the conditions (waiting episodes are reported). Idempotent. */
  stop(): void;
  workerStats(): WorkerStats;
  /** The call sites that blocked the loop the most in this run (needs `blocks`). */
  blockingProfile(): BlockingProfile;
}
export type { MonitorSet };

/** One per JS thread on the real clock; any number on simulated clocks. */
export function setupAllMonitors(options?: SetupOptions): MonitorSet;

/** The running real-clock set of this thread (its `setupAllMonitors()`, or the one
 * `node -r lagwatch/register` started), or `undefined`. */
export function current(): MonitorSet | undefined;

/** Stops `monitor` while the lifecycle state is not visible; returns the function that removes this. */
export function pauseWhileHidden(monitor: { start(): void; stop(): void }, conditions: Conditions): () => void;

export function createConditions(options?: ConditionsOptions): Conditions;
/** The class of createConditions()'s objects (`c instanceof lagwatch.Conditions`). */
export const Conditions: { new (options?: ConditionsOptions): Conditions; readonly prototype: Conditions };

/** Electron's objects as the adapter uses them (the app passes its own modules in). */
export interface ElectronEmitter {
  on(event: string, listener: (...args: any[]) => void): unknown;
  removeListener(event: string, listener: (...args: any[]) => void): unknown;
}
export interface ElectronWindow extends ElectronEmitter {
  readonly id: number;
  isVisible(): boolean;
  isMinimized(): boolean;
  isFocused(): boolean;
  isDestroyed(): boolean;
}
export interface AttachElectronOptions {
  powerMonitor: ElectronEmitter;
  app?: ElectronEmitter;
  windows?: ElectronWindow[] | (() => ElectronWindow[]);
  /** Default 'hidden': the app counts as hidden while the screen is locked. */
  lockScreen?: 'hidden' | 'ignore';
}
/** Maps powerMonitor and window events onto the conditions; returns detach(). */
export function attachElectron(conditions: Conditions, options: AttachElectronOptions): () => void;
/** Maps a renderer's Page Lifecycle onto the conditions; returns detach(). */
export function attachDocument(conditions: Conditions, document: {
  visibilityState: string;
  hasFocus?(): boolean;
  addEventListener(type: string, listener: (event: any) => void): void;
  removeEventListener(type: string, listener: (event: any) => void): void;
}): () => void;
/** The default meter: it records nothing and costs nothing. */
export function createNoopMeter(): Meter;
