"""A strict reader for the YAML that action.yml and ci/*.yml are written in, because PyYAML is not a
dependency: block mappings and sequences, plain and quoted scalars, `|`/`>` block scalars and
flat `[a, b]` lists. Anything else (anchors, tags, flow mappings, tabs) is refused rather than
misread; where PyYAML is installed, tests check both readers agree."""

import re
from dataclasses import dataclass
from typing import Any


class YamlSubsetError(ValueError):
    pass


@dataclass
class Line:
    number: int
    indent: int
    text: str


_BOOL = {
    **dict.fromkeys(("yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
}  # YAML 1.1, as PyYAML reads it: `on:` is the key True there too
_INT = re.compile(r"^[-+]?(0|[1-9][0-9_]*)$")
_FLOAT = re.compile(r"^[-+]?(\d[\d_]*\.\d*|\.\d+)$")


def load(text: str) -> Any:
    raw = text.split("\n")
    lines: list[Line] = []
    for number, line in enumerate(raw, 1):
        if "\t" in line[: len(line) - len(line.lstrip())]:
            raise YamlSubsetError(f"line {number}: a tab in the indentation")
        content = _strip_comment(line).rstrip()
        if content.strip() in ("", "---"):
            continue
        lines.append(Line(number, len(content) - len(content.lstrip(" ")), content.lstrip(" ")))
    if not lines:
        return None
    reader = _Reader(lines, raw)
    value = reader.block(0, lines[0].indent)
    if reader.i != len(lines):
        raise YamlSubsetError(f"line {lines[reader.i].number}: unexpected indentation")
    return value


def _strip_comment(line: str) -> str:
    quote = ""
    for i, char in enumerate(line):
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"" and (i == 0 or line[i - 1] in " :-[,"):
            quote = char
        elif char == "#" and (i == 0 or line[i - 1] == " "):
            return line[:i]
    return line


class _Reader:
    def __init__(self, lines: list[Line], raw: list[str]) -> None:
        self.lines = lines
        self.raw = raw
        self.i = 0

    def block(self, i: int, indent: int) -> Any:
        self.i = i
        line = self.lines[i]
        if line.text == "-" or line.text.startswith("- "):
            return self.sequence(indent)
        return self.mapping(indent)

    def mapping(self, indent: int) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        while self.i < len(self.lines) and self.lines[self.i].indent == indent:
            line = self.lines[self.i]
            if line.text.startswith("- ") or line.text == "-":
                break
            key, rest = _split_key(line)
            if key in result:
                raise YamlSubsetError(f"line {line.number}: duplicate key {key!r}")
            result[key] = self.value(line, rest, indent, allow_same_indent_sequence=True)
        return result

    def sequence(self, indent: int) -> list[Any]:
        result: list[Any] = []
        while self.i < len(self.lines) and self.lines[self.i].indent == indent:
            line = self.lines[self.i]
            if not (line.text.startswith("- ") or line.text == "-"):
                break
            rest = line.text[1:].lstrip(" ")
            if rest and _is_mapping_entry(rest):
                # "- key: value" starts a mapping whose keys line up with `key`.
                column = indent + len(line.text) - len(rest)
                self.lines[self.i] = Line(line.number, column, rest)
                result.append(self.mapping(column))
            else:
                result.append(self.value(line, rest, indent, allow_same_indent_sequence=False))
        return result

    def value(self, line: Line, rest: str, indent: int, allow_same_indent_sequence: bool) -> Any:
        self.i += 1
        following = self.lines[self.i] if self.i < len(self.lines) else None
        if rest in ("|", "|-", "|+", ">", ">-", ">+"):
            return self.block_scalar(line, rest, indent)
        if rest:
            if following is not None and following.indent > indent:
                raise YamlSubsetError(f"line {following.number}: a multi-line plain scalar is not supported")
            return _scalar(rest, line.number)
        if following is not None and following.indent > indent:
            return self.block(self.i, following.indent)
        if (allow_same_indent_sequence and following is not None and following.indent == indent
                and (following.text.startswith("- ") or following.text == "-")):  # fmt: skip
            return self.sequence(indent)
        return None

    def block_scalar(self, line: Line, style: str, indent: int) -> str:
        body: list[str] = []
        number = line.number  # 1-based index of the header line in raw
        while number < len(self.raw):
            text = self.raw[number]
            if text.strip() and len(text) - len(text.lstrip(" ")) <= indent:
                break
            body.append(text)
            number += 1
        while self.i < len(self.lines) and self.lines[self.i].number <= number:
            self.i += 1
        while body and not body[-1].strip():
            body.pop()
        present = [b for b in body if b.strip()]
        cut = min((len(b) - len(b.lstrip(" ")) for b in present), default=0)
        kept = [b[cut:] for b in body]
        if style.startswith(">"):
            text, previous_blank = "", True
            for item in kept:
                if not item:
                    text += "\n"
                    previous_blank = True
                else:
                    text += ("" if previous_blank else " ") + item
                    previous_blank = False
        else:
            text = "\n".join(kept)
        if not text:
            return ""
        return text if style.endswith("-") else text + "\n"


def _is_mapping_entry(text: str) -> bool:
    try:
        _split_key(Line(0, 0, text))
    except YamlSubsetError:
        return False
    return True


def _split_key(line: Line) -> tuple[Any, str]:
    text = line.text
    if text[0] in "'\"":
        end = text.index(text[0], 1)
        key: Any = text[1:end]
        after = text[end + 1 :]
        if not after.startswith(":"):
            raise YamlSubsetError(f"line {line.number}: expected `key: value`")
        return key, after[1:].strip()
    found = re.match(r"^([^:#\[\]{},]+?):(\s+|$)", text)
    if found is None:
        raise YamlSubsetError(f"line {line.number}: expected `key: value`, got {text!r}")
    return _scalar(found.group(1).strip(), line.number), text[found.end() :].strip()


def _scalar(text: str, number: int) -> Any:
    if text[0] in "&*!{|>%@`":
        if text != "{}":
            raise YamlSubsetError(f"line {number}: {text[0]!r} (anchors, tags, flow mappings) is not supported")
        return {}
    if text[0] == "[":
        if not text.endswith("]"):
            raise YamlSubsetError(f"line {number}: a flow sequence must close on its line")
        inner = text[1:-1].strip()
        return [_scalar(part.strip(), number) for part in inner.split(",")] if inner else []
    if text[0] == "'":
        if not text.endswith("'") or len(text) < 2:
            raise YamlSubsetError(f"line {number}: unterminated single-quoted string")
        return text[1:-1].replace("''", "'")
    if text[0] == '"':
        if not text.endswith('"') or len(text) < 2:
            raise YamlSubsetError(f"line {number}: unterminated double-quoted string")
        escapes = {"\\\\": "\\", '\\"': '"', "\\n": "\n", "\\t": "\t", "\\/": "/"}
        return re.sub(r"\\.", lambda m: escapes[m.group(0)], text[1:-1])
    if ": " in text or text.endswith(":"):
        raise YamlSubsetError(f"line {number}: `: ` inside a plain scalar; quote it")
    if text in ("~", "null", "Null", "NULL"):
        return None
    if text in _BOOL:
        return _BOOL[text]
    if _INT.match(text):
        return int(text.replace("_", ""))
    if _FLOAT.match(text):
        return float(text.replace("_", ""))
    return text
