#!/usr/bin/python3
"""The layers of convcheck (docs/layers.md): every #include and every CMake link points down.

usage: check_layers.py [<source dir>]     (default: the tree this script is in)
       check_layers.py --selftest         (plants an upward include and link in a scratch tree: both must be caught)

Each top-level folder is one part, on one layer; a folder named in LAYERS below it (conformance/accuracy)
is a part of its own. A file belongs to the longest part its path starts with. A part may use its own
files and those of parts on lower layers; never a part on its own layer (siblings stay apart) or above.
Test code (a file under a `tests/` folder; in CMake, a test's program) may also use the test support in
testing/, and only test code may use the parts TESTS_ONLY names (optimized/ computes without the reference).
Checked:
  - every `#include "..."` of a C or C++ file, resolved as the compiler would see it: beside the file
    first, else the one file in the tree whose path ends with it (system <...> includes and headers
    outside the tree, such as a vendor's "dnnl.hpp", are not the project's and are left out);
  - every CMake file's use of a library or program the tree defines: target_link_libraries,
    add_dependencies, a LIBS list, $<TARGET_FILE:...>, a test's COMMAND;
  - that an ISA kernel file of the optimized part (KERNEL_FILES) reaches, through its includes, only
    headers of its own folder: the kernels see plain structs, so a change to a core header never
    recompiles them (they are the slowest files of every build, minutes each under the sanitizers).
Exit 0 when every arrow points down; 1 naming each file, line, include or target and both layers.
"""

import os
import re
import subprocess
import sys
import tempfile

# Lowest first. Parts on one line are siblings: neither may use the other.
LAYERS = [
    ["core"],                              # definitions: descriptors, dtypes, rational, memory layouts
    ["formats", "reference", "testing"],   # file formats; the spec-literal reference; test support
    ["conformance/accuracy"],              # the accuracy contract (its tests prove it on the reference)
    ["optimized"],                         # the optimized implementation (tests: against reference and contract)
    ["conformance/include",                # the plugin ABI (plugin.h; plugin_support.hpp for in-tree plugins)
     "conformance/mutant_list"],           # the list of mutants (data: the mutants plugin and selftest read it)
    ["conformance/abi"],                   # descriptors <-> the ABI's structs (the runner and in-tree plugins)
    ["conformance/plugins"],               # backend plugins, the mutants list among them
    ["conformance/runner"],                # the runner library: loads plugins, runs cases, judges them
    ["conformance"],                       # the convcheck command (cli/), backend_test, the plugin template
    ["cmake"],                             # the plugin build function (links the ABI target; installed in the SDK)
    ["vectors"],                           # golden vectors: generated with the contract, checked with the runner
    ["bench", "fuzz"],                     # programs over everything below
]
TEST_SUPPORT = "testing"
# Lower parts that a part's tests may use and its own code may not: the optimized implementation is
# checked against the reference and the contract, and never computes with them.
TESTS_ONLY = {"optimized": {"reference", "conformance/accuracy"}}
# The parts whose tests may use one another whatever their layers: a plugin's tests run the runner on it,
# the runner's tests run the plugins (integration tests; their libraries and programs still point down).
TESTS_ACROSS = "conformance"
SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".h", ".hpp", ".inl", ".def", ".inc")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
# A header another part includes lives under <part>/include/convcheck/<name>/ and is included as
# "convcheck/<name>/<header>" (a part's private headers, seen only by its own files, may be included by name).
NAMESPACE = "convcheck/"


def layer_of(part):
    for level, parts in enumerate(LAYERS):
        if part in parts:
            return level
    return None


def describe(part):
    level = layer_of(part)
    return f"{part} (layer {level})" if level is not None else f"{part} (in no layer)"


def is_test_path(rel):
    return "tests" in rel.split("/")[:-1]


def under(part, top):
    return part == top or part.startswith(top + "/")


def allowed(from_part, to_part, from_rel, in_test=None):
    in_test = is_test_path(from_rel) if in_test is None else in_test
    if from_part == to_part:
        return True
    if to_part == TEST_SUPPORT and in_test:
        return True
    if in_test and under(from_part, TESTS_ACROSS) and under(to_part, TESTS_ACROSS):
        return True
    if to_part in TESTS_ONLY.get(from_part, ()) and not in_test:
        return False
    a, b = layer_of(from_part), layer_of(to_part)
    return a is not None and b is not None and b < a


