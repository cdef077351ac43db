#!/usr/bin/env bash
# Installs what cuarch's tests and examples need on a Debian machine:
#   libfmt-dev  (fmt, for tests, examples and the cuarch command line)
#   libcli11-dev (CLI11, the cuarch command line's option parser; the library itself never needs it)
#   catch2 >= 3 (unit tests; Debian 12 "bookworm" ships 2.x in main, so 3.x comes from bookworm-backports)
#   ccache      (scripts/test.sh compiles through it: a clean clone's rebuild of unchanged sources is a hit)
#   zsh         (cli_handoff_test evals `cuarch env` in bash, dash and zsh)
#   valgrind    (compile_cost_test counts the compiler's instructions: the same count whatever the load)
#
# Idempotent: when everything is present it checks and exits in well under a second.
# Needs root (or sudo) only when something is missing. Writes nothing to stdout (all on stderr).
#
# The backports source is derived at run time from the machine's own Debian source
# (/etc/apt/sources.list.d/debian.sources, deb822 format, or /etc/apt/sources.list as a fallback):
# the mirror URI and Signed-By key are copied from there, so no mirror host is written in this repository.
#
# Environment:
#   CUARCH_APT_TIMEOUT   seconds allowed for each apt-get call (default 600)
set -euo pipefail

readonly APT_TIMEOUT="${CUARCH_APT_TIMEOUT:-600}"
readonly BACKPORTS_FILE=/etc/apt/sources.list.d/cuarch-backports.sources
readonly PACKAGES_MAIN=(libfmt-dev)

log()  { printf 'install-deps: %s\n' "$*" >&2; }
fail() { printf 'install-deps: error: %s\n' "$*" >&2; exit 1; }

# Installed version of a Debian package, or empty.
installed_version() {
  local status
  status="$(dpkg-query -W -f='${Status} ${Version}' "$1" 2>/dev/null || true)"
  case "$status" in
    "install ok installed "*) printf '%s\n' "${status##* }" ;;
  esac
}

# Catch2 3 lives in libcatch2-dev (the "catch2" package is a transitional name for it since 3.x).
catch2_version() {
  local p v
  for p in libcatch2-dev catch2; do
    v="$(installed_version "$p")"
    if [[ -n "$v" ]] && dpkg --compare-versions "$v" ge 3; then printf '%s\n' "$v"; return 0; fi
  done
  return 1
}
catch2_ok() { catch2_version >/dev/null; }

fmt_ok() { [[ -n "$(installed_version libfmt-dev)" ]]; }
cli11_ok() { [[ -n "$(installed_version libcli11-dev)" ]]; }
ccache_ok() { command -v ccache >/dev/null 2>&1; }
zsh_ok() { command -v zsh >/dev/null 2>&1; }
valgrind_ok() { command -v valgrind >/dev/null 2>&1; }

# The build tools themselves (present on the CI image; installed from Debian if a machine lacks them).
tools_ok() { command -v cmake >/dev/null 2>&1 && command -v c++ >/dev/null 2>&1; }

# ---- fast path ---------------------------------------------------------------------------------
if command -v dpkg-query >/dev/null 2>&1 && tools_ok && fmt_ok && cli11_ok && catch2_ok && ccache_ok && zsh_ok && valgrind_ok; then
  log "ok: libfmt-dev $(installed_version libfmt-dev), libcli11-dev $(installed_version libcli11-dev), catch2 $(catch2_version) already installed"
  exit 0
fi

# ---- preconditions -----------------------------------------------------------------------------
command -v apt-get >/dev/null 2>&1 || fail "apt-get not found; install fmt (>= 9) and Catch2 v3 by hand, then re-run"
[[ -r /etc/os-release ]] || fail "/etc/os-release missing; cannot tell which Debian release this is"
# shellcheck disable=SC1091
codename="$(. /etc/os-release && printf '%s' "${VERSION_CODENAME:-}")"
[[ -n "$codename" ]] || fail "VERSION_CODENAME not set in /etc/os-release"

SUDO=()
if [[ "$(id -u)" -ne 0 ]]; then
  command -v sudo >/dev/null 2>&1 || fail "missing packages and not root (and no sudo): run as root"
  SUDO=(sudo)
fi

export DEBIAN_FRONTEND=noninteractive
apt_get() {
  local rc=0
  timeout "$APT_TIMEOUT" "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get \
    -o Acquire::Retries=3 -o Acquire::http::Timeout=60 -o Dpkg::Use-Pty=0 \
    -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "$@" >&2 || rc=$?
  if [[ $rc -eq 124 ]]; then
    fail "apt-get $* timed out after ${APT_TIMEOUT}s (raise CUARCH_APT_TIMEOUT?)"
  elif [[ $rc -ne 0 ]]; then
    fail "apt-get $* failed (exit $rc)"
  fi
}

