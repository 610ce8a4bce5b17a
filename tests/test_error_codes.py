"""Every error code the server can answer, and every connection-test code, has its sentence in
the web interface, in English and in French (kinbot_web/frontend/src/i18n/errors.ts).

The codes are collected from the source, not listed by hand: the ``code`` of every
``ApiError``/``UploadError``/``error_response`` call, the ``code`` class attribute of every
error class (``AccountError``, ``KinError``, ``TaskError``, ``ProviderError``… and their
subclasses) and the ``code=`` an error of such a class is raised with (a specific cause:
``provider_name_taken``, ``kin_name_missing``…), the codes werkzeug's HTTP exceptions become,
the interface's own fallback code, and the ``code`` of every ``ConnectionReport``.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest
from werkzeug.exceptions import default_exceptions

from kinbot_web.errors import _code_of

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("kinbot_web", "kinbot_core", "kinbot_plugins")
FRONTEND = ROOT / "kinbot_web" / "frontend" / "src"
#: Calls whose second argument (or ``code=``) is an error code the API answers.
ERROR_CALLS = {"ApiError", "UploadError", "error_response"}


def _literals(node: ast.expr) -> list[str]:
    """The string constants ``node`` can be: a literal, or either branch of ``a if c else b``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _literals(node.body) + _literals(node.orelse)
    return []


def _called(node: ast.Call) -> str | None:
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


@functools.cache
def _trees() -> list[tuple[Path, ast.Module]]:
    return [
        (path, ast.parse(path.read_text(encoding="utf-8"), str(path)))
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
    ]


def _error_classes(trees: list[tuple[Path, ast.Module]]) -> set[str]:
    """Names of the classes deriving (through the scanned modules) from an exception."""
    bases: dict[str, set[str]] = {}
    for _, tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                names = {getattr(base, "id", getattr(base, "attr", "")) for base in node.bases}
                bases.setdefault(node.name, set()).update(names)
    errors = {"Exception", "RuntimeError", "ValueError"}
    grown = True
    while grown:
        found = {name for name, parents in bases.items() if parents & errors} - errors
        grown = not found <= errors
        errors |= found
    return errors


def server_error_codes() -> dict[str, str]:
    """Every error code the server can answer, with where it comes from."""
    trees = _trees()
    error_classes = _error_classes(trees)
    codes: dict[str, str] = {}
    for path, tree in trees:
        where = str(path.relative_to(ROOT))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _called(node) in ERROR_CALLS | error_classes:
                found = []
                if _called(node) in ERROR_CALLS and len(node.args) >= 2:
                    found = _literals(node.args[1])
                for keyword in node.keywords:
                    if keyword.arg == "code":
                        assert _literals(keyword.value), f"{where}:{node.lineno}: code= not literal"
                        found += _literals(keyword.value)
                for code in found:
                    codes.setdefault(code, f"{where}:{node.lineno}")
            elif isinstance(node, ast.ClassDef) and node.name in error_classes:
                for statement in node.body:
                    if isinstance(statement, ast.Assign) and any(
                        isinstance(t, ast.Name) and t.id == "code" for t in statement.targets
                    ):
                        for code in _literals(statement.value):
                            codes.setdefault(code, f"{where}: class {node.name}")
    for exception in default_exceptions.values():
        codes.setdefault(_code_of(exception()), f"werkzeug: {exception.__name__}")
    api = (FRONTEND / "lib" / "api.ts").read_text(encoding="utf-8")
    for code in re.findall(r'error\?\.code \?\? "(\w+)"', api):
        codes.setdefault(code, "lib/api.ts: an error answer without a code")
    return codes


def connection_codes() -> dict[str, str]:
    """Every success code of a connection test (failures carry a provider error code)."""
    codes: dict[str, str] = {}
    for path, tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _called(node) == "ConnectionReport":
                for keyword in node.keywords:
                    if keyword.arg == "code":
                        for code in _literals(keyword.value):
                            codes.setdefault(code, f"{path.relative_to(ROOT)}:{node.lineno}")
    return codes


def _block(text: str, opening: str) -> str:
    """The text of the ``{…}`` block after the first match of the regex ``opening``
    (skipping strings, as ``"{{provider}}"``, and ``//`` comments)."""
    found = re.search(opening, text)
    assert found, f"no {opening!r} in i18n/errors.ts"
    start = text.index("{", found.end() - 1) + 1
    depth, quote, index = 1, "", start
    while index < len(text):
        char = text[index]
        if quote:
            index += 2 if char == "\\" else 1
            quote = "" if char == quote else quote
            continue
        if text.startswith("//", index):  # a comment, apostrophes included
            index = text.find("\n", index)
            continue
        if char in "\"'`":
            quote = char
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth == 0:
            return text[start:index]
        index += 1
    raise AssertionError(f"unbalanced block after {opening!r}")


