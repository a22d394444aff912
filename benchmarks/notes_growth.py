"""How big refs/notes/kivgraph grows, with and without `notes prune`, and what a pull request fetches.

Run: .venv/bin/python benchmarks/notes_growth.py [--commits 300] [--keep 200] [--min-kb 200] [--max-kb 400]

A scratch repository gets --commits commits on main, each indexed as the index Action does it: a
note per commit, one notes commit each. The notes are synthetic: random bytes of --min-kb to
--max-kb (real generations of kivgraph-sized trees are 224–384 KB of zstd output, which neither
compresses nor deltas further, so random bytes pack like them). At 30, 100 and --commits commits
the state goes to two bare remotes over file:// with `uploadpack.allowFilter=true`: one never
pruned, one pruned with `kivgraph notes prune origin --keep N` (a parentless notes commit).

Measured at each point:
  ref packed   the bytes of `git pack-objects --revs` of refs/notes/kivgraph on the remote: what a
               clone or a full fetch of the ref moves, history included;
  PR step      the bytes received by `fetch_notes_for` (the Action's PR step) from a fresh clone of
               main, base = main's tip: depth 1 + --filter=blob:none, then the base's note blob;
               "beyond the note" is that minus the base note's own size (the notes commit and trees);
  no filter    the same against the remote with uploadpack.allowFilter off (the whole tip, no history);
  full fetch   `fetch_notes` (what the PR step did before: the whole ref with its history).
Bytes received are the packfiles git itself records with GIT_TRACE_PACKFILE (every git process of
the step appends what it received), i.e. the wire bytes of the packs, not counting protocol lines.
"""

import argparse
import os
import random
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from kivgraph.store import NOTES_REF
from kivgraph.store.git import open_repository
from kivgraph.store.notes import NotesStore
from kivgraph.store.prune import DEFAULT_KEEP, prune_notes
from kivgraph.store.sync import fetch_notes, fetch_notes_for

CHECKPOINTS = (30, 100)


def git(cwd: Path, *args: str, data: bytes | None = None) -> bytes:
    return subprocess.run(["git", *args], cwd=cwd, input=data, capture_output=True, check=True).stdout


def packed(bare: Path) -> int:
    """Bytes of the pack of everything refs/notes/kivgraph reaches (what cloning the ref moves)."""
    return len(git(bare, "pack-objects", "--revs", "--stdout", "-q", data=f"{NOTES_REF}\n".encode()))


def received(step: Callable[[], object], trace: Path) -> int:
    """Pack bytes every git process of `step` received (GIT_TRACE_PACKFILE appends them)."""
    trace.unlink(missing_ok=True)
    os.environ["GIT_TRACE_PACKFILE"] = str(trace)
    try:
        step()
    finally:
        del os.environ["GIT_TRACE_PACKFILE"]
    return trace.stat().st_size if trace.exists() else 0


def bare_remote(scratch: Path, name: str) -> Path:
    bare = scratch / name
    git(scratch, "init", "-q", "--bare", "-b", "main", name)
    git(bare, "config", "uploadpack.allowFilter", "true")
    return bare


def pr_clone(scratch: Path, bare: Path, name: str) -> Path:
    shutil.rmtree(scratch / name, ignore_errors=True)
    git(scratch, "clone", "-q", "--single-branch", "--no-tags", f"file://{bare}", name)
    return scratch / name


def measure(scratch: Path, bare: Path, tip: str, label: str) -> dict[str, int]:
    trace = scratch / "received.pack"
    figures = {"ref packed": packed(bare)}
    clone = pr_clone(scratch, bare, f"pr-{label}")
    figures["PR step"] = received(lambda: fetch_notes_for(str(clone), "origin", [tip]), trace)
    git(bare, "config", "uploadpack.allowFilter", "false")
    clone = pr_clone(scratch, bare, f"pr-{label}-nofilter")
    figures["no filter"] = received(lambda: fetch_notes_for(str(clone), "origin", [tip]), trace)
    git(bare, "config", "uploadpack.allowFilter", "true")
    clone = pr_clone(scratch, bare, f"pr-{label}-full")
    figures["full fetch"] = received(lambda: fetch_notes(str(clone), "origin"), trace)
    return figures


