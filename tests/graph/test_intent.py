import os
import random
import statistics
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kivgraph.graph.intent import IntentIndex, Match, words

# (name, qualified name, path, doc): a small service with auth, an HTTP client, config and storage.
CORPUS = [
    ("LoginHandler", "auth.LoginHandler", "auth/login.go", "LoginHandler checks the password a user sends."),
    ("Logout", "auth.Logout", "auth/login.go", "Logout ends the session."),
    ("checkPassword", "auth.checkPassword", "auth/login.go", "checkPassword compares a bcrypt hash."),
    ("ParseToken", "auth.ParseToken", "auth/token.go", "ParseToken parses a bearer token."),
    ("Token", "auth.Token", "auth/token.go", "Token is a signed session credential."),
    ("SignToken", "auth.SignToken", "auth/token.go", "SignToken signs claims with the server key."),
    ("tokenCache", "auth.tokenCache", "auth/token.go", ""),
    ("User", "auth.User", "auth/user.go", "User is an account that can log in."),
    ("FindUser", "auth.FindUser", "auth/user.go", "FindUser looks a user up by email."),
    ("Client", "http.Client", "net/http/client.go", "Client sends HTTP requests."),
    ("Do", "http.Client.Do", "net/http/client.go", "Do sends a request and returns the response."),
    ("retryPolicy", "http.retryPolicy", "net/http/client.go", "retryPolicy decides if a failed request is retried."),
    ("NewClient", "http.NewClient", "net/http/client.go", "NewClient returns a client with default timeouts."),
    ("Server", "http.Server", "net/http/server.go", "Server accepts HTTP connections."),
    ("ListenAndServe", "http.Server.ListenAndServe", "net/http/server.go", "ListenAndServe listens on a TCP address."),
    ("Request", "http.Request", "net/http/request.go", "Request is an HTTP request."),
    ("parseRequest", "http.parseRequest", "net/http/request.go", "parseRequest reads a request line and headers."),
    ("ReadResponse", "http.ReadResponse", "net/http/response.go", "ReadResponse reads an HTTP response from r."),
    ("Dial", "net.Dial", "net/dial.go", "Dial connects to the address on the named network."),
    ("Backoff", "retry.Backoff", "retry/backoff.go", "Backoff returns the delay before the next attempt."),
    ("Do", "retry.Do", "retry/retry.go", "Do calls f until it succeeds or the attempts run out."),
    ("LoadConfig", "config.LoadConfig", "config/load.go", "LoadConfig reads the YAML configuration file."),
    ("Config", "config.Config", "config/config.go", "Config holds the server settings."),
    ("ConfigParser", "config.ConfigParser", "config/parser.go", "ConfigParser turns YAML into a Config."),
    ("validate", "config.validate", "config/config.go", "validate reports missing fields."),
    ("OpenDB", "store.OpenDB", "store/db.go", "OpenDB opens the database connection pool."),
    ("SaveUser", "store.SaveUser", "store/users.go", "SaveUser writes a user row."),
    ("migrate", "store.migrate", "store/migrate.go", "migrate applies schema migrations."),
    ("main", "main.main", "cmd/server/main.go", "main starts the server."),
    ("render_template", "web.render_template", "web/templates.py", "Render a Jinja template with the login context."),
]


def build(rows: list[tuple[str, str, str, str]]) -> IntentIndex:
    return IntentIndex.build(*([row[i] for row in rows] for i in range(4)))


@pytest.fixture(scope="module")
def index() -> IntentIndex:
    return build(CORPUS)


