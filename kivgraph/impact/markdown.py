"""GitHub markdown from untrusted text: one escape per context (code span, table cell, link target,
HTML, prose, fenced block), so that no file path or symbol name can end the span it is in, add a
table row or column, or become a link, an image or an @mention. Strings only; no I/O."""

import html
import re
import unicodedata
import urllib.parse
from collections.abc import Iterator
from difflib import SequenceMatcher
from itertools import zip_longest

URL_SAFE = ":/?#@!$&+,;=%~-._"
"""Characters a link target keeps as they are (with letters and digits); any other is percent-encoded,
so a target holds no space, parenthesis, bracket, angle bracket, backtick, quote or line break."""
INLINE = re.compile(r"([\\`*_\[\]<>&|~])")
"""What can start an inline construct (emphasis, code, link, autolink, HTML, entity, strikethrough) or
split a table cell; line-start constructs cannot arise inside a line."""
LIVE = re.compile(r"@|://|www\.|#\d", re.IGNORECASE)
"""What GitHub turns into a link or a mention even in escaped prose: such a word goes in a code span."""
CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)", re.DOTALL)
ONE_LINE = 60
"""A signature longer than this is shown one parameter a line, so a diff points at the one that changed."""


def visible(text: str) -> str:
    """Control and format characters (a newline, a tab, a bidi override) spelled as escapes, so the
    text stays on one line and shows what it holds."""
    out: list[str] = []
    for ch in text:
        if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Cs"):
            out.append(ch.encode("unicode_escape").decode("ascii"))
        else:
            out.append(ch)
    return "".join(out)


def code(text: str) -> str:
    """A code span of `text`: fenced by more backticks than any run inside it, padded when it starts
    or ends with one (or with a space at both ends, which CommonMark would strip)."""
    body = visible(text) or " "
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * (longest + 1)
    if body.strip(" ") and (body[0] == "`" or body[-1] == "`" or body[0] == body[-1] == " "):
        body = f" {body} "
    return f"{fence}{body}{fence}"


def cell(markdown: str) -> str:
    """Markdown made safe inside a table cell: GFM splits cells at every `|` not escaped, code spans
    included, and `\\|` shows as `|` there."""
    return markdown.replace("|", "\\|")


def url(target: str) -> str:
    """A link target percent-encoded down to URL_SAFE, so it cannot end the link early."""
    return urllib.parse.quote(target, safe=URL_SAFE)


def link(text: str, target: str) -> str:
    """`[text](target)` where `text` is already markdown (a code span, say)."""
    return f"[{text}]({url(target)})"


def html_text(text: str) -> str:
    """Text for inside raw HTML (`<summary>`): entities for `<`, `>`, `&` and quotes."""
    return html.escape(visible(text), quote=True)


def prose(text: str) -> str:
    """Untrusted text shown as plain text: what could start markup escaped, and each word that
    GitHub would link or mention (`@name`, `x://`, `www.`, `#1`) in a code span."""
    words = re.split(r"(\s+)", visible(text))
    return "".join(word if not word.strip() else code(word) if LIVE.search(word) else INLINE.sub(r"\\\1", word)
                   for word in words)  # fmt: skip


def sentence(text: str) -> str:
    """A kivgraph sentence that may quote names in backticks (a report's notes): the quoted parts as
    code spans, the rest as prose, so a note read back from an untrusted report.json is inert too."""
    parts: list[str] = []
    at = 0
    for found in CODE_SPAN.finditer(text):
        parts.append(prose(text[at : found.start()]))
        inner = found.group(2)
        parts.append(code(inner[1:-1] if len(inner) > 2 and inner[0] == inner[-1] == " " and inner.strip() else inner))
        at = found.end()
    parts.append(prose(text[at:]))
    return "".join(parts)


def fenced(info: str, lines: list[str]) -> list[str]:
    """A fenced block whose fence is longer than any backtick run in `lines`."""
    longest = max((len(run) for line in lines for run in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{info}", *(visible(line) for line in lines), fence]


# -- signatures ----------------------------------------------------------------------------------


def signature_diff(before: str, after: str) -> list[str]:
    """A signature change as diff lines: a long signature one parameter a line (an overload set one
    overload a line first), so the lines that differ are the parameters that changed."""
    old_parts, new_parts = _top_level(before, ";"), _top_level(after, ";")
    long = [max(len(a), len(b)) > ONE_LINE for a, b in zip_longest(old_parts, new_parts, fillvalue="")]
    old = [line for i, part in enumerate(old_parts) for line in _signature_lines(part, long[i])]
    new = [line for i, part in enumerate(new_parts) for line in _signature_lines(part, long[i])]
    lines: list[str] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag == "equal":
            lines += [f"  {line}" for line in old[i1:i2]]
        else:
            lines += [f"- {line}" for line in old[i1:i2]] + [f"+ {line}" for line in new[j1:j2]]
    return lines


def _signature_lines(signature: str, split: bool) -> list[str]:
    part = signature.strip()
    opening = part.find("(")
    closing = _closing(part, opening) if split and opening >= 0 else -1
    if closing < 0:
        return [part]
    parameters = [p.strip() for p in _top_level(part[opening + 1 : closing], ",") if p.strip()]
    return [part[: opening + 1], *(f"    {p}," for p in parameters), part[closing:]]


OPEN, CLOSE = "([{<", ")]}>"


def _unquoted(text: str, start: int = 0) -> Iterator[tuple[int, str, int, int]]:
    """(index, character, bracket it is: +1 opening / -1 closing / 0, depth after it) of each
    character from `start` outside quotes; depth never goes below 0."""
    depth, quote = 0, ""
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            quote = "" if ch == quote and text[i - 1] != "\\" else quote
            continue
        if ch in "'\"`":
            quote = ch
            continue
        bracket = _bracket(text, i)
        depth = depth + 1 if bracket > 0 else max(0, depth - 1) if bracket < 0 else depth
        yield i, ch, bracket, depth


def _top_level(text: str, separator: str) -> list[str]:
    """`text` split at each `separator` outside brackets and quotes."""
    parts: list[str] = []
    start = 0
    for i, ch, bracket, depth in _unquoted(text):
        if ch == separator and not bracket and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return [*parts, text[start:]]


def _closing(text: str, opening: int) -> int:
    """The index of the bracket that closes the one at `opening`, or -1."""
    for i, _, bracket, depth in _unquoted(text, opening):
        if bracket < 0 and depth == 0:
            return i
    return -1


def _bracket(text: str, i: int) -> int:
    """1 for an opening bracket, -1 for a closing one, 0 otherwise; `<`/`>` count only as generics
    (`List<T>`), not as arrows (`->`, `=>`) or comparisons."""
    ch = text[i]
    before = text[i - 1] if i else " "
    if ch in "([{" or (ch == "<" and (before.isalnum() or before == "_")):
        return 1
    if ch in ")]}" or (ch == ">" and before not in "-="):
        return -1
    return 0
