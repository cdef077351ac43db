#!/usr/bin/env bash
# Input echoed in a message is capped, with a marker saying how much was cut (issue 18, item D): a
# 97 kB variable or option value must not come back whole on stderr (or in JSON), yet the cut is
# never silent. Cases: an ignored CUDAARCHS (--archs given), --policy and --dialect values, a path
# given by flag or variable.
# Environment: CUARCH_CLI. Exit 77 when the CLI is not built.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # cli, a hermetic environment, $work
big=$(head -c 97000 /dev/zero | tr '\0' x)
failures=0
check() {  # check <what> <expected exit> -- <command...>
  local what=$1 want=$2
  shift 3
  local err rc
  err=$("$@" 2>&1 >/dev/null)
  rc=$?
  if [[ $rc == "$want" && ${#err} -lt 2000 && $err == *"more bytes)"* ]]; then
    echo "ok: $what: exit $rc, ${#err} bytes on stderr, the cut said"
  else
    echo "FAIL: $what: exit $rc (want $want), ${#err} bytes on stderr: ${err:0:300}" >&2
    failures=$((failures + 1))
  fi
}
check "an ignored 97 kB CUDAARCHS" 0 -- env CUDAARCHS="$big" "$cli" resolve --archs 9.0 --toolkit 12.8
check "a 97 kB --policy" 2 -- "$cli" resolve --archs 9.0 --toolkit 12.8 --policy "$big"
check "a 97 kB --dialect" 2 -- "$cli" resolve --archs 9.0 --toolkit 12.8 --dialect "$big"
# A 97 kB path: the error cuts it ("..."), and so does every line that names where a compiler was
# found or what to change (an alternative's fix, the doctor's roots and findings).
check "a 97 kB --nvcc path" 1 -- "$cli" resolve --archs 9.0 --nvcc "/$big"
out=$(CUDA_HOME="/$big" "$cli" doctor 2>&1)
if [[ ${#out} -lt 20000 ]]; then echo "ok: the doctor with a 97 kB CUDA_HOME writes ${#out} bytes"; else
  echo "FAIL: the doctor with a 97 kB CUDA_HOME writes ${#out} bytes" >&2
  failures=$((failures + 1))
fi
doc=$("$cli" resolve --archs 9.0 --toolkit 12.8 --policy "$big" --format json 2>/dev/null)
if [[ ${#doc} -lt 4000 ]]; then echo "ok: the JSON document is ${#doc} bytes"; else
  echo "FAIL: the JSON document is ${#doc} bytes" >&2
  failures=$((failures + 1))
fi
[[ $failures == 0 ]] || { echo "$failures failure(s)" >&2; exit 1; }
echo "all passed"
