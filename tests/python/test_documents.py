"""cuarch.documents: the TypedDicts of cuarch's JSON documents are what docs/schema/ says, in the
source tree and in the installed package, and the documents the API returns have their members."""

import importlib.util
import json
import os
import shutil
import sys

import pytest

import cuarch
import cuarch.documents
from conftest import REPO, run_python

GENERATOR = os.path.join(REPO, "python", "documents_from_schemas.py")
SCHEMAS = os.path.join(REPO, "docs", "schema")


def generator():
    spec = importlib.util.spec_from_file_location("documents_from_schemas", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_types_are_generated_from_the_schemas_of_this_tree():
    want = generator().generate(SCHEMAS)
    fix = f"regenerate: python {GENERATOR} docs/schema > python/cuarch/documents.py"
    with open(os.path.join(REPO, "python", "cuarch", "documents.py"), encoding="utf-8") as f:
        assert f.read() == want, f"python/cuarch/documents.py is not what docs/schema/ says; {fix}"
    with open(cuarch.documents.__file__, encoding="utf-8") as f:
        assert f.read() == want, f"the installed {cuarch.documents.__file__} is not this tree's"


def test_an_object_the_generator_has_no_name_for_stops_it(tmp_path):
    shutil.copytree(SCHEMAS, tmp_path / "schema")
    path = tmp_path / "schema" / "cuarch.inspect-1.schema.json"
    schema = json.loads(path.read_text())
    schema["properties"]["added"] = {"type": "object", "required": ["x"], "properties": {"x": {"type": "string"}}}
    path.write_text(json.dumps(schema))
    with pytest.raises(SystemExit, match="inspect:/added: an object with no name"):
        generator().generate(str(tmp_path / "schema"))


def test_a_keyword_the_generator_does_not_know_stops_it(tmp_path):
    shutil.copytree(SCHEMAS, tmp_path / "schema")
    path = tmp_path / "schema" / "cuarch.doctor-1.schema.json"
    schema = json.loads(path.read_text())
    schema["properties"]["elapsed_us"]["anyOf"] = [{"type": "integer"}]
    path.write_text(json.dumps(schema))
    with pytest.raises(SystemExit, match=r"doctor:/elapsed_us: keywords the generator does not know: \['anyOf'\]"):
        generator().generate(str(tmp_path / "schema"))


def members(typed_dict, document):
    """Checks a document against a TypedDict's top level: every required member is there, and every
    member is a declared one."""
    assert typed_dict.__required_keys__ <= set(document), typed_dict.__name__
    assert set(document) <= typed_dict.__required_keys__ | typed_dict.__optional_keys__, typed_dict.__name__


def test_the_documents_returned_have_the_members_of_their_types(tmp_path):
    r = cuarch.resolve("9.0a;12.0", toolkit="12.8")
    members(cuarch.ResolveDocumentOk, r.as_dict())
    for d in r.diagnostics:
        members(cuarch.documents.Diagnostic, d)
    members(cuarch.documents.ResolveRequest, r.request)
    report = cuarch.doctor(isolated=True, devices="9.0")
    members(cuarch.DoctorDocument, report)
    members(cuarch.documents.DoctorDevices, report["devices"])
    built = os.path.join(REPO, "tests", "data", "inspect", "mix_80_90a_c90.o")  # sm_80, sm_90a, compute_90
    inspected = cuarch.inspect([built, sys.executable], devices="7.5,9.0", driver="13.0")
    members(cuarch.InspectDocument, inspected)
    for f in inspected["files"]:
        members(cuarch.documents.InspectFile, f)
    built_file = inspected["files"][0]
    members(cuarch.documents.InspectCodeObject, built_file["code_objects"][0])
    members(cuarch.documents.InspectImage, built_file["code_objects"][0]["images"][0])
    sm75, sm90 = built_file["devices"]
    members(cuarch.documents.InspectVerdict, sm90)
    members(cuarch.documents.InspectChosen, sm90["chosen"][0])
    members(cuarch.documents.InspectFailing, sm75["failing"][0])
    members(cuarch.documents.InspectFixWay, sm75["failing"][0]["fix_ways"][0])
    with pytest.raises(cuarch.ResolveInputError) as raised:
        cuarch.resolve("8.0a", toolkit="12.8")
    members(cuarch.documents.ErrorObject, raised.value.error)
    members(cuarch.documents.ResolveDocumentFailed, json.loads(raised.value.to_json()))


def test_import_cuarch_leaves_the_documents_to_first_use():
    """Issue 34: `import cuarch` does not import what a resolve does not need. The TypedDicts are for
    type checkers; they load when a program first names them, and they are the same objects then."""
    done = run_python(
        "import sys, cuarch\n"
        "print('cuarch.documents' in sys.modules)\n"
        "r = cuarch.resolve('9.0a', toolkit='12.8')\n"
        "print('cuarch.documents' in sys.modules)\n"
        "print(cuarch.InspectDocument is cuarch.documents.InspectDocument and 'cuarch.documents' in sys.modules)\n"
        "try:\n"
        "    cuarch.no_such_name\n"
        "except AttributeError as e:\n"
        "    print(e)\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["False", "False", "True", "module 'cuarch' has no attribute 'no_such_name'"]
