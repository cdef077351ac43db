"""The JSON contract (docs/json.md): every document the command line prints in the scenarios below
is validated against its schema in docs/schema/, chosen by the document's own "schema" member.

Run by json_contract_test.sh. Usage: json_contract.py CLI SCHEMA_DIR [LOCAL_CUDA]

Validation uses the `jsonschema` package when it is installed (and says so), and always the small
validator below, which knows exactly the part of JSON Schema docs/schema/ uses (type, const, enum,
properties, required, items, minItems, pattern, oneOf, additionalProperties, local $ref). Both must
accept every document. The test also proves it can fail: every document, with each required member
removed in turn, must be refused by both.
"""

import atexit
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}
KNOWN = {"$schema", "$id", "$defs", "title", "description", "type", "const", "enum", "properties", "required",
         "items", "minItems", "pattern", "oneOf", "additionalProperties", "$ref"}


def errors(schema, value, root, path="$"):
    """Every way `value` breaks `schema` (a list of strings; empty when it is valid)."""
    unknown = set(schema) - KNOWN
    if unknown:  # a keyword this validator would silently ignore: refuse instead
        return [f"{path}: schema uses unsupported keyword(s) {sorted(unknown)}"]
    if "$ref" in schema:
        ref = schema["$ref"]
        if not ref.startswith("#/$defs/"):
            return [f"{path}: unsupported $ref {ref}"]
        return errors(root["$defs"][ref[len("#/$defs/"):]], value, root, path)
    out = []
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(TYPES[t](value) for t in types):
            return [f"{path}: {json.dumps(value)[:60]} is not of type {types}"]
    if "const" in schema and not (value == schema["const"] and type(value) is type(schema["const"])):
        out.append(f"{path}: {json.dumps(value)[:60]} is not {json.dumps(schema['const'])}")
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{path}: {json.dumps(value)[:60]} is not one of {schema['enum']}")
    if "pattern" in schema and isinstance(value, str) and not re.search(schema["pattern"], value):
        out.append(f"{path}: {value!r} does not match {schema['pattern']}")
    if isinstance(value, dict):
        for name in schema.get("required", []):
            if name not in value:
                out.append(f"{path}: required member '{name}' is missing")
        props = schema.get("properties", {})
        for name, v in value.items():
            if name in props:
                out += errors(props[name], v, root, f"{path}.{name}")
            elif isinstance(schema.get("additionalProperties"), dict):
                out += errors(schema["additionalProperties"], v, root, f"{path}.{name}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            out.append(f"{path}: {len(value)} items, fewer than {schema['minItems']}")
        if "items" in schema:
            for i, v in enumerate(value):
                out += errors(schema["items"], v, root, f"{path}[{i}]")
    if "oneOf" in schema:
        results = [errors(s, value, root, path) for s in schema["oneOf"]]
        passing = [r for r in results if not r]
        if len(passing) != 1:
            detail = "; ".join(e for r in results for e in r[:2])
            out.append(f"{path}: matches {len(passing)} of the oneOf alternatives, not exactly 1 ({detail})")
    return out


def load_schemas(schema_dir):
    schemas = {}
    for name in sorted(os.listdir(schema_dir)):
        if name.endswith(".schema.json"):
            with open(os.path.join(schema_dir, name)) as f:
                s = json.load(f)
            sid = s["properties"]["schema"]["const"]
            assert name == sid.replace("/", "-") + ".schema.json", f"{name}: file name does not follow its id {sid}"
            schemas[sid] = s
    return schemas


class Contract:
    def __init__(self, schemas):
        self.schemas = schemas
        self.failures = []
        self.seen = {}
        self.checked = 0
        try:
            import jsonschema  # noqa: F401

            self.jsonschema = jsonschema
        except ImportError:
            self.jsonschema = None

    def problems(self, doc):
        sid = doc.get("schema") if isinstance(doc, dict) else None
        if sid not in self.schemas:
            return [f"no schema for the document's schema member {sid!r}"]
        schema = self.schemas[sid]
        found = errors(schema, doc, schema)
        if self.jsonschema is not None:
            found += ["jsonschema: " + e.message[:200] for e in self.jsonschema.Draft202012Validator(schema).iter_errors(doc)]
        return found

    def fail(self, what):
        self.failures.append(what)
        print("FAIL: " + what, file=sys.stderr)

    def document(self, label, doc):
        """A document the command line printed: valid, and refused once any required member is gone."""
        self.checked += 1
        if list(doc)[:2] != ["schema", "cuarch_version"]:
            self.fail(f"{label}: the first members are {list(doc)[:2]}, not schema and cuarch_version")
        for p in self.problems(doc):
            self.fail(f"{label}: {p}")
        schema = self.schemas.get(doc.get("schema"))
        if not schema:
            return
        self.seen.setdefault(doc["schema"], []).append(label)
        for name in schema["required"]:
            broken = {k: v for k, v in doc.items() if k != name}
            if not self.problems(broken):
                self.fail(f"{label}: still valid without its required member '{name}': the schema cannot fail")


def run(cli, args, env):
    p = subprocess.run([cli, *args], capture_output=True, text=True, env=env, timeout=120)
    return p.returncode, p.stdout, p.stderr


def main():
    cli, schema_dir = sys.argv[1], sys.argv[2]
    local_cuda = sys.argv[3] if len(sys.argv) > 3 else ""
    contract = Contract(load_schemas(schema_dir))
    if contract.jsonschema:
        from importlib.metadata import version

        print("validators: the built-in subset validator and jsonschema " + version("jsonschema"))
    else:
        print("validators: the built-in subset validator only (jsonschema is not installed)")
    error_defs = {json.dumps(s["$defs"]["error"], sort_keys=True) for s in contract.schemas.values()}
    if len(error_defs) != 1:
        contract.fail("the schemas disagree on $defs/error: one error object, one definition")

    env = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp"), "LC_ALL": "C"}
    bad_nvrtc = "/nonexistent/libnvrtc.so.13"
    # (label, arguments, exit status, schema id)
    scenarios = [
        ("resolve ok", ["resolve", "--toolkit", "12.8", "--archs", "9.0a;12.0", "--format", "json"], 0, "cuarch.resolve/1"),
        ("resolve ok, native with given devices and a driver",
         ["resolve", "--toolkit", "13.0", "--archs", "native", "--device-cc", "8.6,12.0", "--driver", "13.0", "--format", "json"], 0, "cuarch.resolve/1"),
        ("resolve ok, torch not expressible", ["resolve", "--toolkit", "12.9", "--archs", "10.0f;8.6+PTX", "--format=json"], 0, "cuarch.resolve/1"),
        ("resolve ok, best effort drops one", ["resolve", "--toolkit", "13.0", "--archs", "sm_70;sm_90a", "--policy", "best-effort", "--format", "json"], 0, "cuarch.resolve/1"),
        ("resolve failed", ["resolve", "--toolkit", "12.4", "--archs", "12.0a", "--format", "json"], 1, "cuarch.resolve/1"),
        ("resolve malformed input", ["resolve", "--toolkit", "12.4", "--archs", "8.0a", "--format", "json"], 2, "cuarch.resolve/1"),
        ("resolve no compiler", ["resolve", "--nvrtc", bad_nvrtc, "--archs", "9.0", "--format", "json"], 1, "cuarch.resolve/1"),
        ("resolve bad flag value", ["resolve", "--toolkit", "12.x", "--format", "json"], 2, "cuarch.error/1"),
        ("resolve unknown option", ["resolve", "--bogus", "--format", "json"], 2, "cuarch.error/1"),
        ("resolve missing value", ["resolve", "--format", "json", "--toolkit"], 2, "cuarch.error/1"),
        ("resolve repeated option", ["resolve", "--format", "json", "--toolkit", "12.8", "--toolkit", "13.0"], 2, "cuarch.error/1"),
        ("unknown command", ["frobnicate", "--format", "json"], 2, "cuarch.error/1"),
        ("unknown program option", ["--bogus", "--json"], 2, "cuarch.error/1"),
        ("list", ["list", "--toolkit", "12.4", "--format", "json"], 0, "cuarch.list/1"),
        ("list newer than the table", ["list", "--toolkit", "99.0", "--format", "json"], 0, "cuarch.list/1"),
        ("list invalid version", ["list", "--toolkit", "12.x", "--format", "json"], 2, "cuarch.list/1"),
        # A toolkit older than the table is the caller's input (invalid_version, exit 2) in each
        # command's own failure document, as a malformed --toolkit is (issue 16, item 7e).
        ("list older than the table", ["list", "--toolkit", "9.0", "--format", "json"], 2, "cuarch.list/1"),
        ("check older than the table", ["check", "--toolkit", "9.0", "--format", "json", "sm_90"], 2, "cuarch.check/1"),
        ("resolve older than the table", ["resolve", "--toolkit", "9.0", "--archs", "9.0", "--format", "json"], 2, "cuarch.resolve/1"),
        ("list without --toolkit", ["list", "--format", "json"], 2, "cuarch.error/1"),
        ("check ok", ["check", "--toolkit", "13.0", "--format", "json", "sm_120a", "9.0a", "compute_100f"], 0, "cuarch.check/1"),
        ("check failed", ["check", "--toolkit", "12.4", "--format", "json", "sm_120a", "9.0a", "sm_70"], 1, "cuarch.check/1"),
        ("check malformed target", ["check", "--toolkit", "12.4", "--format", "json", "sm_9x"], 2, "cuarch.check/1"),
        ("check invalid version", ["check", "--toolkit", "twelve", "--format", "json", "sm_90"], 2, "cuarch.check/1"),
        ("check keyword", ["check", "--toolkit", "12.4", "--format", "json", "native"], 2, "cuarch.error/1"),
        ("check bad format", ["check", "--toolkit", "12.4", "--format", "json", "--format", "text", "sm_90"], 2, "cuarch.error/1"),
        ("doctor isolated", ["doctor", "--json", "--isolated", "--no-device-query", "--device-cc", "9.0"], 0, "cuarch.doctor/1"),
        ("doctor isolated, missing NVRTC", ["doctor", "--json", "--isolated", "--no-device-query", "--nvrtc", bad_nvrtc], 0, "cuarch.doctor/1"),
        ("doctor repeated flag", ["doctor", "--json", "--json"], 2, "cuarch.error/1"),
        ("doctor bad device list", ["doctor", "--json", "--isolated", "--device-cc", "9.0a"], 2, "cuarch.error/1"),
    ]
    # `cuarch env --for TOOL`: a toolkit root holding the fake nvcc 12.8 (tests/fixtures/fake-nvcc).
    fake_root = tempfile.mkdtemp()
    atexit.register(shutil.rmtree, fake_root, True)
    os.makedirs(os.path.join(fake_root, "bin"))
    fake_nvcc = os.path.join(fake_root, "bin", "nvcc")
    shutil.copy(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "fake-nvcc", "nvcc-12.8"), fake_nvcc)
    scenarios += [
        ("env ok", ["env", "--for", "flashinfer", "--nvcc", fake_nvcc, "--archs", "9.0a;12.0a", "--format", "json"], 0, "cuarch.env/1"),
        ("env ok, cmake", ["env", "--for", "cmake", "--nvcc", fake_nvcc, "--archs", "8.6+PTX", "--format", "json"], 0, "cuarch.env/1"),
        ("env not expressible", ["env", "--for", "flashinfer", "--nvcc", fake_nvcc, "--archs", "9.0", "--format", "json"], 1, "cuarch.env/1"),
        ("env resolution failed", ["env", "--for", "torch", "--nvcc", fake_nvcc, "--archs", "12.0f", "--format", "json"], 1, "cuarch.env/1"),
        ("env malformed input", ["env", "--for", "torch", "--nvcc", fake_nvcc, "--archs", "8.0a", "--format", "json"], 2, "cuarch.env/1"),
        ("env with --toolkit", ["env", "--for", "cmake", "--toolkit", "12.8", "--format", "json"], 2, "cuarch.error/1"),
        ("env unknown tool", ["env", "--for", "bogus", "--format", "json"], 2, "cuarch.error/1"),
    ]
    # `cuarch inspect`: real nvcc 13.0 artefacts (tests/data/inspect).
    inspect_data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "inspect")
    scenarios += [
        ("inspect loads", ["inspect", os.path.join(inspect_data, "mix_80_90a_c90.o"), "--device-cc", "8.6,9.0", "--driver", "13.0", "--format", "json"], 0, "cuarch.inspect/1"),
        ("inspect cannot load", ["inspect", os.path.join(inspect_data, "sm_100a.o"), "--device-cc", "9.0,10.0", "--format", "json"], 1, "cuarch.inspect/1"),
        ("inspect no CUDA code", ["inspect", os.path.join(inspect_data, "host_only.o"), "--device-cc", "9.0", "--format", "json"], 0, "cuarch.inspect/1"),
        ("inspect unknown builder", ["inspect", os.path.join(inspect_data, "compress_all.o"), "--device-cc", "9.0,8.0", "--driver", "12.8", "--format", "json"], 1, "cuarch.inspect/1"),
        ("inspect unreadable", ["inspect", "/nonexistent/libk.so", "--device-cc", "9.0", "--format", "json"], 2, "cuarch.inspect/1"),
        ("inspect bad device list", ["inspect", inspect_data, "--device-cc", "9.x", "--format", "json"], 2, "cuarch.error/1"),
    ]
    # A fleet (--inventory): tests/data/inventory.
    fleet = os.path.join(inspect_data, "..", "inventory", "kubectl-nodes.json")
    scenarios += [
        ("inspect a fleet", ["inspect", os.path.join(inspect_data, "mix_80_90a_c90.o"), "--inventory", fleet, "--format", "json"], 1, "cuarch.inspect/1"),
        ("inspect a fleet, bad inventory", ["inspect", inspect_data, "--inventory", os.path.join(inspect_data, "corpus.tsv"), "--format", "json"], 2, "cuarch.inspect/1"),
        ("resolve a fleet", ["resolve", "--toolkit", "12.8", "--inventory", fleet, "--format", "json"], 0, "cuarch.resolve/1"),
        ("resolve a fleet, a driver too old", ["resolve", "--toolkit", "13.0", "--inventory", fleet, "--format", "json"], 1, "cuarch.resolve/1"),
    ]
    if local_cuda:
        scenarios += [
            ("resolve with a real NVRTC", ["resolve", "--cuda-home", local_cuda, "--compiler", "nvrtc", "--archs", "9.0a", "--format", "json"], 0, "cuarch.resolve/1"),
            ("doctor isolated with a real toolkit", ["doctor", "--json", "--isolated", "--no-device-query", "--cuda-home", local_cuda], 0, "cuarch.doctor/1"),
        ]
    for label, args, want_rc, want_schema in scenarios:
        rc, out, err = run(cli, args, env)
        shown = "cuarch " + " ".join(args)
        lines = out.splitlines()
        if rc != want_rc:
            contract.fail(f"{label}: `{shown}` exited {rc}, want {want_rc}; stderr: {err.strip()[:300]}")
        if len(lines) != 1:
            contract.fail(f"{label}: `{shown}` printed {len(lines)} lines on stdout, want one JSON document; stdout: {out[:300]}")
            continue
        try:
            doc = json.loads(lines[0])
        except ValueError as e:
            contract.fail(f"{label}: `{shown}` printed no JSON ({e}): {out[:300]}")
            continue
        if doc.get("schema") != want_schema:
            contract.fail(f"{label}: `{shown}` printed schema {doc.get('schema')!r}, want {want_schema}")
        if doc.get("ok") is False and doc.get("error", {}).get("exit_status") != rc:
            contract.fail(f"{label}: error.exit_status {doc['error'].get('exit_status')} but the command exited {rc}")
        contract.document(label, doc)

    for sid in contract.schemas:
        if sid not in contract.seen:
            contract.fail(f"no scenario printed a {sid} document: its schema is untested")
    print(f"{contract.checked} documents of {len(contract.seen)} schemas checked; {len(contract.failures)} failure(s)")
    return 1 if contract.failures else 0


if __name__ == "__main__":
    sys.exit(main())
