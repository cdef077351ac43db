#!/usr/bin/env bash
# fetch.sh - obtain one real CUDA component (NVRTC, runtime, nvcc) of a given release,
# unpacked into a per-user cache, WITHOUT installing anything system-wide.
#
# Usage:
#   fetch.sh [--info] COMPONENT SPEC
#
#   COMPONENT  nvrtc    -> prints the directory holding libnvrtc.so.* (+ libnvrtc-builtins)
#              runtime  -> prints the directory holding libcudart.so.*
#              nvcc     -> prints the toolkit-like root holding bin/nvcc, bin/ptxas, include/
#                          (13.x: the split nvidia-nvvm / nvidia-cuda-crt wheels of the same
#                          release are unpacked into the same tree so nvcc can run)
#   SPEC       M.m              newest patch of that release on the Python package index
#                               (falls back to the newest cached one when offline)
#              M.m.p            exactly that wheel version (e.g. 12.4.127)
#              debian:PKG[=VER] a Debian package (e.g. debian:libnvrtc12,
#                               debian:libnvrtc11.2=11.2.152~11.2.2-3+deb11u3); without =VER
#                               the candidate (newest) version of the scratch suites.
#                               libnvrtc-builtins* dependencies are fetched along.
#                               Not for nvcc.
#              local[:DIR]      an installed toolkit (default /usr/local/cuda); nothing is cached
#   --info     print key=value lines instead of the directory:
#              component, version (upstream M.m.p), origin, root, dir, lib
#
# Examples:
#   scripts/toolkits/fetch.sh nvrtc 12.4                 # -> .../nvrtc-12.4.127/nvidia/cuda_nvrtc/lib
#   scripts/toolkits/fetch.sh nvrtc 13.5.37              # -> .../nvrtc-13.5.37/nvidia/cu13/lib
#   scripts/toolkits/fetch.sh nvrtc debian:libnvrtc12    # -> .../nvrtc-debian-12.4.127~12.4.1-2/usr/lib/x86_64-linux-gnu
#   scripts/toolkits/fetch.sh runtime 12.8
#   scripts/toolkits/fetch.sh nvcc 11.8                  # then: "$(fetch.sh nvcc 11.8)/bin/nvcc" --version
#   scripts/toolkits/fetch.sh --info nvrtc local
#
# Cache: ${CUARCH_TOOLKIT_CACHE:-$HOME/.cache/cuarch/toolkits}/<component>-<full-version>/
#   (Debian: <component>-debian-<debian-version>/), each with a .cuarch-info file; a finished
#   entry is reused without any network access. Concurrent runs are serialised per entry.
# Environment:
#   CUARCH_TOOLKIT_CACHE   cache root (see above)
#   CUARCH_OFFLINE=1       never touch the network; resolve M.m / debian:PKG from the cache
#   CUARCH_NET_TIMEOUT     seconds for one network operation (default 900)
#   CUARCH_DEBIAN_SUITES   suites of the scratch apt configuration (default "bullseye bookworm trixie")
#   CUARCH_DEBIAN_MIRROR   mirror URI; default: derived at run time from the machine's
#                          /etc/apt/sources.list.d/*.sources (or sources.list) entries
#   CUARCH_APT_REFRESH=1   re-run "apt-get update" of the scratch lists even if present
# Sources: Python wheels via the configured pip (pip download --no-deps --only-binary=:all:
#   --platform manylinux2014_x86_64), Debian packages via apt-get download with a scratch
#   apt configuration under the cache (system apt state is never touched), dpkg-deb -x.
# Exit status: 0 ok; 1 failure (message on stderr); 2 usage; 3 version/package does not exist.
set -euo pipefail

