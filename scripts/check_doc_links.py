#!/usr/bin/python3
"""Every relative link of the tree's Markdown files points at a file or folder that exists.

usage: check_doc_links.py [<source dir>]     (default: the tree this script is in)

Reads every *.md file under the source dir (skipping .git, build*, out, shared and other hidden folders)
and each inline link or image `[text](target)` outside code (fenced blocks and `code spans`). A target
with a scheme (http:, https:, mailto:, ...) or only an anchor (#...) is left out; the rest is resolved
relative to the file (an anchor after the path is ignored) and must exist.
Exit 0 when every link resolves; 1 naming each file, line and link that does not.
"""

import os
import re
import sys

# shared/ holds outside material (the seed texts), not the project's docs.
SKIP_DIRS = {".git", "out", "shared", "__pycache__", ".pytest_cache", "node_modules"}
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)*?\1")


def markdown_files(root):
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs
                         if d not in SKIP_DIRS and not d.startswith(".") and not d.startswith("build"))
        for name in sorted(files):
            if name.endswith(".md"):
                yield os.path.join(folder, name)


def broken_links(path):
    in_fence = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            stripped = line.lstrip()
            fence = re.match(r"(```+|~~~+)", stripped)
            if fence:
                if in_fence is None:
                    in_fence = fence.group(1)[0]
                elif stripped.startswith(in_fence):
                    in_fence = None
                continue
            if in_fence is not None:
                continue
            text = CODE_SPAN.sub("", line)
            for match in LINK.finditer(text):
                target = match.group(1)
                if SCHEME.match(target) or target.startswith("#"):
                    continue
                file_part = target.split("#", 1)[0].split("?", 1)[0]
                if not file_part:
                    continue
                resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part))
                if not os.path.exists(resolved):
                    yield number, target


def main(argv):
    root = os.path.abspath(argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    failures = 0
    checked = 0
    for path in markdown_files(root):
        checked += 1
        for number, target in broken_links(path):
            print(f"{os.path.relpath(path, root)}:{number}: link to a missing file: {target}")
            failures += 1
    if failures:
        print(f"check_doc_links: {failures} broken link(s) in {checked} Markdown files")
        return 1
    print(f"check_doc_links: every relative link of {checked} Markdown files resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
