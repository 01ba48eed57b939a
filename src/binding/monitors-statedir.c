/* The state directory of a monitor set's hang records (SPEC §13): where they go, what failed, and
 * the core's judgement of a directory and of an entry, for lib/fatal.js. */
#include <stdlib.h>
#include <string.h>

#include "../core/statedir.h"
#include "../driver/ownfiles.h"
#include "monitors.h"

/* A directory's path argument: 1 to 4000 bytes, no NUL. Returns 0, or -1 with an error thrown. */
static int path_arg(napi_env env, napi_value v, const char *name, char *buf, size_t cap) {
  size_t len;
  if (lwb_arg_string(env, v, name, buf, cap, &len)) return -1;
  if (len == 0 || len >= cap - 1 || strlen(buf) != len) return lwb_throw_range(env, name, "a path of 1 to 4000 bytes");
  return 0;
}

/* monStateDir(m, dir, writer): the records of running hangs go to `dir` from now on (null:
 * nowhere), `writer` being the JSON members that name this process and thread (lib/fatal.js). */
static napi_value b_mon_state_dir(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  napi_valuetype t;
  lwb_monset_t *m;
  char dir[4096], writer[4096];
  size_t plen;
  int rc;
  if ((m = lwb_mon_args(env, info, 3, argv)) == NULL) return NULL;
  LW_NAPI_CALL(env, napi_typeof(env, argv[1], &t));
  if (t == napi_null) return lwb_make_number(env, lw_monset_state_dir(&m->set, NULL, "", 0));
  if (path_arg(env, argv[1], "stateDir", dir, sizeof(dir)) ||
      lwb_arg_string(env, argv[2], "writer", writer, sizeof(writer), &plen))
    return NULL;
  if (plen >= sizeof(writer) - 1) {
    lwb_throw_range(env, "writer", "at most 4000 bytes");
    return NULL;
  }
  rc = lw_monset_state_dir(&m->set, dir, writer, (int)uv_os_getpid());
  if (rc == LW_ENOMEM) {
    napi_throw_error(env, "ERR_MEMORY", "lagwatch: out of memory");
    return NULL;
  }
  return lwb_make_number(env, rc);
}

/* monStateErrors(m) -> { errors, firstError }: record writes or removals that failed. */
static napi_value b_mon_state_errors(napi_env env, napi_callback_info info) {
  napi_value argv[1], o;
  lwb_monset_t *m;
  int first = 0;
  uint64_t n, refused;
  char why[128];
  if ((m = lwb_mon_args(env, info, 1, argv)) == NULL) return NULL;
  n = lw_monset_state_errors(&m->set, &first);
  refused = lw_monset_state_refused(&m->set, why, sizeof(why));
  LW_NAPI_CALL(env, napi_create_object(env, &o));
  if (lwb_set_number(env, o, "errors", (double)n) ||
      lwb_set_string(env, o, "firstError", first != 0 ? uv_err_name(first) : "") ||
      lwb_set_number(env, o, "refused", (double)refused) || lwb_set_string(env, o, "refusedWhy", why))
    return NULL;
  return o;
}

/* stateDirCheck(dir) -> null when `dir` may keep hang records (or is not there yet), else what
 * is wrong with it ("a symbolic link", "owned by uid 65534", ...): src/core/statedir.h. */
static napi_value b_state_dir_check(napi_env env, napi_callback_info info) {
  napi_value argv[1], out;
  char dir[4096], why[128];
  if (lwb_get_args(env, info, 1, argv) || path_arg(env, argv[0], "stateDir", dir, sizeof(dir))) return NULL;
  if (lw_hangrec_check_dir(dir, why, sizeof(why)) != 1) {
    LW_NAPI_CALL(env, napi_get_null(env, &out));
    return out;
  }
  LW_NAPI_CALL(env, napi_create_string_utf8(env, why, NAPI_AUTO_LENGTH, &out));
  return out;
}

/* stateRecordCheck(isLink, isFile, uid, ownUid, size) -> null when an entry of the state
 * directory may be read as a hang record, else why not (src/core/statedir.h). `ownUid` null:
 * the platform tells no owners. */
