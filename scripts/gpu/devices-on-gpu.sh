#!/usr/bin/env bash
# Devices without cuInit, checked on a real GPU machine (written for an H200: driver 580, CUDA 13.0):
#  (a) for every CUDA_VISIBLE_DEVICES form (unset, "0", "", "GPU-<full uuid>", "GPU-<prefix>", "0,0",
#      "0,bogus,0", an index out of range, "-1", mixed forms, "MIG-..." when there is a MIG device, and
#      more), nvml_device_source's list (no cuInit) equals what cuInit + cuDeviceGet/GetAttribute/
#      GetUuid shows in a separate process: same devices, same order; and NVML's
#      nvmlSystemGetCudaDriverVersion_v2 equals cuDriverGetVersion;
#  (b) a program resolves `native` through system_device_source, then fork()s; the child calls cuInit,
#      creates a context and cuMemAlloc()s: it must succeed (it fails after driver_device_source, shown
#      for comparison, not judged);
#  (c) the whole-process cost of `native` through system_device_source vs a bare C program making the
#      same NVML calls: RUNS runs each (default 30), interleaved; medians and their ratio (at most
#      CUARCH_RATIO_LIMIT, default 1.2). With CUARCH_CLI=<path to a built cuarch>, `cuarch resolve
#      --archs native` is timed too (reported, not judged: the lead wires system_device_source into it).
# Prints one PASS/FAIL line per check and exits 1 if any failed; "skipped: no GPU" and exit 77 where the
# loader finds no libnvidia-ml.so.1 or no libcuda.so.1 (the programs are still built first, so a machine
# without a GPU checks that they compile). Needs a C and a C++17 compiler; no network, no CMake, no fmt.
# Libraries are found through the loader (dlopen by SONAME), never a fixed path.
#
# Run from anywhere in the repository:  bash scripts/gpu/devices-on-gpu.sh
# Outputs go to $OUT/devices-on-gpu/ when OUT is set, else to a temporary directory (printed).
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${OUT:+$OUT/devices-on-gpu}"
work="${out:-$(mktemp -d)}"
mkdir -p "$work"
runs="${RUNS:-30}"
ratio_limit="${CUARCH_RATIO_LIMIT:-1.2}"
failures=0
say() { printf '%s\n' "$*" | tee -a "$work/summary.txt"; }
pass() { say "PASS: $*"; }
fail() { say "FAIL: $*"; failures=$((failures + 1)); }

cxx="${CXX:-}"; cc="${CC:-}"
if [[ -z "$cxx" ]]; then for c in g++ c++ clang++; do command -v "$c" >/dev/null 2>&1 && { cxx="$c"; break; }; done; fi
if [[ -z "$cc" ]]; then for c in gcc cc clang; do command -v "$c" >/dev/null 2>&1 && { cc="$c"; break; }; done; fi
if [[ -z "$cxx" || -z "$cc" ]]; then say "skipped: no C/C++ compiler"; exit 77; fi

src="$work/src"; bin="$work/bin"
mkdir -p "$src" "$bin"

