"""Writes python/cuarch/documents.py: a TypedDict for every object of cuarch's JSON documents, read
from their JSON Schemas (docs/schema/*.schema.json, the contract), so that the types a type checker
sees for cuarch.inspect(), cuarch.doctor(), Resolution.as_dict() ... cannot drift from the schemas.

    python python/documents_from_schemas.py docs/schema > python/cuarch/documents.py

tests/python/test_documents.py regenerates it and fails when the file differs. The schemas use a small
subset of JSON Schema (type, const, enum, properties/required, items, oneOf, $ref to $defs,
additionalProperties); anything else stops the generator rather than being typed as a guess.
"""

import json
import keyword
import os
import re
import sys
from typing import Any, Dict, List, NoReturn, Optional, Tuple

# The documents, in the order they are written, and their top-level type's name.
DOCUMENTS = [
    ("resolve", "ResolveDocument"),
    ("check", "CheckDocument"),
    ("list", "ListDocument"),
    ("env", "EnvDocument"),
    ("doctor", "DoctorDocument"),
    ("inspect", "InspectDocument"),
    ("error", "ErrorDocument"),
]

# Every object with members gets a name here, keyed by "document:path" (the path of JSON pointers,
# "[]" for an array's items, "|N" for the Nth oneOf branch), or by "$defs/name" for a definition,
# which must then be the same in every schema that has it. An object missing here stops the
# generator: a new object needs a name chosen by a person.
NAMES = {
    "$defs/error": "ErrorObject",
    "$defs/target": "Target",
    "$defs/compiler": "CompilerInfo",
    "$defs/warning": "WarningInfo",
    "$defs/diagnostic": "Diagnostic",
    "$defs/diagnostic/device|1": "DiagnosticDevice",
    "$defs/checked": "CheckedTarget",
    "$defs/variable": "EnvVariable",
    "$defs/role": "DoctorRole",
    "$defs/device": "DoctorDevice",
    "$defs/image": "InspectImage",
    "$defs/code_object": "InspectCodeObject",
    "$defs/verdict": "InspectVerdict",
    "$defs/verdict/chosen[]": "InspectChosen",
    "$defs/verdict/failing[]": "InspectFailing",
    "$defs/verdict/unknown[]": "InspectUnknown",
    "$defs/file": "InspectFile",
    "$defs/fix_way": "InspectFixWay",
    "resolve:|0": "ResolveDocumentOk",
    "resolve:|0/request": "ResolveRequest",
    "resolve:|0/nvrtc[]": "NvrtcOptions",
    "resolve:|1": "ResolveDocumentFailed",
    "resolve:|1/alternatives[]": "AlternativeCompiler",
    "check:|0": "CheckDocumentOk",
    "check:|1": "CheckDocumentFailed",
    "list:|0": "ListDocumentOk",
    "list:|0/table": "TableRange",
    "list:|1": "ListDocumentFailed",
    "env:|0": "EnvDocumentOk",
    "env:|1": "EnvDocumentFailed",
    "doctor:": "DoctorDocument",
    "doctor:/roles": "DoctorRoles",
    "doctor:/candidates[]": "DoctorCandidate",
    "doctor:/toolkit_roots[]": "DoctorToolkitRoot",
    "doctor:/python_environments[]": "DoctorPythonEnvironment",
    "doctor:/devices": "DoctorDevices",
    "doctor:/devices/given|1|1": "DoctorDevicesError",
    "doctor:/devices/driver|1|1": "DoctorDevicesError",
    "doctor:/devices/effective|1": "DoctorDevicesError",
    "doctor:/findings[]": "DoctorFinding",
    "inspect:": "InspectDocument",
    "inspect:/driver|1": "InspectDriver",
    "inspect:/devices[]": "InspectDevice",
    "inspect:/nodes[]": "InspectNode",
    "inspect:/nodes[]/gpus[]": "InspectNodeGpus",
    "error:": "ErrorDocument",
    "error:/error": "UsageErrorObject",
}

SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}
KNOWN_KEYWORDS = {"$schema", "$id", "$defs", "$ref", "title", "description", "type", "const", "enum", "properties",
                  "required", "items", "oneOf", "additionalProperties", "pattern", "minItems"}


