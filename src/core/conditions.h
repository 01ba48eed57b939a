/* Measurement conditions (SPEC §3–§5): the tracker, the lifecycle, the validators with their held
 * samples, the stall episodes, the counts of stats() and the queue of events for the embedder.
 *
 * Driving: every call takes `now` (ms, see common.h). After any call, lw_conditions_next_due()
 * tells when lw_conditions_run() must be called next; run() does everything due at or before
 * `now`, in order of due time. Results that do not come back from the call itself (held samples
 * resolved, episodes reported, held samples cancelled) are appended to the event queue, which the
 * embedder reads with lw_conditions_events() and empties with lw_conditions_events_clear().
 *
 * Invariants:
 * - submitted == recorded + sum(discarded) + held + cancelled, for the conditions and for each
 *   validator name.
 * - Held samples are resolved in submission order: every hold lasts hold_ms, so the queue is
 *   sorted by due time.
 * - Nothing is lost in silence: an allocation that fails where a sample, a piece of evidence or
 *   an event would otherwise vanish counts one in `lost`.
 * - The `hidden` lifecycle interval is open exactly while the state is hidden or frozen, the
 *   `frozen` one exactly while it is frozen.
 */
#ifndef LW_CORE_CONDITIONS_H_
#define LW_CORE_CONDITIONS_H_

#include "common.h"
#include "event.h"
#include "histogram.h"
#include "tracker.h"

#define LW_NAME_MAX_LEN 64

typedef enum {
  LW_STATE_ACTIVE = 0,
  LW_STATE_PASSIVE = 1,
  LW_STATE_HIDDEN = 2,
  LW_STATE_FROZEN = 3,
  LW_STATE_TERMINATED = 4,
  LW_STATE_COUNT = 5
} lw_state_t;

/* Counts and distribution of one validator name's samples since it was first used. */
typedef struct lw_name_stats_s {
  char name[LW_NAME_MAX_LEN + 1];
  uint64_t submitted;
  uint64_t recorded;
  uint64_t discarded;
  uint64_t held;
  uint64_t cancelled;
  uint64_t *discarded_by_reason; /* by reason id; entries past the end are 0 */
  size_t discarded_by_reason_cap;
  lw_histogram_t recorded_hist;
} lw_name_stats_t;

/* Called for each judged value of a validator that has a sink (a C monitor): `value` recorded
 * (`discarded_for` LW_REASON_NONE) or discarded for that reason, over the window of `window_ms`
 * that ends at `end`; `now` is the judgement's time. */
typedef void (*lw_record_cb)(void *data, double value, double window_ms, double end,
                             uint32_t discarded_for, double now);

typedef struct lw_validator_s {
  uint32_t name_id;
  double stall_threshold_ms;
  int disposed;
  uint64_t held;
  lw_record_cb record_cb;
  void *record_data;
  /* Its long samples are judged (held, then recorded or discarded) but make no episode: a
   * monitor's own judgement of what another validator's samples already report (blocks.h). A
   * stop inside one leaves an own part only from LW_OWN_NOISE_MS (validator.c's own_counts). */
  int no_episodes;
} lw_validator_t;

/* Held samples and episodes: the core's own (internal.h). */
struct lw__held_s;
struct lw__episode_s;

/* The conditions' config: each option's range and default are its row of config.c's table. */
typedef struct lw_conditions_config_s {
  double stall_threshold_ms; /* stallThresholdMs (+INFINITY: no stall episodes) */
  double hold_ms;            /* holdMs */
  double episode_delay_ms;   /* episodeDelayMs */
  double retention_ms;       /* retentionMs */
} lw_conditions_config_t;

/* The handles of the lifecycle's open intervals (`hidden`, `frozen`), 0 if none. */
typedef struct lw_lifecycle_open_s {
  uint64_t hidden;
  uint64_t frozen;
} lw_lifecycle_open_t;

/* The held samples, a FIFO: [head, len) are live or cancelled entries; each gets the next token. */
typedef struct lw_held_fifo_s {
  struct lw__held_s *items;
  size_t head;
  size_t len;
  size_t cap;
  uint64_t next_token;
} lw_held_fifo_t;

/* The events queued for the owner, in order. */
typedef struct lw_event_queue_s {
  lw_event_t *items;
  size_t n;
  size_t cap;
} lw_event_queue_t;

