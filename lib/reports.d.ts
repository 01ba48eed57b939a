// Type declarations of what lagwatch reports (SPEC §5, §6, §12): stall episodes and their causes,
// blocks, clock jumps, worker hangs, stacks and profiles, the blocking profile. Part of
// lib/index.d.ts, which exports them all; apps import them from 'lagwatch'.
import type { JumpKind, StallKind } from './index.js';

/** Why the main thread hung (SPEC §12), over the part of the hang the worker's readings cover
 * (`spanMs`). null where the platform cannot tell (run-queue and quota times off Linux). */
export interface HangCause {
  /** On a CPU (GC included). */
  cpuMs: number;
  /** Runnable, waiting for a CPU others had (quota throttling excluded). Linux only. */
  runQueueMs: number | null;
  /** Runnable, held back by the cgroup's CPU quota. Linux with a cgroup cpu controller only. */
  throttledMs: number | null;
  /** Neither on a CPU nor waiting for one: a syscall, sync I/O, Atomics.wait, page faults. */
  blockedMs: number;
  /** V8's garbage collection inside the span (perf_hooks' gc entries). */
  gcMs: number | null;
  spanMs: number;
  dominant: 'busy' | 'gc' | 'blocked' | 'starved' | 'throttled';
}

/** The thread an event is about: `{ id: 0, name: 'main' }`, or a worker's `threadId` and name
 * (its `name` option where the runtime exposes it, else null). */
export interface ThreadInfo {
  id: number;
  name: string | null;
}

export interface Stall {
  kind: StallKind;
  /** The thread it is about (fatal hangs: the hung thread, null when its record, written by an
   * earlier version, did not say). */
  thread: ThreadInfo | null;
  /** The longest sample of the episode. */
  durationMs: number;
  start: number;
  end: number;
  samples: number;
  monitors: string[];
  /** Hang episodes only: the cause of the worker hang it overlaps; null when none was measured. */
  cause?: HangCause | null;
  /** With `blocks`: a hang of one loop iteration (loopBlock's sample in it) is a block too, whose
   * 'block' event says `hang: true`. */
  block?: true;
  /** With `stacks: true`, hang episodes: the main thread's stack taken during the hang. */
  stack?: StackFrame[] | null;
  stackTakenAt?: number | null;
  /** With `stacks: true`, hang episodes: where the hang's time went, sampled from its detection
   * to its end (null when no sample could be taken; fatal hangs: null, their record keeps one
   * stack). */
  profile?: HangProfile | null;
  /** With `stacks: true`, hang episodes: the same for the same hang across runs and edits that
   * only move lines (its profile's heaviest path, app frames first); null without a stack. */
  fingerprint?: string | null;
  /** A hang of an earlier process that died hung (killed, force-quit), found in the state
   * directory: true; absent otherwise. `start`/`end` are then on this process's clock (negative),
   * `durationMs` as long as the hang was last seen, `samples` 0. */
  fatal?: true;
  /** Fatal hangs of a worker thread that its owner terminated while it hung (`worker.terminate()`,
   * a pool's task timeout), reported by the main thread's set at the worker's exit: true; its
   * `durationMs` runs to the termination. */
  terminated?: true;
  /** With `stacks: true`: the OpenTelemetry span that was active on the main thread when the
   * hang was flagged (the request it blocked), if the app registered a context manager. */
  traceId?: string;
  spanId?: string;
  traceFlags?: number;
  /** Fatal hangs: when the dead process flagged the hang, and its pid. */
  detectedAt?: number;
  pid?: number;
}

/** The profile of a hang: the main thread's stacks sampled every `intervalMs` from the hang's
 * detection to its end (at most 1200 samples), each distinct stack with its count, heaviest
 * first (at most 100; the samples of the others counted in `other`). Frames are at their
 * function's start, innermost first. */
export interface HangProfile {
  samples: number;
  intervalMs: number;
  stacks: Array<{ frames: StackFrame[]; count: number }>;
  other: number;
}

/** A frame of the main thread's JavaScript stack, innermost first; 1-based as in Error.stack;
 * source-mapped when the app runs with --enable-source-maps. */
export interface StackFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

/** A main-thread block: one loop iteration that kept the thread from its loop for the block
 * threshold or more, that no evidence explains. */
