/* The few atomic operations the worker thread needs, on every compiler node-gyp may use: GCC
 * and Clang builtins, or MSVC's Interlocked functions (MSVC accepts C11 <stdatomic.h> only with
 * /experimental:c11atomics, which node-gyp does not set).
 *
 * - lw_atomic_i64: a 64-bit integer. Stores are releases and loads acquires: what a thread wrote
 *   before a store is visible to the thread whose load sees that store. Nothing here needs
 *   sequential consistency: each variable is written by one thread and read by the other.
 * - lw_atomic_load_relaxed: a load that orders nothing, for counters only read as hints.
 */
#ifndef LW_PLATFORM_ATOMIC_H_
#define LW_PLATFORM_ATOMIC_H_

#include <stdint.h>

#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
typedef volatile int64_t lw_atomic_i64;
static __inline void lw_atomic_store(lw_atomic_i64 *p, int64_t v) {
  _InterlockedExchange64((volatile __int64 *)p, v);
}
static __inline int64_t lw_atomic_load(lw_atomic_i64 *p) {
  return _InterlockedCompareExchange64((volatile __int64 *)p, 0, 0);
}
static __inline int64_t lw_atomic_load_relaxed(lw_atomic_i64 *p) { return *p; }
#else
typedef int64_t lw_atomic_i64;
static inline void lw_atomic_store(lw_atomic_i64 *p, int64_t v) {
  __atomic_store_n(p, v, __ATOMIC_RELEASE);
}
static inline int64_t lw_atomic_load(lw_atomic_i64 *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline int64_t lw_atomic_load_relaxed(lw_atomic_i64 *p) {
  return __atomic_load_n(p, __ATOMIC_RELAXED);
}
#endif

#endif /* LW_PLATFORM_ATOMIC_H_ */