/* Fills the cause of a hang episode about to be reported (the monitors' worker measured it);
 * `fn` NULL when no monitor set measures. */
typedef struct lw_cause_hook_s {
  void (*fn)(void *data, lw_event_t *ev);
  void *data;
} lw_cause_hook_t;

typedef struct lw_conditions_s {
  lw_conditions_config_t cfg;
  lw_tracker_t tracker;
  lw_state_t state;
  int has_reader; /* a lifecycle reader is set (lw_conditions_set_reader) */
  lw_lifecycle_open_t open; /* the lifecycle's open intervals */
  int disposed;

  lw_validator_t **validators;
  size_t nvalidators;
  size_t validators_cap;

  lw_name_stats_t **names;
  size_t nnames;
  size_t names_cap;

  lw_held_fifo_t held;

  struct lw__episode_s *episodes; /* pending and recently reported, in order of creation */
  size_t nepisodes;
  size_t episodes_cap;

  lw_event_queue_t events;

  uint64_t submitted;
  uint64_t recorded;
  uint64_t held_count;
  uint64_t cancelled;
  uint64_t lost; /* samples, evidence or events lost because memory ran out */
  uint64_t stalls[LW_KIND_COUNT];
  uint64_t jumps[LW_JUMP_COUNT];
  uint64_t hang_causes[LW_CAUSE_COUNT]; /* hang episodes by dominant cause */
  uint64_t fatal_hangs; /* hang episodes of processes that died hung (lw_conditions_report_fatal) */
  double hang_ms;       /* this run's hang episodes' durations, summed (fatal ones are another run's) */
  double created_at;    /* when this run's conditions began, on their clock (lw_conditions_began) */
  double disposed_at;   /* when they were disposed: the run's rates are final from then on */

  lw_cause_hook_t cause;
} lw_conditions_t;

/* The conditions' options are a table of config.c, with the monitors': their defaults and ranges
 * are its rows, and these three are defined there. */
void lw_conditions_config_default(lw_conditions_config_t *cfg);
/* Sets the hook that fills a hang episode's cause (a monitor set's), or clears it with NULL if
 * `data` is the one set. */
void lw_conditions_set_cause(lw_conditions_t *c, void (*fn)(void *data, lw_event_t *ev), void *data);
/* Returns 1 if every field of `cfg` is in its range. */
int lw_conditions_config_valid(const lw_conditions_config_t *cfg);
/* LW_OK, or LW_EINVAL naming the first field out of its range ("stallThresholdMs", ...). */
int lw_conditions_config_check(const lw_conditions_config_t *cfg, lw_err_t *err);

int lw_conditions_init(lw_conditions_t *c, const lw_conditions_config_t *cfg);
void lw_conditions_free(lw_conditions_t *c);

/* SPEC §4, stopping loses nothing: resolves every held sample now by step 4 (RESOLVED events,
 * judged with the evidence the tracker holds now), reports every waiting episode (STALL
 * events), then disposes every validator. The caller gathers the final evidence first.
 * Idempotent. */
void lw_conditions_dispose(lw_conditions_t *c, double now);

/* Does everything due at or before `now`, in order of due time. */
void lw_conditions_run(lw_conditions_t *c, double now);
double lw_conditions_next_due(const lw_conditions_t *c);

const lw_event_t *lw_conditions_events(const lw_conditions_t *c, size_t *n);
void lw_conditions_events_clear(lw_conditions_t *c);

/* Lifecycle (SPEC §3). Returns 1 and sets `*from` if the state changed, 0 if it was already
 * `state`, or a negative error (LW_EINVAL, LW_ENOMEM: nothing changed). */
int lw_conditions_set_state(lw_conditions_t *c, lw_state_t state, double now, lw_state_t *from);
/* Parses a state name; returns LW_STATE_COUNT for an unknown one. */
lw_state_t lw_state_parse(const char *s, size_t len);
const char *lw_state_name(lw_state_t s);
const char *lw_kind_name(lw_kind_t k);
const char *lw_jump_name(lw_jump_t j);
int lw_state_visible(lw_state_t s);

/* The app's state from its windows (SPEC §9): `active` if one is visible, not minimized and
 * focused; `passive` if one is visible and not minimized; else `hidden`. A locked screen makes
 * it `hidden`. Each window is LW_WINDOW_* flags. */
