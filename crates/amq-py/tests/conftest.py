"""Shared fixtures: the repository's golden vectors, the `amq` command line, and a fixed
hypothesis profile (derandomized: the same examples on every run, so CI cannot flake)."""

import json
import os
import pathlib
import subprocess

import pytest
from hypothesis import HealthCheck, settings

REPO = pathlib.Path(__file__).resolve().parents[3]
VECTORS = REPO / "tests" / "vectors"

settings.register_profile(
    "amq",
    derandomize=True,
    deadline=None,
    max_examples=int(os.environ.get("AMQ_HYPOTHESIS_EXAMPLES", "100")),
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.load_profile("amq")


def vector(path: str):
    """A golden vector file of tests/vectors/, parsed."""
    return json.loads((VECTORS / path).read_text())


@pytest.fixture(scope="session")
def amq_cli() -> pathlib.Path:
    """The `amq` binary: $AMQ_CLI, or target/debug/amq (`cargo build -p amq-cli`). A missing
    binary is an error, not a skip: the byte-identity tests must run."""
    path = pathlib.Path(os.environ.get("AMQ_CLI", REPO / "target" / "debug" / "amq"))
    if not path.is_file():
        pytest.fail(f"{path} not found: run `cargo build -p amq-cli` or set AMQ_CLI")
    return path


@pytest.fixture(scope="session")
def workdir(tmp_path_factory) -> pathlib.Path:
    """A directory for the files of the command-line tests (session-scoped, so hypothesis
    tests can use it; each example overwrites its files)."""
    return tmp_path_factory.mktemp("cli")


@pytest.fixture(scope="session")
def run_cli(amq_cli, workdir):
    """Runs `amq ARGS...` with optional stdin bytes; returns stdout bytes (checks the exit
    status against `ok`, 0 by default)."""

    def run(*args, stdin: bytes = b"", ok=(0,)):
        p = subprocess.run(
            [str(amq_cli), *map(str, args)],
            input=stdin,
            capture_output=True,
            cwd=workdir,
            timeout=120,
        )
        assert p.returncode in ok, (args, p.returncode, p.stderr.decode(errors="replace"))
        return p.stdout

    return run


def hex_lines(items) -> bytes:
    """Items as `--hex` input: one hex line each (an empty line is the empty item)."""
    return b"".join(bytes(i).hex().encode() + b"\n" for i in items)
