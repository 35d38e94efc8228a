#!/usr/bin/env python3
"""Every module a Swift target imports must be declared in its package manifest.

Usage: check_imports.py PACKAGE_DIR...   (prints one line per finding, exits 1 if any)

SwiftPM on Linux lets a target import a module it reaches only transitively (OIDCSession
importing JOSE through OIDC); other build modes and platforms do not. Each package's
manifest is read with `swift package dump-package`; a target may import its declared
dependencies (targets, products), itself, and the toolchain's and platforms' own modules.
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_platform import strip_comments_and_strings  # noqa: E402

TOOLCHAIN = {
    "Swift", "_Concurrency", "_StringProcessing", "RegexBuilder", "Synchronization", "Observation",
    "Distributed", "Foundation", "FoundationEssentials", "FoundationInternationalization",
    "FoundationNetworking", "FoundationXML", "Dispatch", "XCTest", "Testing", "Glibc", "Musl",
    "Darwin", "Android", "WinSDK", "ucrt", "CRT", "os", "CoreFoundation", "SwiftGlibc",
}
IMPORT = re.compile(r"^\s*(?:@[\w()]+\s+)*import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?(\w+)", re.M)
DEFAULT_DIRECTORY = {"regular": "Sources", "executable": "Sources", "test": "Tests"}


def check(package):
    manifest = json.loads(subprocess.run(["swift", "package", "--package-path", package, "dump-package"],
                                         check=True, capture_output=True, text=True).stdout)
    findings = []
    for target in manifest["targets"]:
        if target["type"] not in DEFAULT_DIRECTORY:
            continue
        declared = {target["name"]}
        for dependency in target["dependencies"]:
            for kind in ("byName", "target", "product"):
                if kind in dependency:
                    declared.add(dependency[kind][0])
        directory = os.path.join(package, target.get("path") or os.path.join(DEFAULT_DIRECTORY[target["type"]], target["name"]))
        for root, _, files in os.walk(directory):
            for name in sorted(files):
                if not name.endswith(".swift"):
                    continue
                path = os.path.join(root, name)
                with open(path, encoding="utf-8", errors="replace") as handle:
                    text = strip_comments_and_strings(handle.read())
                for match in IMPORT.finditer(text):
                    module = match.group(1)
                    if module not in declared and module not in TOOLCHAIN:
                        line = text.count("\n", 0, match.start(1)) + 1
                        findings.append(f"{os.path.relpath(path)}:{line}: [undeclared-import] target {target['name']} "
                                        f"imports {module}, which its dependencies in Package.swift do not list")
    return findings


def main(packages):
    findings = [finding for package in packages for finding in check(package)]
    for finding in findings:
        print(finding)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["."]))