def qualified(matches: list[Match]) -> list[str]:
    return [CORPUS[m.index][1] for m in matches]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("parseHTTPRequest", ["parse", "http", "request"]),
        ("readFile", ["read", "file"]),
        ("HTTPServer", ["http", "server"]),
        ("XMLHttpRequest", ["xml", "http", "request"]),
        ("IOError", ["io", "error"]),
        ("getURLs", ["get", "url"]),
        ("read_file", ["read", "file"]),
        ("MAX_RETRY_COUNT", ["max", "retry", "count"]),
        ("src/net/http_client.go", ["src", "net", "http", "client", "go"]),
        ("pkg::io::BufReader", ["pkg", "io", "buf", "reader"]),
        ("sha256sum", ["sha", "256", "sum"]),
        ("utf8Decode", ["utf", "8", "decode"]),
        ("x86_64", ["x", "86", "64"]),
        ("größeBerechnen", ["größe", "berechnen"]),
        ("ПолучитьДанные", ["получить", "данные"]),
        ("日本語Parser", ["日本語", "parser"]),
        ("Parses a bearer token.", ["parse", "a", "bearer", "token"]),
        ("", []),
        ("  -- _ ./ ", []),
    ],
)
def test_words_split_identifiers_paths_and_sentences_into_lowercase_terms(text: str, expected: list[str]) -> None:
    assert words(text) == expected


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        ("requests", "request"),
        ("parsing", "parse"),
        ("parsed", "parse"),
        ("parses", "parse"),
        ("queries", "query"),
        ("cookies", "cookie"),
        ("matches", "match"),
        ("mapping", "map"),
        ("closing", "close"),
        ("writing", "write"),
        ("creating", "create"),
        ("resolved", "resolve"),
        ("decoding", "decode"),
        ("tried", "try"),
        ("editing", "edit"),
        ("loading", "load"),
        ("calling", "call"),
        ("status", "status"),
        ("class", "class"),
        ("analysis", "analysis"),
        ("string", "string"),
        ("need", "need"),
        ("user", "user"),
        ("parser", "parser"),
    ],
)
def test_the_light_stem_folds_plurals_and_verb_endings_onto_the_base_word(word: str, stem: str) -> None:
    assert words(word) == [stem]


def test_query_and_identifier_forms_of_a_word_meet_on_one_stem() -> None:
    assert words("ParseRequests") == words("parsing requests") == words("parsed request") == ["parse", "request"]


@pytest.mark.parametrize(
    ("keywords", "symbol", "file"),
    [
        (["parse", "token"], "auth.ParseToken", "auth/token.go"),
        (["user login"], "auth.LoginHandler", "auth/login.go"),
        (["http client retry"], "http.retryPolicy", "net/http/client.go"),
        ("load configuration", "config.LoadConfig", "config/load.go"),
        (["parse", "config"], "config.ConfigParser", "config/parser.go"),
        (["database", "connection"], "store.OpenDB", "store/db.go"),
        (["render", "templates"], "web.render_template", "web/templates.py"),
    ],
)
def test_intended_symbol_and_file_rank_first(index: IntentIndex, keywords: list[str], symbol: str, file: str) -> None:
    symbols, files = index.search(keywords)
    assert qualified(symbols)[0] == symbol
    assert files[0][0] == file
    assert index.paths[files[0][1].index] == file


def test_a_symbol_matching_more_query_terms_outranks_a_higher_scoring_one_matching_fewer(index: IntentIndex) -> None:
    symbols, _ = index.search(["http", "client", "retry"])
    by_name = {CORPUS[m.index][1]: m for m in symbols}
    retry, client = by_name["http.retryPolicy"], by_name["http.Client"]
    assert retry.terms == ("http", "client", "retry")
    assert client.terms == ("http", "client")
    assert client.score > retry.score
    assert symbols.index(retry) < symbols.index(client)


def test_files_rank_by_coverage_before_score(index: IntentIndex) -> None:
    _, files = index.search(["user", "login"])
    paths = [path for path, _ in files]
    login, users = files[paths.index("auth/login.go")][1], files[paths.index("auth/user.go")][1]
    assert login.terms == ("user", "login")
    assert users.terms == ("user",)
    assert users.score > login.score
    assert paths.index("auth/login.go") < paths.index("auth/user.go")


def test_a_doc_only_match_ranks_below_a_name_match() -> None:
    rows = [
        ("LoginHandler", "auth.LoginHandler", "auth/login.go", "Checks the password of the user."),
        ("checkPassword", "auth.checkPassword", "auth/login.go", "Compares hashes."),
    ]
    symbols, _ = build(rows).search(["password"])
    assert [m.index for m in symbols] == [1, 0]
    assert symbols[0].score > 2 * symbols[1].score