# ---- programs -------------------------------------------------------------------------------------
# cuinit_list: what the driver shows after cuInit (a separate process; CUDA headers not needed).
cat >"$src/cuinit_list.c" <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
typedef int (*fn_i)(int*);
int main(void) {
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) { printf("error=dlopen libcuda.so.1: %s\n", dlerror()); return 3; }
  int (*init)(unsigned) = (int (*)(unsigned))dlsym(h, "cuInit");
  fn_i version = (fn_i)dlsym(h, "cuDriverGetVersion");
  fn_i count_fn = (fn_i)dlsym(h, "cuDeviceGetCount");
  int (*get)(int*, int) = (int (*)(int*, int))dlsym(h, "cuDeviceGet");
  int (*attr)(int*, int, int) = (int (*)(int*, int, int))dlsym(h, "cuDeviceGetAttribute");
  int (*uuid_fn)(unsigned char*, int) = (int (*)(unsigned char*, int))dlsym(h, "cuDeviceGetUuid_v2");
  if (!uuid_fn) uuid_fn = (int (*)(unsigned char*, int))dlsym(h, "cuDeviceGetUuid");
  int (*name_fn)(char*, int, int) = (int (*)(char*, int, int))dlsym(h, "cuDeviceGetName");
  if (!init || !version || !count_fn || !get || !attr || !uuid_fn || !name_fn) { printf("error=missing driver symbol\n"); return 3; }
  int v = 0;
  if (version(&v) == 0) printf("driver=%d\n", v);
  int rc = init(0);
  if (rc == 100) { printf("count=0\n"); return 0; } /* CUDA_ERROR_NO_DEVICE: CUDA_VISIBLE_DEVICES hides them all */
  if (rc == 101) { printf("count=invalid-101\n"); return 0; } /* CUDA_ERROR_INVALID_DEVICE: a device named twice */
  if (rc != 0) { printf("error=cuInit %d\n", rc); return 3; }
  int n = -1;
  if ((rc = count_fn(&n)) != 0) { printf("error=cuDeviceGetCount %d\n", rc); return 3; }
  printf("count=%d\n", n);
  for (int i = 0; i < n; ++i) {
    int d = -1, ma = -1, mi = -1;
    unsigned char u[16];
    char name[256] = {0};
    if (get(&d, i) || attr(&ma, 75, d) || attr(&mi, 76, d) || uuid_fn(u, d) || name_fn(name, 255, d)) { printf("error=device %d\n", i); return 3; }
    printf("%d %d.%d ", i, ma, mi);
    for (int k = 0; k < 16; ++k) printf("%02x", u[k]);
    printf(" %s\n", name);
  }
  return 0;
}
EOF
# nvml_list: nvml_device_source (no cuInit), same output format (the UUID as 32 hex digits).
cat >"$src/nvml_list.cpp" <<'EOF'
#include <cuarch/sources/nvml_device_source.hpp>
#include <cstdio>
#include <string>
int main() {
  const cuarch::nvml_device_source nvml;
  if (const auto v = nvml.driver_version()) std::printf("driver=%s\n", v->raw.substr(v->raw.find(": ") + 2).c_str());
  const auto r = nvml.read();
  if (!r) {
    if (r.error().code == cuarch::errc::no_device && r.error().raw.view().find("NVML: 0 GPU(s)") == std::string_view::npos) {
      std::printf("count=0\n");
      std::fprintf(stderr, "note: %s\n", r.error().message().c_str());
      return 0;
    }
    if (r.error().code == cuarch::errc::invalid_environment && r.error().raw.view().find("(101)") != std::string_view::npos) {
      std::printf("count=invalid-101\n");
      std::fprintf(stderr, "note: %s\n", r.error().message().c_str());
      return 0;
    }
    if (r.error().raw.view().find("NVML cannot answer") != std::string_view::npos) {
      std::printf("declined=%s\n", std::string(r.error().raw.view()).c_str());
      return 0;
    }
    std::printf("error=%s\n", r.error().message().c_str());
    return 3;
  }
  std::printf("count=%zu\n", r->devices.size());
  for (std::size_t i = 0; i < r->devices.size(); ++i) {
    std::string hex;
    for (const char c : r->uuids[i].substr(4)) if (c != '-') hex += c;
    const auto& d = r->devices[i];
    std::printf("%d %d.%d %s %s\n", d.ordinal, d.cc.major, d.cc.minor, hex.c_str(), d.name.c_str());
  }
  for (const auto& n : r->notes) std::fprintf(stderr, "note: %s\n", n.c_str());
  return 0;
}
EOF
# native: resolve `native` through system_device_source (compiler: CUDA 13.0 by value); with --fork,
# then fork(): the child initialises CUDA, creates a context and allocates. --driver: driver_device_source.
cat >"$src/native.cpp" <<'EOF'
#include <cuarch/cuarch.hpp>
#include <cuarch/sources/device_source.hpp>
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <string>
// Reads the devices once (the resolver asks devices() once) and keeps how they were read.
struct recorded_system_devices {
  cuarch::system_device_source source;
  mutable std::string via;
  mutable std::vector<std::string> notes;
  cuarch::expected<std::vector<cuarch::device_info>, cuarch::error> devices() const {
    auto r = source.read();
    if (!r) return cuarch::unexpected(r.error());
    via = r->via;
    notes = r->notes;
    return r->devices;
  }
};
template <class Devices>
static int resolve(const Devices& devices) {
  cuarch::arch_request request;
  request.list = "native";
  request.overrides = cuarch::env_override::none;
  cuarch::compiler_info compiler;
  compiler.version = cuarch::cuda_version{13, 0, -1};
  const auto result = cuarch::resolve_target_archs(request, compiler, devices);
  if (!result) { std::printf("resolve failed: %s\n", result.error().message().c_str()); return 1; }
  std::printf("native:");
  for (const auto& t : result->targets) std::printf(" %s", std::string(cuarch::to_text(t).view()).c_str());
  std::printf("\n");
  return 0;
}
static int child_uses_cuda() {
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) return 10;
  int (*init)(unsigned) = (int (*)(unsigned))dlsym(h, "cuInit");
  int (*get)(int*, int) = (int (*)(int*, int))dlsym(h, "cuDeviceGet");
  int (*retain)(void**, int) = (int (*)(void**, int))dlsym(h, "cuDevicePrimaryCtxRetain");
  int (*set)(void*) = (int (*)(void*))dlsym(h, "cuCtxSetCurrent");
  int (*alloc)(unsigned long long*, size_t) = (int (*)(unsigned long long*, size_t))dlsym(h, "cuMemAlloc_v2");
  int (*release)(unsigned long long) = (int (*)(unsigned long long))dlsym(h, "cuMemFree_v2");
  if (!init || !get || !retain || !set || !alloc || !release) return 11;
  int rc, dev = -1;
  void* ctx = nullptr;
  unsigned long long p = 0;
  if ((rc = init(0)) != 0) { std::fprintf(stderr, "child: cuInit -> %d\n", rc); return 20; }
  if ((rc = get(&dev, 0)) != 0) { std::fprintf(stderr, "child: cuDeviceGet -> %d\n", rc); return 21; }
  if ((rc = retain(&ctx, dev)) != 0) { std::fprintf(stderr, "child: cuDevicePrimaryCtxRetain -> %d\n", rc); return 22; }
  if ((rc = set(ctx)) != 0) { std::fprintf(stderr, "child: cuCtxSetCurrent -> %d\n", rc); return 23; }
  if ((rc = alloc(&p, 1 << 20)) != 0) { std::fprintf(stderr, "child: cuMemAlloc -> %d\n", rc); return 24; }
  release(p);
  return 0;
}
int main(int argc, char** argv) {
  bool fork_after = false, driver = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--fork")) fork_after = true;
    if (!std::strcmp(argv[i], "--driver")) driver = true;
  }
  if (driver) {
    if (resolve(cuarch::driver_device_source{})) return 1;
  } else {
    const recorded_system_devices devices;
    const int rc = resolve(devices);
    std::printf("devices via %s\n", devices.via.c_str());
    for (const auto& n : devices.notes) std::printf("note: %s\n", n.c_str());
    if (rc) return 1;
  }
  if (!fork_after) return 0;
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid < 0) return 2;
  if (pid == 0) _exit(child_uses_cuda());
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return 2;
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::printf("child=%d\n", code);
  return code == 0 ? 0 : 3;
}
EOF
# bare_nvml: the same NVML calls as nvml_device_source, in C, nothing else.
cat >"$src/bare_nvml.c" <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
typedef struct nvmlDevice_st* dev_t_;
typedef struct { char legacy[16]; unsigned domain, bus, device, id, sub; char bus_id[32]; } pci_t;
int main(void) {
  void* h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) return 3;
  int (*init)(void) = (int (*)(void))dlsym(h, "nvmlInit_v2");
  int (*shutdown)(void) = (int (*)(void))dlsym(h, "nvmlShutdown");
  int (*count)(unsigned*) = (int (*)(unsigned*))dlsym(h, "nvmlDeviceGetCount_v2");
  int (*handle)(unsigned, dev_t_*) = (int (*)(unsigned, dev_t_*))dlsym(h, "nvmlDeviceGetHandleByIndex_v2");
  int (*cap)(dev_t_, int*, int*) = (int (*)(dev_t_, int*, int*))dlsym(h, "nvmlDeviceGetCudaComputeCapability");
  int (*name)(dev_t_, char*, unsigned) = (int (*)(dev_t_, char*, unsigned))dlsym(h, "nvmlDeviceGetName");
  int (*uuid)(dev_t_, char*, unsigned) = (int (*)(dev_t_, char*, unsigned))dlsym(h, "nvmlDeviceGetUUID");
  int (*pci)(dev_t_, pci_t*) = (int (*)(dev_t_, pci_t*))dlsym(h, "nvmlDeviceGetPciInfo_v3");
  int (*mig)(dev_t_, unsigned*, unsigned*) = (int (*)(dev_t_, unsigned*, unsigned*))dlsym(h, "nvmlDeviceGetMigMode");
  if (!init || !shutdown || !count || !handle || !cap || !name || !uuid || !pci || !mig || init() != 0) return 3;
  unsigned n = 0;
  count(&n);
  for (unsigned i = 0; i < n; ++i) {
    dev_t_ d;
    int ma = 0, mi = 0;
    unsigned cur = 0, pend = 0;
    char nm[96], u[96];
    pci_t p;
    if (handle(i, &d) != 0) continue;
    cap(d, &ma, &mi); name(d, nm, sizeof nm); uuid(d, u, sizeof u); pci(d, &p); mig(d, &cur, &pend);
    printf("%u %d.%d %s %s\n", i, ma, mi, u, nm);
  }
  shutdown();
  return 0;
}
EOF
# probe: where the loader finds a SONAME (exit 1: not found).
cat >"$src/probe.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
int main(int argc, char** argv) {
  void* h = dlopen(argv[1], RTLD_LAZY | RTLD_LOCAL);
  struct link_map* m = NULL;
  if (!h) { printf("%s\n", dlerror()); return 1; }
  if (dlinfo(h, RTLD_DI_LINKMAP, &m) == 0 && m) printf("%s\n", m->l_name);
  return 0;
}
EOF

