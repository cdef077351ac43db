"""The JSON documents cuarch writes, as TypedDicts: what cuarch.inspect(), cuarch.doctor() and
Resolution.as_dict() return, and what `cuarch ... --format json` prints (json.loads of it).

Written by python/documents_from_schemas.py from docs/schema/*.schema.json (the contract; docs/json.md
describes each document): do not edit, regenerate. Documents may gain members within a schema version;
the types list those of this release.
"""

from typing import Literal, TypeAlias, TypedDict, Union


__all__ = [
    "AlternativeCompiler",
    "CheckDocument",
    "CheckDocumentFailed",
    "CheckDocumentOk",
    "CheckedTarget",
    "CompilerInfo",
    "Diagnostic",
    "DiagnosticDevice",
    "DoctorCandidate",
    "DoctorDevice",
    "DoctorDevices",
    "DoctorDevicesError",
    "DoctorDocument",
    "DoctorFinding",
    "DoctorPythonEnvironment",
    "DoctorRole",
    "DoctorRoles",
    "DoctorToolkitRoot",
    "EnvDocument",
    "EnvDocumentFailed",
    "EnvDocumentOk",
    "EnvVariable",
    "ErrorDocument",
    "ErrorObject",
    "InspectChosen",
    "InspectCodeObject",
    "InspectDevice",
    "InspectDocument",
    "InspectDriver",
    "InspectFailing",
    "InspectFile",
    "InspectFixWay",
    "InspectImage",
    "InspectNode",
    "InspectNodeGpus",
    "InspectUnknown",
    "InspectVerdict",
    "ListDocument",
    "ListDocumentFailed",
    "ListDocumentOk",
    "NvrtcOptions",
    "ResolveDocument",
    "ResolveDocumentFailed",
    "ResolveDocumentOk",
    "ResolveRequest",
    "TableRange",
    "Target",
    "UsageErrorObject",
    "WarningInfo",
]


class ResolveRequest(TypedDict):
    """Schema: cuarch.resolve-1.schema.json#/oneOf/0/properties/request."""
    keyword: str | None
    origin: str
    variable: str | None


class _CompilerInfoRequired(TypedDict):
    """The members every CompilerInfo has."""
    kind: str
    version: str
    table_older_than_compiler: bool


class CompilerInfo(_CompilerInfoRequired, total=False):
    """Schema: cuarch.resolve-1.schema.json#/$defs/compiler. Members not always present: location,
    supported_sm_numbers, path, found, how, origin, why."""
    location: str
    supported_sm_numbers: list[int] | None
    path: str
    """the path as found (location is its real path); in failure documents, and in success documents that know
    the compiler (cuarch resolve, Python resolve())"""
    found: str | None
    """how it was found, e.g. "PATH /usr/bin (first on PATH: ...)"; null for a release given by version; in
    failure documents, and in success documents that know the compiler"""
    how: str | None
    """the route's kind, as detection names it: "PATH", "environment", "explicit argument", "already loaded",
    ...; null where nothing says (a failure's compiler known by value only)"""
    origin: str | None
    """the route itself: "CUDA_HOME=/opt/cuda", "toolkit=13.0" (a release given by version)"""
    why: str | None
    """why this compiler governs (the compiler that decided; null for an alternative)"""


class Target(TypedDict):
    """Schema: cuarch.resolve-1.schema.json#/$defs/target."""
    name: str
    cc: str
    variant: Literal["baseline", "arch_specific", "family_specific"]
    form: Literal["sass", "ptx", "lto"]


class NvrtcOptions(TypedDict):
    """Schema: cuarch.resolve-1.schema.json#/oneOf/0/properties/nvrtc/items."""
    target: str
    options: list[str]


class ErrorObject(TypedDict):
    """A cuarch::error (json_error() in core/detail/json.hpp). Match on 'code'; 'title' and 'message' are for
    people.

    Schema: cuarch.resolve-1.schema.json#/$defs/error."""
    code: str
    """stable snake_case identifier (classify(errc).name), e.g. needs_newer_toolkit"""
    kind: str
    """the same identifier as code"""
    title: str
    """short human words for the code; may be reworded"""
    errc: int
    """the code's number; match on code instead"""
    exit_status: Literal[1, 2]
    """what the command line exits with: 1 failed, 2 bad usage or input"""
    source: str
    subject: str
    location: str
    raw: str
    native_status: int
    message: str


class DiagnosticDevice(TypedDict):
    """Schema: cuarch.resolve-1.schema.json#/$defs/diagnostic/properties/device/oneOf/1."""
    ordinal: int
    cc: str
    name: str


