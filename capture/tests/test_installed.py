"""The capture tool as a package: the console script `planezip-capture` of the copy that pip
installed (capture/ci.sh installs it into the venv), run outside the source tree without
PYTHONPATH, captures the tiny CNN into a dump."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1]


def _installed_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["HF_HUB_OFFLINE"] = "1"
    return env


def _script() -> Path:
    script = Path(sys.executable).parent / "planezip-capture"
    assert script.is_file(), f"{script} missing: install the package into this venv (capture/ci.sh does)"
    return script


def test_installed_package_is_not_the_source_tree(tmp_path):
    out = subprocess.run([sys.executable, "-c", "import capture; print(capture.__file__)"], cwd=tmp_path,
                         env=_installed_env(), capture_output=True, text=True, check=True)
    installed = Path(out.stdout.strip()).resolve()
    assert "site-packages" in installed.parts, installed
    assert SOURCE not in installed.parents, installed


def test_console_script_captures_a_model(tmp_path):
    help_text = subprocess.run([str(_script()), "--help"], cwd=tmp_path, env=_installed_env(),
                               capture_output=True, text=True, check=True).stdout
    assert help_text.startswith("usage: planezip-capture"), help_text
    dump = tmp_path / "dump"
    run = subprocess.run([str(_script()), "tiny_cnn", "--out", str(dump), "--steps", "1", "--threads", "1"],
                         cwd=tmp_path, env=_installed_env(), capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    for name in ("trace.json", "trace-train.json", "metadata.json", "iter0.safetensors", "iter2.safetensors"):
        assert (dump / name).is_file(), name
    trace = json.loads((dump / "trace.json").read_text())
    assert trace["format"] == "planezip-trace" and trace["model"] == "tiny_cnn"
    assert any(t["kind"] == "saved_activation" for t in trace["tensors"])


def test_unknown_model_is_an_error_naming_it(tmp_path):
    run = subprocess.run([str(_script()), "no_such_model"], cwd=tmp_path, env=_installed_env(),
                         capture_output=True, text=True)
    assert run.returncode == 2 and "no_such_model" in run.stderr, run.stderr