class Generator:
    """Walks the schemas, writing one TypedDict per named object, each after those it uses."""

    def __init__(self) -> None:
        self.classes: Dict[str, Tuple[str, str]] = {}  # name -> (source text, structure key)
        self.order: List[str] = []  # names in dependency order (what a class uses comes first)
        self.defs_seen: Dict[str, str] = {}  # "$defs/x" -> its JSON, to require one shape per name

    def fail(self, where: str, why: str) -> NoReturn:
        raise SystemExit(f"documents_from_schemas.py: {where}: {why}")

    def type_of(self, node: Dict[str, Any], doc: str, path: str, schema: Dict[str, Any]) -> str:
        unknown = set(node) - KNOWN_KEYWORDS
        if unknown:
            self.fail(f"{doc}:{path}", f"keywords the generator does not know: {sorted(unknown)}")
        if "$ref" in node:
            ref = node["$ref"]
            if not ref.startswith("#/$defs/"):
                self.fail(f"{doc}:{path}", f"a $ref outside this schema's $defs: {ref}")
            name = ref[len("#/$defs/"):]
            return self.type_of(schema["$defs"][name], doc, "$defs/" + name, schema)
        if "const" in node:
            return f"Literal[{literal(node['const'])}]"
        if "enum" in node:
            return "Literal[" + ", ".join(literal(v) for v in node["enum"]) + "]"
        if "oneOf" in node:
            return self.union([self.type_of(branch, doc, f"{path}|{i}", schema) for i, branch in enumerate(node["oneOf"])])
        kinds = node.get("type", "object" if "properties" in node else None)
        if kinds is None:
            return "Any"  # no type: any JSON value, as the schema says
        if isinstance(kinds, list):
            return self.union([self.type_of({**node, "type": k}, doc, path, schema) for k in kinds])
        if kinds == "array":
            item = self.type_of(node["items"], doc, path + "[]", schema) if "items" in node else "Any"
            return f"list[{item}]"
        if kinds == "object":
            if "properties" in node:
                return self.typed_dict(node, doc, path, schema)
            extra = node.get("additionalProperties")
            return f"dict[str, {self.type_of(extra, doc, path + '{}', schema) if isinstance(extra, dict) else 'Any'}]"
        if kinds not in SCALARS:
            self.fail(f"{doc}:{path}", f"type {kinds!r}")
        return SCALARS[kinds]

    @staticmethod
    def union(types: List[str]) -> str:
        out: List[str] = []
        for t in types:
            for part in t.split(" | ") if not t.startswith("Literal[") else [t]:
                if part not in out:
                    out.append(part)
        if "None" in out:  # None last: "X | None" reads as "X, or null"
            out.remove("None")
            out.append("None")
        return " | ".join(out)

    def typed_dict(self, node: Dict[str, Any], doc: str, path: str, schema: Dict[str, Any]) -> str:
        key = path if path.startswith("$defs/") else f"{doc}:{path}"
        name = NAMES.get(key)
        if name is None:
            self.fail(key, "an object with no name in NAMES: give it one")
        if path.startswith("$defs/"):
            shape = json.dumps(node, sort_keys=True)
            if self.defs_seen.setdefault(path, shape) != shape:
                self.fail(key, "differs between schemas: name each one under its document")
        required = list(node.get("required", []))
        fields: List[Tuple[str, str, Optional[str], bool]] = []
        for member, sub in node["properties"].items():
            if not member.isidentifier() or keyword.iskeyword(member):
                self.fail(f"{key}/{member}", "a member that is not a Python identifier")
            fields.append((member, self.type_of(sub, doc, f"{path}/{member}", schema), sub.get("description"), member in required))
        missing = set(required) - set(node["properties"])
        if missing:
            self.fail(key, f"required members without a schema: {sorted(missing)}")
        source = self.class_source(name, node.get("description"), f"{doc}:{path}", fields)
        structure = json.dumps([(m, t, r) for m, t, _, r in fields])
        if name in self.classes:
            if self.classes[name][1] != structure:
                self.fail(key, f"{name} is given to two objects of different shapes")
            return name
        self.classes[name] = (source, structure)
        self.order.append(name)
        return name

    @staticmethod
    def class_source(name: str, description: Optional[str], key: str, fields: List[Tuple[str, str, Optional[str], bool]]) -> str:
        doc = (description + "\n\n" if description else "") + f"Schema: {pointer(key)}."

        def body(members: List[Tuple[str, str, Optional[str], bool]]) -> List[str]:
            lines = []
            for member, type_text, text, _ in members:
                lines.append(f"    {member}: {type_text}")
                if text:
                    lines.append(f"    {docstring(text, 4)}")
            return lines

        required = [f for f in fields if f[3]]
        optional = [f for f in fields if not f[3]]
        if not optional:
            return "\n".join([f"class {name}(TypedDict):", f"    {docstring(doc, 4)}"] + body(required))
        # NotRequired is typing's from Python 3.11 on; for 3.10, a total=False class over a base of
        # the required members says the same with typing alone.
        base = f"_{name}Required"
        lines = [f"class {base}(TypedDict):", f'    """The members every {name} has."""'] + body(required) + ["", ""]
        doc += " Members not always present: " + ", ".join(f[0] for f in optional) + "."
        lines += [f"class {name}({base}, total=False):", f"    {docstring(doc, 4)}"]
        return "\n".join(lines + body(optional))


