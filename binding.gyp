{
  "targets": [
    {
      "target_name": "lagwatch",
      "sources": ["<!@(node scripts/sources.js)"],
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
