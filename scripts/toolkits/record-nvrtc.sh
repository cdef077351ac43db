#!/usr/bin/env bash
# record-nvrtc.sh - probe every NVRTC release listed below with tests/conformance/nvrtc_probe
# and write tests/data/nvrtc_releases.tsv (one line per release, sorted by version).
#
# Usage:  scripts/toolkits/record-nvrtc.sh [-o OUTPUT]      (default tests/data/nvrtc_releases.tsv)
#
# Every release is obtained with scripts/toolkits/fetch.sh (cached under
# ${CUARCH_TOOLKIT_CACHE:-$HOME/.cache/cuarch/toolkits}; the first run downloads ~1.5 GB, ~3.7 GB unpacked;
# later runs are offline). When a release has several sources (a wheel and a Debian package,
# or the local toolkit), each is probed: identical results (origin aside) give one line whose
# origin column lists all sources separated by ';', different results give one line per source
# and a warning. A "local:" source is used only when its version equals the release.
# Needs: bash, g++, python3, pip, apt-get/dpkg-deb (Debian sources), timeout, flock.
set -euo pipefail

# Release key, then the fetch.sh specs that provide it. Versions = everything the Python
# package index offered for nvidia-cuda-nvrtc-cu11 / -cu12 / nvidia-cuda-nvrtc when recorded,
# plus Debian's libnvrtc packages (bullseye 11.2, bookworm 11.8, trixie 12.4).
RELEASES=(
  "11.2.152 debian:libnvrtc11.2=11.2.152~11.2.2-3+deb11u3"
  "11.7.99  11.7.99"
  "11.8.89  11.8.89 debian:libnvrtc11.2=11.8.89~11.8.0-5~deb12u1"
  "12.0.76  12.0.76"
  "12.0.140 12.0.140"
  "12.1.55  12.1.55"
  "12.1.105 12.1.105"
  "12.2.91  12.2.91"
  "12.2.128 12.2.128"
  "12.2.140 12.2.140"
  "12.3.52  12.3.52"
  "12.3.103 12.3.103"
  "12.3.107 12.3.107"
  "12.4.99  12.4.99"
  "12.4.127 12.4.127 debian:libnvrtc12=12.4.127~12.4.1-2"
  "12.5.40  12.5.40"
  "12.5.82  12.5.82"
  "12.6.20  12.6.20"
  "12.6.68  12.6.68"
  "12.6.77  12.6.77"
  "12.6.85  12.6.85"
  "12.8.61  12.8.61"
  "12.8.93  12.8.93"
  "12.9.41  12.9.41"
  "12.9.86  12.9.86"
  "13.0.48  13.0.48"
  "13.0.88  13.0.88 local:/usr/local/cuda"
  "13.1.80  13.1.80"
  "13.1.115 13.1.115"
  "13.2.51  13.2.51"
  "13.2.78  13.2.78"
  "13.2.86  13.2.86"
  "13.3.33  13.3.33"
  "13.4.59  13.4.59"
  "13.4.92  13.4.92"
  "13.5.37  13.5.37"
)
PROBE_TIMEOUT=${CUARCH_PROBE_TIMEOUT:-300}

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
FETCH=$HERE/fetch.sh
OUT=$REPO/tests/data/nvrtc_releases.tsv
while [[ $# -gt 0 ]]; do
  case $1 in
    -o) OUT=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 [-o OUTPUT]" >&2; exit 2 ;;
  esac
done

log() { printf 'record-nvrtc: %s\n' "$*" >&2; }
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT

START=$SECONDS
PROBE=$SCRATCH/nvrtc_probe
log "building probe"
g++ -std=c++17 -O1 -Wall -Wextra -o "$PROBE" "$REPO/tests/conformance/nvrtc_probe.cpp" -ldl

# True when the library finds its builtins by itself ($ORIGIN in RUNPATH/RPATH).
has_origin_rpath() {
  command -v readelf >/dev/null 2>&1 || return 1
  readelf -d "$1" 2>/dev/null | grep -E '\((RUNPATH|RPATH)\)' | grep -qF '$ORIGIN'
}

# Run the probe: lib release origin -> prints the line; stderr notes go to $SCRATCH/notes.
probe() {
  local lib=$1 release=$2 origin=$3 dir
  dir=$(dirname "$lib")
  local -a env=()
  has_origin_rpath "$lib" || env=(env "LD_LIBRARY_PATH=$dir")
  if ! "${env[@]}" timeout --kill-after=10 "$PROBE_TIMEOUT" "$PROBE" "$lib" "$release" "$origin" \
        >"$SCRATCH/line" 2>"$SCRATCH/err"; then
    cat "$SCRATCH/err" >&2
    log "probe failed for $release ($origin)"
    return 1
  fi
  grep '^note:' "$SCRATCH/err" | grep -v '^note: rejected ' | sed "s|^note:|$release ($origin):|" >>"$SCRATCH/notes" || true
  cat "$SCRATCH/line"
}

: >"$SCRATCH/notes"
: >"$SCRATCH/rows"
FETCHED=()
for entry in "${RELEASES[@]}"; do
  read -r release specs <<<"$entry"
  lines=()
  for spec in $specs; do
    info=$("$FETCH" --info nvrtc "$spec") || { log "fetch failed: $spec"; exit 1; }
    version=$(sed -n 's/^version=//p' <<<"$info")
    origin=$(sed -n 's/^origin=//p' <<<"$info")
    lib=$(sed -n 's/^lib=//p' <<<"$info")
    if [[ $version != "$release" ]]; then
      if [[ $spec == local* ]]; then log "skipping $spec: it is $version, not $release"; continue; fi
      log "error: $spec is version $version, expected $release"; exit 1
    fi
    t0=$SECONDS
    line=$(probe "$lib" "$release" "$origin")
    log "$release $origin: $((SECONDS - t0)) s"
    FETCHED+=("$origin")
    lines+=("$line")
  done
  [[ ${#lines[@]} -gt 0 ]] || { log "error: no source for $release"; exit 1; }
  # Merge sources whose results agree (everything but column 2).
  merged=()  # "rest-of-line<TAB>origins"
  for line in "${lines[@]}"; do
    o=$(cut -f2 <<<"$line"); rest=$(cut -f1,3- <<<"$line")
    found=0
    for i in "${!merged[@]}"; do
      if [[ ${merged[$i]%$'\t'*} == "$rest" ]]; then
        merged[$i]="$rest"$'\t'"${merged[$i]##*$'\t'};$o"; found=1; break
      fi
    done
    (( found )) || merged+=("$rest"$'\t'"$o")
  done
  if (( ${#merged[@]} > 1 )); then
    log "WARNING: sources of $release disagree; writing one line per source"
    echo "$release: sources disagree ($(printf '%s ' "${merged[@]##*$'\t'}"))" >>"$SCRATCH/notes"
  fi
  for m in "${merged[@]}"; do
    rest=${m%$'\t'*}; o=${m##*$'\t'}
    # release, origin(s), then the probe's remaining columns
    printf '%s\t%s\t%s\n' "$(cut -f1 <<<"$rest")" "$o" "$(cut -f2- <<<"$rest")" >>"$SCRATCH/rows"
  done
done

NROWS=$(wc -l <"$SCRATCH/rows")
{
  cat <<EOF
# nvrtc_releases.tsv - what real NVRTC libraries say about CUDA target architectures.
# Generated by scripts/toolkits/record-nvrtc.sh on $(date -u +%Y-%m-%d); do not edit by hand.
# Regenerate: scripts/toolkits/record-nvrtc.sh   (fetches via scripts/toolkits/fetch.sh into
#   \${CUARCH_TOOLKIT_CACHE:-\$HOME/.cache/cuarch/toolkits}, builds tests/conformance/nvrtc_probe.cpp,
#   runs it once per source). Check the local toolkit: tests/conformance/check-local-nvrtc.sh
# Format: '#' lines are comments; then a header line; then one tab-separated line per release,
#   sorted by version. Lists are comma-separated; '-' = none / not available.
# Columns:
#   release          full NVRTC release (M.m.p) of the library probed
#   origin           where the library came from, ';'-separated when several sources agreed:
#                    pypi:WHEEL==VERSION, debian:PACKAGE=DEBIAN_VERSION, local:TOOLKIT_DIR
#   nvrtc_version    nvrtcVersion() as M.m
#   ptx_isa          .version of the PTX from --gpu-architecture=compute_<max supported_archs>
#   default_target   .target of the PTX compiled with no option
#   supported_archs  nvrtcGetSupportedArchs() ('-' when the symbol is missing)
#   accepted         every --gpu-architecture value that compiled
#                    extern "C" __global__ void k(int*p){*p=1;}
#                    out of {compute_,sm_} x {10..159} x {"",a,f}; sorted by (number,
#                    compute_ before sm_, "" < a < f). Not accepted = NVRTC_ERROR_INVALID_OPTION,
#                    NVRTC_ERROR_COMPILATION ("invalid or no value specified with --nv_arch"), or
#                    NVRTC_ERROR_BUILTIN_OPERATION_FAILURE (11.2 only; listed in the notes below).
EOF
  if [[ -s $SCRATCH/notes ]]; then
    echo "# Probe notes (stderr of the probe; the two usual rejection messages omitted):"
    sed 's/^/#   /' "$SCRATCH/notes"
  fi
  printf 'release\torigin\tnvrtc_version\tptx_isa\tdefault_target\tsupported_archs\taccepted\n'
  sort -t. -k1,1n -k2,2n -k3,3n "$SCRATCH/rows"
} >"$SCRATCH/out.tsv"
mkdir -p "$(dirname "$OUT")"
mv "$SCRATCH/out.tsv" "$OUT"
log "wrote $NROWS lines to $OUT in $((SECONDS - START)) s (${#FETCHED[@]} libraries probed)"