build_ok=1
"$cc" -O2 -o "$bin/cuinit_list" "$src/cuinit_list.c" -ldl 2>>"$work/build.log" || build_ok=0
"$cc" -O2 -o "$bin/bare_nvml" "$src/bare_nvml.c" -ldl 2>>"$work/build.log" || build_ok=0
"$cc" -O2 -o "$bin/probe" "$src/probe.c" -ldl 2>>"$work/build.log" || build_ok=0
"$cxx" -std=c++17 -O2 -Wall -Wextra -I"$root/include" -o "$bin/nvml_list" "$src/nvml_list.cpp" -ldl 2>>"$work/build.log" || build_ok=0
"$cxx" -std=c++17 -O2 -Wall -Wextra -I"$root/include" -o "$bin/native" "$src/native.cpp" -ldl 2>>"$work/build.log" || build_ok=0
if [[ $build_ok -eq 1 ]]; then pass "programs built ($cc, $cxx)"; else fail "could not build the programs (see $work/build.log)"; cat "$work/build.log"; exit 1; fi

nvml_path="$("$bin/probe" libnvidia-ml.so.1)" || { say "skipped: no GPU (the loader finds no libnvidia-ml.so.1: $nvml_path)"; exit 77; }
cuda_path="$("$bin/probe" libcuda.so.1)" || { say "skipped: no GPU (the loader finds no libcuda.so.1: $cuda_path)"; exit 77; }
say "libnvidia-ml.so.1: $nvml_path"
say "libcuda.so.1: $cuda_path"
{ nvidia-smi -L 2>&1; nvidia-smi --query-gpu=index,name,compute_cap,pci.bus_id,mig.mode.current,driver_version --format=csv 2>&1; } >"$work/machine.txt"
cat "$work/machine.txt"

