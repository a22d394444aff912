"""Intent search: splits identifiers, paths and doc comments into stemmed words and ranks symbols and files by them.

Owns the word rule and a BM25 index built once over in-memory sequences; no graph loading or I/O here.
"""

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Self

import numpy as np
import numpy.typing as npt

K1 = 1.2
B = 0.75
NAME_WEIGHT = 3.0
QUALIFIED_NAME_WEIGHT = 1.5
PATH_WEIGHT = 1.0
DOC_WEIGHT = 0.5
VARIANT_SHARE = 0.8
"""How much an agent-noun variant counts (the query's parse matching parser, or parser matching parse)."""
FILE_REST_SHARE = 0.1
"""A file scores its best symbol plus this share of the others: one strong hit beats many faint ones."""
MAX_QUERY_TERMS = 64
"""Matched terms are tracked as bits of a uint64 per symbol; later distinct terms are ignored."""

Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]

# Runs of letters and digits; underscores and punctuation separate words.
_RUN = re.compile(r"[^\W_]+")
_RUN_OR_NUL = re.compile(r"[^\W_]+|\x00")
# The same split for ASCII text in bulk: translate (a C fast path) every other character but NUL to a space.
_ASCII_SEPARATORS = {code: " " for code in range(128) if code and not chr(code).isalnum()}
# Within an ASCII run: `URLs`/`IDs` (a plural acronym), `HTTP` before `Server`, `parse`/`Request`, digits.
_ASCII_PART = re.compile(r"[A-Z]{2,}s(?![a-z])|[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")

