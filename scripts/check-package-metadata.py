#!/usr/bin/env python3
"""Checks the metadata of cuarch's release packages as a package index shows it, beyond what
`twine check` asks (scripts/build-wheels.sh runs both; tests/python/test_package_metadata.py runs this
on a fresh sdist):

* PEP 639 license fields: Metadata-Version 2.4 or newer, License-Expression: MIT, License-File:
  LICENSE (and, in a wheel, the file under .dist-info/licenses/), no legacy License field, no
  License :: classifier;
* an author, Requires-Python, the Typing :: Typed classifier;
* Project-URLs, where there are any, absolute https addresses;
* a markdown long description with no relative link (dead on an index: README.md links docs/ so,
  which is why the index gets python/README.md).

    python3 scripts/check-package-metadata.py dist/cuarch-*.whl dist/cuarch-*.tar.gz

Exit 0 when every package passes; else 1, with one line per problem naming the package.
"""

import email.message
import email.parser
import re
import sys
import tarfile
import zipfile
from typing import List, Tuple


def read(path: str) -> Tuple[email.message.Message, List[str]]:
    """The metadata of a wheel (.dist-info/METADATA) or sdist (PKG-INFO), and the archive's names."""
    if path.endswith(".whl"):
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            (meta,) = [n for n in names if re.fullmatch(r"[^/]+\.dist-info/METADATA", n)]
            text = z.read(meta).decode("utf-8")
    elif path.endswith(".tar.gz"):
        with tarfile.open(path) as t:
            names = t.getnames()
            (meta,) = [n for n in names if re.fullmatch(r"[^/]+/PKG-INFO", n)]
            member = t.extractfile(meta)
            if member is None:
                raise SystemExit(f"FAIL: {path}: {meta} is not a regular file")
            text = member.read().decode("utf-8")
    else:
        text, names = open(path, encoding="utf-8").read(), []
    return email.parser.Parser().parsestr(text), names


def problems(meta: email.message.Message, names: List[str], wheel: bool) -> List[str]:
    out = []
    version = meta["Metadata-Version"] or "0"
    if tuple(int(p) for p in version.split(".")) < (2, 4):
        out.append(f"Metadata-Version {version}: PEP 639's License-Expression needs 2.4 (scikit-build-core >= 0.11)")
    if meta["License-Expression"] != "MIT":
        out.append(f"License-Expression is {meta['License-Expression']!r}, not 'MIT'")
    if meta.get_all("License-File") != ["LICENSE"]:
        out.append(f"License-File is {meta.get_all('License-File')}, not ['LICENSE']")
    elif wheel and not any(re.fullmatch(r"[^/]+\.dist-info/licenses/LICENSE", n) for n in names):
        out.append("no .dist-info/licenses/LICENSE in the wheel")
    if meta["License"] is not None:
        out.append("a legacy License field (PEP 639: License-Expression only)")
    classifiers = meta.get_all("Classifier") or []
    out += [f"classifier {c!r} (PEP 639 deprecates license classifiers)" for c in classifiers if c.startswith("License ::")]
    if "Typing :: Typed" not in classifiers:
        out.append("no 'Typing :: Typed' classifier")
    if not (meta["Author"] or meta["Author-email"]):
        out.append("no Author or Author-email")
    if not meta["Requires-Python"]:
        out.append("no Requires-Python")
    out += [f"Project-URL {u!r} is not an absolute https address" for u in meta.get_all("Project-URL") or []
            if not re.fullmatch(r"[^,]+, https://\S+", u)]
    if meta["Description-Content-Type"] != "text/markdown":
        out.append(f"Description-Content-Type is {meta['Description-Content-Type']!r}, not text/markdown")
    description = str(meta.get_payload())
    if not description.strip():
        out.append("no long description")
    targets = re.findall(r"\]\(\s*<?([^)\s>]*)", description) + re.findall(r"(?:href|src)\s*=\s*[\"']([^\"']*)", description)
    relative = [t for t in targets if not re.match(r"[a-z][a-z0-9+.-]*:", t)]
    if relative:
        out.append(f"{len(relative)} relative link(s) in the long description, dead on an index: {', '.join(relative[:5])}")
    return out


def main(paths: List[str]) -> int:
    failed = False
    for path in paths:
        meta, names = read(path)
        found = problems(meta, names, path.endswith(".whl"))
        for p in found:
            print(f"FAIL: {path}: {p}", file=sys.stderr)
        if not found:
            print(f"{path}: Metadata-Version {meta['Metadata-Version']}, License-Expression {meta['License-Expression']}, "
                  f"{len(meta.get_all('Project-URL') or [])} Project-URL(s), no relative link")
        failed = failed or bool(found)
    return 1 if failed or not paths else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