class _DiagnosticRequired(TypedDict):
    """The members every Diagnostic has."""
    input: str
    position: int | None
    device: DiagnosticDevice | None
    requested: str
    outcome: str
    result: str | None
    decided_by: str
    reason: ErrorObject | None
    ptx_fallback: str
    ptx_fallback_error: ErrorObject | None
    message: str


class Diagnostic(_DiagnosticRequired, total=False):
    """Schema: cuarch.resolve-1.schema.json#/$defs/diagnostic. Members not always present: preference, note."""
    preference: str | None
    """native: the variant rule that applied, e.g. default=a"""
    note: str | None
    """native: a caveat, e.g. what compatible-minor substituted"""


class WarningInfo(TypedDict):
    """a disagreement between sources that bears on the answer (front_door/resolve_warnings.hpp); --strict
    makes any of them exit 1

    Schema: cuarch.resolve-1.schema.json#/$defs/warning."""
    kind: str
    """a finding_kind name, e.g. cuda_home_vs_path"""
    what: str
    meaning: str


class _ResolveDocumentOkRequired(TypedDict):
    """The members every ResolveDocumentOk has."""
    schema: Literal["cuarch.resolve/1"]
    cuarch_version: str
    ok: Literal[True]
    request: ResolveRequest
    compiler: CompilerInfo
    targets: list[Target]
    nvcc: list[str]
    nvrtc: list[NvrtcOptions]
    cmake: str | None
    cmake_error: ErrorObject | None
    torch: str | None
    torch_error: ErrorObject | None
    diagnostics: list[Diagnostic]


class ResolveDocumentOk(_ResolveDocumentOkRequired, total=False):
    """Schema: cuarch.resolve-1.schema.json#/oneOf/0. Members not always present: cache_key, warnings."""
    cache_key: str
    warnings: list[WarningInfo]


class _AlternativeCompilerRequired(TypedDict):
    """The members every AlternativeCompiler has."""
    kind: str
    version: str
    table_older_than_compiler: bool
    fix: str
    """what to set or pass to compile with this one instead"""


class AlternativeCompiler(_AlternativeCompilerRequired, total=False):
    """Schema: cuarch.resolve-1.schema.json#/oneOf/1/properties/alternatives/items. Members not always present:
    location, supported_sm_numbers, path, found."""
    location: str
    supported_sm_numbers: list[int] | None
    path: str
    """the path as found (location is its real path); in failure documents, and in success documents that know
    the compiler (cuarch resolve, Python resolve())"""
    found: str | None
    """how it was found, e.g. "PATH /usr/bin (first on PATH: ...)"; null for a release given by version; in
    failure documents, and in success documents that know the compiler"""


class _ResolveDocumentFailedRequired(TypedDict):
    """The members every ResolveDocumentFailed has."""
    schema: Literal["cuarch.resolve/1"]
    cuarch_version: str
    ok: Literal[False]
    error: ErrorObject
    diagnostics: list[Diagnostic]


class ResolveDocumentFailed(_ResolveDocumentFailedRequired, total=False):
    """Schema: cuarch.resolve-1.schema.json#/oneOf/1. Members not always present: warnings, compiler,
    alternatives, searched."""
    warnings: list[WarningInfo]
    compiler: CompilerInfo | None
    """the compiler that decided (null when none was found)"""
    alternatives: list[AlternativeCompiler]
    """other compilers detection saw that would build the request"""
    searched: list[str]
    """for no_compiler: the places looked at"""


class CheckedTarget(TypedDict):
    """Schema: cuarch.check-1.schema.json#/$defs/checked."""
    target: str
    ok: bool
    reason: ErrorObject | None


class CheckDocumentOk(TypedDict):
    """Schema: cuarch.check-1.schema.json#/oneOf/0."""
    schema: Literal["cuarch.check/1"]
    cuarch_version: str
    ok: Literal[True]
    toolkit: str
    error: None
    diagnostics: list[CheckedTarget]


class CheckDocumentFailed(TypedDict):
    """Schema: cuarch.check-1.schema.json#/oneOf/1."""
    schema: Literal["cuarch.check/1"]
    cuarch_version: str
    ok: Literal[False]
    toolkit: str | None
    error: ErrorObject
    diagnostics: list[CheckedTarget]


class TableRange(TypedDict):
    """Schema: cuarch.list-1.schema.json#/oneOf/0/properties/table."""
    oldest: str
    newest: str


class ListDocumentOk(TypedDict):
    """Schema: cuarch.list-1.schema.json#/oneOf/0."""
    schema: Literal["cuarch.list/1"]
    cuarch_version: str
    ok: Literal[True]
    toolkit: str
    table: TableRange
    newer_than_table: bool
    targets: list[Target]


