#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""refile_corpus.py -- move inputs found for the old mixed harnesses (fuzz_math, fuzz_algebra, fuzz_tfsparse)
into the family harnesses that now hold their actions, and keep fuzz_layout's own inputs on their actions
after it grew two. An input is byte 0 (the allocation-failure mode), byte 1 (the action, modulo the
table's length), then what the action decodes; only byte 1 changes, to the action's index in its new
table, so every input runs the same op on the same decoded operands. Inputs named by their SHA-1 (as
libFuzzer names them) are renamed by their new content's; seed-* and regress-* inputs keep their names.

Usage: fuzz/refile_corpus.py [OLD_CORPUS_ROOT] [NEW_CORPUS_ROOT]   (both default fuzz/corpus); the old
harnesses' folders are read (and, when both roots are the same, removed after the move)."""
import hashlib
import os
import shutil
import sys

# old harness -> (its table's length, [new harness and index of each old action, in the old order])
MOVES = {
    "math": (16, [("reduce", 0), ("reduce", 1), ("reduce", 2), ("reduce", 3), ("elementwise", 0),
                  ("elementwise", 1), ("elementwise", 2), ("elementwise", 3), ("elementwise", 4),
                  ("elementwise", 5), ("elementwise", 6), ("reduce", 4), ("products", 0), ("products", 1),
                  ("reduce", 5), ("elementwise", 7)]),
    # old actions 0-2 ran spgemm, multiply and subtract (their labels were shifted)
    "algebra": (12, [("products", 2), ("elementwise", 8), ("elementwise", 9), ("elementwise", 10),
                     ("elementwise", 11), ("products", 3), ("products", 4), ("products", 5), ("products", 6),
                     ("elementwise", 12), ("products", 7), ("products", 8)]),
    "tfsparse": (10, [("reduce", 6), ("layout", 12), ("elementwise", 13), ("elementwise", 14), ("features", 0),
                      ("serial", 0), ("features", 1), ("features", 2), ("serial", 1), ("layout", 13)]),
}
LAYOUT_OLD_LEN = 12  # fuzz_layout's table before expand_dims and eye were appended


def is_hash(name):
    return len(name) == 40 and all(c in "0123456789abcdef" for c in name)


def write(root, harness, data, name, old):
    """Write an input under its new content's SHA-1 when its name was one (libFuzzer's names), else under
    its name (seed-..., regress-...), prefixed by the old harness when the folder already has that name."""
    folder = os.path.join(root, harness)
    os.makedirs(folder, exist_ok=True)
    if is_hash(name):
        name = hashlib.sha1(data).hexdigest()
    elif os.path.exists(os.path.join(folder, name)):
        name = "%s-%s" % (old, name)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def with_action(data, index):
    if len(data) < 2:
        if index == 0:
            return data  # a missing byte reads as 0 already
        data = data + b"\0" * (1 - len(data))
        return data + bytes([index])
    return data[:1] + bytes([index]) + data[2:]


def main():
    old_root = sys.argv[1] if len(sys.argv) > 1 else "fuzz/corpus"
    new_root = sys.argv[2] if len(sys.argv) > 2 else "fuzz/corpus"
    counts = {}
    for old, (n, moves) in MOVES.items():
        folder = os.path.join(old_root, old)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, name), "rb") as f:
                data = f.read()
            harness, index = moves[(data[1] if len(data) > 1 else 0) % n]
            write(new_root, harness, with_action(data, index), name, old)
            counts[harness] = counts.get(harness, 0) + 1
        if old_root == new_root:
            shutil.rmtree(folder)
    layout = os.path.join(old_root, "layout")
    if os.path.isdir(layout) and old_root == new_root:
        for name in sorted(os.listdir(layout)):
            path = os.path.join(layout, name)
            with open(path, "rb") as f:
                data = f.read()
            if len(data) > 1 and data[1] >= LAYOUT_OLD_LEN:
                os.remove(path)
                write(new_root, "layout", with_action(data, data[1] % LAYOUT_OLD_LEN), name, "layout")
                counts["layout (kept on its action)"] = counts.get("layout (kept on its action)", 0) + 1
    for h, c in sorted(counts.items()):
        print("%s: %d inputs" % (h, c))


if __name__ == "__main__":
    main()