def test_the_exact_joined_name_wins_over_the_same_words_in_another_order() -> None:
    rows = [
        ("requestParse", "p.requestParse", "p/a.go", ""),
        ("parseRequest", "p.parseRequest", "p/b.go", ""),
    ]
    symbols, files = build(rows).search(["parse", "request"])
    assert [m.index for m in symbols] == [1, 0]
    assert [path for path, _ in files] == ["p/b.go", "p/a.go"]


def test_a_run_together_name_finds_the_symbol_by_its_joined_words(index: IntentIndex) -> None:
    symbols, _ = index.search(["loginhandler"])
    assert qualified(symbols) == ["auth.LoginHandler"]
    assert symbols[0].terms == ("loginhandler",)


def test_a_verb_finds_its_agent_noun_and_back_below_the_word_itself() -> None:
    rows = [
        ("TokenParser", "p.TokenParser", "p/a.go", ""),
        ("ParseToken", "p.ParseToken", "p/b.go", ""),
        ("Tokenize", "p.Tokenize", "p/c.go", ""),
    ]
    index = build(rows)
    by_verb, _ = index.search(["parse", "token"])
    by_noun, _ = index.search(["token", "parser"])
    assert [m.index for m in by_verb] == [1, 0]
    assert [m.index for m in by_noun] == [0, 1]
    assert by_verb[1].terms == ("parse", "token")


def test_stop_words_are_dropped_from_a_query_that_has_other_words(index: IntentIndex) -> None:
    assert index.search(["the", "token", "of", "a", "user"]) == index.search(["token", "user"])


def test_equal_scores_rank_by_index_and_searches_repeat_exactly() -> None:
    rows = [("Token", "a.Token", "a/token.go", "")] * 30 + [("Token", "b.Token", "b/token.go", "")] * 30
    index = build(rows)
    symbols, files = index.search(["token"], limit=5)
    assert [m.index for m in symbols] == [0, 1, 2, 3, 4]
    assert len({m.score for m in symbols}) == 1
    assert [path for path, _ in files] == ["a/token.go", "b/token.go"]
    assert index.search(["token"], limit=5) == (symbols, files)


def test_matches_carry_the_matched_query_terms_in_query_order(index: IntentIndex) -> None:
    symbols, files = index.search(["token", "bearer", "parse"])
    assert symbols[0] == Match(symbols[0].index, symbols[0].score, ("token", "bearer", "parse"))
    assert qualified(symbols)[:1] == ["auth.ParseToken"]
    assert files[0][1].terms == ("token", "bearer", "parse")


def test_limit_caps_both_lists(index: IntentIndex) -> None:
    symbols, files = index.search(["http"], limit=2)
    assert len(symbols) == 2
    assert len(files) == 2


def test_words_found_nowhere_give_empty_results(index: IntentIndex) -> None:
    assert index.search(["kubernetes"]) == ([], [])


@pytest.mark.parametrize("keywords", [[], [""], ["--", "  "], "", "!?"])
def test_keywords_without_any_word_are_rejected(index: IntentIndex, keywords: list[str]) -> None:
    with pytest.raises(ValueError, match="^keywords must contain at least one word$"):
        index.search(keywords)


def test_a_limit_below_one_is_rejected(index: IntentIndex) -> None:
    with pytest.raises(ValueError, match="limit must be at least 1"):
        index.search(["token"], limit=0)


def test_non_ascii_text_and_stray_nul_characters_index_like_any_other() -> None:
    rows = [
        ("größeBerechnen", "maße.größeBerechnen", "maße/größe.go", "Berechnet die Größe."),
        ("odd\x00Name", "x.odd\x00Name", "x/odd.go", "a\x00b"),
        ("Token", "x.Token", "x/token.go", ""),
    ]
    index = build(rows)
    assert [m.index for m in index.search(["größe"])[0]] == [0]
    assert [m.index for m in index.search(["token"])[0]] == [2]
    assert [m.index for m in index.search(["odd", "name"])[0]] == [1]
    assert index.paths == ("maße/größe.go", "x/odd.go", "x/token.go")


