from kivgraph.model import canonical_identity, is_stable_key, stable_key


def test_a_key_is_52_base32_characters_without_padding():
    key = stable_key(canonical_identity("go", "repo", "m p", "", "Server.Start", "method", ""))
    assert len(key) == 52
    assert is_stable_key(key)
    assert "=" not in key


def test_every_identity_field_changes_the_key():
    base = ("go", "repo", "m p", "a.go", "Server.Start", "method", "sig")
    keys = {stable_key(canonical_identity(*base))}
    for position in range(len(base)):
        changed = list(base)
        changed[position] = changed[position] + "x"
        keys.add(stable_key(canonical_identity(*changed)))
    assert len(keys) == len(base) + 1


def test_length_prefixes_keep_shifted_fields_apart():
    left = canonical_identity("go", "ab", "c", "", "q", "k", "")
    right = canonical_identity("go", "a", "bc", "", "q", "k", "")
    assert stable_key(left) != stable_key(right)