PROG=${0##*/}
CACHE=${CUARCH_TOOLKIT_CACHE:-$HOME/.cache/cuarch/toolkits}
NET_TIMEOUT=${CUARCH_NET_TIMEOUT:-900}
OFFLINE=${CUARCH_OFFLINE:-0}
DEBIAN_SUITES=${CUARCH_DEBIAN_SUITES:-bullseye bookworm trixie}
PLATFORM=manylinux2014_x86_64

log() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() { log "error: $*"; exit 1; }
missing() { log "error: $*"; exit 3; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2; }

INFO=0
while [[ $# -gt 0 && $1 == --* ]]; do
  case $1 in
    --info) INFO=1; shift ;;
    --help) usage ;;
    *) log "unknown option $1"; usage ;;
  esac
done
[[ $# -eq 2 ]] || usage
COMPONENT=$1 SPEC=$2
case $COMPONENT in nvrtc|runtime|nvcc) ;; *) log "unknown component '$COMPONENT'"; usage ;; esac

# ---------------------------------------------------------------------------------------------
# Component knowledge
# ---------------------------------------------------------------------------------------------
# Wheel name of COMPONENT for CUDA major $1.
wheel_name() {
  local major=$1 base
  case $COMPONENT in
    nvrtc) base=nvidia-cuda-nvrtc ;;
    runtime) base=nvidia-cuda-runtime ;;
    nvcc) base=nvidia-cuda-nvcc ;;
  esac
  case $major in
    11|12) echo "$base-cu$major" ;;
    *) if (( major >= 13 )); then echo "$base"; else missing "no wheels for CUDA $major.x"; fi ;;
  esac
}

# Glob (relative to an unpacked root) of the file that marks the interesting directory.
marker_glob() {
  case $COMPONENT in
    nvrtc) echo 'libnvrtc.so.[0-9]*' ;;
    runtime) echo 'libcudart.so.[0-9]*' ;;
    nvcc) echo 'ptxas' ;;  # cu11/cu12 nvcc wheels ship ptxas + libnvvm but no bin/nvcc
  esac
}

# Find the main file under root $1: prints its path (first match, shortest path).
find_marker() {
  local root=$1 glob
  glob=$(marker_glob)
  find "$root" \( -type f -o -type l \) -name "$glob" ! -name '*.alt.*' -printf '%d %p\n' 2>/dev/null \
    | sort -n | awk 'NR==1{print $2}'
}

# Directory to print for a located main file $1.
result_dir() {
  local f=$1
  case $COMPONENT in
    nvcc) dirname "$(dirname "$f")" ;;  # .../bin/ptxas -> toolkit root
    *) dirname "$f" ;;
  esac
}

emit() {  # root version origin [main-file]
  local root=$1 version=$2 origin=$3 f=${4:-} dir
  [[ -n $f ]] || f=$(find_marker "$root")
  [[ -n $f ]] || die "no $(marker_glob) under $root"
  dir=$(result_dir "$f")
  if (( INFO )); then
    printf 'component=%s\nversion=%s\norigin=%s\nroot=%s\ndir=%s\nlib=%s\n' \
      "$COMPONENT" "$version" "$origin" "$root" "$dir" "$f"
    if [[ $COMPONENT == nvcc ]]; then
      if [[ -x $dir/bin/nvcc ]]; then echo "nvcc=$dir/bin/nvcc"; else echo "nvcc=-"; fi
    fi
  else
    [[ $COMPONENT != nvcc || -x $dir/bin/nvcc ]] ||
      log "note: no bin/nvcc in $origin (its wheels carry only ptxas, libnvvm, libdevice, headers)"
    printf '%s\n' "$dir"
  fi
}

info_get() { sed -n "s/^$2=//p" "$1/.cuarch-info" 2>/dev/null | head -n1; }

# Sort "M.m.p" lines by version, newest last.
vsort() { sort -t. -k1,1n -k2,2n -k3,3n -k4,4n; }

