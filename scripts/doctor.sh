#!/usr/bin/env bash
# THE main-job command: builds the `cuarch` command line and runs `cuarch doctor`.
#   bash scripts/doctor.sh [doctor options...]     e.g. bash scripts/doctor.sh --json
# Build output goes to <build dir>/doctor-build.log and is shown only if the build fails.
# Environment: CUARCH_BUILD_DIR (default: build).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

build_dir="${CUARCH_BUILD_DIR:-build}"
jobs="$(nproc 2>/dev/null || echo 2)"
log="$build_dir/doctor-build.log"

bash scripts/install-deps.sh  # reports on stderr only; stdout stays the doctor's

mkdir -p "$build_dir"
generator=()
if [[ ! -f "$build_dir/CMakeCache.txt" && -z "${CMAKE_GENERATOR:-}" ]] && command -v ninja >/dev/null 2>&1; then
  generator=(-G Ninja)
fi
echo "doctor: building the cuarch command line in $build_dir (log: $log)" >&2
if ! { cmake -S . -B "$build_dir" "${generator[@]}" -DCUARCH_BUILD_TOOLS=ON -DCUARCH_BUILD_EXAMPLES=ON &&
       cmake --build "$build_dir" --target cuarch_cli -j "$jobs"; } >"$log" 2>&1; then
  cat "$log" >&2
  echo "doctor: error: building the cuarch command line failed (see above)" >&2
  exit 2
fi
if [[ ! -x "$build_dir/cuarch" ]]; then
  echo "doctor: error: $build_dir/cuarch was not built (is tools/cuarch/ there?)" >&2
  exit 2
fi
exec "$build_dir/cuarch" doctor "$@"