# ---- (a) NVML's list vs cuInit's, per CUDA_VISIBLE_DEVICES form -----------------------------------
unset CUDA_VISIBLE_DEVICES CUDA_DEVICE_ORDER
base="$("$bin/cuinit_list")" || { fail "cuInit in a separate process: $base"; exit 1; }
n="$(sed -n 's/^count=//p' <<<"$base")"
if [[ -z "$n" || "$n" -lt 1 ]]; then say "skipped: no GPU (cuInit shows none)"; exit 77; fi
uuid_of() {  # ordinal -> GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx (from cuInit's hex)
  local hex; hex="$(awk -v i="$1" '$1 == i { print $3 }' <<<"$base")"
  printf 'GPU-%s-%s-%s-%s-%s' "${hex:0:8}" "${hex:8:4}" "${hex:12:4}" "${hex:16:4}" "${hex:20:12}"
}
u0="$(uuid_of 0)"
forms=("<unset>" "0" "" "$u0" "${u0:0:12}" "${u0:0:4}" "0,0" "0,bogus,0" "1" "$n" "0,$n,0" "-1" "0,-1,1" "bogus"
       " 0" "0 " "0gpu" "+0" "0,$u0" "$u0,0" "$u0,$u0" "${u0,,}" "${u0^^}" "GPU-ffffffff" "0,"
       "$u0,GPU-ffffffff,$u0" "${u0:0:12},${u0^^}")
