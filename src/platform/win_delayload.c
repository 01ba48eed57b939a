/* Windows, MinGW builds only (the cross-built win32-x64 prebuild of scripts/prebuild.js).
 *
 * The addon imports Node-API and libuv from a module named node.exe, through a delay-load import
 * library: nothing is resolved when Windows loads the addon; the first call into node.exe goes
 * through the delay-load helper, which asks this hook first. Electron, and any app that renames
 * node.exe, exports the same functions from an executable of another name, so the hook answers
 * "node.exe" with the module of the running executable instead of loading a file by that name.
 * This is what node-gyp's win_delay_load_hook.cc does for MSVC builds (which compile that file
 * themselves, so binding.gyp does not list this one).
 */
#if defined(_WIN32) && defined(__MINGW32__)

#include <windows.h>
#include <delayimp.h>
#include <string.h>

static FARPROC WINAPI lw__delay_load_hook(unsigned event, PDelayLoadInfo info) {
  if (event != dliNotePreLoadLibrary || info == NULL || info->szDll == NULL) return NULL;
  if (_stricmp(info->szDll, "node.exe") != 0) return NULL;
  return (FARPROC)(void *)GetModuleHandleW(NULL);
}

PfnDliHook __pfnDliNotifyHook2 = lw__delay_load_hook;

#else
/* ISO C wants at least one declaration in a translation unit. */
typedef int lw__win_delayload_unused;
#endif
