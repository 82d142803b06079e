"""Checks a source distribution holds what building the package needs.

`pip install ferroflow-*.tar.gz` builds the whole Rust workspace from the sdist alone, so
it must carry every crate the extension links (the workspace's members and the patched
third-party crate `[patch.crates-io]` points to), the protos the build compiles, the lock
file and the Python package; a missing one fails only on a user's machine. Run by .ci/run
after `maturin sdist`.

Usage: python .ci/check_sdist.py ferroflow-X.Y.Z.tar.gz
"""

from __future__ import annotations

import sys
import tarfile
import tomllib

REQUIRED = [
    "pyproject.toml",
    "Cargo.toml",
    "Cargo.lock",
    "README.md",
    "rust/vendor/gemm-common/Cargo.toml",
    "rust/vendor/gemm-common/src/gemm.rs",
    "proto/ferroflow/proto/tensor.proto",
    "python/ferroflow/__init__.py",
    "python/ferroflow/_ferroflow.pyi",
    "python/ferroflow/py.typed",
]


def main(path: str) -> int:
    with tarfile.open(path) as sdist:
        names = sdist.getnames()
        root = names[0].split("/")[0]
        files = {n[len(root) + 1 :] for n in names if n.startswith(root + "/")}
        workspace = tomllib.load(sdist.extractfile(f"{root}/Cargo.toml"))  # type: ignore[arg-type]
    missing = [f for f in REQUIRED if f not in files]
    # Every workspace member and every [patch] path must have its manifest inside.
    for member in workspace["workspace"]["members"]:
        if f"{member}/Cargo.toml" not in files:
            missing.append(f"{member}/Cargo.toml (a workspace member)")
    for source in workspace.get("patch", {}).values():
        for crate, spec in source.items():
            if "path" in spec and f"{spec['path']}/Cargo.toml" not in files:
                missing.append(f"{spec['path']}/Cargo.toml (the [patch] of {crate})")
    protos = sorted(f for f in files if f.endswith(".proto"))
    print(f"{path}: {len(files)} files, {len(protos)} protos; members {workspace['workspace']['members']}")
    if missing:
        print("missing from the sdist:\n  " + "\n  ".join(missing))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