static napi_value b_state_record_check(napi_env env, napi_callback_info info) {
  napi_value argv[5], out;
  napi_valuetype t;
  bool is_link, is_file;
  double uid, own = 0, size;
  char why[128];
  lw_dir_verdict_t v;
  if (lwb_get_args(env, info, 5, argv) || lwb_arg_bool(env, argv[0], "isLink", &is_link) ||
      lwb_arg_bool(env, argv[1], "isFile", &is_file) || lwb_arg_nonneg(env, argv[2], "uid", &uid) ||
      lwb_arg_nonneg(env, argv[4], "size", &size))
    return NULL;
  LW_NAPI_CALL(env, napi_typeof(env, argv[3], &t));
  if (t != napi_null && lwb_arg_nonneg(env, argv[3], "ownUid", &own)) return NULL;
  v = lw_statedir_record_verdict(is_link, is_file, (unsigned long)uid, (unsigned long)own, t != napi_null, size);
  if (v == LW_DIR_OK) {
    LW_NAPI_CALL(env, napi_get_null(env, &out));
    return out;
  }
  lw_statedir_why(v, (unsigned long)uid, 0, why, sizeof(why));
  LW_NAPI_CALL(env, napi_create_string_utf8(env, why, NAPI_AUTO_LENGTH, &out));
  return out;
}

/* An own directory kept open for files written later (lib/register.js's profile file). */
static const napi_type_tag owndir_tag = {0x6c61677761746368ULL, 0x6f776e6469720001ULL};

static void owndir_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  lw_owndir_close(data);
  free(data);
}

/* ownDirOpen(dir) -> { handle } or { why }: `dir` (it must exist) opened and judged now, at
 * setup (ownfiles.h); `why` says what is wrong: the rule's words, or a libuv error's name. */
static napi_value b_own_dir_open(napi_env env, napi_callback_info info) {
  napi_value argv[1], out, ext;
  char dir[4096], why[128];
  lw_owndir_t *d;
  int rc;
  if (lwb_get_args(env, info, 1, argv) || path_arg(env, argv[0], "dir", dir, sizeof(dir))) return NULL;
  LW_NAPI_CALL(env, napi_create_object(env, &out));
  if ((d = malloc(sizeof(*d))) == NULL) {
    napi_throw_error(env, "ERR_MEMORY", "lagwatch: out of memory");
    return NULL;
  }
  rc = lw_owndir_open(d, dir, 0, why, sizeof(why));
  if (rc != 0) {
    free(d);
    if (lwb_set_string(env, out, "why", rc == 1 ? why : uv_err_name(rc))) return NULL;
    return out;
  }
  if (napi_create_external(env, d, owndir_finalize, NULL, &ext) != napi_ok) {
    lw_owndir_close(d);
    free(d);
    LW_NAPI_THROW_LAST(env);
    return NULL;
  }
  LW_NAPI_CALL(env, napi_type_tag_object(env, ext, &owndir_tag));
  if (lwb_set_value(env, out, "handle", ext)) return NULL;
  return out;
}

/* ownDirWrite(handle, name, text) -> null, or the libuv error's name: `text` as the file `name`
 * (one level, no separator) of the directory, created new and renamed over it (ownfiles.h). */
static napi_value b_own_dir_write(napi_env env, napi_callback_info info) {
  napi_value argv[3], out;
  lw_owndir_t *d;
  char name[256], *text;
  size_t nlen, tlen;
  int rc;
  if (lwb_get_args(env, info, 3, argv)) return NULL;
  if ((d = lwb_unwrap_tagged(env, argv[0], &owndir_tag, "directory")) == NULL) return NULL;
  if (lwb_arg_string(env, argv[1], "name", name, sizeof(name), &nlen)) return NULL;
  if (nlen == 0 || nlen >= sizeof(name) - 1 || strlen(name) != nlen || strchr(name, '/') != NULL ||
      strchr(name, '\\') != NULL || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
    lwb_throw_range(env, "name", "a file name of 1 to 254 bytes, no separator");
    return NULL;
  }
  LW_NAPI_CALL(env, napi_get_value_string_utf8(env, argv[2], NULL, 0, &tlen));
  if ((text = malloc(tlen + 1)) == NULL) {
    napi_throw_error(env, "ERR_MEMORY", "lagwatch: out of memory");
    return NULL;
  }
  if (napi_get_value_string_utf8(env, argv[2], text, tlen + 1, &tlen) != napi_ok) {
    free(text);
    LW_NAPI_THROW_LAST(env);
    return NULL;
  }
  rc = lw_owndir_write(d, name, text, tlen);
  free(text);
  if (rc == 0) LW_NAPI_CALL(env, napi_get_null(env, &out));
  else out = lwb_make_string(env, uv_err_name(rc));
  return out;
}

int lwb_mon_statedir_init(napi_env env, napi_value exports) {
  static const lwb_fn_t fns[] = {
      {"monStateDir", b_mon_state_dir}, {"monStateErrors", b_mon_state_errors},
      {"stateDirCheck", b_state_dir_check}, {"stateRecordCheck", b_state_record_check},
      {"ownDirOpen", b_own_dir_open}, {"ownDirWrite", b_own_dir_write},
  };
  return lwb_export(env, exports, fns, sizeof(fns) / sizeof(fns[0]));
}
