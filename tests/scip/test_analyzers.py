"""Starting analyzers: output captured whatever the rest of the process does meanwhile."""

import multiprocessing
import subprocess
import threading
import time

import pytest

from kivgraph.scip.analyzers import run_tool


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # 3.12+ warns of fork beside threads, as the parse pool does
def test_a_fork_while_a_tool_starts_does_not_hold_up_reading_its_output(monkeypatch: pytest.MonkeyPatch):
    starting, forked = threading.Event(), threading.Event()
    execute = subprocess.Popen._execute_child  # type: ignore[attr-defined]  # private: the moment the pipes exist

    def execute_late(self: subprocess.Popen[str], *args: object, **kwargs: object) -> None:
        starting.set()  # the output pipes are open, the child not yet started: fork now
        forked.wait(0.5)
        execute(self, *args, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "_execute_child", execute_late)
    took: list[float] = []

    def tool() -> None:
        began = time.monotonic()
        assert run_tool(["echo", "done"], None, 30).stdout == "done\n"
        took.append(time.monotonic() - began)

    thread = threading.Thread(target=tool)
    thread.start()
    assert starting.wait(5)
    lingering = multiprocessing.get_context("fork").Process(target=time.sleep, args=(10,))
    lingering.start()  # a parse worker, forked as the tool starts, living on for a while
    forked.set()
    thread.join(8)
    lingering.terminate()
    lingering.join()
    assert took and took[0] < 5  # not the ten seconds until the forked process exits