def literal(value: Any) -> str:
    return json.dumps(value) if isinstance(value, str) else repr(value)


def pointer(key: str) -> str:
    """Where an object is in its schema, as a JSON pointer: "inspect:/nodes[]" is
    cuarch.inspect-1.schema.json#/properties/nodes/items (a $defs entry: in the first schema that has it)."""
    doc, path = key.split(":", 1)
    out = ""
    for token in re.findall(r"\$defs/[^/|\[]+|/[^/|\[]+|\[\]|\|\d+", path):
        if token.startswith("$defs/"):
            out += "/" + token
        elif token.startswith("/"):
            out += "/properties" + token
        elif token == "[]":
            out += "/items"
        else:
            out += "/oneOf/" + token[1:]
    return f"cuarch.{doc}-1.schema.json#{out}"


def docstring(text: str, indent: int) -> str:
    """A docstring of text's paragraphs, wrapped to the repository's line length."""
    text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    if text.endswith('"'):
        text = text[:-1] + '\\"'
    width = 108 - indent
    lines: List[str] = []
    for paragraph in text.split("\n\n"):
        if lines:
            lines.append("")
        line = ""
        for word in paragraph.split():
            if line and len(line) + 1 + len(word) > width:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        lines.append(line)
    text = ('"""' + "\n".join(lines) + '"""').replace("\n", "\n" + " " * indent)
    return re.sub(r"\n +\n", "\n\n", text)


def generate(schema_dir: str) -> str:
    gen = Generator()
    aliases: List[str] = []
    for doc, top_name in DOCUMENTS:
        with open(os.path.join(schema_dir, f"cuarch.{doc}-1.schema.json"), encoding="utf-8") as f:
            schema = json.load(f)
        if "oneOf" in schema:
            # An ok document and a failed one: each branch with the members every document has.
            variants = []
            for i, branch in enumerate(schema["oneOf"]):
                merged = {"type": "object", "description": branch.get("description"),
                          "required": list(dict.fromkeys(schema.get("required", []) + branch.get("required", []))),
                          "properties": {**schema.get("properties", {}), **branch.get("properties", {})}}
                if merged["description"] is None:
                    del merged["description"]
                variants.append(gen.typed_dict(merged, doc, f"|{i}", schema))
            title = f"`{schema['title']}`, or json.loads of what it prints: {schema['description'].split(';')[0]}."
            aliases.append(f"{top_name}: TypeAlias = Union[{', '.join(variants)}]\n{docstring(title, 0)}")
        else:
            gen.typed_dict(schema, doc, "", schema)
    header = '''"""The JSON documents cuarch writes, as TypedDicts: what cuarch.inspect(), cuarch.doctor() and
Resolution.as_dict() return, and what `cuarch ... --format json` prints (json.loads of it).

Written by python/documents_from_schemas.py from docs/schema/*.schema.json (the contract; docs/json.md
describes each document): do not edit, regenerate. Documents may gain members within a schema version;
the types list those of this release.
"""

from typing import {imports}
'''
    body = "\n".join([gen.classes[n][0] for n in gen.order] + aliases)
    used = [n for n in ("Any", "Literal", "TypeAlias", "TypedDict", "Union") if re.search(rf"\b{n}\b", body)]
    header = header.replace("{imports}", ", ".join(used))
    names = sorted(gen.order + [a.split(":")[0] for a in aliases])
    parts = [header, "__all__ = [\n" + "".join(f'    "{n}",\n' for n in names) + "]"]
    parts += [gen.classes[n][0] for n in gen.order]
    parts += aliases
    return "\n\n\n".join(p.rstrip("\n") for p in parts) + "\n"


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python documents_from_schemas.py docs/schema > python/cuarch/documents.py")
    sys.stdout.write(generate(sys.argv[1]))
