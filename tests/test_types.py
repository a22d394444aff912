"""Types are checked like behaviour: pyright in strict mode over the package (pyrightconfig.json)."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_the_package_passes_pyright_strict():
    pyright = shutil.which("pyright", path=str(Path(sys.executable).parent)) or shutil.which("pyright")
    assert pyright is not None, "pyright is a test dependency: scripts/test.sh installs it"
    done = subprocess.run([pyright], cwd=ROOT, capture_output=True, text=True, encoding="utf-8", timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