class ListDocumentFailed(TypedDict):
    """Schema: cuarch.list-1.schema.json#/oneOf/1."""
    schema: Literal["cuarch.list/1"]
    cuarch_version: str
    ok: Literal[False]
    toolkit: None
    error: ErrorObject


class EnvVariable(TypedDict):
    """one variable to set, in the order printed

    Schema: cuarch.env-1.schema.json#/$defs/variable."""
    name: str
    value: str
    was: str | None
    """the environment's value when it differed (the printed lines replace it); null otherwise"""
    note: str
    """why the replaced value mattered (e.g. the nvcc under it, or that PyTorch refuses it); empty when there
    is nothing to say"""


class EnvDocumentOk(TypedDict):
    """Schema: cuarch.env-1.schema.json#/oneOf/0."""
    schema: Literal["cuarch.env/1"]
    cuarch_version: str
    ok: Literal[True]
    tool: Literal["torch", "flashinfer", "cmake", "tvm-ffi", "triton"]
    tool_source: str
    """the release of the tool whose source the rules follow, e.g. flashinfer-python 0.7.4"""
    compiler: CompilerInfo
    targets: list[Target]
    variables: list[EnvVariable]
    warnings: list[WarningInfo]
    notes: list[str]


class EnvDocumentFailed(TypedDict):
    """Schema: cuarch.env-1.schema.json#/oneOf/1."""
    schema: Literal["cuarch.env/1"]
    cuarch_version: str
    ok: Literal[False]
    tool: Literal["torch", "flashinfer", "cmake", "tvm-ffi", "triton"]
    tool_source: str
    """the release of the tool whose source the rules follow, e.g. flashinfer-python 0.7.4"""
    compiler: CompilerInfo | None
    targets: list[Target]
    variables: list[EnvVariable]
    warnings: list[WarningInfo]
    notes: list[str]
    error: ErrorObject


class DoctorRole(TypedDict):
    """Schema: cuarch.doctor-1.schema.json#/$defs/role."""
    candidate: int | None
    why: str
    error: ErrorObject | None


class DoctorRoles(TypedDict):
    """Schema: cuarch.doctor-1.schema.json#/properties/roles."""
    jit_compiler: DoctorRole
    offline_compiler: DoctorRole
    driver: DoctorRole
    runtime: DoctorRole
    nvcc_on_path: int | None


class _DoctorCandidateRequired(TypedDict):
    """The members every DoctorCandidate has."""
    index: int
    source: str
    describes: str | None
    how: str
    origin: str
    path: str
    real_path: str
    toolkit_root: str
    also_found_via: list[str]
    chosen: bool
    version: str | None
    error: ErrorObject | None
    supported_sm_numbers: list[int] | None


class DoctorCandidate(_DoctorCandidateRequired, total=False):
    """Schema: cuarch.doctor-1.schema.json#/properties/candidates/items. Members not always present: raw."""
    raw: str


class DoctorToolkitRoot(TypedDict):
    """Schema: cuarch.doctor-1.schema.json#/properties/toolkit_roots/items."""
    path: str
    real_path: str
    how: str
    origin: str
    also_found_via: list[str]
    error: ErrorObject | None


class DoctorPythonEnvironment(TypedDict):
    """Schema: cuarch.doctor-1.schema.json#/properties/python_environments/items."""
    prefix: str
    how: str
    origin: str
    site_packages: list[str]
    error: ErrorObject | None


class DoctorDevice(TypedDict):
    """Schema: cuarch.doctor-1.schema.json#/$defs/device."""
    ordinal: int
    cc: str
    name: str
    source: str


class DoctorDevicesError(TypedDict):
    """Schema: cuarch.doctor-1.schema.json#/properties/devices/properties/given/oneOf/1/oneOf/1."""
    error: ErrorObject


class DoctorDevices(TypedDict):
    """Schema: cuarch.doctor-1.schema.json#/properties/devices."""
    given: list[DoctorDevice] | DoctorDevicesError | None
    """null: no list was given; an error object: the list given was empty (no_device)"""
    driver: list[DoctorDevice] | DoctorDevicesError | None
    effective: list[DoctorDevice] | DoctorDevicesError
    driver_via: str | None
    """how the driver's devices were read: "NVML (<path>)" (no CUDA initialised) or "cuInit (<path>)"; null
    when not asked"""
    driver_notes: list[str]
    """why cuInit was used instead of NVML, and what that means for forked processes"""


class DoctorFinding(TypedDict):
    """Schema: cuarch.doctor-1.schema.json#/properties/findings/items."""
    kind: str
    severity: Literal["info", "warning", "problem"]
    what: str
    meaning: str
    candidates: list[int]