# Prints "URI<TAB>SIGNED_BY" of the first Debian source that serves suite $1.
# deb822 first (debian.sources, then any *.sources), then one-line sources.list files.
find_debian_source() {
  local suite="$1" f
  local -a deb822=(/etc/apt/sources.list.d/debian.sources)
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ "$f" == /etc/apt/sources.list.d/debian.sources || "$f" == "$BACKPORTS_FILE" ]] || deb822+=("$f")
  done
  for f in "${deb822[@]}"; do
    [[ -r "$f" ]] || continue
    # A stanza ends at a blank line. Keep the first URIs (first word) and Signed-By of the stanza
    # whose Suites field lists $suite as a whole word and is not disabled (Enabled: no).
    awk -v suite="$suite" '
      function flush() {
        if (!done && uri != "" && has_suite && enabled) { printf "%s\t%s\n", uri, signed; done = 1 }
        uri = ""; signed = ""; has_suite = 0; enabled = 1
      }
      BEGIN { enabled = 1 }
      /^[[:space:]]*#/ { next }
      /^[[:space:]]*$/ { flush(); next }
      tolower($1) == "uris:" && uri == "" { uri = $2 }
      tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == suite) has_suite = 1 }
      tolower($1) == "signed-by:" { signed = $2 }
      tolower($1) == "enabled:" && tolower($2) == "no" { enabled = 0 }
      END { flush() }
    ' "$f" | head -n1 | grep . && return 0
  done
  # One-line format: deb [options] URI SUITE COMPONENTS...
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -r "$f" ]] || continue
    awk -v suite="$suite" '
      $1 == "deb" {
        signed = ""; i = 2
        if ($2 ~ /^\[/) {
          for (; i <= NF; i++) {
            if ($i ~ /signed-by=/) { s = $i; sub(/.*signed-by=/, "", s); sub(/\]$/, "", s); signed = s }
            if ($i ~ /\]$/) { i++; break }
          }
        }
        if ($(i + 1) == suite) { printf "%s\t%s\n", $i, signed; exit }
      }
    ' "$f" | grep . && return 0
  done
  return 1
}

# Catch2 3 from the release's main suite if it has it (trixie and later), else from <codename>-backports.
catch2_target=()
ensure_backports() {
  local suite="${codename}-backports" line uri signed
  if [[ -f "$BACKPORTS_FILE" ]] && grep -q "^Suites: ${suite}\$" "$BACKPORTS_FILE"; then
    return 1  # already configured
  fi
  line="$(find_debian_source "$codename")" ||
    fail "no Debian apt source for suite '$codename' found in /etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list; cannot derive $suite"
  uri="${line%%$'\t'*}"
  signed="${line#*$'\t'}"
  [[ -n "$uri" ]] || fail "could not read the URIs of the '$codename' apt source"
  log "adding $suite (mirror copied from the existing '$codename' source) as $BACKPORTS_FILE"
  {
    printf '# Written by cuarch scripts/install-deps.sh (Catch2 v3). Mirror copied from the %s source.\n' "$codename"
    printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\n' "$uri" "$suite"
    if [[ -n "$signed" ]]; then printf 'Signed-By: %s\n' "$signed"; fi
  } | "${SUDO[@]}" tee "$BACKPORTS_FILE.tmp" >/dev/null
  "${SUDO[@]}" mv -f "$BACKPORTS_FILE.tmp" "$BACKPORTS_FILE"
  return 0
}

start=$SECONDS
# Decide on backports before the one `apt-get update`: the package lists already on the machine
# tell whether the release's main suites carry Catch2 3 (trixie and later do; bookworm does not).
# With no lists at all the candidate is unknown, and backports is added (harmless: -t only raises
# its priority, and apt falls back to the main suite for packages backports lacks).
if ! catch2_ok; then
  candidate="$(apt-cache policy catch2 2>/dev/null | awk '$1 == "Candidate:" { print $2 }')"
  if [[ -n "$candidate" && "$candidate" != "(none)" ]] && dpkg --compare-versions "$candidate" ge 3; then
    log "catch2 $candidate available from the main suites"
  else
    ensure_backports || true
    catch2_target=(-t "${codename}-backports")
  fi
fi
log "apt-get update"
apt_get update -q

to_install=()
fmt_ok || to_install+=("${PACKAGES_MAIN[@]}")
cli11_ok || to_install+=(libcli11-dev)
ccache_ok || to_install+=(ccache)
zsh_ok || to_install+=(zsh)
valgrind_ok || to_install+=(valgrind)
command -v cmake >/dev/null 2>&1 || to_install+=(cmake)
command -v c++ >/dev/null 2>&1 || to_install+=(g++)
if [[ ${#to_install[@]} -gt 0 ]]; then
  log "installing ${to_install[*]}"
  apt_get install -y -q --no-install-recommends "${to_install[@]}"
fi
if ! catch2_ok; then
  log "installing catch2 ${catch2_target[*]}"
  apt_get install -y -q --no-install-recommends "${catch2_target[@]}" catch2
fi

tools_ok || fail "cmake or a C++ compiler (c++) still missing after apt-get"
fmt_ok   || fail "libfmt-dev still not installed after apt-get"
cli11_ok || fail "libcli11-dev still not installed after apt-get"
catch2_ok || fail "catch2 >= 3 still not installed (have: '$(installed_version catch2)')"
log "done in $((SECONDS - start))s: libfmt-dev $(installed_version libfmt-dev), libcli11-dev $(installed_version libcli11-dev), catch2 $(catch2_version)"