#define LW_WINDOW_VISIBLE 1
#define LW_WINDOW_MINIMIZED 2
#define LW_WINDOW_FOCUSED 4
lw_state_t lw_state_from_windows(const uint8_t *windows, size_t n, int locked);
/* A renderer's page over its windows' rule (the Page Lifecycle): `terminated` (a pagehide not
 * persisted) before `frozen` (a freeze, or a pagehide into the back/forward cache) before the
 * windows' state. `page` is LW_PAGE_* flags. */
#define LW_PAGE_FROZEN 1
#define LW_PAGE_TERMINATED 2
lw_state_t lw_state_from_page(unsigned page, const uint8_t *windows, size_t n, int locked);

/* stats() as a snapshot: the counts of the conditions (SPEC §7). */
typedef struct lw_conditions_stats_s {
  uint64_t submitted;
  uint64_t recorded;
  uint64_t held;
  uint64_t cancelled;
  uint64_t lost;
  uint64_t stalls[LW_KIND_COUNT];
  uint64_t jumps[LW_JUMP_COUNT];
  uint64_t hang_causes[LW_CAUSE_COUNT];
  uint64_t fatal_hangs;
  size_t reasons; /* reason ids 0 .. reasons-1: lw_tracker_reason_name, lw_conditions_discarded */
  size_t names;   /* validator names 0 .. names-1: lw_conditions_name_stats */
} lw_conditions_stats_t;

/* One validator name's counts and distribution (NAN where there is no value yet). */
typedef struct lw_name_snapshot_s {
  const char *name;
  uint64_t submitted;
  uint64_t recorded;
  uint64_t discarded;
  uint64_t held;
  uint64_t cancelled;
  double min;
  double max;
  double mean;
  double p50;
  double p99;
} lw_name_snapshot_t;

void lw_conditions_stats(const lw_conditions_t *c, lw_conditions_stats_t *out);
/* LW_OK, or LW_ENOENT past the last name. */
int lw_conditions_name_stats(const lw_conditions_t *c, size_t i, lw_name_snapshot_t *out);
/* The samples of name `i` discarded for reason id `r`. */
uint64_t lw_conditions_name_discarded(const lw_conditions_t *c, size_t i, uint32_t r);
/* The name of a validator name id (the `monitors` of a STALL event), or NULL. */
const char *lw_conditions_name(const lw_conditions_t *c, uint32_t id);

/* Read-only views for drivers and bindings. */
static inline lw_tracker_t *lw_conditions_tracker(lw_conditions_t *c) { return &c->tracker; }
static inline lw_state_t lw_conditions_state(const lw_conditions_t *c) { return c->state; }
/* Whether a lifecycle reader is set (SPEC §3, JS's): its owner asks it before the monitors'
 * timers run, and while one is set their lateness timers do not sleep while the loop waits (it is
 * asked at their firings, so a state change is seen when it came: lw_monset_core_idle). */
static inline void lw_conditions_set_reader(lw_conditions_t *c, int on) { c->has_reader = on != 0; }
static inline int lw_conditions_has_reader(const lw_conditions_t *c) { return c->has_reader; }
static inline int lw_conditions_disposed(const lw_conditions_t *c) { return c->disposed; }
static inline uint64_t lw_conditions_lost(const lw_conditions_t *c) { return c->lost; }
/* Counts `n` samples, evidence or events lost by a driver (memory ran out, a buffer was full). */
static inline void lw_conditions_count_lost(lw_conditions_t *c, uint64_t n) { c->lost += n; }
/* The events queued for the embedder (lw_conditions_events) so far. */
static inline size_t lw_conditions_event_count(const lw_conditions_t *c) { return c->events.n; }
static inline const char *lw_conditions_reason_name(const lw_conditions_t *c, uint32_t r) {
  return lw_tracker_reason_name(&c->tracker, r);
}
static inline double lw_conditions_threshold(const lw_conditions_t *c) {
  return c->cfg.stall_threshold_ms;
}

/* The samples discarded for reason id `r` (0 for an id never interned). */
static inline uint64_t lw_conditions_discarded(const lw_conditions_t *c, uint32_t r) {
  return r < c->tracker.nreasons ? c->tracker.buckets[r].discarded : 0;
}

/* The bytes of memory the conditions hold (for a garbage collector to know about). */
size_t lw_conditions_memory(const lw_conditions_t *c);

/* Reports every waiting episode now (STALL events), as dispose() does, without disposing. */
void lw_conditions_flush(lw_conditions_t *c, double now);