def test_an_empty_index_answers_with_nothing() -> None:
    assert build([]).search(["token"]) == ([], [])


def test_build_rejects_sequences_of_different_lengths() -> None:
    with pytest.raises(ValueError, match="one entry per symbol"):
        IntentIndex.build(["a"], ["a"], ["a.go"], [])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(codec="utf-8"), max_size=20), min_size=1, max_size=6))
def test_search_never_raises_for_words_and_ranks_by_coverage_then_score(keywords: list[str]) -> None:
    if not any(words(keyword) for keyword in keywords):
        return
    index = build(CORPUS)
    symbols, files = index.search(keywords, limit=10)
    for matches in (symbols, [m for _, m in files]):
        keys = [(len(m.terms), m.score) for m in matches]
        assert keys == sorted(keys, reverse=True)
        assert len({m.index for m in matches}) == len(matches)
        assert all(m.terms for m in matches)


def synthetic_corpus(count: int, seed: int = 0) -> tuple[list[str], list[str], list[str], list[str], list[str]]:
    """Go-like symbols over ~9k files: camelCase and snake_case names, qualified names, docs on 60%."""
    rng = random.Random(seed)
    syllables = ("ba", "ko", "ri", "mu", "te", "sa", "lo", "ne", "pi", "du", "ga", "fe", "zo", "ch", "ar", "en")
    common = words(
        "get set parse read write load save request response client server handler token user login http config "
        "cache file path error retry connect close open index query search graph node edge build render update "
        "delete create list map value key name type field method call stream buffer encode decode hash sign"
    )
    vocabulary = common + ["".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))) for _ in range(8000)]
    english = words("the a of to and returns given if is for with this that value when it in an error nil")
    folders = ["".join(rng.choice(syllables) for _ in range(2)) for _ in range(300)]
    files = [f"{rng.choice(folders)}/{rng.choice(folders)}/{rng.choice(vocabulary)}.go" for _ in range(9000)]
    names, qualified_names, paths, docs = [], [], [], []
    for _ in range(count):
        parts = [rng.choice(vocabulary) for _ in range(rng.randint(1, 4))]
        name = parts[0] + "".join(p.capitalize() for p in parts[1:]) if rng.random() < 0.7 else "_".join(parts)
        path = rng.choice(files)
        names.append(name)
        paths.append(path)
        qualified_names.append(f"example.com/{path.rsplit('/', 1)[0]}.{rng.choice(vocabulary).capitalize()}.{name}")
        size = rng.randint(6, 25) if rng.random() < 0.6 else 0
        docs.append(" ".join(rng.choice(vocabulary if rng.random() < 0.5 else english) for _ in range(size)))
    return names, qualified_names, paths, docs, vocabulary


@pytest.mark.skipif(os.environ.get("KIVGRAPH_PERF") != "1", reason="timing check; set KIVGRAPH_PERF=1 to run")
def test_build_and_search_meet_the_100k_symbol_budget(capsys: pytest.CaptureFixture[str]) -> None:
    names, qualified_names, paths, docs, vocabulary = synthetic_corpus(100_000)
    started = time.perf_counter()
    index = IntentIndex.build(names, qualified_names, paths, docs)
    build_seconds = time.perf_counter() - started
    rng = random.Random(1)
    queries = [
        [rng.choice(vocabulary[:60] if rng.random() < 0.5 else vocabulary) for _ in range(rng.randint(1, 4))]
        for _ in range(300)
    ]
    timings: list[float] = []
    for query in queries:
        started = time.perf_counter()
        index.search(query)
        timings.append(time.perf_counter() - started)
    timings.sort()
    p50, p95 = statistics.median(timings), timings[int(0.95 * len(timings))]
    with capsys.disabled():
        print(
            f"\nintent index, 100k symbols: build {build_seconds:.3f} s, search p50 {p50 * 1000:.2f} ms, "
            f"p95 {p95 * 1000:.2f} ms, max {timings[-1] * 1000:.2f} ms"
        )
    assert build_seconds <= 1.5
    assert p50 <= 0.030
