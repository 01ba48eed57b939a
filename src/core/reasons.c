/* The built-in reasons and the stall kinds they give: see reasons.h. */
#include "reasons.h"

const lw_kind_info_t lw_kinds[LW_KIND_COUNT] = {
    /*                     name       rank */
    [LW_KIND_HANG] =      {"hang",    0},
    [LW_KIND_SUSPEND] =   {"suspend", 2},
    [LW_KIND_PAUSE] =     {"pause",   1},
};

const lw_reason_info_t lw_reasons[LW_REASON_BUILTIN_COUNT] = {
    /*                         name         stop kind             first */
    [LW_REASON_HIDDEN] =      {"hidden",    0,   -1,              0},
    [LW_REASON_FROZEN] =      {"frozen",    0,   -1,              0},
    [LW_REASON_SUSPEND] =     {"suspend",   1,   LW_KIND_SUSPEND, 1},
    [LW_REASON_PAUSE] =       {"pause",     1,   LW_KIND_PAUSE,   1},
    [LW_REASON_THROTTLED] =   {"throttled", 0,   -1,              0},
    [LW_REASON_DEBUGGER] =    {"debugger",  1,   -1,              0},
};

const char *lw_reason_builtin_name(uint32_t r) {
  return r < LW_REASON_BUILTIN_COUNT ? lw_reasons[r].name : NULL;
}

size_t lw_reason_stops(int stalls_only, uint32_t *out) {
  size_t n = 0;
  uint32_t r;
  for (r = 0; r < LW_REASON_BUILTIN_COUNT; r++) {
    if (lw_reasons[r].stop && (!stalls_only || lw_reasons[r].kind >= 0)) out[n++] = r;
  }
  return n;
}

int lw_reason_valid(const char *s, size_t len) {
  size_t i;
  if (len < 1 || len > LW_REASON_MAX_LEN) return 0;
  for (i = 0; i < len; i++) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
      return 0;
  }
  return 1;
}