/* The conditions began at `now` on their clock: the run's rates are per hour since. */
void lw_conditions_began(lw_conditions_t *c, double now);

/* Rates of this run's hangs, for dashboards of many processes: hang episodes (fatal ones, another
 * run's, excluded) and their summed duration in s, per hour since the conditions began (0 before
 * any time has passed), and whether this run has had one. */
typedef struct lw_hang_rates_s {
  double hangs_per_hour;
  double hang_seconds_per_hour;
  int had_hang;
} lw_hang_rates_t;
void lw_conditions_hang_rates(const lw_conditions_t *c, double now, lw_hang_rates_t *out);

/* A hang that never ended: a process died while its main thread was hung, last seen hung at
 * `end` (its record found by a later process). Reported now as one hang episode with `fatal`
 * (a STALL event, at `now`), counted in stalls, fatal_hangs and, if known, by its cause. The
 * times are on this conditions' clock (before its origin: negative). `end` >= `start`, both
 * finite, and `cause` NULL or lw_cause_valid, else LW_EINVAL; LW_EDISPOSED after dispose;
 * LW_ENOMEM counted as lost. */
int lw_conditions_report_fatal(lw_conditions_t *c, double start, double end, double detected_at,
                               const lw_cause_t *cause, double now);

/* Returns 1 if `name` is a valid validator name: 1..64 bytes, no NUL. */
int lw_name_valid(const char *name, size_t len);

/* Creates a validator; its id goes to `*id`. `name` is 1..64 bytes, `stall_threshold_ms` > 0
 * (may be +INFINITY): else LW_EINVAL naming "name" or "stallThresholdMs" in `*err` (may be
 * NULL). LW_EDISPOSED after lw_conditions_dispose(). */
int lw_validator_create(lw_conditions_t *c, const char *name, size_t len,
                        double stall_threshold_ms, uint32_t *id, lw_err_t *err);
/* A validator with no threshold of its own: the conditions' stall threshold (SPEC §4). As
 * lw_validator_create otherwise. */
int lw_validator_create_own(lw_conditions_t *c, const char *name, size_t len, uint32_t *id, lw_err_t *err);
lw_validator_t *lw_validator_get(const lw_conditions_t *c, uint32_t id);
/* Sends every value this validator records to `cb` (C monitors). */
void lw_validator_set_sink(lw_conditions_t *c, uint32_t id, lw_record_cb cb, void *data);
/* The validator's samples at or over its threshold are held and judged as any, and make no
 * episode (lw_validator_t's no_episodes). */
void lw_validator_no_episodes(lw_conditions_t *c, uint32_t id);
/* Cancels the validator's held samples (CANCELLED events); later submits are DISPOSED. */
int lw_validator_dispose(lw_conditions_t *c, uint32_t id);

/* The checks of lw_validator_submit(), changing nothing: LW_OK if the sample would be taken,
 * LW_EDISPOSED if the validator is disposed, LW_ENOENT for an unknown id, or LW_EINVAL with the
 * name of the failing argument ("value", "windowMs") in `*field`. */
int lw_validator_check(const lw_conditions_t *c, uint32_t id, double value, double window_ms,
                       const char **field);
/* The token of the last sample held (the one a HELD verdict just returned). */
uint64_t lw_validator_last_token(const lw_conditions_t *c);

/* SPEC §4. `value` and `window_ms` must be finite and >= 0 (LW_EINVAL otherwise, nothing
 * counted). On success returns the verdict; for DISCARDED the reason id goes to `*detail`, for
 * HELD the token that its RESOLVED event will carry. */
int lw_validator_submit(lw_conditions_t *c, uint32_t id, double value, double window_ms,
                        double now, uint64_t *detail);
/* lw_validator_submit() of a sample lw_validator_check() has just passed (LW_OK): the binding's
 * hot path, which checks first to throw before the evidence is read. */
int lw_validator_submit_checked(lw_conditions_t *c, uint32_t id, double value, double window_ms,
                                double now, uint64_t *detail);

/* Reports a stall sample (SPEC §5): joins the episode whose window overlaps [ws, we] or starts
 * one. Monitors whose detector finds stalls outside a validator use it too. */
int lw_conditions_stall(lw_conditions_t *c, double ws, double we, double value, lw_kind_t kind,
                        uint32_t name_id, double now);

#endif /* LW_CORE_CONDITIONS_H_ */