class DoctorDocument(TypedDict):
    """Every CUDA source with provenance, the roles and why, the devices, the findings; also Python's
    cuarch.doctor(). Members may be added within a schema version; see docs/json.md.

    Schema: cuarch.doctor-1.schema.json#."""
    schema: Literal["cuarch.doctor/1"]
    cuarch_version: str
    roles: DoctorRoles
    candidates: list[DoctorCandidate]
    toolkit_roots: list[DoctorToolkitRoot]
    python_environments: list[DoctorPythonEnvironment]
    devices: DoctorDevices
    findings: list[DoctorFinding]
    environment: dict[str, str]
    elapsed_us: int


class InspectDriver(TypedDict):
    """Schema: cuarch.inspect-1.schema.json#/properties/driver/oneOf/1."""
    version: str
    source: str


class InspectDevice(TypedDict):
    """Schema: cuarch.inspect-1.schema.json#/properties/devices/items."""
    cc: str
    name: str
    source: str
    driver: str | None
    """the CUDA release of the driver this device is judged under (its node's with --inventory); null: PTX not
    checked for it"""


class InspectNodeGpus(TypedDict):
    """Schema: cuarch.inspect-1.schema.json#/properties/nodes/items/properties/gpus/items."""
    cc: str
    count: int
    product: str


class InspectNode(TypedDict):
    """Schema: cuarch.inspect-1.schema.json#/properties/nodes/items."""
    name: str
    gpus: list[InspectNodeGpus]
    driver: str | None
    """the CUDA release its driver serves; null: unknown"""
    driver_said: str
    """the file's words for the driver: a label and value, a driver release, a cuda_version column"""
    driver_by_table: bool
    """the CUDA release was inferred from the driver release by cuarch's table of minimum drivers"""
    no_gpu: str | None
    """why the node has no GPU; null for a GPU node"""


class InspectImage(TypedDict):
    """Schema: cuarch.inspect-1.schema.json#/$defs/image."""
    kind: Literal["sass", "ptx", "lto"]
    target: str
    """sm_90a for SASS, compute_90a for PTX, lto_90 for LTO IR"""
    code_version: str
    """PTX: its PTX ISA version; SASS: the cubin format"""
    compressed: bool
    offset: int
    size: int
    built_by: str | None
    """machine code: the CUDA that built it, as its cubin says (.note.nv.tkinfo, or e_version before ELF ABI 8;
    a compressed one decoded that far); null: unsaid, not machine code, or a compressed cubin no verdict
    asked about (no device judged could load it under a known driver)"""
    kernels: Literal["unknown", "none", "some"]
    """whether it holds a kernel (a .text.<name> section, a PTX .entry); unknown where its bytes were not read"""


class InspectCodeObject(TypedDict):
    """Schema: cuarch.inspect-1.schema.json#/$defs/code_object."""
    offset: int
    relocatable: bool
    judged: bool
    """whether it is judged: a loader sees it and it may hold a kernel (an empty fatbin, or one whose images
    all hold none, is not)"""
    images: list[InspectImage]
    embedded: bool
    """found in a data section, not .nv_fatbin: code the library loads itself, picking by architecture
    (docs/inspect.md, "Embedded code"); cuobjdump does not list it, and it is never judged as failing"""


class InspectChosen(TypedDict):
    """Schema: cuarch.inspect-1.schema.json#/$defs/verdict/properties/chosen/items."""
    target: str
    count: int


class InspectFixWay(TypedDict):
    """Schema: cuarch.inspect-1.schema.json#/$defs/fix_way."""
    add: list[str]
    """targets to build too"""
    build_major: int | None
    """build them (or, with nothing to add, the file) with a CUDA of this major; null: the file's own CUDA"""
    driver: str | None
    """run under a driver that serves this CUDA or newer; null: the driver judged"""


class InspectFailing(TypedDict):
    """Schema: cuarch.inspect-1.schema.json#/$defs/verdict/properties/failing/items."""
    count: int
    targets: list[str]
    error: ErrorObject
    fix: str
    fix_ways: list[InspectFixWay]
    """the ways `fix` names, each one that loads"""


class InspectUnknown(TypedDict):
    """Schema: cuarch.inspect-1.schema.json#/$defs/verdict/properties/unknown/items."""
    count: int
    targets: list[str]
    error: ErrorObject
    fix_ways: list[InspectFixWay]
    """the ways `fix` names, each one that loads"""
    settle: str
    """what would settle it"""