def walk(root):
    """Relative paths of the tree's files; build folders (build*, or any with a CMakeCache.txt) and hidden ones left out."""
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and not (rel_dir == "." and d.startswith("build"))
                             and not os.path.exists(os.path.join(dirpath, d, "CMakeCache.txt")))  # a build folder
        for name in sorted(filenames):
            files.append(os.path.normpath(os.path.join(rel_dir, name)))
    return files


NAMED_PARTS = sorted((p for parts in LAYERS for p in parts), key=len, reverse=True)


def part_of(rel):
    """The longest part in LAYERS that rel lies in, else its top-level folder (None for a root file)."""
    for p in NAMED_PARTS:
        if rel.startswith(p + "/"):
            return p
    return rel.split("/", 1)[0] if "/" in rel else None


def resolve(include, rel, all_files, by_suffix):
    beside = os.path.normpath(os.path.join(os.path.dirname(rel), include))
    if beside in all_files:
        return [beside]
    if include.startswith("..") or include.startswith("/"):
        return []
    return by_suffix.get(os.path.normpath(include), [])


def suffix_index(files):
    by_suffix = {}
    for f in files:
        parts = f.split("/")
        for i in range(len(parts)):
            by_suffix.setdefault("/".join(parts[i:]), []).append(f)
    return by_suffix


def project_includes(root, rel, all_files, by_suffix):
    """(line, include text, the tree's files it may mean) of each of rel's includes of a project header."""
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    for number, line in enumerate(lines, 1):
        m = INCLUDE.match(line)
        if m:
            targets = resolve(m.group(1), rel, all_files, by_suffix)
            if targets:
                yield number, m.group(1), targets


# The ISA kernel files: compiled with -mavx2/-mavx512f/-mamx-int8 at -O3, and the slowest files of every build.
KERNEL_FILES = re.compile(r"^optimized/src/[^/]*_(avx2|avx512|amx)\.cpp$")


def check_kernel_files(root, files):
    """Each kernel file's includes, followed through the tree, stay in its own folder."""
    all_files, by_suffix = set(files), suffix_index(files)
    problems = []
    for rel in files:
        if not KERNEL_FILES.match(rel):
            continue
        home, seen, todo = os.path.dirname(rel), {rel}, [(rel, [rel])]
        while todo:
            current, chain = todo.pop()
            for number, text, targets in project_includes(root, current, all_files, by_suffix):
                for t in targets:
                    if os.path.dirname(t) != home:
                        problems.append(f"{current}:{number}: #include \"{text}\" ({t}): the kernel file {rel} "
                                        f"must reach only headers of {home}/ (through {' -> '.join(chain)})")
                    elif t not in seen:
                        seen.add(t)
                        todo.append((t, chain + [t]))
    return problems


def check_includes(root, files):
    all_files = set(files)
    by_suffix = suffix_index(files)
    problems, count = [], 0
    for rel in files:
        part = part_of(rel)
        if part is None or not rel.endswith(SOURCE_SUFFIXES):
            continue
        # (an include that is not the project's header, a vendor's, a system one or one generated at build time,
        # is left out by project_includes)
        for number, text, targets in project_includes(root, rel, all_files, by_suffix):
            count += 1
            if layer_of(part) is None:
                problems.append(f"{rel}:{number}: #include \"{text}\": part '{part}' is in no layer "
                                "(add it to LAYERS in scripts/check_layers.py and to docs/layers.md)")
                continue
            target_parts = sorted({part_of(t) for t in targets})
            if len(target_parts) > 1 and part not in target_parts:
                problems.append(f"{rel}:{number}: #include \"{text}\" could be any of {', '.join(targets)}: "
                                "cannot tell which layer (give the header a unique path)")
                continue
            to_part = part if part in target_parts else target_parts[0]
            if to_part != part and not text.startswith(NAMESPACE):
                target = next(t for t in targets if part_of(t) == to_part)
                problems.append(f"{rel}:{number}: #include \"{text}\" ({target}): another part's header is "
                                f"included by its namespaced path, \"{NAMESPACE}<part>/...\"")
            elif not allowed(part, to_part, rel):
                target = next(t for t in targets if part_of(t) == to_part)
                problems.append(f"{rel}:{number}: #include \"{text}\" ({target}): "
                                f"{describe(part)} must not include {describe(to_part)}" +
                                (" outside its tests" if to_part in TESTS_ONLY.get(part, ()) else ""))
    return problems, count


