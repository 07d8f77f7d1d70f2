#!/usr/bin/env python3
"""Lists the references in Sources/ModelStore that go up the layers.

The folders of Sources/ModelStore are layers (../shared/DESIGN.md): each may
use only the ones before it in ORDER. For each folder this collects the names
it declares (types, type aliases, free functions) and searches the earlier
folders' code (comments and string literals removed) for them. A name
declared in several folders is skipped and listed. Members that a folder adds
in an extension of a lower type are not checked.

Usage: Tools/check-layers.py [ROOT [Folder,Folder,...]]
Prints one line per upward reference; exits 1 when there is any.
"""
import os
import re
import sys
from collections import Counter

ROOT = sys.argv[1] if len(sys.argv) > 1 else "Sources/ModelStore"
ORDER = sys.argv[2].split(",") if len(sys.argv) > 2 else [
    "Support", "SQLite", "Schema", "Model", "Context", "Query", "Migration"]

IDENT = r"[A-Za-z_$][\w$]*"
TYPE_DECL = re.compile(
    r"^\s*(?:@[\w()\".:, ]+\s+)*(?:(?:public|package|internal|private|fileprivate|final|indirect|nonisolated|open)\s+)*"
    rf"(?:class|struct|enum|protocol|actor)\s+({IDENT})"
    rf"|^(?:(?:public|package|internal|private|fileprivate)\s+)*typealias\s+({IDENT})", re.M)
FREE_FUNC = re.compile(rf"^(?:(?:public|package|internal|@\w+)\s+)*func\s+({IDENT})\s*(?:<[^>]*>)?\(([^)]*)\)", re.M)
PRIVATE_TYPE = re.compile(r"private\s+(?:enum|struct|class)\s+(\w+)")


def strip(source):
    """The code without comments and string literals."""
    source = re.sub(r"/\*.*?\*/", "", source, flags=re.S)
    source = re.sub(r"//[^\n]*", "", source)
    source = re.sub(r'""".*?"""', '""', source, flags=re.S)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', source)


# Unsafe/ is no layer of its own: it holds the object model's unsafe code
# in one place (its invariants are written there), so it counts as Model.
MEMBERS = {"Model": ["Model", "Unsafe"]}

files = {}
for folder in ORDER:
    files[folder] = {}
    for directory, _, names in (entry for member in MEMBERS.get(folder, [folder])
                                for entry in os.walk(os.path.join(ROOT, member))):
        for name in names:
            if name.endswith(".swift"):
                path = os.path.join(directory, name)
                with open(path) as handle:
                    files[folder][path] = strip(handle.read())

declared = {}
labels = {}  # free function -> its argument labels, to tell its calls from a method's
for folder in ORDER:
    names = set()
    for source in files[folder].values():
        names |= {a or b for a, b in TYPE_DECL.findall(source)}
        for name, parameters in FREE_FUNC.findall(source):
            names.add(name)
            labels[name] = [p.split()[0] for p in parameters.split(",") if p.strip() and p.split()[0] != "_"]
    # a private helper type is its file's, not the folder's
    names -= {n for source in files[folder].values() for n in PRIVATE_TYPE.findall(source)}
    declared[folder] = names - {"func", "var", "let"}

count = Counter(name for folder in ORDER for name in declared[folder])
upward = 0
for index, upper in enumerate(ORDER):
    for lower in ORDER[:index]:
        for name in sorted(declared[upper]):
            if count[name] > 1:
                continue
            is_function = name in labels
            pattern = re.compile(r"(?<![\w$.])" + re.escape(name) + (r"\s*\(" if is_function else r"(?![\w$])"))
            own = re.compile(r"(?:class|struct|enum|protocol|actor|typealias|func)\s+" + re.escape(name) + r"(?![\w$])")
            hits = []
            for path, source in files[lower].items():
                if own.search(source):
                    continue
                for match in pattern.finditer(source):
                    call = source[match.end():match.end() + 300]
                    if not is_function or all(label + ":" in call for label in labels[name]):
                        hits.append(path)
                        break
            if hits:
                upward += 1
                print(f"{lower} -> {upper}: {name} in " + ", ".join(os.path.relpath(h, ROOT) for h in sorted(hits)))

ambiguous = sorted(name for name in count if count[name] > 1)
if ambiguous:
    print("not checked (declared in several folders):", ", ".join(ambiguous))
print("upward references:", upward)
sys.exit(1 if upward else 0)