export interface Block {
  /** The thread it is about. */
  thread: ThreadInfo;
  start: number;
  end: number;
  durationMs: number;
  /** As long as the stall threshold: also reported as that hang's episode ('stall'). */
  hang: boolean;
  /** Blocks not reported (over the budget) since the last report. */
  unreported: number;
  /** Where its time went, read by the worker while it ran (`blocks.stacks`); null otherwise. */
  cause: HangCause | null;
  /** With `blocks.stacks`: the main thread's stack taken while the block ran, or null (then
   * `stackMissing` says why). */
  stack?: StackFrame[] | null;
  /** 'unseen': it ended before the worker saw its threshold reached; 'late': it ended before the
   * stack thread's first sample; 'native': that sample ran more than 50 ms after the detection,
   * once the thread left code the inspector cannot interrupt (a synchronous native call, a long
   * builtin such as JSON.parse, a GC): its frames would be where it went on after, so none. */
  stackMissing?: 'unseen' | 'late' | 'native';
  /** With `blocks.stacks`: from the block's detection to its first sample, ms (null if none). */
  stackDelayMs?: number | null;
  /** With `blocks.stacks`: its call site, as a hang's (stable across runs and line moves). */
  fingerprint?: string | null;
  /** With `blocks.stacks`, when the app registered an OpenTelemetry context manager: the span
   * active while it ran (the request it held), read where its stack was taken; `spanName` where
   * the span has a name (the SDK's spans). Absent otherwise. */
  traceId?: string;
  spanId?: string;
  traceFlags?: number;
  spanName?: string;
}

export interface ClockJump {
  kind: JumpKind;
  /** When clockDrift saw it (monotonic ms). */
  at: number;
  /** The sleep (suspend) or the wall-clock step (step, signed), ms. */
  deltaMs: number;
}

export interface WorkerHang {
  /** The thread it is about. */
  thread: ThreadInfo;
  /** Where the main loop last made progress (moved forward by a stop of the stall threshold or more). */
  start: number;
  /** When the worker thread flagged it. */
  detectedAt: number;
  /** When the main thread ran again. */
  end: number;
  /** `end` less `start`, less a stop under the stall threshold inside (the hang's own time). */
  durationMs: number;
  /** What the main thread did meanwhile (SPEC §12); null when it could not be read. */
  cause: HangCause | null;
  /** With `stacks: true`: the main thread's stack, taken while it was blocked (at the first
   * moment V8 could be interrupted), and when; null if none could be taken. */
  stack?: StackFrame[] | null;
  stackTakenAt?: number | null;
  /** With `stacks: true`: where its time went, and its fingerprint (as on the hang episode). */
  profile?: HangProfile | null;
  fingerprint?: string | null;
  /** With `stacks: true`: the OpenTelemetry span active when it was flagged, if any. */
  traceId?: string;
  spanId?: string;
  traceFlags?: number;
}

/** One call site in blockingProfile(): the blocks whose fingerprint it is (null: those without a
 * stack). */
export interface BlockingSite {
  fingerprint: string | null;
  count: number;
  totalMs: number;
  maxMs: number;
  p50Ms: number;
  /** The dominant cause among its blocks ('unknown' for blocks not watched). */
  cause: HangCause['dominant'] | 'unknown';
  causes: Partial<Record<HangCause['dominant'] | 'unknown', number>>;
  /** The stack of its longest block with one. */
  stack: StackFrame[] | null;
}

/** The blocks that held one span name (a route, with `blocks.stacks` and a context manager). */
export interface BlockingSpan {
  name: string;
  count: number;
  totalMs: number;
  maxMs: number;
  p50Ms: number;
  /** The call site of most of its blocked time, and that site's stack. */
  fingerprint: string | null;
  stack: StackFrame[] | null;
}

export interface BlockingProfile {
  blocks: number;
  totalMs: number;
  /** The most blocked time first. */
  sites: BlockingSite[];
  /** Blocks at sites past the 1000 kept. */
  other: { count: number; totalMs: number };
  /** The same blocks by the name of the span each held (those with one), the most blocked time
   * first. */
  spans: BlockingSpan[];
  /** Blocks of span names past the 1000 kept. */
  spansOther: { count: number; totalMs: number };
}
