#!/usr/bin/env python3
"""Finds Swift code that compiles on Linux but would break another platform's build.

Usage: check_platform.py FILE...   (prints one line per finding, exits 1 if any)

The package is developed on Linux and must also compile on macOS, so the rules
look for what Linux accepts and macOS does not (and a few of the converse):

  glibc-qualified      `Glibc.`/`Musl.`-qualified names anywhere (the project's rule:
                       call the function unqualified, imported under a guard)
  darwin-qualified     `Darwin.`-qualified names outside a Darwin-only branch
  unguarded-import     `import Glibc`/`Musl` outside a Linux-only branch, `import Darwin`
                       outside a Darwin-only branch, `import FoundationNetworking` /
                       `FoundationEssentials` outside `#if canImport(<that module>)`
  glibc-only-import    a file importing Glibc with neither Darwin nor Foundation
                       (its C calls would be unresolved on macOS)
  linux-only-api       a Linux-only C name (MSG_NOSIGNAL, epoll_*, st_mtim, ...)
                       outside a Linux-only branch
  darwin-only-api      a Darwin-only C name (SO_NOSIGPIPE, st_mtimespec, ...)
                       outside a Darwin-only branch
  socket-type          SOCK_STREAM/SOCK_DGRAM/...: an enum on Glibc
                       (`Int32(SOCK_STREAM.rawValue)`), an Int32 on Darwin, so every
                       use must sit in a platform branch
  platform-signature   C functions whose signature differs (strerror_r,
                       pthread_setname_np) outside a platform branch

A "Linux-only branch" is a `#if`/`#elseif` whose condition holds only off Darwin
(each `||` alternative has a positive `canImport(Glibc)`, `canImport(Musl)`,
`os(Linux)`, ... or a negated `canImport(Darwin)`), or any later branch of a chain whose earlier
condition holds on every Darwin platform (`#if canImport(Darwin) ... #else`).
A "Darwin-only branch" is the mirror image. Comments and string literals are
ignored.
"""
import re
import sys

LINUX_ATOMS = re.compile(r"(!?)\s*(canImport\((?:Glibc|Musl|Android|FoundationNetworking)\)|os\((?:Linux|Android)\))")
DARWIN_ATOMS = re.compile(r"(!?)\s*(canImport\((?:Darwin|ObjectiveC)\)|os\((?:macOS|iOS|tvOS|watchOS|visionOS)\)|_runtime\(_ObjC\))")
DARWIN_COVERING = re.compile(r"^\s*(canImport\((?:Darwin|ObjectiveC)\)|_runtime\(_ObjC\))\s*$")
LINUX_COVERING = re.compile(r"^\s*(canImport\((?:Glibc|Musl)\)|os\(Linux\))\s*$")

LINUX_ONLY_API = [
    "MSG_NOSIGNAL", "SOCK_CLOEXEC", "SOCK_NONBLOCK", "O_TMPFILE", "O_PATH", "O_DIRECT",
    "epoll_create", "epoll_create1", "epoll_ctl", "epoll_wait", "EPOLLIN", "EPOLLOUT",
    "inotify_init", "inotify_init1", "inotify_add_watch", "eventfd", "signalfd",
    "timerfd_create", "timerfd_settime", "accept4", "pipe2", "dup3", "memfd_create",
    "getrandom", "sendfile", "prctl", "gettid", "secure_getenv", "sched_getaffinity",
    "malloc_usable_size", "mallinfo", "mallinfo2", "__errno_location", "CLOCK_BOOTTIME",
    "CLOCK_MONOTONIC_COARSE", "CLOCK_REALTIME_COARSE", "st_mtim", "st_atim", "st_ctim",
    "TCP_KEEPIDLE", "SO_PEERCRED", "SYS_getrandom", "posix_fadvise", "SOL_TCP", "sem_init",
]
DARWIN_ONLY_API = [
    "SO_NOSIGPIPE", "st_mtimespec", "st_atimespec", "st_ctimespec", "st_birthtimespec",
    "mach_absolute_time", "mach_timebase_info", "kqueue", "kevent", "os_unfair_lock",
    "os_unfair_lock_lock", "malloc_size", "TCP_KEEPALIVE", "F_FULLFSYNC", "sin_len", "sin6_len",
    "sun_len", "d_namlen",
    "CCRandomGenerateBytes", "SecRandomCopyBytes",
]
SOCKET_TYPES = ["SOCK_STREAM", "SOCK_DGRAM", "SOCK_RAW", "SOCK_SEQPACKET", "SOCK_RDM"]
# Same name, different C signature: GNU strerror_r returns the text, XSI (Darwin) an
# Int32; pthread_setname_np takes (thread, name) on Linux and (name) on Darwin.
DIFFERENT_SIGNATURES = ["strerror_r", "pthread_setname_np"]


def strip_comments_and_strings(text):
    """The text with comments and string-literal contents blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    depth = 0  # nested /* */
    while i < n:
        c = text[i]
        if depth:
            if text.startswith("/*", i):
                depth += 1; out.append("  "); i += 2
            elif text.startswith("*/", i):
                depth -= 1; out.append("  "); i += 2
            else:
                out.append("\n" if c == "\n" else " "); i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif text.startswith("/*", i):
            depth = 1; out.append("  "); i += 2
        elif c == '"' or (c == "#" and re.match(r'#+"', text[i:])):
            # (raw) string literal, single- or multi-line; interpolations are blanked too.
            m = re.match(r'(#*)("""|")', text[i:])
            hashes, quote = m.group(1), m.group(2)
            close = quote + hashes
            j = i + len(hashes) + len(quote)
            while j < n and not text.startswith(close, j):
                if text[j] == "\\" and not hashes:
                    j += 1
                if quote == '"' and j < n and text[j] == "\n":
                    break  # unterminated: stop at the end of the line
                j += 1
            j = min(n, j + len(close))
            out.append(quote)
            out.append("".join("\n" if ch == "\n" else " " for ch in text[i + 1:j - 1]))
            out.append(quote)
            i = j
        else:
            out.append(c); i += 1
    return "".join(out)


