#!/usr/bin/env python3
"""Repairs the documentation links that DocC could not resolve because their target lives in
another module: a doc comment or article of OIDC writing ``OIDCError`` or ``OIDC/OIDCError``
after `OIDCError` moved to OIDCCore.

    bash Tests/Docs/build.sh; python3 Tests/Docs/link-across-modules.py [--dry-run]

Reads the per-module DocC logs that Tests/Docs/build.sh leaves in .build/docs/<Module>.log
and, for each "'X' doesn't exist" warning, rewrites the link at the reported place:

- to a link under the extended module, ``OIDCCore/OIDCError/Code/unencryptedIDToken``, when the
  symbol is the documented module's own extension of another module's type;
- to an absolute link, ``/OIDCCore/OIDCError``, when a module the documented one depends on
  has that symbol (build.sh converts with those modules' archives as dependencies, so the
  link resolves and renders);
- to code voice, `OIDCClient`, when the symbol is in a module the documented one does not
  depend on (OIDCCore cannot link to OIDC) or exists nowhere (a renamed symbol); these are
  listed, so that a renamed one can be linked again by its new name.

Run build.sh again afterwards: it must report 0 warnings.
"""
import glob
import json
import os
import re
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DOCS = os.path.join(ROOT, ".build", "docs")
GRAPHS = os.path.join(DOCS, "symbol-graphs")
WARNING = re.compile(r"^warning: '([^']+)' doesn't exist at '([^']*)'")
PLACE = re.compile(r"^\s*--> (.+?):(\d+):(\d+)-\d+:\d+")
LINK = re.compile(r"``([^`\n]+)``")


def manifest():
    text = subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout
    return json.loads(text)


def library_dependencies(package):
    library = []
    for product in package["products"]:
        if "library" in product["type"]:
            library += [t for t in product["targets"] if t not in library]
    direct = {}
    for target in package["targets"]:
        names = []
        for dependency in target.get("dependencies", []):
            for value in dependency.values():
                names.append(value[0] if isinstance(value, list) else value)
        direct[target["name"]] = names

    def closure(name, seen):
        for dependency in direct.get(name, []):
            if dependency not in seen:
                seen.add(dependency)
                closure(dependency, seen)
        return seen
    return {name: {d for d in closure(name, set()) if d in library} for name in library}


def symbol_paths(module):
    """Every documented path of a module's own graph: ("OIDCError", "category")."""
    paths = set()
    for symbol in json.load(open(os.path.join(GRAPHS, module, f"{module}.symbols.json")))["symbols"]:
        paths.add(tuple(symbol["pathComponents"]))
    return paths


def extension_paths(module):
    """The paths of a module's extensions of other modules' types, by extended module:
    OIDC's codes on OIDCCore's `OIDCError.Code` are {("OIDCError", "Code", "unsupportedTokenType"): "OIDCCore"}."""
    paths = {}
    for path in glob.glob(os.path.join(GRAPHS, module, f"{module}@*.symbols.json")):
        extended = os.path.basename(path)[len(module) + 1:-len(".symbols.json")]
        for symbol in json.load(open(path))["symbols"]:
            paths[tuple(symbol["pathComponents"])] = extended
    return paths


def plain(components):
    """A link's components without DocC's disambiguation suffixes (`category-swift.property`)."""
    return tuple(re.sub(r"-(swift\.[a-z.]+|[0-9a-f]{3,})$", "", c) for c in components)


def rewrite(match, module, dependencies, paths, extensions):
    """The link's replacement, and whether it is still a link."""
    components = match.group(1).lstrip("/").split("/")
    if components[0] in dependencies:
        components = components[1:]
    wanted = plain(components)
    extended = next((e for p, e in extensions[module].items() if plain(p) == wanted), None)
    home = next((d for d in [module] + sorted(dependencies[module])
                 if any(plain(p) == wanted for p in paths[d])), None)
    if extended:  # the module's own extension of another module's type: under the extended module
        return "``" + extended + "/" + "/".join(components) + "``", True
    if home == module:  # its own symbol under a wrong module prefix: ``OIDC/JWKSetCache`` in OIDCCore
        return "``" + "/".join(components) + "``", True
    if home:
        return "``/" + home + "/" + "/".join(components) + "``", True
    return "`" + ".".join(wanted) + "`", False


def main():
    dry_run = "--dry-run" in sys.argv
    dependencies = library_dependencies(manifest())
    paths = {module: symbol_paths(module) for module in dependencies}
    extensions = {module: extension_paths(module) for module in dependencies}
    edits = {}  # file -> {line: [(column, module)]}
    for module in dependencies:
        log = os.path.join(DOCS, f"{module}.log")
        if not os.path.exists(log):
            continue
        lines = open(log).read().split("\n")
        for index, line in enumerate(lines):
            if not WARNING.match(line):
                continue
            place = next((PLACE.match(l) for l in lines[index + 1:index + 3] if PLACE.match(l)), None)
            if not place:
                continue
            catalog = os.path.join(ROOT, "Sources", module, f"{module}.docc")
            path = os.path.normpath(os.path.join(catalog, place.group(1)))
            entry = (int(place.group(3)), module, WARNING.match(line).group(1))
            spots = edits.setdefault(path, {}).setdefault(int(place.group(2)), [])
            if entry not in spots:
                spots.append(entry)

    unlinked = []
    for path, by_line in sorted(edits.items()):
        text = open(path).read().split("\n")
        for number, spots in by_line.items():
            line = text[number - 1]
            links = list(LINK.finditer(line))
            chosen = {}
            for column, module, name in spots:
                # Only a symbol link naming the missing component (a <doc:> link is left alone).
                named = [m for m in links if name in plain(m.group(1).lstrip("/").split("/"))]
                if not named:
                    continue
                match = min(named, key=lambda m: abs(m.start() + 2 - (column - 1)))
                chosen[match.start()] = (match, module)
            # DocC may report one link of a line per run: the line's other links into another module
            # are rewritten with it (never a link that names no other module's symbol).
            module_of_line = spots[0][1]
            for match in links:
                if match.start() not in chosen and not match.group(1).startswith("/"):
                    replacement, linked = rewrite(match, module_of_line, dependencies, paths, extensions)
                    if linked and replacement != match.group(0):
                        chosen[match.start()] = (match, module_of_line)
            for start in sorted(chosen, reverse=True):
                match, module = chosen[start]
                replacement, linked = rewrite(match, module, dependencies, paths, extensions)
                if not linked:
                    unlinked.append(f"{os.path.relpath(path, ROOT)}:{number}: {match.group(0)} -> {replacement}")
                line = line[:match.start()] + replacement + line[match.end():]
            text[number - 1] = line
        if not dry_run:
            open(path, "w").write("\n".join(text))
        print(f"{'would fix' if dry_run else 'fixed'} {os.path.relpath(path, ROOT)}")
    if unlinked:
        print("\nMade code voice (another module's symbol this one cannot link to, or no such symbol):")
        print("\n".join(unlinked))


if __name__ == "__main__":
    main()
