"""Tool arguments declared once: the JSON schema MCP clients see, and the validation every call goes
through (unknown fields, wrong types, out-of-range values → INVALID_ARGUMENT, never a traceback)."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from kivgraph.errors import InvalidArgumentError

JSON_TYPES = {
    "string": "string",
    "integer": "integer",
    "boolean": "boolean",
    "strings": "array",
    "selectors": "array",
}


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    type: str
    """One of JSON_TYPES' keys: `strings` is a list of strings, `selectors` a list of symbol selectors."""
    description: str
    default: Any = None
    minimum: int | None = None
    maximum: int | None = None
    required: bool = False
    enum: tuple[str, ...] = ()


def schema(params: Sequence[Param]) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    for p in params:
        prop: dict[str, Any] = {"type": JSON_TYPES[p.type], "description": p.description}
        if p.type == "strings":
            prop["items"] = {"type": "string", **({"enum": list(p.enum)} if p.enum else {})}
        if p.type == "selectors":
            prop["items"] = {
                "type": "object",
                "properties": {name: {"type": "string"} for name in SELECTOR_FIELDS},
                "additionalProperties": False,
            }
            prop["minItems"], prop["maxItems"] = 1, p.maximum or 20
        if p.minimum is not None and p.type == "integer":
            prop["minimum"] = p.minimum
        if p.maximum is not None and p.type == "integer":
            prop["maximum"] = p.maximum
        if p.enum and p.type == "string":
            prop["enum"] = list(p.enum)
        if p.default is not None:
            prop["default"] = p.default
        properties[p.name] = prop
    result: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    required = [p.name for p in params if p.required]
    if required:
        result["required"] = required
    return result


SELECTOR_FIELDS = ("stable_key", "repository", "path", "qualified_name")


def validate(tool: str, params: Sequence[Param], arguments: object) -> dict[str, Any]:
    """The arguments with defaults applied, or INVALID_ARGUMENT naming the first problem."""
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        raise InvalidArgumentError(f"{tool} takes an object of named arguments")
    given = cast(Mapping[str, object], arguments)
    known = {p.name: p for p in params}
    for name in given:
        if name not in known:
            names = ", ".join(sorted(known)) or "no arguments"
            raise InvalidArgumentError(f'unknown argument "{name}"; {tool} takes: {names}')
    values: dict[str, Any] = {}
    for p in params:
        value = given.get(p.name)
        if value is None:
            if p.required:
                raise InvalidArgumentError(f"{p.name} is required")
            values[p.name] = p.default
            continue
        values[p.name] = _check(p, value)
    return values


def _check(p: Param, value: object) -> Any:
    if p.type == "string":
        if not isinstance(value, str):
            raise InvalidArgumentError(f"{p.name} must be a string")
        if p.enum and value not in p.enum:
            choices = " or ".join(", ".join(f'"{v}"' for v in p.enum).rsplit(", ", 1))
            # A view another tool offers is named as such, so the caller knows to switch tools, not spelling.
            where = " for this tool" if p.name == "view" and value in ("compact", "full", "files") else ""
            raise InvalidArgumentError(f'{p.name} "{value}" is unsupported{where}, use {choices}')
        return value
    if p.type == "boolean":
        if not isinstance(value, bool):
            raise InvalidArgumentError(f"{p.name} must be true or false")
        return value
    if p.type == "integer":
        # A float must be integral; NaN and infinity (which json.loads accepts) are not, and int() would raise.
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or (isinstance(value, float) and not value.is_integer())
        ):
            raise InvalidArgumentError(f"{p.name} must be an integer")
        number = int(value)
        if p.name == "limit" and number == 0:
            return p.default
        low = p.minimum if p.minimum is not None else -(2**31)
        high = p.maximum if p.maximum is not None else 2**31 - 1
        if not low <= number <= high:
            raise InvalidArgumentError(f"{p.name} must be between {low} and {high}")
        return number
    if p.type == "strings":
        if isinstance(value, str):
            return [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in cast(list[object], value)):
            raise InvalidArgumentError(f"{p.name} must be a list of strings")
        for item in cast(list[str], value):
            if p.enum and item not in p.enum:
                raise InvalidArgumentError(f'{p.name} "{item}" is unsupported, use any of: {", ".join(p.enum)}')
        return list(cast(list[str], value))
    # selectors
    if not isinstance(value, list):
        raise InvalidArgumentError(f"{p.name} must be a list of symbol selectors")
    items = cast(list[object], value)
    if not items:
        raise InvalidArgumentError(f"{p.name} must name at least one symbol")
    if p.maximum is not None and len(items) > p.maximum:
        raise InvalidArgumentError(f"{p.name} must name at most {p.maximum} symbols")
    selectors: list[dict[str, str]] = []
    for item in items:
        if not isinstance(item, Mapping):
            raise InvalidArgumentError(f"each entry of {p.name} must be an object with stable_key or qualified_name")
        entry = cast(Mapping[str, object], item)
        for name, field in entry.items():
            if name not in SELECTOR_FIELDS:
                raise InvalidArgumentError(f'unknown selector field "{name}" in {p.name}')
            if not isinstance(field, str):
                raise InvalidArgumentError(f"{name} in {p.name} must be a string")
        selectors.append({k: cast(str, v) for k, v in entry.items()})
    return selectors