# ---------------------------------------------------------------------------------------------
# Locking and unpacking helpers
# ---------------------------------------------------------------------------------------------
mkdir -p "$CACHE"
lock() {  # name: serialise work on one cache entry (fd 9)
  mkdir -p "$CACHE/.locks"
  exec 9>"$CACHE/.locks/$1"
  flock -w 3600 9 || die "could not lock $CACHE/.locks/$1"
}

unpack_wheel() {  # wheel destdir: unzip keeping unix permission bits (nvcc, ptxas, ...)
  python3 - "$1" "$2" <<'PY'
import os, sys, zipfile
whl, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(whl) as z:
    for info in z.infolist():
        path = z.extract(info, dest)
        mode = (info.external_attr >> 16) & 0o777
        if mode and not info.is_dir():
            os.chmod(path, mode)
PY
}

net() {  # run a network command with a timeout, or refuse when offline
  (( OFFLINE == 0 )) || die "network needed but CUARCH_OFFLINE=1: $*"
  timeout --kill-after=30 "$NET_TIMEOUT" "$@"
}

# ---------------------------------------------------------------------------------------------
# Python wheels
# ---------------------------------------------------------------------------------------------
# All versions of wheel $1 on the index (newest last).
pypi_versions() {
  local pkg=$1 out
  out=$(net pip index versions --disable-pip-version-check --timeout 60 \
          --only-binary=:all: --platform "$PLATFORM" --python-version 3.11 "$pkg" 2>/dev/null) || return 1
  sed -n 's/^Available versions: //p' <<<"$out" | tr ',' '\n' | tr -d ' ' | grep -v '^$' | vsort
}