class InspectVerdict(TypedDict):
    """Schema: cuarch.inspect-1.schema.json#/$defs/verdict."""
    cc: str
    name: str
    """the device's name: the node's with --inventory"""
    loads: bool
    """every code object (embedded ones too) has an image that loads: verdict is "loads\""""
    code_objects: int
    by_sass: int
    by_ptx_jit: int
    embedded_code_objects: int
    """embedded code objects that may hold a kernel"""
    embedded_here: int
    """of those, how many have an image that loads on this device"""
    chosen: list[InspectChosen]
    failing: list[InspectFailing]
    verdict: Literal["loads", "cannot_load", "unknown", "dispatches", "no_code_found"]
    """dispatches: some code objects have an image for this device and every one without holds code only for
    other architectures (a library that picks its kernels by architecture; exit 0); cannot_load: no code
    object has an image that loads, or one fails for the driver rather than the architecture; unknown: none
    fails, but some load only if the driver runs the CUDA that built their machine code, which the file does
    not say; no_code_found: a file with embedded code objects, none of them or of the registered ones with
    an image for it (not proof that it cannot run)"""
    unknown: list[InspectUnknown]
    """code objects whose verdict is unknown, grouped as failing ones are (error code unknown_builder)"""


class InspectFile(TypedDict):
    """Schema: cuarch.inspect-1.schema.json#/$defs/file."""
    path: str
    error: ErrorObject | None
    kind: Literal["none", "elf", "fatbin", "cubin", "ptx", "archive"]
    has_cuda_code: bool
    embedded_in: list[str]
    """the data sections that hold embedded code objects, in file order"""
    code_objects: list[InspectCodeObject]
    devices: list[InspectVerdict]


class InspectDocument(TypedDict):
    """The CUDA code in built files and, per device, whether each code object loads and by which image; also
    Python's cuarch.inspect(). Members may be added within a schema version; see docs/json.md and
    docs/inspect.md.

    Schema: cuarch.inspect-1.schema.json#."""
    schema: Literal["cuarch.inspect/1"]
    cuarch_version: str
    ok: bool
    """true: every device loads every file, or holds code for it where a library picks its code by architecture
    (exit_status 0)"""
    exit_status: Literal[0, 1, 2]
    """0 every device loads every file (or, in a library that picks its code by architecture, finds code for
    it), 1 one cannot, its verdict is unknown, or no code for it was found (or no device), 2 a file is
    unreadable or malformed"""
    error: ErrorObject | None
    """null when ok; else what stopped the inspection before any file was judged (no device; no driver with
    --driver detected), else the first unreadable file's error, else the first code object that cannot load"""
    driver: InspectDriver | None
    """the driver PTX was checked against; null: PTX not checked"""
    devices: list[InspectDevice]
    """the devices judged; with --inventory one per GPU node and compute capability, named after the node"""
    nodes: list[InspectNode]
    """--inventory: every node of the file, GPU or not, in file order (empty without --inventory);
    docs/inspect.md, 'A fleet'"""
    files: list[InspectFile]


class UsageErrorObject(TypedDict):
    """Schema: cuarch.error-1.schema.json#/properties/error."""
    code: Literal["bad_usage"]
    kind: Literal["bad_usage"]
    exit_status: Literal[2]
    message: str


class ErrorDocument(TypedDict):
    """Printed on stdout, with exit status 2, when the arguments ask for JSON (--format json, --json) but
    cannot be understood. Members may be added within a schema version; see docs/json.md.

    Schema: cuarch.error-1.schema.json#."""
    schema: Literal["cuarch.error/1"]
    cuarch_version: str
    ok: Literal[False]
    command: str | None
    error: UsageErrorObject


ResolveDocument: TypeAlias = Union[ResolveDocumentOk, ResolveDocumentFailed]
"""`cuarch resolve --format json`, or json.loads of what it prints: A resolution (ok: true) or its failure (ok:
false)."""


CheckDocument: TypeAlias = Union[CheckDocumentOk, CheckDocumentFailed]
"""`cuarch check --format json`, or json.loads of what it prints: Targets checked against a CUDA release, by
cuarch's table."""


ListDocument: TypeAlias = Union[ListDocumentOk, ListDocumentFailed]
"""`cuarch list --format json`, or json.loads of what it prints: Every target a CUDA release builds, by
cuarch's table. Members may be added within a schema version."""


EnvDocument: TypeAlias = Union[EnvDocumentOk, EnvDocumentFailed]
"""`cuarch env --for TOOL --format json`, or json.loads of what it prints: The variables a tool reads, set for
the targets cuarch resolved and the nvcc that validated them (ok: true), or why the tool cannot be given
them (ok: false)."""
