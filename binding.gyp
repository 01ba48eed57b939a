{
  "targets": [
    {
      "target_name": "lagwatch",
      "sources": [
        "src/platform/alloc.c",
        "src/core/alloc.c",
        "src/core/tracker.c",
        "src/core/tracker-find.c",
        "src/core/reasons.c",
        "src/core/histogram.c",
        "src/core/delaywindow.c",
        "src/core/aggregate.c",
        "src/core/conditions.c",
        "src/core/validator.c",
        "src/core/episodes.c",
        "src/core/config.c",
        "src/core/cause.c",
        "src/core/worker.c",
        "src/core/worker-stops.c",
        "src/core/blocks.c",
        "src/core/monitors.c",
        "src/core/loop.c",
        "src/core/clockdrift.c",
        "src/core/ev-debugger.c",
        "src/core/ev-sigcont.c",
        "src/core/ev-worker.c",
        "src/core/asleep.c",
        "src/core/driftlag.c",
        "src/core/macrotasklag.c",
        "src/core/idleavailability.c",
        "src/core/timerthrottle.c",
        "src/core/workermon.c",
        "src/core/spans.c",
        "src/core/statedir.c",
        "src/core/hangline.c",
        "src/driver/sim.c",
        "src/driver/sim-verbs.c",
        "src/driver/uvtimer.c",
        "src/driver/uvworker.c",
        "src/driver/monset.c",
        "src/driver/monset-sim.c",
        "src/driver/monset-uv.c",
        "src/driver/monset-uv-readings.c",
        "src/driver/monset-uv-hangs.c",
        "src/driver/sets.c",
        "src/driver/hangrec.c",
        "src/driver/ownfiles.c",
        "src/driver/stacks.c",
        "src/driver/debugger.c",
        "src/platform/clocks.c",
        "src/platform/procfs.c",
        "src/platform/sigcont.c",
        "src/platform/sigend.c",
        "src/platform/threadtimes.c",
        "src/binding/args.c",
        "src/binding/events.c",
        "src/binding/simulation.c",
        "src/binding/conditions.c",
        "src/binding/validators.c",
        "src/binding/tracker.c",
        "src/binding/binding.c",
        "src/binding/monitors.c",
        "src/binding/monitors-metrics.c",
        "src/binding/monitors-statedir.c",
        "src/binding/monitors-held.c",
        "src/binding/monitors-stats.c",
        "src/binding/names.c",
        "src/binding/stacks.c"
      ],
      "defines": ["NAPI_VERSION=8"],
      "cflags_c": ["-std=gnu11", "-Wall", "-Wextra", "-O2"],
      "cflags!": ["-fno-exceptions"],
      "conditions": [
        ["OS!='win'", {
          "cflags_c+": ["-fvisibility=hidden"]
        }]
      ],
      "xcode_settings": {
        "OTHER_CFLAGS": ["-std=gnu11", "-Wall", "-Wextra", "-O2"],
        "GCC_SYMBOLS_PRIVATE_EXTERN": "YES"
      },
      "msvs_settings": {
        "VCCLCompilerTool": { "CompileAs": 1 }
      }
    }
  ]
}
