#!/usr/bin/env python3
"""Estimate the deploy/Dockerfile runtime image's size without Docker (prints markdown).

Method: the runtime stage is debian:bookworm-slim + `apt-get install --no-install-recommends`
of the packages named in the Dockerfile + the stripped stream-server binary. The slim
base is a debootstrap "minbase": the Priority: required packages and their dependency
closure. The packages the RUN line adds are its packages' dependency closure (Depends +
Pre-Depends, no Recommends) minus that base closure; their sizes are Debian's
Installed-Size (KiB) from apt-cache for the candidate versions (the apt lists of this
Debian 12 host). The binary is stripped into a temporary copy.
"""
import argparse
import os
import re
import shutil
import subprocess
import tempfile

SLIM_BASE_MB = (74, 80)  # debian:bookworm-slim, uncompressed, as published (docker image ls)


def run(*argv):
    return subprocess.run(argv, check=True, capture_output=True, text=True, timeout=120).stdout


def closure(packages):
    out = run("apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests", "--no-conflicts",
              "--no-breaks", "--no-replaces", "--no-enhances", *packages)
    return {line.strip() for line in out.splitlines() if line and not line.startswith((" ", "<"))}


def installed_size_kib(packages):
    sizes = {}
    out = run("apt-cache", "show", "--no-all-versions", *sorted(packages))
    package = None
    for line in out.splitlines():
        if line.startswith("Package: "):
            package = line.split()[1]
        elif line.startswith("Installed-Size: ") and package:
            sizes[package] = int(line.split()[1])
    return sizes


def dockerfile_packages(path):
    text = open(path).read()
    runtime = text.split("FROM ${RUNTIME_IMAGE}", 1)[1]
    match = re.search(r"--no-install-recommends\s*\\?\s*\n?\s*([^\\&\n]+)", runtime)
    return match.group(1).split()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dockerfile", default=os.path.join(os.path.dirname(__file__), "..", "Dockerfile"))
    p.add_argument("--binary", required=True, help="release stream-server (this build)")
    p.add_argument("--static-binary", help="one built with --static-swift-stdlib, as the Dockerfile does")
    a = p.parse_args()

    wanted = dockerfile_packages(a.dockerfile)
    dump = run("apt-cache", "dumpavail")
    required, package = set(), None
    for line in dump.splitlines():
        if line.startswith("Package: "):
            package = line.split()[1]
        elif line == "Priority: required" and package:
            required.add(package)
    base = closure(sorted(required))
    added = sorted(closure(wanted) - base)
    sizes = installed_size_kib(added)
    added_kib = sum(sizes.values())

    def stripped(path):
        with tempfile.TemporaryDirectory() as d:
            copy = os.path.join(d, "stream-server")
            shutil.copy(path, copy)
            before = os.path.getsize(copy)
            run("strip", copy)
            return before, os.path.getsize(copy)

    binaries = [("this build (Swift runtime linked dynamically)", a.binary)]
    if a.static_binary:
        binaries.append(("`--static-swift-stdlib`, as the Dockerfile builds it", a.static_binary))
    measured = [(label, *stripped(path)) for label, path in binaries]
    image_binary = measured[-1][2]
    mb = lambda b: b / 1e6  # noqa: E731

    print("## Container image size (estimate, no Docker)")
    print()
    print(__doc__.split("\n\n", 1)[1].strip())
    print()
    print(f"Runtime packages in the Dockerfile: {', '.join(wanted)}.")
    print(f"Base closure (Priority: required + dependencies): {len(required)} required packages, {len(base)} with"
          " their dependencies. `apt-cache depends` lists every alternative of an `a | b` dependency, so this is"
          " a superset of what the slim image holds; it is only used to subtract what the base already has"
          " (here: " + ", ".join(sorted(closure(wanted) & base)) + "; the Dockerfile's comment says the same"
          " libraries are in the slim image). The base's own size is taken as published,"
          " {}–{} MB.".format(*SLIM_BASE_MB))
    print()
    print("| added package | Installed-Size |")
    print("|---|---|")
    for name in added:
        print(f"| {name} | {sizes.get(name, 0)} KiB |")
    print(f"| **total added** | **{added_kib} KiB ({added_kib * 1024 / 1e6:.1f} MB)** |")
    print()
    print("| stream-server binary | unstripped | stripped |")
    print("|---|---|---|")
    for label, before, after in measured:
        print(f"| {label} | {mb(before):.1f} MB | {mb(after):.1f} MB |")
    print()
    low = SLIM_BASE_MB[0] + added_kib * 1024 / 1e6 + mb(image_binary)
    high = SLIM_BASE_MB[1] + added_kib * 1024 / 1e6 + mb(image_binary)
    print(f"Estimate: {SLIM_BASE_MB[0]}–{SLIM_BASE_MB[1]} MB (slim base) + {added_kib * 1024 / 1e6:.1f} MB (packages)"
          f" + {mb(image_binary):.1f} MB (binary) ≈ **{low:.0f}–{high:.0f} MB uncompressed**, plus a few hundred kB"
          " of dpkg/apt state and logs the RUN layer leaves (the apt lists are removed in the same layer).")
    if not a.static_binary:
        print("The binary here is not the image's: the Dockerfile links the Swift runtime and Foundation"
              " statically, which is larger (its own comment says about 59 MB stripped); pass --static-binary.")


if __name__ == "__main__":
    main()