if [[ "$n" -ge 2 ]]; then
  u1="$(uuid_of 1)"
  forms+=("1,0" "0,1" "$u1,$u0" "${u1:0:12},${u0:0:12}" "1,0,1" "0,1,bogus,0" "0,$n,1")
fi
migs="$(nvidia-smi -L 2>/dev/null | sed -n 's/.*UUID: \(MIG-[^)]*\)).*/\1/p')"
if [[ -n "$migs" ]]; then
  m0="$(head -n 1 <<<"$migs")"
  forms+=("$m0" "${m0:0:12}" "$m0,$m0")
  [[ "$(wc -l <<<"$migs")" -ge 2 ]] && forms+=("$(sed -n 2p <<<"$migs"),$m0")
else
  say "note: no MIG device on this machine: the MIG- forms are not checked"
fi
compare() {  # label, then env assignments for both programs
  local label="$1"; shift
  local a b
  a="$(env "$@" "$bin/nvml_list" 2>"$work/nvml-notes.txt")"; local rc_a=$?
  b="$(env "$@" "$bin/cuinit_list")"; local rc_b=$?
  { echo "== $label"; echo "-- nvml_list (rc $rc_a)"; echo "$a"; cat "$work/nvml-notes.txt"; echo "-- cuinit_list (rc $rc_b)"; echo "$b"; } >>"$work/compare.txt"
  if grep -q '^declined=' <<<"$a"; then
    pass "$label: NVML declines ($(sed -n 's/^declined=//p' <<<"$a")); system_device_source uses cuInit there"
    return
  fi
  local la lb
  la="$(grep -v '^driver=' <<<"$a" | awk '{ print $1, $2, $3 }')"
  lb="$(grep -v '^driver=' <<<"$b" | awk '{ print $1, $2, $3 }')"
  if [[ $rc_a -eq 0 && $rc_b -eq 0 && "$la" == "$lb" ]]; then
    pass "$label: $(sed -n 's/^count=//p' <<<"$a") device(s), same as cuInit"
  else
    fail "$label: NVML says [$(tr '\n' ';' <<<"$la")] but cuInit says [$(tr '\n' ';' <<<"$lb")]"
  fi
}
for f in "${forms[@]}"; do
  if [[ "$f" == "<unset>" ]]; then compare "CUDA_VISIBLE_DEVICES unset" -u CUDA_VISIBLE_DEVICES
  else compare "CUDA_VISIBLE_DEVICES=\"$f\"" CUDA_VISIBLE_DEVICES="$f"; fi
