# SPDX-License-Identifier: Apache-2.0
"""The version is written once, in include/spt.h (SPT_VERSION_MAJOR, _MINOR, _PATCH). This reader is shared
by the package (_lib.py) and by setup.py, which loads this file by its path; it imports nothing of spt."""
import os
import re


def from_header(path):
    """"X.Y.Z" from the header at `path`, or None when there is no such file or it lacks the three macros."""
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        text = f.read()
    parts = [re.search(r"^#define SPT_VERSION_%s\s+(\d+)" % k, text, re.M) for k in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(m.group(1) for m in parts) if all(parts) else None
