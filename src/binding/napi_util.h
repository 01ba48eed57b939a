/* Node-API helpers of the binding, after Node's own test/js-native-api/common.h: every
 * napi_status is checked; on failure an error is thrown unless one is already pending, and the
 * function returns. */
#ifndef LW_BINDING_NAPI_UTIL_H_
#define LW_BINDING_NAPI_UTIL_H_

#include <node_api.h>
#include <stdio.h>

#define LW_NAPI_THROW_LAST(env)                                                    \
  do {                                                                             \
    const napi_extended_error_info *info_;                                         \
    bool pending_ = false;                                                         \
    napi_get_last_error_info((env), &info_);                                       \
    napi_is_exception_pending((env), &pending_);                                   \
    if (!pending_) {                                                               \
      const char *msg_ = info_ && info_->error_message ? info_->error_message      \
                                                       : "lagwatch: Node-API call failed"; \
      napi_throw_error((env), NULL, msg_);                                         \
    }                                                                              \
  } while (0)

/* Evaluates a Node-API call; on failure throws and returns `ret` from the calling function. */
#define LW_NAPI_CALL_RET(env, call, ret) \
  do {                                   \
    if ((call) != napi_ok) {             \
      LW_NAPI_THROW_LAST(env);           \
      return ret;                        \
    }                                    \
  } while (0)

#define LW_NAPI_CALL(env, call) LW_NAPI_CALL_RET(env, call, NULL)
#define LW_NAPI_CALL_VOID(env, call) LW_NAPI_CALL_RET(env, call, )

/* Throws a TypeError or RangeError with a Node-style code and returns NULL. */
#define LW_THROW_TYPE(env, ...)                                         \
  do {                                                                  \
    char m_[256];                                                       \
    snprintf(m_, sizeof(m_), __VA_ARGS__);                              \
    napi_throw_type_error((env), "ERR_INVALID_ARG_TYPE", m_);           \
    return NULL;                                                        \
  } while (0)

#define LW_THROW_RANGE(env, ...)                                        \
  do {                                                                  \
    char m_[256];                                                       \
    snprintf(m_, sizeof(m_), __VA_ARGS__);                              \
    napi_throw_range_error((env), "ERR_OUT_OF_RANGE", m_);              \
    return NULL;                                                        \
  } while (0)

#endif /* LW_BINDING_NAPI_UTIL_H_ */
