/* libFuzzer target over the core's public C API and the monitor set on the simulation: the
 * input is read as a program of operations (tracker, lifecycle, validators, stall samples,
 * simulation verbs, flushes, stops, memory that runs out) with arguments taken from the bytes,
 * including NaN, infinities, negative and huge values. After each operation the invariants that
 * hold whatever the input must hold: conservation (SPEC §4), the core's answers within their
 * ranges; the sanitizers (ASan, UBSan, LeakSanitizer) catch every bad access, undefined
 * operation and leak.
 *
 *   make -C test/fuzz            build and run a fixed number of iterations (npm test)
 *   out/fuzz-core -runs=N DIR    more */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/aggregate.h"
#include "core/conditions.h"
#include "core/monitors.h"
#include "driver/monset.h"
#include "driver/sim.h"

typedef struct {
  const uint8_t *p;
  size_t n;
} input_t;

static uint8_t take_u8(input_t *in) {
  uint8_t b;
  if (in->n == 0) return 0;
  b = *in->p++;
  in->n--;
  return b;
}

/* A double: mostly small ordinary values, sometimes the edges. */
static double take_num(input_t *in) {
  static const double edges[] = {0, -0.0, -1, 1e300, -1e300, INFINITY, -INFINITY, NAN, 5000, 2000};
  uint8_t kind = take_u8(in);
  uint16_t v = (uint16_t)(take_u8(in) | (take_u8(in) << 8));
  if (kind < 24) return edges[kind % 10];
  return (double)v * (kind & 1 ? 0.25 : 1.0);
}

/* Any double at all, from 8 bytes (subnormals, NaN payloads, infinities, negatives). */
static double take_bits(input_t *in) {
  uint64_t bits = 0;
  double v;
  int k;
  for (k = 0; k < 8; k++) bits |= (uint64_t)take_u8(in) << (8 * k);
  memcpy(&v, &bits, sizeof(v));
  return v;
}

/* An aggregate's invariants: every value counted once in each bucketing, the exponential one
 * within its bounds. */
static void check_agg(const lw_agg_t *a) {
  uint64_t n = 0, e = a->zero_count;
  size_t i;
  for (i = 0; i <= a->nbounds; i++) n += a->counts[i];
  for (i = 0; i < a->exp_len; i++) e += a->exp_counts[i];
  if (n != a->count || e != a->count) abort();
  if (a->exp_len > LW_AGG_EXP_SIZE || a->exp_scale > LW_AGG_EXP_MAX_SCALE) abort();
  if (a->exp_len > 0 && (a->exp_counts[0] == 0 || a->exp_counts[a->exp_len - 1] == 0)) abort();
  if (a->count > 0 && !(a->min <= a->max)) abort();
}

static void deliver_nothing(void *data, int batches, int from_loop) {
  (void)data;
  (void)batches;
  (void)from_loop;
}

static void check(const lw_conditions_t *c) {
  uint64_t d = 0;
  size_t i;
  for (i = 0; i < c->tracker.nreasons; i++) d += lw_conditions_discarded(c, (uint32_t)i);
  if (c->submitted != c->recorded + d + c->held_count + c->cancelled) abort();
  for (i = 0; i < c->nnames; i++) {
    const lw_name_stats_t *ns = c->names[i];
    if (ns->submitted != ns->recorded + ns->discarded + ns->held + ns->cancelled) abort();
  }
}

static double cond_due(lw_client_t *cl);
static void cond_run(lw_client_t *cl, double now);

typedef struct {
  lw_client_t client;
  lw_conditions_t c;
} fcond_t;