def excludes(condition, own_atoms, other_atoms):
    """Whether `condition` can only hold off the `other` platform family: each of its
    `||` alternatives has a positive atom of its own family or a negated one of the other."""
    alternatives = condition.split("||")
    if len(alternatives) > 1:
        return all(excludes(part, own_atoms, other_atoms) for part in alternatives)
    for negated, _ in own_atoms.findall(condition):
        if not negated:
            return True
    for negated, _ in other_atoms.findall(condition):
        if negated:
            return True
    return False


class Branch:
    def __init__(self):
        self.previous = []  # conditions of the earlier branches of this #if chain
        self.condition = None  # None for #else
        self.canimport = set()  # modules a positive canImport(X) (no ||) guarantees

    def set(self, condition):
        self.condition = condition
        self.canimport = set() if condition is None or "||" in condition else \
            set(re.findall(r"(?<!!)canImport\((\w+)\)", condition))

    def off_darwin(self):
        if self.condition is not None and excludes(self.condition, LINUX_ATOMS, DARWIN_ATOMS):
            return True
        return any(DARWIN_COVERING.match(p) for p in self.previous)

    def off_linux(self):
        if self.condition is not None and excludes(self.condition, DARWIN_ATOMS, LINUX_ATOMS):
            return True
        return any(LINUX_COVERING.match(p) for p in self.previous)


def check(path, text):
    findings = []
    code = strip_comments_and_strings(text)
    stack = []
    imports = set()
    glibc_import_line = None
    # (A C name may follow a dot: `info.st_mtim`.)
    word = lambda names: re.compile(r"(?<!\w)(" + "|".join(map(re.escape, names)) + r")\b")
    linux_api, darwin_api, socket_types = word(LINUX_ONLY_API), word(DARWIN_ONLY_API), word(SOCKET_TYPES)
    signatures = word(DIFFERENT_SIGNATURES)
    for number, line in enumerate(code.split("\n"), start=1):
        stripped = line.strip()
        directive = re.match(r"#(if|elseif|else|endif)\b\s*(.*)", stripped)
        if directive:
            kind, condition = directive.group(1), directive.group(2).strip()
            if kind == "if":
                branch = Branch(); branch.set(condition); stack.append(branch)
            elif stack and kind == "elseif":
                stack[-1].previous.append(stack[-1].condition or ""); stack[-1].set(condition)
            elif stack and kind == "else":
                stack[-1].previous.append(stack[-1].condition or ""); stack[-1].set(None)
            elif stack and kind == "endif":
                stack.pop()
            continue
        off_darwin = any(b.off_darwin() for b in stack)
        off_linux = any(b.off_linux() for b in stack)
        guaranteed = set().union(*(b.canimport for b in stack)) if stack else set()

        def report(rule, message):
            findings.append((path, number, rule, message))

        imported = re.match(r"(?:@[\w()]+\s+)*import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?(\w+)", stripped)
        if imported:
            module = imported.group(1)
            imports.add(module)
            if module in ("Glibc", "Musl"):
                glibc_import_line = glibc_import_line or number
                if not off_darwin:
                    report("unguarded-import", f"import {module} outside #if canImport({module})")
            elif module == "Darwin" and not off_linux:
                report("unguarded-import", "import Darwin outside #if canImport(Darwin)")
            elif module in ("FoundationNetworking", "FoundationEssentials") and module not in guaranteed and not off_darwin:
                report("unguarded-import", f"import {module} outside #if canImport({module}) (no such module on Darwin)")
            continue
        for match in re.finditer(r"(?<![\w.])(Glibc|Musl)\s*\.\s*\w+", line):
            report("glibc-qualified", f"{match.group(0).replace(' ', '')}: call it unqualified, with Glibc imported under #if canImport(Glibc)")
        if not off_linux:
            for match in re.finditer(r"(?<![\w.])Darwin\s*\.\s*\w+", line):
                report("darwin-qualified", f"{match.group(0).replace(' ', '')} outside #if canImport(Darwin)")
        if not off_darwin:
            for match in linux_api.finditer(line):
                report("linux-only-api", f"{match.group(1)} is Linux-only: put it under #if canImport(Glibc) with a Darwin branch")
        if not off_linux:
            for match in darwin_api.finditer(line):
                report("darwin-only-api", f"{match.group(1)} is Darwin-only: put it under #if canImport(Darwin)")
        if not off_darwin and not off_linux:
            for match in socket_types.finditer(line):
                report("socket-type", f"{match.group(1)} has a different type on Glibc (enum) and Darwin (Int32): use it in a platform branch")
            for match in signatures.finditer(line):
                report("platform-signature", f"{match.group(1)} has a different signature on Glibc and Darwin: call it in a platform branch")
    if glibc_import_line and not ({"Darwin", "Foundation"} & imports):
        findings.append((path, glibc_import_line, "glibc-only-import",
                         "imports Glibc but neither Darwin nor Foundation: its C calls do not resolve on macOS"))
    return findings


def main(paths):
    findings = []
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as handle:
            findings += check(path, handle.read())
    for path, number, rule, message in findings:
        print(f"{path}:{number}: [{rule}] {message}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