done
compare "CUDA_DEVICE_ORDER=PCI_BUS_ID, CUDA_VISIBLE_DEVICES unset" -u CUDA_VISIBLE_DEVICES CUDA_DEVICE_ORDER=PCI_BUS_ID
compare "CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=\"0\"" CUDA_VISIBLE_DEVICES=0 CUDA_DEVICE_ORDER=PCI_BUS_ID
dv_nvml="$("$bin/nvml_list" 2>/dev/null | sed -n 's/^driver=//p')"
dv_cuda="$(sed -n 's/^driver=//p' <<<"$base")"
if [[ -n "$dv_nvml" && "$dv_nvml" == "$dv_cuda" ]]; then pass "nvmlSystemGetCudaDriverVersion_v2 = cuDriverGetVersion = $dv_cuda"
else fail "nvmlSystemGetCudaDriverVersion_v2 says '$dv_nvml', cuDriverGetVersion '$dv_cuda'"; fi

# ---- (b) a child forked after `native` uses CUDA -------------------------------------------------
fork_out="$("$bin/native" --fork 2>&1)"; rc=$?
echo "$fork_out" >"$work/fork.txt"
if [[ $rc -eq 0 ]] && grep -q '^devices via NVML' <<<"$fork_out" && grep -q '^child=0' <<<"$fork_out"; then
  pass "native through system_device_source ($(grep '^native:' <<<"$fork_out")), then fork(): the child's cuInit + context + cuMemAlloc work"
else
  fail "fork after native (rc $rc): $(tr '\n' ' ' <<<"$fork_out")"
fi
old_out="$("$bin/native" --fork --driver 2>&1)"; old_rc=$?
echo "$old_out" >"$work/fork-driver.txt"
say "info: the same through driver_device_source (cuInit in the parent), for comparison: rc $old_rc, $(grep '^child=' <<<"$old_out"; grep '^child:' <<<"$old_out" | head -n 1)"

# ---- (c) whole-process cost: native through system_device_source vs bare NVML calls ---------------
now_ns() { date +%s%N; }
: >"$work/times.txt"
for ((i = 0; i < runs; i++)); do
  t0=$(now_ns); "$bin/native" >/dev/null 2>&1; t1=$(now_ns); "$bin/bare_nvml" >/dev/null 2>&1; t2=$(now_ns)
  line="native $((t1 - t0)) bare $((t2 - t1))"
  if [[ -n "${CUARCH_CLI:-}" ]]; then
    t3=$(now_ns); "$CUARCH_CLI" resolve --archs native >/dev/null 2>&1; t4=$(now_ns)
    line+=" cli $((t4 - t3))"
  fi
  echo "$line" >>"$work/times.txt"
done
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
m_native="$(awk '{ print $2 }' "$work/times.txt" | median)"
m_bare="$(awk '{ print $4 }' "$work/times.txt" | median)"
ratio="$(awk -v a="$m_native" -v b="$m_bare" 'BEGIN { printf "%.3f", a / b }')"
say "timing ($runs runs each, interleaved): native via system_device_source median $((m_native / 1000)) us; bare NVML C program median $((m_bare / 1000)) us; ratio $ratio"
if [[ -n "${CUARCH_CLI:-}" ]]; then
  m_cli="$(awk '{ print $6 }' "$work/times.txt" | median)"
  say "info: '$CUARCH_CLI resolve --archs native' median $((m_cli / 1000)) us; ratio to bare NVML $(awk -v a="$m_cli" -v b="$m_bare" 'BEGIN { printf "%.3f", a / b }')"
fi
if awk -v r="$ratio" -v l="$ratio_limit" 'BEGIN { exit !(r <= l) }'; then pass "whole-process ratio $ratio <= $ratio_limit"
else fail "whole-process ratio $ratio > $ratio_limit"; fi

say "details: $work (compare.txt, fork.txt, times.txt)"
if [[ $failures -gt 0 ]]; then say "$failures check(s) FAILED"; exit 1; fi
say "all checks passed"
exit 0