static double cond_due(lw_client_t *cl) { return lw_conditions_next_due(&((fcond_t *)cl)->c); }
static void cond_run(lw_client_t *cl, double now) {
  lw_conditions_run(&((fcond_t *)cl)->c, now);
  lw_conditions_events_clear(&((fcond_t *)cl)->c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  input_t in = {data, size};
  lw_conditions_config_t cfg;
  lw_monset_core_config_t mcfg;
  lw_monset_owner_t owner = {.deliver = deliver_nothing};
  lw_sim_t *sim;
  fcond_t *fc;
  lw_monset_t *set;
  uint64_t open_seq[16] = {0};
  uint32_t vids[8];
  size_t nv = 0, steps = 0;
  int has_set = 0, i;
  lw_agg_t agg;

  lw_agg_init(&agg, (lw_bounds_t)(size % LW_BOUNDS_COUNT));
  sim = lw_sim_new((lw_platform_t)(take_u8(&in) % 3), 0);
  fc = calloc(1, sizeof(*fc));
  set = calloc(1, sizeof(*set));
  if (sim == NULL || fc == NULL || set == NULL) abort();
  lw_conditions_config_default(&cfg);
  if (take_u8(&in) & 1) cfg.hold_ms = take_num(&in);
  if (take_u8(&in) & 1) cfg.stall_threshold_ms = take_num(&in);
  if (lw_conditions_init(&fc->c, &cfg) != LW_OK) {
    if (lw_conditions_config_valid(&cfg)) abort(); /* a valid config must be taken */
    lw_conditions_free(&fc->c);
    free(fc);
    free(set);
    lw_sim_unref(sim);
    return 0;
  }
  fc->client.next_due = cond_due;
  fc->client.run = cond_run;
  lw_sim_add(sim, &fc->client);
  lw_monset_core_config_default(&mcfg, &fc->c);
  if (!isfinite(mcfg.stall_threshold_ms)) mcfg.stall_threshold_ms = 5000;
  if (take_u8(&in) & 1 && lw_monset_init(set, &fc->c, &mcfg, sim, NULL, &owner) == LW_OK) {
    has_set = 1;
    if (take_u8(&in) & 1) lw_monset_keep_aggregates(set, 1);
    if (take_u8(&in) & 1) lw_monset_keep_delay(set);
    for (i = 0; i < LW_MON_COUNT; i++)
      if (take_u8(&in) & 1) lw_monset_start(set, (lw_mon_t)i);
  } else if (!has_set) {
    lw_monset_free(set);
  }

  while (in.n > 0 && steps++ < 400) {
    uint8_t op = take_u8(&in);
    double now = lw_sim_now(sim), a, b;
    uint64_t detail;
    uint32_t rid;
    const char *field;
    static const char *const reasons[] = {"hidden", "suspend", "pause", "throttled", "x", "app.y"};
    switch (op % 15) {
      case 0: /* a validator */
        if (nv < 8 && lw_validator_create(&fc->c, reasons[take_u8(&in) % 6], 1 + take_u8(&in) % 4,
                                          take_num(&in), &vids[nv], NULL) == LW_OK)
          nv++;
        break;
      case 1: /* a submit */
        if (nv == 0) break;
        a = take_num(&in);
        b = take_num(&in);
        {
          uint32_t id = vids[take_u8(&in) % nv];
          int chk = lw_validator_check(&fc->c, id, a, b, &field);
          int rc = lw_validator_submit(&fc->c, id, a, b, now, &detail);
          if (chk == LW_EINVAL && rc != LW_EINVAL) abort(); /* the check and the submit agree */
          if (chk == LW_OK && rc < 0 && rc != LW_ENOMEM) abort();
        }
        break;
      case 2: /* evidence after the fact */
        if (lw_tracker_reason(&fc->c.tracker, reasons[take_u8(&in) % 6], 5, &rid) == LW_OK) {
          a = take_num(&in);
          b = take_num(&in);
          if (isfinite(a) && isfinite(b)) lw_tracker_add(&fc->c.tracker, a, b, rid, now);
        }
        break;
      case 3: /* open or close an interval */
        i = take_u8(&in) % 16;
        if (open_seq[i] != 0) {
          lw_tracker_close(&fc->c.tracker, open_seq[i], now);
          open_seq[i] = 0;
        } else if (lw_tracker_reason(&fc->c.tracker, reasons[take_u8(&in) % 6], 4, &rid) == LW_OK) {
          lw_tracker_open(&fc->c.tracker, rid, now, 1, &open_seq[i]);
        }
        break;
      case 4: {
        lw_state_t from;
        lw_conditions_set_state(&fc->c, (lw_state_t)(take_u8(&in) % 6), now, &from);
        break;
      }
      case 5: /* a stall sample from a detector */
        a = take_num(&in);
        b = take_num(&in);
        if (isfinite(a) && isfinite(b) && fc->c.nnames > 0)
          lw_conditions_stall(&fc->c, a, a + fabs(b), fabs(b), (lw_kind_t)(take_u8(&in) % 3), 0, now);
        break;
      case 6: case 7: /* time passes */
        a = fabs(take_num(&in));
        if (!isfinite(a) || a > 1e6) a = 1000;
        switch (take_u8(&in) % 8) {
          case 0: lw_sim_block(sim, a, take_u8(&in) % LW_SIM_STATES); a = lw_sim_now(sim) + a; break;
          case 6: lw_sim_starve(sim, a); a = lw_sim_now(sim); break;
          case 1: lw_sim_sleep(sim, a); a = lw_sim_now(sim); break;
          case 2: lw_sim_pause(sim, a); a = lw_sim_now(sim); break;
          case 3: lw_sim_step_wall(sim, take_u8(&in) & 1 ? a : -a); a = lw_sim_now(sim); break;
          case 4: lw_sim_stall_worker(sim, a); a = lw_sim_now(sim) + a; break;
          case 5: lw_sim_throttle(sim, a, 1 + take_u8(&in) % 2000); a = lw_sim_now(sim) + a; break;
          default: a = lw_sim_now(sim) + a; break;
        }
        {
          int guard = 0;
          while (lw_sim_step(sim, a) != NULL && ++guard < 100000) {
          }
        }
        lw_conditions_events_clear(&fc->c);
        break;
      case 8: /* stop or start a monitor */
        if (has_set) {
          lw_mon_t mon = (lw_mon_t)(take_u8(&in) % LW_MON_COUNT);
          if (lw_monset_running(set, mon)) lw_monset_stop(set, mon);
          else lw_monset_start(set, mon);
        }
        break;
      case 9: /* a validator disposed (SPEC §4: its held samples cancelled) */
        if (nv) lw_validator_dispose(&fc->c, vids[take_u8(&in) % nv]);
        break;
      case 10:
        lw_conditions_flush(&fc->c, now);
        lw_conditions_events_clear(&fc->c);
        if (has_set) { /* the window's figures: counted values only, the same on a second read */
          lw_delay_stats_t d1, d2;
          lw_monset_read_delay(set, &d1);
          lw_monset_read_delay(set, &d2);
          if (d1.count != d2.count || (d1.count > 0 && (d1.max != d2.max || d1.p99 != d2.p99 ||
              !(d1.min <= d1.p50 && d1.p50 <= d1.p90 && d1.p90 <= d1.p99 && d1.p99 <= d1.max))))
            __builtin_trap();
        }
        break;
      case 11: /* memory runs out from the k-th allocation on, for the next operations */
        lw_alloc_fail_after(take_u8(&in) % 8);
        break;
      case 12:
        lw_alloc_fail_after(-1);
        break;
      case 13: /* any value into an aggregate of its own */
        lw_agg_record(&agg, take_bits(&in));
        check_agg(&agg);
        break;
      default: /* the whole set stops */
        if (has_set) lw_monset_finish(set);
        else lw_conditions_dispose(&fc->c, now);
        lw_conditions_events_clear(&fc->c);
        if (fc->c.held_count != 0) abort();
        break;
    }
    check(&fc->c);
  }
  lw_alloc_fail_after(-1);
  if (has_set) {
    if (set->core.aggs != NULL) {
      for (i = 0; i < LW_MON_COUNT; i++) check_agg(&set->core.aggs->mon[i]);
      check_agg(&set->core.aggs->self_lag);
    }
    lw_monset_finish(set);
    lw_monset_close(set);
    lw_monset_free(set);
  }
  check(&fc->c);
  lw_sim_remove(sim, &fc->client);
  lw_conditions_free(&fc->c);
  free(fc);
  free(set);
  lw_sim_unref(sim);
  return 0;
}