CMAKE_COMMAND = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(", re.S)


def strip_cmake_comments(text):
    out = []
    for line in text.split("\n"):
        quoted, cut = False, len(line)
        for i, ch in enumerate(line):
            if ch == '"' and (i == 0 or line[i - 1] != "\\"):
                quoted = not quoted
            elif ch == "#" and not quoted:
                cut = i
                break
        out.append(line[:cut])
    return "\n".join(out)


def cmake_commands(text):
    """(name, argument tokens, line) of every command call in a CMake file."""
    text = strip_cmake_comments(text)
    pos = 0
    while True:
        m = CMAKE_COMMAND.search(text, pos)
        if not m:
            return
        depth, i, quoted = 1, m.end(), False
        while i < len(text) and depth:
            if text[i] == "\\" and quoted:
                i += 2  # an escaped character in a quoted argument, e.g. "^MUTANT\\(": not a parenthesis
                continue
            if text[i] == '"':
                quoted = not quoted
            elif not quoted:
                depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        body = text[m.end():i - 1]
        yield m.group(1).lower(), re.findall(r'"[^"]*"|[^\s()]+', body), text.count("\n", 0, m.start()) + 1
        pos = i


def used_targets(name, tokens):
    """The targets a command uses (not the one it defines)."""
    used = []
    for token in tokens:
        used += re.findall(r"\$<TARGET_[A-Z_]*:([A-Za-z0-9_]+)>", token)
    bare = [t for t in tokens if "$" not in t and '"' not in t]
    if name in ("target_link_libraries", "add_dependencies"):
        used += bare[1:]
    for keyword in ("LIBS", "COMMAND"):
        for i, t in enumerate(tokens):
            if t == keyword:
                rest = tokens[i + 1:]
                if keyword == "COMMAND":
                    used += rest[:1]
                else:
                    for r in rest:
                        if re.fullmatch(r"[A-Z][A-Z0-9_]*", r):
                            break
                        used.append(r)
    return used


def check_cmake(root, files):
    cmake_files = [f for f in files if part_of(f) and (f.endswith("CMakeLists.txt") or f.endswith(".cmake"))]
    defined = {}
    parsed = {}
    for rel in cmake_files:
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            parsed[rel] = list(cmake_commands(f.read()))
        for name, tokens, _ in parsed[rel]:
            if name in ("add_library", "add_executable") and tokens and "$" not in tokens[0]:
                defined.setdefault(tokens[0], part_of(rel))
    problems, count = [], 0
    for rel in cmake_files:
        part = part_of(rel)
        for name, tokens, line in parsed[rel]:
            # a test's program: added by the test functions, or a linked target named *test*
            in_test = name in ("convcheck_add_test", "convcheck_add_tests_in", "add_test") or \
                (name in ("target_link_libraries", "add_dependencies") and bool(tokens) and "test" in tokens[0])
            for target in used_targets(name, tokens):
                if target not in defined:
                    continue  # a package's target (TBB::tbb, ...) or a variable's
                count += 1
                to_part = defined[target]
                if layer_of(part) is None:
                    problems.append(f"{rel}:{line}: {name}(... {target} ...): part '{part}' is in no layer")
                elif not allowed(part, to_part, rel, in_test):
                    problems.append(f"{rel}:{line}: {name}(... {target} ...): {describe(part)} must not use "
                                    f"{target} of {describe(to_part)}" + (" outside its tests" if in_test is False and
                                    to_part in TESTS_ONLY.get(part, ()) else ""))
    return problems, count


def check(root):
    files = walk(root)
    include_problems, includes = check_includes(root, files)
    cmake_problems, links = check_cmake(root, files)
    return include_problems + check_kernel_files(root, files) + cmake_problems, includes, links


def selftest():
    """A scratch tree with an upward include, an upward link, a sibling include, a tests-only include outside
    tests, another part's header included by bare name and a kernel file that reaches a core header through
    its folder's header must give exactly those six findings; the same tree without them, none."""
    def tree(dir, bad):
        def write(rel, text):
            path = os.path.join(dir, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        write("core/include/convcheck/core/descriptor.hpp", "#pragma once\n" +
              ('#include "convcheck/formats/npy.hpp"\n' if bad else ""))
        write("core/CMakeLists.txt", "add_library(convcheck_core STATIC descriptor.cpp)\n" +
              ("target_link_libraries(convcheck_core PUBLIC convcheck_runner)\n" if bad else ""))
        write("core/tests/descriptor_test.cpp", '#include "convcheck/testing/random_descriptor.hpp"\n')
        write("formats/include/convcheck/formats/npy.hpp", '#include "convcheck/core/descriptor.hpp"\n' +
              ('#include "convcheck/reference/convolution.hpp"\n' if bad else ""))
        write("testing/include/convcheck/testing/random_descriptor.hpp", '#include "convcheck/core/descriptor.hpp"\n')
        write("reference/include/convcheck/reference/convolution.hpp", '#include "convcheck/core/descriptor.hpp"\n' +
              ('#include "descriptor.hpp"\n' if bad else ""))
        write("conformance/runner/part.cmake", "add_library(convcheck_runner STATIC a.cpp)\n"
              "target_link_libraries(convcheck_runner PUBLIC convcheck_core)  # convcheck_vectors\n")
        write("optimized/src/kernel.cpp", '#include "convcheck/core/descriptor.hpp"\n' +
              ('#include "convcheck/reference/convolution.hpp"\n' if bad else ""))
        write("optimized/tests/agreement_test.cpp", '#include "convcheck/reference/convolution.hpp"\n'
              '#include "convcheck/testing/random_descriptor.hpp"\n')
        write("optimized/src/private.hpp", "#pragma once\n" + ('#include "convcheck/core/descriptor.hpp"\n' if bad else ""))
        write("optimized/src/blocked_avx2.cpp", '#include "private.hpp"\n')
        write("optimized/src/plan.cpp", '#include "private.hpp"\n')  # a part's private header, by name
        write("conformance/runner/case.cpp", '#include "convcheck/formats/npy.hpp"\n#include <vector>\n'
              '#include "dnnl.hpp"\n')
    with tempfile.TemporaryDirectory() as good, tempfile.TemporaryDirectory() as bad:
        tree(good, False)
        tree(bad, True)
        clean, _, _ = check(good)
        found, _, _ = check(bad)
    conv = "reference/include/convcheck/reference/convolution.hpp"
    expected = [
        f'core/include/convcheck/core/descriptor.hpp:2: #include "convcheck/formats/npy.hpp" (formats/include/convcheck/formats/npy.hpp): {describe("core")} must not include '
        f'{describe("formats")}',
        f'formats/include/convcheck/formats/npy.hpp:2: #include "convcheck/reference/convolution.hpp" ({conv}): {describe("formats")} '
        f'must not include {describe("reference")}',
        f'optimized/src/kernel.cpp:2: #include "convcheck/reference/convolution.hpp" ({conv}): '
        f'{describe("optimized")} must not include {describe("reference")} outside its tests',
        f"core/CMakeLists.txt:2: target_link_libraries(... convcheck_runner ...): {describe('core')} must not use "
        f"convcheck_runner of {describe('conformance/runner')}",
        f'reference/include/convcheck/reference/convolution.hpp:2: #include "descriptor.hpp" '
        f'(core/include/convcheck/core/descriptor.hpp): another part\'s header is included by its namespaced path, '
        f'"convcheck/<part>/..."',
        'optimized/src/private.hpp:2: #include "convcheck/core/descriptor.hpp" (core/include/convcheck/core/'
        'descriptor.hpp): the kernel file optimized/src/blocked_avx2.cpp must reach only headers of optimized/src/ '
        '(through optimized/src/blocked_avx2.cpp -> optimized/src/private.hpp)',
    ]
    ok = clean == [] and sorted(found) == sorted(expected)
    print("clean tree:", clean or "no findings")
    print("tree with six wrong arrows:", *found, sep="\n  ")
    print("selftest:", "passed" if ok else "FAILED (expected exactly:\n  " + "\n  ".join(expected) + ")")
    return 0 if ok else 1


def main(argv):
    if argv[1:] == ["--selftest"]:
        return selftest()
    if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith("-")):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = argv[1] if len(argv) == 2 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    problems, includes, links = check(root)
    for p in problems:
        print("upward arrow: " + p)
    order = " < ".join("{" + ", ".join(parts) + "}" if len(parts) > 1 else parts[0] for parts in LAYERS)
    if problems:
        print(f"check_layers: {len(problems)} arrow(s) against the layer order {order} (docs/layers.md)")
        return 1
    print(f"check_layers: {includes} includes and {links} CMake uses of project targets, every one pointing "
          f"down the layer order {order}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
