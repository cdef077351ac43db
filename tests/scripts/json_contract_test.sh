#!/usr/bin/env bash
# The JSON contract (docs/json.md): the command line's JSON documents over success and failure of
# resolve, list, check, the doctor in isolated mode and usage errors, each one document on stdout
# with the right exit status, valid against its schema in docs/schema/ (tests/scripts/json_contract.py;
# it also proves that dropping any required member makes a document invalid).
# Environment: CUARCH_CLI, CUARCH_SOURCE_DIR; CUARCH_LOCAL_CUDA (default /usr/local/cuda) adds
# scenarios with a real toolkit when it has NVRTC. Exit 77 (skipped) without the CLI or Python 3.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # cli, a hermetic environment, $work
python=${CUARCH_PYTHON:-python3}
if ! command -v "$python" >/dev/null 2>&1; then
  echo "skipped: no Python 3 ($python) to validate the documents" >&2
  exit 77
fi
repo="${CUARCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
cuda="${CUARCH_LOCAL_CUDA:-/usr/local/cuda}"
compgen -G "$cuda/lib64/libnvrtc.so.*" >/dev/null || cuda=""
exec "$python" "$repo/tests/scripts/json_contract.py" "$cli" "$repo/docs/schema" "$cuda"
