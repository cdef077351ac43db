"""cuarch's library, in process (use the cuarch package, not this module)"""

from collections.abc import Sequence
import enum
import os


newest_known_toolkit: str = ...

oldest_known_toolkit: str = ...

class Outcome:
    class Kind(enum.Enum):
        ok = 0

        failed = 1

        usage = 2

    @property
    def kind(self) -> Outcome.Kind: ...

    @property
    def json(self) -> str: ...

    @property
    def code(self) -> str: ...

    @property
    def input_error(self) -> bool: ...

    @property
    def message(self) -> str: ...

    @property
    def strict_failed(self) -> bool: ...

    @property
    def names(self) -> list[str]: ...

    @property
    def note(self) -> str: ...

    @property
    def text(self) -> str: ...

def resolve(options: Sequence[tuple[str, str | bytes | os.PathLike[str] | os.PathLike[bytes]]], env: Sequence[tuple[str, str | bytes | os.PathLike[str] | os.PathLike[bytes]]]) -> Outcome: ...

def doctor(options: Sequence[tuple[str, str | bytes | os.PathLike[str] | os.PathLike[bytes]]], env: Sequence[tuple[str, str | bytes | os.PathLike[str] | os.PathLike[bytes]]], query_devices: bool) -> Outcome: ...

environment_variables: list[str]

def inspect(paths: Sequence[str | bytes | os.PathLike[str] | os.PathLike[bytes]], options: Sequence[tuple[str, str | bytes | os.PathLike[str] | os.PathLike[bytes]]], env: Sequence[tuple[str, str | bytes | os.PathLike[str] | os.PathLike[bytes]]]) -> Outcome: ...

def inspect_loaded(options: Sequence[tuple[str, str | bytes | os.PathLike[str] | os.PathLike[bytes]]], env: Sequence[tuple[str, str | bytes | os.PathLike[str] | os.PathLike[bytes]]]) -> Outcome: ...

def check(targets: str | bytes | os.PathLike[str] | os.PathLike[bytes], toolkit: str | bytes | os.PathLike[str] | os.PathLike[bytes], dialect: str | bytes | os.PathLike[str] | os.PathLike[bytes]) -> Outcome: ...

def list_targets(toolkit: str | bytes | os.PathLike[str] | os.PathLike[bytes]) -> Outcome: ...

def env(tool: str | bytes | os.PathLike[str] | os.PathLike[bytes], format: str | bytes | os.PathLike[str] | os.PathLike[bytes], cmake_version: str | bytes | os.PathLike[str] | os.PathLike[bytes], options: Sequence[tuple[str, str | bytes | os.PathLike[str] | os.PathLike[bytes]]], env: Sequence[tuple[str, str | bytes | os.PathLike[str] | os.PathLike[bytes]]]) -> Outcome: ...

tool_variables: list[str]

def cache_digest(key: str | bytes | os.PathLike[str] | os.PathLike[bytes]) -> str:
    """
    16 hex digits of the library's stable hash of a cache key (jit_cache_digest)
    """

def code_name(errc: int) -> str:
    """
    the stable snake_case name of the library's error code number (the 'errc' field of its JSON errors)
    """

def is_input_error(errc: int) -> bool:
    """
    whether the error code is about malformed input (ResolveError is then a ValueError)
    """

__version__: str