def mb(size: int) -> str:
    return f"{size / 1e6:,.2f} MB" if size >= 100_000 else f"{size / 1e3:,.1f} KB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--commits", type=int, default=300)
    parser.add_argument("--keep", type=int, default=DEFAULT_KEEP)
    parser.add_argument("--min-kb", type=int, default=200)
    parser.add_argument("--max-kb", type=int, default=400)
    parser.add_argument("--seed", type=int, default=12)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="kivgraph-notesgrowth-"))
    os.environ.update({"HOME": str(scratch), "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "bench",
                       "GIT_AUTHOR_EMAIL": "bench@example.invalid", "GIT_COMMITTER_NAME": "bench",
                       "GIT_COMMITTER_EMAIL": "bench@example.invalid"})  # fmt: skip
    rng = random.Random(args.seed)
    try:
        author = scratch / "author"
        git(scratch, "init", "-q", "-b", "main", "author")
        plain, pruned = bare_remote(scratch, "plain.git"), bare_remote(scratch, "pruned.git")
        store = NotesStore(open_repository(str(author)))
        checkpoints = sorted({*(c for c in CHECKPOINTS if c < args.commits), args.commits})
        rows: list[tuple[int, int, dict[str, int], dict[str, int], int, float]] = []
        total = 0
        for i in range(1, args.commits + 1):
            (author / "counter.txt").write_text(f"{i}\n", encoding="utf-8")
            git(author, "add", "counter.txt")
            git(author, "commit", "-q", "-m", f"commit {i}")
            tip = git(author, "rev-parse", "HEAD").decode().strip()
            note = rng.randbytes(rng.randint(args.min_kb, args.max_kb) * 1000)
            total += len(note)
            store.write(tip, note)
            if i not in checkpoints:
                continue
            for bare in (plain, pruned):
                git(author, "push", "-q", "-f", str(bare), "main", f"+{NOTES_REF}:{NOTES_REF}")
            ci = pr_clone(scratch, pruned, "ci")
            started = time.monotonic()
            result = prune_notes(str(ci), "origin", args.keep)
            elapsed = time.monotonic() - started
            rows.append((i, len(note), measure(scratch, plain, tip, "plain"), measure(scratch, pruned, tip, "pruned"),
                         len(result.dropped), elapsed))  # fmt: skip
            kept, dropped = result.to_json()["kept"], result.to_json()["dropped"]
            print(f"  {i} commits: {total / 1e6:,.1f} MB of notes written; prune --keep {args.keep}: kept "
                  f"{kept['notes']} ({kept['bytes']:,} bytes), dropped {dropped['notes']} ({dropped['bytes']:,} bytes) "
                  f"in {elapsed:.2f} s", flush=True)  # fmt: skip
        print(f"\nnotes: synthetic, random bytes of {args.min_kb}–{args.max_kb} KB, one per commit of main; "
              f"prune: --keep {args.keep}; remotes: bare, file://, uploadpack.allowFilter=true")  # fmt: skip
        print("each pair: never pruned, then pruned; PR step = base note + what comes beyond it\n")
        print(
            f"{'commits':>7} | {'ref packed':>21} | {'PR step':>19} | {'beyond the note':>19} | "
            f"{'no filter':>21} | {'full fetch':>21} | {'dropped':>7} {'prune s':>7}"
        )
        for commits, note, plain_figures, pruned_figures, dropped, elapsed in rows:
            for figures in (plain_figures, pruned_figures):
                figures["beyond the note"] = figures["PR step"] - note
            cells = [f"{mb(plain_figures[k]):>{w}} {mb(pruned_figures[k]):>{w}}" for k, w in
                     (("ref packed", 10), ("PR step", 9), ("beyond the note", 9), ("no filter", 10),
                      ("full fetch", 10))]  # fmt: skip
            print(f"{commits:>7} | " + " | ".join(cells) + f" | {dropped:>7} {elapsed:>7.2f}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
