#!/usr/bin/env bash
# compare-inspect-real.sh - `cuarch inspect` against cuobjdump on real CUDA libraries no one here
# wrote (NVIDIA's wheels, PyTorch's, CuPy's): every image of every file, in file order, must be the
# same: kind (elf/ptx/nvvm), arch with its a/f variant, code version (the PTX ISA for PTX) and
# whether it is stored compressed. Prints one line per file and a total; exit 1 on any difference.
#
# Usage:  scripts/toolkits/compare-inspect-real.sh [--cuarch PATH] [--cuobjdump PATH] FILE|DIR...
#           defaults: cuarch build/cuarch; cuobjdump the newest under ~/.cache/cuarch/cuobjdump/
#           (scripts/toolkits/record-nvcc-flags.sh says how to get it). Directories: every *.so* and *.a
#           file under them. Needs: bash, python3.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CUARCH=$REPO/build/cuarch
CUOBJDUMP=$(ls -d "$HOME"/.cache/cuarch/cuobjdump/*/nvidia/cu*/bin/cuobjdump 2>/dev/null | sort -V | tail -1 || true)
args=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --cuarch) CUARCH=$2; shift 2 ;;
    --cuobjdump) CUOBJDUMP=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
[[ -x $CUARCH && -x $CUOBJDUMP ]] || { echo "compare-inspect-real.sh: need cuarch ($CUARCH) and cuobjdump ($CUOBJDUMP)" >&2; exit 2; }
files=()
for a in "${args[@]}"; do
  if [[ -d $a ]]; then while IFS= read -r f; do files+=("$f"); done < <(find "$a" -type f \( -name '*.so*' -o -name '*.a' \) | sort)
  else files+=("$a"); fi
done
python3 - "$CUARCH" "$CUOBJDUMP" "${files[@]}" <<'PY'
import json, subprocess, sys, time
cuarch, cuobjdump, files = sys.argv[1], sys.argv[2], sys.argv[3:]
def theirs(path):
    out = subprocess.run([cuobjdump, "-all", path], capture_output=True, text=True, errors="replace").stdout
    words, w = [], None
    for line in out.splitlines():
        if line.startswith("Fatbin ") and line.endswith(" code:"):
            if w: words.append(w)
            w = line.split()[1]
        elif w and line.startswith("arch = "): w += ":" + line.split()[2]
        elif w and line.startswith("code version = "): w += ":" + line.split("[")[1].rstrip("]").replace(",", ".")
        elif w and line == "compressed": w += ":z"
    if w: words.append(w)
    return words
def ours(path):
    p = subprocess.run([cuarch, "inspect", "--format", "json", "--device-cc", "9.0", "--driver", "13.0", path], capture_output=True, text=True)
    doc = json.loads(p.stdout)
    f = doc["files"][0]
    if f["error"]: return None, f["error"]["message"], 0
    words = []
    registered = [o for o in f["code_objects"] if not o.get("embedded")]  # cuobjdump does not list embedded ones
    for o in registered:
        for i in o["images"]:
            t = i["target"].split("_", 1)[1]
            words.append({"sass": "elf", "ptx": "ptx", "lto": "nvvm"}[i["kind"]] + ":sm_" + t + ":" + i["code_version"] + (":z" if i["compressed"] else ""))
    return words, None, len(registered)
same = total = with_code = objects = images = 0
t_ours = t_theirs = 0.0
for path in files:
    t0 = time.perf_counter(); b = theirs(path); t1 = time.perf_counter(); a, err, n = ours(path); t2 = time.perf_counter()
    t_theirs += t1 - t0; t_ours += t2 - t1
    total += 1
    if a == b:
        same += 1
        with_code += bool(a); objects += n; images += len(a)
        print(f"same  {len(a):6d} images {n:5d} code objects  cuobjdump {t1-t0:7.2f}s  cuarch {t2-t1:6.2f}s  {path}")
    else:
        first = next((k for k in range(min(len(a or []), len(b))) if a[k] != b[k]), None)
        print(f"DIFF  {path}: cuarch {len(a) if a else err}, cuobjdump {len(b)}; first difference at {first}: "
              f"{a[first] if a and first is not None else '-'} vs {b[first] if first is not None else '-'}")
print(f"{same}/{total} files agree ({with_code} with CUDA code: {objects} code objects, {images} images); "
      f"time cuobjdump {t_theirs:.2f}s, cuarch {t_ours:.2f}s")
sys.exit(0 if same == total else 1)
PY