# Download and unpack wheel $1==$2 into $3 (must not exist). Extra args: more wheels (pkg==ver).
fetch_wheels() {
  local dest=$1; shift
  local tmp; tmp=$(mktemp -d "$CACHE/.tmp-XXXXXX")
  # shellcheck disable=SC2064
  trap "rm -rf '$tmp'" EXIT
  log "downloading $* ..."
  if ! net pip download --disable-pip-version-check --timeout 60 --no-deps \
        --only-binary=:all: --platform "$PLATFORM" --python-version 3.11 \
        -d "$tmp/dl" "$@" >"$tmp/pip.log" 2>&1; then
    if grep -qiE 'No matching distribution|Could not find a version' "$tmp/pip.log"; then
      grep -iE 'from versions|No matching' "$tmp/pip.log" >&2 || true
      missing "wheel(s) $* do not exist for $PLATFORM"
    fi
    cat "$tmp/pip.log" >&2
    die "pip download failed for $*"
  fi
  mkdir -p "$tmp/root"
  local w
  for w in "$tmp"/dl/*.whl; do
    [[ -e $w ]] || die "pip downloaded no wheel for $*"
    log "unpacking $(basename "$w") ($(du -h "$w" | cut -f1))"
    unpack_wheel "$w" "$tmp/root"
  done
  mv "$tmp/root" "$dest"
  rm -rf "$tmp"; trap - EXIT
}

# Version of wheel $1 to pair with release $2: the same version if published, else the newest
# patch of the same M.m (companion wheels do not always share the patch number).
pypi_pick() {
  local pkg=$1 version=$2 vers mm
  vers=$(pypi_versions "$pkg") || die "could not list versions of $pkg"
  if grep -qxF "$version" <<<"$vers"; then echo "$version"; return; fi
  mm=${version%.*}
  grep -E "^${mm//./\\.}\.[0-9]+$" <<<"$vers" | tail -n1 | grep . ||
    missing "$pkg has no $mm.x release to go with $version"
}

# Extra wheels unpacked next to the main one so the component works. nvcc 13.x is split:
# cicc/libnvvm (nvidia-nvvm), crt headers (nvidia-cuda-crt), cuda_runtime.h + libcudart
# (nvidia-cuda-runtime) - all land in the same nvidia/cu13/ tree.
companion_wheels() {  # major version
  local major=$1 version=$2 p
  if [[ $COMPONENT == nvcc ]] && (( major >= 13 )); then
    for p in nvidia-nvvm nvidia-cuda-crt nvidia-cuda-runtime; do
      echo "$p==$(pypi_pick "$p" "$version")"
    done
  fi
}

do_pypi() {
  local spec=$1 major minor version pkg
  [[ $spec =~ ^([0-9]+)\.([0-9]+)(\.([0-9]+))?$ ]] || { log "bad version '$spec'"; usage; }
  major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]}
  pkg=$(wheel_name "$major")
  if [[ -n ${BASH_REMATCH[3]} ]]; then
    version=$spec
  else
    local vers=""
    if (( OFFLINE == 0 )); then
      vers=$(pypi_versions "$pkg") || { log "warning: could not list versions of $pkg; trying the cache"; vers=""; }
    fi
    if [[ -n $vers ]]; then
      version=$(grep -E "^$major\.$minor\.[0-9]+$" <<<"$vers" | tail -n1) || true
      [[ -n $version ]] || missing "$pkg has no $major.$minor.x release (has: $(tr '\n' ' ' <<<"$vers"))"
    else
      version=$(cd "$CACHE" && ls -d "$COMPONENT-$major.$minor".* 2>/dev/null \
                  | sed "s/^$COMPONENT-//" | grep -E '^[0-9]+\.[0-9]+\.[0-9]+$' | vsort | tail -n1) || true
      [[ -n $version ]] || die "offline and no cached $COMPONENT $major.$minor.x in $CACHE"
    fi
  fi
  local name="$COMPONENT-$version" root="$CACHE/$COMPONENT-$version"
  local origin="pypi:$pkg==$version"
  if [[ ! -f $root/.cuarch-info ]]; then
    lock "$name"
    if [[ ! -f $root/.cuarch-info ]]; then
      rm -rf "$root"
      local extra; extra=$(companion_wheels "$major" "$version")
      # shellcheck disable=SC2086
      fetch_wheels "$root" "$pkg==$version" $extra
      [[ -n $(find_marker "$root") ]] || { rm -rf "$root"; die "$pkg==$version has no $(marker_glob)"; }
      printf 'component=%s\nversion=%s\norigin=%s\n' "$COMPONENT" "$version" "$origin" >"$root/.cuarch-info"
    fi
  fi
  emit "$root" "$version" "$(info_get "$root" origin)"
}

# ---------------------------------------------------------------------------------------------
# Debian packages (scratch apt configuration; never the system's state)
# ---------------------------------------------------------------------------------------------
APTDIR="$CACHE/.apt"
debian_mirror() {
  if [[ -n ${CUARCH_DEBIAN_MIRROR:-} ]]; then echo "$CUARCH_DEBIAN_MIRROR"; return; fi
  local uri=""
  shopt -s nullglob
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    uri=$(awk 'tolower($1)=="uris:" { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' "$f")
    [[ -n $uri ]] && break
  done
  if [[ -z $uri ]]; then
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
      [[ -f $f ]] || continue
      uri=$(awk '$1=="deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { if ($i !~ /security/) { print $i; exit } else break } }' "$f")
      [[ -n $uri ]] && break
    done
  fi
  shopt -u nullglob
  [[ -n $uri ]] || die "cannot derive a Debian mirror from /etc/apt; set CUARCH_DEBIAN_MIRROR"
  echo "$uri"
}

APT_OPTS=()
apt_setup() {
  mkdir -p "$APTDIR"/{lists/partial,cache/archives/partial,etc/sources.list.d,etc/preferences.d}
  local keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  [[ -f $keyring ]] || die "missing $keyring"
  local want
  want=$(printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main contrib non-free\nSigned-By: %s\n' \
           "$(debian_mirror)" "$DEBIAN_SUITES" "$keyring")
  if [[ ! -f $APTDIR/etc/sources.list.d/scratch.sources ]] ||
     [[ $(cat "$APTDIR/etc/sources.list.d/scratch.sources") != "$want" ]]; then
    printf '%s\n' "$want" >"$APTDIR/etc/sources.list.d/scratch.sources"
    rm -f "$APTDIR/.updated"
  fi
  : >"$APTDIR/status"
  APT_OPTS=(
    -o "Dir::Etc::SourceList=/dev/null"
    -o "Dir::Etc::SourceParts=$APTDIR/etc/sources.list.d"
    -o "Dir::Etc::Preferences=/dev/null"
    -o "Dir::Etc::PreferencesParts=$APTDIR/etc/preferences.d"
    -o "Dir::State::Lists=$APTDIR/lists"
    -o "Dir::State::status=$APTDIR/status"
    -o "Dir::Cache=$APTDIR/cache"
    -o "APT::Architecture=amd64"
    -o "APT::Architectures=amd64"
    -o "Acquire::Languages=none"
    -o "Acquire::http::Timeout=60"
    -o "Acquire::Retries=2"
    -o "APT::Sandbox::User=root"
    -o "Debug::NoLocking=1"
  )
}

apt_update() {
  if [[ -f $APTDIR/.updated && ${CUARCH_APT_REFRESH:-0} != 1 ]]; then return; fi
  log "apt-get update (scratch lists in $APTDIR; suites: $DEBIAN_SUITES)"
  net apt-get -q "${APT_OPTS[@]}" update >&2 || die "apt-get update (scratch) failed"
  touch "$APTDIR/.updated"
}

do_debian() {
  [[ $COMPONENT != nvcc ]] || die "debian: sources are supported for nvrtc and runtime only"
  local spec=${1#debian:} pkg ver=""
  pkg=${spec%%=*}
  [[ $spec == *=* ]] && ver=${spec#*=}
  [[ $pkg =~ ^[a-z0-9][a-z0-9.+-]+$ ]] || { log "bad Debian package name '$pkg'"; usage; }

  # Already cached?
  find_cached_deb() {  # prints root of newest cached entry for pkg (and ver if given)
    local d best="" bestv=""
    for d in "$CACHE/$COMPONENT"-debian-*/; do
      [[ -f $d/.cuarch-info ]] || continue
      [[ $(info_get "$d" debian_package) == "$pkg" ]] || continue
      local v; v=$(info_get "$d" debian_version)
      if [[ -n $ver ]]; then [[ $v == "$ver" ]] && { echo "${d%/}"; return; }; continue; fi
      if [[ -z $bestv ]] || dpkg --compare-versions "$v" gt "$bestv"; then best=${d%/} bestv=$v; fi
    done
    [[ -n $best ]] && echo "$best"
    return 0
  }

  local root=""
  if [[ -n $ver ]] || (( OFFLINE )); then root=$(find_cached_deb); fi
  if [[ -z $root ]]; then
    (( OFFLINE == 0 )) || die "offline and no cached $COMPONENT from Debian package $pkg${ver:+=$ver}"
    lock apt
    apt_setup
    apt_update
    if [[ -z $ver ]]; then
      ver=$(apt-cache "${APT_OPTS[@]}" policy "$pkg" 2>/dev/null | awk '$1=="Candidate:"{print $2}')
      [[ -n $ver && $ver != "(none)" ]] || missing "Debian package $pkg not found in suites: $DEBIAN_SUITES"
      root=$(find_cached_deb)
    else
      apt-cache "${APT_OPTS[@]}" madison "$pkg" 2>/dev/null | awk -F' [|] ' '{print $2}' | grep -qxF "$ver" ||
        missing "Debian package $pkg=$ver not found (have: $(apt-cache "${APT_OPTS[@]}" madison "$pkg" 2>/dev/null | awk -F' [|] ' '{printf "%s ", $2}'))"
    fi
  fi
  if [[ -z $root ]]; then
    root="$CACHE/$COMPONENT-debian-$ver"
    local tmp; tmp=$(mktemp -d "$CACHE/.tmp-XXXXXX")
    # shellcheck disable=SC2064
    trap "rm -rf '$tmp'" EXIT
    log "downloading Debian $pkg=$ver ..."
    (cd "$tmp" && net apt-get -q "${APT_OPTS[@]}" download "$pkg=$ver" >&2) || die "apt-get download $pkg=$ver failed"
    # libnvrtc-builtins* dependencies (exact versions) come along.
    local deb dep depn depv
    deb=$(ls "$tmp"/*.deb)
    while read -r dep; do
      depn=${dep%% *}
      depv=$(sed -n 's/.*(= *\([^)]*\)).*/\1/p' <<<"$dep")
      [[ $depn == libnvrtc-builtins* ]] || continue
      log "downloading Debian dependency $depn${depv:+=$depv} ..."
      (cd "$tmp" && net apt-get -q "${APT_OPTS[@]}" download "$depn${depv:+=$depv}" >&2) ||
        die "apt-get download $depn failed"
    done < <(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/^ *//; s/ *|.*//')
    mkdir -p "$tmp/root"
    for deb in "$tmp"/*.deb; do
      log "unpacking $(basename "$deb") ($(du -h "$deb" | cut -f1))"
      dpkg-deb -x "$deb" "$tmp/root"
    done
    local upstream=${ver%%~*}; upstream=${upstream%%-*}; upstream=${upstream#*:}
    printf 'component=%s\nversion=%s\norigin=%s\ndebian_package=%s\ndebian_version=%s\n' \
      "$COMPONENT" "$upstream" "debian:$pkg=$ver" "$pkg" "$ver" >"$tmp/root/.cuarch-info"
    [[ -n $(find_marker "$tmp/root") ]] || die "Debian package $pkg=$ver has no $(marker_glob)"
    rm -rf "$root"
    mv "$tmp/root" "$root"
    rm -rf "$tmp"; trap - EXIT
  fi
  emit "$root" "$(info_get "$root" version)" "$(info_get "$root" origin)"
}

# ---------------------------------------------------------------------------------------------
# Local toolkit
# ---------------------------------------------------------------------------------------------
do_local() {
  local root=${1#local}; root=${root#:}; root=${root:-/usr/local/cuda}
  [[ $root == /* ]] || die "local toolkit path must be absolute: $root"
  [[ -d $root ]] || missing "no toolkit at $root"
  local f="" d
  for d in "$root/lib64" "$root/lib" "$root/bin"; do   # the usual layout first
    [[ -d $d ]] && f=$(find_marker "$d/") && [[ -n $f ]] && break
  done
  [[ -n $f ]] || f=$(find_marker "$root")
  [[ -n $f ]] || missing "no $(marker_glob) under $root"
  # Full release of the component: wheel dist-info, then version.json, then nvcc --version.
  local version="" di key
  case $COMPONENT in nvrtc) key=nvrtc ;; runtime) key=runtime ;; nvcc) key=nvcc ;; esac
  di=$(ls -d "$root"/dist-info/nvidia_cuda_"$key"-*.dist-info 2>/dev/null | head -n1 || true)
  if [[ -n $di ]]; then
    version=$(basename "$di" .dist-info); version=${version##*-}
  elif [[ -f $root/version.json ]]; then
    version=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cuda_'"$key"'"]["version"])' \
                "$root/version.json" 2>/dev/null || true)
  fi
  if [[ -z $version && -x $root/bin/nvcc ]]; then
    version=$("$root/bin/nvcc" --version 2>/dev/null | sed -n 's/.*, V\([0-9.]*\).*/\1/p' | head -n1)
  fi
  [[ -n $version ]] || version=unknown
  emit "$root" "$version" "local:$root" "$f"
}

case $SPEC in
  debian:*) do_debian "$SPEC" ;;
  local|local:*) do_local "$SPEC" ;;
  *) do_pypi "$SPEC" ;;
esac