def translated(language: str, group: str) -> set[str]:
    """The keys of ``apiErrors.<group>`` in ``language``'s strings (plural forms folded)."""
    source = (FRONTEND / "i18n" / "errors.ts").read_text(encoding="utf-8")
    strings = _block(source, rf"export const {language}\b[^=]*= {{")
    keys = set(re.findall(r'^\s*(\w+):\s*"', _block(strings, rf"\b{group}: {{"), re.M))
    return keys | {re.sub(r"_(zero|one|two|few|many|other)$", "", key) for key in keys}


def test_the_collection_finds_the_server_codes() -> None:
    codes = server_error_codes()
    # A collector that found nothing would let every language pass.
    assert len(codes) > 80, codes
    for code in ("invalid_request", "email_taken", "provider_authentication_failed",
                 "kin_invalid", "task_invalid", "not_found", "method_not_allowed",
                 "upload_too_large", "contact_invalid", "http_error",
                 # raised with a specific code= (kinbot_core, kinbot_plugins)
                 "provider_name_taken", "provider_field_required", "kin_name_missing",
                 "task_ended", "model_not_listed"):  # fmt: skip
        assert code in codes, code
    assert {"connected", "connected_models", "connected_search", "runs_locally"} <= set(
        connection_codes()
    )


@pytest.mark.parametrize("language", ["en", "fr"])
def test_every_error_code_has_its_sentence(language: str) -> None:
    missing = {
        code: where
        for code, where in server_error_codes().items()
        if code not in translated(language, "codes")
    }
    assert missing == {}, f"add these codes to apiErrors.codes ({language}) in i18n/errors.ts"


@pytest.mark.parametrize("language", ["en", "fr"])
def test_every_connection_code_has_its_sentence(language: str) -> None:
    missing = {
        code: where
        for code, where in connection_codes().items()
        if code not in translated(language, "connection")
    }
    assert missing == {}, f"add these codes to apiErrors.connection ({language}) in i18n/errors.ts"


def task_end_codes() -> dict[str, str]:
    """Every code a failed or cancelled task can carry (its ``error_code``): the task's own
    and those of a sub-Kin's failed turn."""
    from kinbot_core.kins.meta import ERROR_CODES
    from kinbot_core.tasks.records import TASK_END_CODES

    codes = dict.fromkeys(TASK_END_CODES, "kinbot_core/tasks/records.py")
    codes.update(dict.fromkeys(ERROR_CODES, "kinbot_core/kins/meta.py"))
    return codes


def test_every_task_ending_is_given_a_code() -> None:
    """A task never ends failed or cancelled with only an English sentence."""
    service = ROOT / "kinbot_core" / "tasks" / "service.py"
    uncoded = []
    for node in ast.walk(ast.parse(service.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and _called(node) == "_end" and len(node.args) >= 2:
            statuses = _literals(node.args[1])
            keywords = {k.arg for k in node.keywords}
            if set(statuses) & {"failed", "cancelled"} and "error_code" not in keywords:
                uncoded.append(node.lineno)
    assert uncoded == [], f"_end without error_code at lines {uncoded} of {service}"


@pytest.mark.parametrize("language", ["en", "fr"])
def test_every_task_end_code_has_its_sentence(language: str) -> None:
    source = (FRONTEND / "i18n" / "task-errors.ts").read_text(encoding="utf-8")
    strings = _block(source, rf"export const {language}\b[^=]*= {{")
    known = set(re.findall(r'^\s*(\w+):\s*"', _block(strings, r"\bcodes: {"), re.M))
    missing = {code: where for code, where in task_end_codes().items() if code not in known}
    assert missing == {}, f"add these codes to taskErrors.codes ({language}) in i18n/task-errors.ts"


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("kind", ["mcp", "plugin"])
def test_every_mcp_and_plugin_status_code_has_its_sentence(kind: str, language: str) -> None:
    """An MCP server's health and a plugin's load failure reach Settings as codes."""
    from kinbot_core.plugins.manager import PLUGIN_ERROR_CODES
    from kinbot_plugins.mcp.connection import STATUS_ERROR_CODES

    source = (FRONTEND / "i18n" / "status-codes.ts").read_text(encoding="utf-8")
    strings = _block(source, rf"export const {language}\b[^=]*= {{")
    known = set(re.findall(r"^\s*(\w+):\s*\"", _block(strings, rf"\b{kind}: {{"), re.M))
    codes = STATUS_ERROR_CODES if kind == "mcp" else PLUGIN_ERROR_CODES
    missing = sorted(set(codes) - known)
    assert missing == [], f"add these to statusCodes.{kind} ({language}) in i18n/status-codes.ts"
