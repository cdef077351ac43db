"""cuarch.schema(name): the JSON schemas of docs/schema/, shipped in the package and parsed."""

import glob
import json
import os

import pytest

import cuarch
from conftest import REPO

SHIPPED = sorted(glob.glob(os.path.join(REPO, "docs", "schema", "*.schema.json")))


def test_every_schema_of_docs_is_shipped():
    assert SHIPPED, "no docs/schema/*.schema.json"
    for path in SHIPPED:
        stem = os.path.basename(path)[: -len(".schema.json")]  # cuarch.resolve-1
        with open(path, encoding="utf-8") as f:
            want = json.load(f)
        assert cuarch.schema(stem) == want
        assert cuarch.schema(stem.replace("-", "/")) == want  # the documents' "schema" value
        assert cuarch.schema(stem[len("cuarch."):-len("-1")]) == want  # the bare kind
        assert want["$id"] == "urn:cuarch:schema:" + stem


def test_a_documents_schema_value_names_its_schema():
    doc = cuarch.resolve("9.0a;12.0", toolkit="12.8").as_dict()
    assert cuarch.schema(doc["schema"])["$id"] == "urn:cuarch:schema:cuarch.resolve-1"


def test_a_fresh_copy_each_call():
    a = cuarch.schema("resolve")
    a["title"] = "changed"
    assert cuarch.schema("resolve")["title"] != "changed"


@pytest.mark.parametrize("name", ["resolve/2", "cuarch.nothing/1", "", "../resolve"])
def test_unknown_names_are_refused_with_the_known_ones(name):
    with pytest.raises(ValueError, match="known: .*cuarch.resolve/1"):
        cuarch.schema(name)


def test_not_a_string():
    with pytest.raises(TypeError):
        cuarch.schema(1)  # type: ignore[arg-type]