_VOWELS = frozenset("aeiou")
# Stems the suffix rules get wrong that are too common in code to leave split from their base word.
_IRREGULAR = {"creat": "create", "delet": "delete", "complet": "complete", "controll": "control"}
_WHOLE = {"embed": "embed", "ids": "id", "used": "use", "using": "use"}
_STOP_WORDS = frozenset(
    ("a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "for", "from", "has", "have", "how", "if", "in")
    + ("into", "is", "it", "its", "of", "on", "or", "so", "such", "than", "that", "the", "their", "them", "then")
    + ("there", "these", "they", "this", "those", "to", "was", "were", "what", "when", "where", "which", "while")
    + ("who", "why", "with")
)


def words(text: str) -> list[str]:
    """Lowercase terms of an identifier, path or sentence, in order, repeats kept.

    `parseHTTPRequest` → parse, http, request; `read_file` → read, file; `src/net/http_client.go` → src, net,
    http, client, go. Letters and digits are split apart (`sha256sum` → sha, 256, sum), a capital run keeps all
    but a last capital that starts a lowercase word (`HTTPServer` → http, server), and a run of two or more
    capitals ending in a lone `s` is one plural word (`URLs` → url). Other scripts split the same way by case.

    The stem, applied to ASCII words of four or more letters, so that query and index meet on one form:
    1. plural: -ies → -y (-ie after k or v: cookies → cookie); -sses, -xes, -shes, -zzes and -ches (not
       -aches) drop -es; else a final -s goes unless the word ends -ss, -us or -is (requests → request,
       parses → parse; status, class and analysis stay);
    2. -ied → -y (tried → try); else -ing, or -ed not after an e, goes when three or more letters with a
       vowel remain (string, need stay);
    3. after 2, a doubled final consonant other than l, s, z is undoubled (mapping → map), or else the e
       English dropped is put back: after -at (not -oat, -eat), -bl, -iz, -v, -rs, -ls, -ns, -ut, -ur (not
       -our), -ang, a consonant + l, ul, ar, ir, od, id, ok, in or os, a vowel + as or us, a c or g not after
       n, and a consonant-vowel-consonant ending of a one-syllable stem (parsing, parsed → parse; closing →
       close; writing → write; but editing → edit, loading → load).
    A handful of common words the rules get wrong are mapped outright (used → use, created → create). The
    agent noun -er is not stemmed here (`HTTPServer` keeps server); `IntentIndex.search` relates parser and
    parse instead.
    """
    return [term for run in _RUN.findall(text) for term in _run_terms(run)]


@dataclass(frozen=True, slots=True)
class Match:
    index: int
    """Index into the sequences given to `IntentIndex.build`, or into `IntentIndex.paths` for a file."""
    score: float
    terms: tuple[str, ...]
    """The query terms that matched, in query order."""


class IntentIndex:
    """Postings built once from per-symbol names, qualified names, paths and docs; searched many times.

    Name, qualified name and doc are scored per symbol; the path is scored per distinct file (it is the same
    for every symbol of the file) and added to each of its symbols. Postings are CSR arrays by term id.
    """

    __slots__ = (
        "_doc_count",
        "_file_of",
        "_idf",
        "_name_hash",
        "_names",
        "_offsets",
        "_path_files",
        "_path_offsets",
        "_path_weights",
        "_paths",
        "_related",
        "_symbols",
        "_vocabulary",
        "_weights",
    )

    def __init__(
        self,
        *,
        names: tuple[str, ...],
        paths: tuple[str, ...],
        vocabulary: dict[str, int],
        related: dict[str, tuple[int, ...]],
        file_of: Ints,
        name_hash: Ints,
        idf: Floats,
        postings: tuple[Ints, npt.NDArray[np.int32], npt.NDArray[np.float32]],
        path_postings: tuple[Ints, npt.NDArray[np.int32], npt.NDArray[np.float32]],
    ) -> None:
        self._names = names
        self._paths = paths
        self._doc_count = len(names)
        self._vocabulary = vocabulary
        self._related = related
        self._file_of = file_of
        self._name_hash = name_hash
        self._idf = idf
        self._offsets, self._symbols, self._weights = postings
        self._path_offsets, self._path_files, self._path_weights = path_postings

    @property
    def paths(self) -> tuple[str, ...]:
        """The distinct file paths, sorted; a file `Match.index` points into this."""
        return self._paths

    @classmethod
    def build(
        cls, names: Sequence[str], qualified_names: Sequence[str], paths: Sequence[str], docs: Sequence[str]
    ) -> Self:
        """One entry per symbol: its name, qualified name, file path and doc comment."""
        n = len(names)
        if not len(qualified_names) == len(paths) == len(docs) == n:
            raise ValueError(
                f"names, qualified_names, paths and docs must have one entry per symbol; got {n}, "
                f"{len(qualified_names)}, {len(paths)} and {len(docs)}."
            )
        distinct = tuple(sorted(set(paths)))
        file_number = {path: i for i, path in enumerate(distinct)}
        file_of = np.fromiter((file_number[p] for p in paths), dtype=np.int64, count=n)
        file_size = np.bincount(file_of, minlength=len(distinct)).astype(np.float64)

        vocabulary: dict[str, int] = {}
        runs = _Runs(vocabulary, skip_stop=False)
        name_runs = runs.runs(names)
        name_hash = runs.joined_hashes(name_runs, n)
        fields = [
            _field_weights(runs.encode(names, name_runs), NAME_WEIGHT, None),
            _field_weights(runs.encode(qualified_names), QUALIFIED_NAME_WEIGHT, None),
            _field_weights(_Runs(vocabulary, skip_stop=True).encode(docs), DOC_WEIGHT, None),
        ]
        keys, weights = _sum_by_key(np.concatenate([k for k, _ in fields]), np.concatenate([w for _, w in fields]))
        terms, symbols = np.divmod(keys, max(n, 1))

        path_encoded = runs.encode(distinct)
        # The path field's average length is over symbols, as if each symbol carried its file's path.
        path_average = float((path_encoded[2] * file_size).sum()) / max(n, 1)
        path_keys, path_weights = _field_weights(path_encoded, PATH_WEIGHT, path_average)
        path_terms, path_files = np.divmod(path_keys, max(len(distinct), 1))

        v = len(vocabulary)
        # A symbol contains a term if any field does: content postings plus the symbols of files whose path has
        # it, less the symbols counted twice.
        in_content = np.bincount(terms, minlength=v).astype(np.float64)
        in_paths = np.bincount(path_terms, weights=file_size[path_files], minlength=v)
        both_keys = terms * max(len(distinct), 1) + file_of[symbols]
        spot = np.minimum(np.searchsorted(path_keys, both_keys), max(len(path_keys) - 1, 0))
        both = path_keys[spot] == both_keys if len(path_keys) else np.zeros(len(both_keys), dtype=np.bool_)
        in_both = np.bincount(terms[both], minlength=v).astype(np.float64)
        df = in_content + in_paths - in_both
        idf = np.log1p((n - df + 0.5) / (df + 0.5))

        related: dict[str, list[int]] = {}
        for term, tid in vocabulary.items():
            base = _agent_base(term) if term.endswith("er") else None
            if base is not None and base != term:
                related.setdefault(base, []).append(tid)
                if base in vocabulary:
                    related.setdefault(term, []).append(vocabulary[base])

        return cls(
            names=tuple(names),
            paths=distinct,
            vocabulary=vocabulary,
            related={term: tuple(ids) for term, ids in related.items()},
            file_of=file_of,
            name_hash=name_hash,
            idf=idf,
            postings=(_offsets(terms, v), symbols.astype(np.int32), weights.astype(np.float32)),
            path_postings=(_offsets(path_terms, v), path_files.astype(np.int32), path_weights.astype(np.float32)),
        )

    def search(self, keywords: Sequence[str], limit: int = 20) -> tuple[list[Match], list[tuple[str, Match]]]:
        """Symbols and files ranked by relevance; files are (path, Match), Match.index pointing into `paths`.

        `keywords` is a list of words or phrases, or one string of words. Words such as "the" or "is" are
        dropped from a query that has others. Ranking is by the number of distinct query terms matched, then
        score, then index. A symbol whose name is exactly the joined query words (["parse", "request"] and
        `parseRequest`) counts as matching every term and gets a bonus worth one more name match of each.
        A term also matches its agent noun and back (parse ~ parser, handle ~ handler) at a lower weight.
        """
        terms, joined = _query_terms(keywords)
        if limit < 1:
            raise ValueError(f"limit must be at least 1; got {limit}.")
        n, f = self._doc_count, len(self._paths)
        unseen_idf = math.log1p((n + 0.5) / 0.5)
        score = np.zeros(n, dtype=np.float64)
        symbol_bits = np.zeros(n, dtype=np.uint64)
        path_score = np.zeros(f, dtype=np.float64)
        path_bits = np.zeros(f, dtype=np.uint64)
        file_bits = np.zeros(f, dtype=np.uint64)
        idf_total = 0.0
        for position, term in enumerate(terms):
            bit = np.uint64(1 << position)
            tid = self._vocabulary.get(term)
            variants = self._related.get(term, ())
            forms = [(tid, 1.0)] if tid is not None else []
            forms += [(other, VARIANT_SHARE) for other in variants]
            # A term's rarity is its own, also where it matches through a variant; or the variant's if it
            # occurs only in that form.
            if tid is not None:
                term_idf = float(self._idf[tid])
            else:
                term_idf = min((float(self._idf[other]) for other in variants), default=unseen_idf)
            idf_total += term_idf
            for form, share in forms:
                idf = np.float64(term_idf * share)
                lo, hi = int(self._offsets[form]), int(self._offsets[form + 1])
                symbols = self._symbols[lo:hi]
                score[symbols] += idf * self._weights[lo:hi]
                symbol_bits[symbols] |= bit
                # Repeated files are harmless: every write of this statement stores the same value.
                file_bits[self._file_of[symbols]] |= bit
                lo, hi = int(self._path_offsets[form]), int(self._path_offsets[form + 1])
                files = self._path_files[lo:hi]
                path_score[files] += idf * self._path_weights[lo:hi]
                path_bits[files] |= bit

        everything = np.uint64((1 << len(terms)) - 1)
        for exact in self._exact_names(joined):
            score[exact] += NAME_WEIGHT * idf_total
            symbol_bits[exact] |= everything
            file_bits[self._file_of[exact]] |= everything

        content = np.flatnonzero(score)
        symbol_bits |= path_bits[self._file_of]
        total = score + path_score[self._file_of]
        candidates = np.flatnonzero(symbol_bits)
        ranked = _rank(candidates, np.bitwise_count(symbol_bits[candidates]), total[candidates], limit)
        symbols_found = [Match(int(i), float(total[i]), _terms_of(int(symbol_bits[i]), terms)) for i in ranked]

        owner = self._file_of[content]
        best = np.zeros(f, dtype=np.float64)
        np.maximum.at(best, owner, score[content])
        summed = np.bincount(owner, weights=score[content], minlength=f)
        file_score = best + FILE_REST_SHARE * (summed - best) + path_score
        file_bits |= path_bits
        candidates = np.flatnonzero(file_bits)
        ranked = _rank(candidates, np.bitwise_count(file_bits[candidates]), file_score[candidates], limit)
        files_found = [
            (self._paths[i], Match(int(i), float(file_score[i]), _terms_of(int(file_bits[i]), terms))) for i in ranked
        ]
        return symbols_found, files_found

    def _exact_names(self, joined: str) -> list[int]:
        hits = np.flatnonzero(self._name_hash == hash(joined))
        # The hash only narrows; a collision must not earn the bonus.
        return [int(i) for i in hits if "".join(words(self._names[i])) == joined]


class _Runs:
    """Distinct runs of letters and digits seen so far and their term ids, for fields sharing one stop rule.

    Texts are encoded in bulk, one split of them all joined by NUL and array arithmetic after, because a
    Python loop per word would be most of the build time at 100k symbols.
    """

    def __init__(self, vocabulary: dict[str, int], skip_stop: bool) -> None:
        self._vocabulary = vocabulary
        self._skip_stop = skip_stop
        # Run 0 is the NUL between texts: it has no terms and marks where the next text starts.
        self._index: dict[str, int] = {"\x00": 0}
        self._joined: list[str] = [""]
        self._hashes: list[int] = [hash("")]
        self._counts: list[int] = [0]
        self._terms: list[int] = []

    def _add(self, run: str) -> None:
        terms = _run_terms(run)
        vocabulary = self._vocabulary
        ids = [
            vocabulary.setdefault(term, len(vocabulary))
            for term in terms
            if not (self._skip_stop and term in _STOP_WORDS)
        ]
        joined = "".join(terms)
        self._index[run] = len(self._counts)
        self._joined.append(joined)
        self._hashes.append(hash(joined))
        self._counts.append(len(ids))
        self._terms += ids

    def runs(self, texts: Sequence[str]) -> tuple[Ints, Ints]:
        """Every run's id, texts end to end with run 0 between them, and the text each run belongs to."""
        big = " \x00 ".join(texts)
        if big.count("\x00") != max(len(texts) - 1, 0):
            big = " \x00 ".join(text.replace("\x00", " ") for text in texts)
        tokens = big.translate(_ASCII_SEPARATORS).split() if big.isascii() else _RUN_OR_NUL.findall(big)
        index = self._index
        for run in dict.fromkeys(tokens):
            if run not in index:
                self._add(run)
        runs = np.fromiter(map(index.__getitem__, tokens), dtype=np.int64, count=len(tokens))
        return runs, np.cumsum(runs == 0)

    def encode(self, texts: Sequence[str], found: tuple[Ints, Ints] | None = None) -> tuple[Ints, Ints, Ints]:
        """All texts' term ids end to end, the text each belongs to, and each text's count of them."""
        runs, text_of_run = self.runs(texts) if found is None else found
        counts = np.asarray(self._counts, dtype=np.int64)
        per_run = counts[runs]
        run_of_term = np.repeat(np.arange(len(runs), dtype=np.int64), per_run)
        within = np.arange(len(run_of_term), dtype=np.int64) - np.repeat(np.cumsum(per_run) - per_run, per_run)
        first = (np.cumsum(counts) - counts)[runs]
        terms = np.asarray(self._terms, dtype=np.int64)[first[run_of_term] + within]
        owners = text_of_run[run_of_term]
        return terms, owners, np.bincount(owners, minlength=len(texts))

    def joined_hashes(self, found: tuple[Ints, Ints], count: int) -> Ints:
        """Per text, the hash of all its terms joined (`parse_request` → hash("parserequest"))."""
        runs, text_of_run = found
        real = runs != 0
        runs, owners = runs[real], text_of_run[real]
        per_text = np.bincount(owners, minlength=count)
        first = np.searchsorted(owners, np.arange(count))
        hashes = np.full(count, hash(""), dtype=np.int64)
        single = per_text == 1
        hashes[single] = np.asarray(self._hashes, dtype=np.int64)[runs[first[single]]]
        for i in np.flatnonzero(per_text > 1).tolist():
            start = int(first[i])
            parts: list[int] = runs[start : start + int(per_text[i])].tolist()
            hashes[i] = hash("".join([self._joined[run] for run in parts]))
        return hashes


def _field_weights(encoded: tuple[Ints, Ints, Ints], weight: float, average: float | None) -> tuple[Ints, Floats]:
    """Per (term, document) key `term * documents + document`, sorted: the field's weighted BM25 term factor."""
    terms, owners, lengths = encoded
    documents = len(lengths)
    if average is None:
        average = float(lengths.sum()) / max(documents, 1)
    if len(terms) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
    keys, counts = np.unique(terms * documents + owners, return_counts=True)
    tf = counts.astype(np.float64)
    norm = K1 * (1.0 - B + B * lengths[keys % documents] / average)
    return keys, weight * tf * (K1 + 1.0) / (tf + norm)


def _sum_by_key(keys: Ints, values: Floats) -> tuple[Ints, Floats]:
    order = np.argsort(keys, kind="stable")
    keys, values = keys[order], values[order]
    if len(keys) == 0:
        return keys, values
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    return keys[starts], np.add.reduceat(values, starts)


def _offsets(terms: Ints, vocabulary_size: int) -> Ints:
    offsets = np.zeros(vocabulary_size + 1, dtype=np.int64)
    np.cumsum(np.bincount(terms, minlength=vocabulary_size), out=offsets[1:])
    return offsets


def _rank(ids: Ints, coverage: npt.NDArray[np.uint8], scores: Floats, limit: int) -> list[int]:
    """The best `limit` of `ids` (ascending): most terms matched, then highest score, then lowest id."""
    chosen: list[Ints] = []
    room = limit
    for level in np.unique(coverage)[::-1]:
        here = np.flatnonzero(coverage == level)
        if len(here) > room:
            level_scores = scores[here]
            cut = np.partition(level_scores, len(here) - room)[len(here) - room]
            above = here[level_scores > cut]
            here = np.concatenate((above, here[level_scores == cut][: room - len(above)]))
        chosen.append(here)
        room -= len(here)
        if room == 0:
            break
    if not chosen:
        return []
    picked = np.concatenate(chosen)
    order = np.lexsort((ids[picked], -scores[picked], -coverage[picked].astype(np.int64)))
    return [int(i) for i in ids[picked[order]]]


def _terms_of(bits: int, terms: Sequence[str]) -> tuple[str, ...]:
    return tuple(term for position, term in enumerate(terms) if bits >> position & 1)


def _query_terms(keywords: Sequence[str]) -> tuple[list[str], str]:
    """Distinct terms in query order (stop words dropped when others remain), and all terms joined."""
    phrases = [keywords] if isinstance(keywords, str) else keywords
    every = [term for phrase in phrases for term in words(phrase)]
    if not every:
        raise ValueError("keywords must contain at least one word")
    distinct = list(dict.fromkeys(every))
    meaningful = [term for term in distinct if term not in _STOP_WORDS] or distinct
    return meaningful[:MAX_QUERY_TERMS], "".join(every)


@lru_cache(maxsize=1 << 16)
def _run_terms(run: str) -> tuple[str, ...]:
    if run.isalpha() and run.islower() and run.isascii():
        return (_stem(run),)
    parts = _ASCII_PART.findall(run) if run.isascii() else _split_by_case(run)
    return tuple(_stem(part.lower()) for part in parts)


def _split_by_case(run: str) -> list[str]:
    """The ASCII rule for any script: cut at letter/digit changes and lower→upper, keep capital runs."""
    parts: list[str] = []
    start = 0
    size = len(run)
    for i in range(1, size):
        before, here = run[i - 1], run[i]
        after = run[i + 1] if i + 1 < size else ""
        if before.isdigit() != here.isdigit():
            cut = True
        elif here.isupper():
            # Inside a capital run, the last capital starts the next word, unless what follows is a plural -s.
            plural = after == "s" and (i + 2 == size or not run[i + 2].islower())
            cut = not before.isupper() or (after.islower() and not plural)
        else:
            cut = False
        if cut:
            parts.append(run[start:i])
            start = i
    parts.append(run[start:])
    return parts


@lru_cache(maxsize=1 << 16)
def _stem(word: str) -> str:
    if word in _WHOLE:
        return _WHOLE[word]
    if len(word) < 4 or not word.isascii() or not word.isalpha():
        return word
    word = _singular(word)
    if word.endswith("ied") and len(word) > 4:
        return word[:-3] + "y"
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and _strippable(word[: -len(suffix)], suffix):
            return _restore(word[: -len(suffix)])
    return word


def _agent_base(term: str) -> str | None:
    """The verb under an agent noun (parser → parse, handler → handle), by the -ing/-ed rule; else None."""
    if term.endswith("er") and term.isascii() and term.isalpha() and _strippable(term[:-2], "er"):
        return _restore(term[:-2])
    return None


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-1] if word[-4] in "kv" else word[:-3] + "y"
    if word.endswith(("sses", "xes", "shes", "zzes")) or (word.endswith("ches") and not word.endswith("aches")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _strippable(rest: str, suffix: str) -> bool:
    if len(rest) < 3 or not any(_is_vowel(rest, i) for i in range(len(rest))):
        return False
    return suffix == "ing" or not rest.endswith("e")


def _restore(stem: str) -> str:
    if stem in _IRREGULAR:
        return _IRREGULAR[stem]
    if len(stem) >= 4 and stem[-1] == stem[-2] and stem[-1] not in "aeiouylsz":
        return stem[:-1]
    return stem + "e" if _dropped_e(stem) else stem


def _dropped_e(stem: str) -> bool:
    last, second, third = stem[-1], stem[-2], stem[-3]
    pair = stem[-2:]
    consonant_before = third not in _VOWELS
    if pair == "at":
        return third not in "oe"
    if pair in ("bl", "iz") or last == "v" or pair in ("rs", "ls", "ns"):
        return True
    if pair == "ut":
        return stem != "out"
    if pair == "ur":
        return third != "o"
    if stem.endswith("ang"):
        return len(stem) >= 5
    if last in "cg":
        return second not in "ngc"
    if pair in ("ar", "ir", "od", "id", "ok", "in", "os", "ul") and consonant_before:
        return True
    if pair in ("as", "us") and not consonant_before:
        return True
    if last == "l" and second not in _VOWELS and second not in "lrw":
        return True
    return _one_syllable_cvc(stem)


def _one_syllable_cvc(stem: str) -> bool:
    """Porter's *o with m = 1: `clos`, `writ`, `typ` lost an e; `edit`, `open` (two syllables) did not."""
    size = len(stem)
    vowel = [_is_vowel(stem, i) for i in range(size)]
    if stem[-1] in "wxy" or vowel[-1] or not vowel[-2] or vowel[-3]:
        return False
    syllables = sum(1 for i in range(1, size) if vowel[i - 1] and not vowel[i])
    return syllables == 1


def _is_vowel(word: str, i: int) -> bool:
    letter = word[i]
    return letter in _VOWELS or (letter == "y" and i > 0 and word[i - 1] not in _VOWELS)
