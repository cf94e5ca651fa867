#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Cross-checks resolve.tsv against PyYAML (YAML 1.1), a development aid.

safesubst's ResolvePlain is the union of YAML 1.1 and 1.2 readers, so every
text PyYAML reads as a non-string must have a non-string kind in the table.
Prints disagreements; exit status 1 when the union property is violated.

With --roundtrip FILE, reads instead the JSON lines the round-trip test writes
when SAFESUBST_ROUNDTRIP_DUMP=FILE is set, and checks that PyYAML reads each
document as a one-key map whose value is the expected string.

Usage: python3 crosscheck_pyyaml.py [resolve.tsv]
       SAFESUBST_ROUNDTRIP_DUMP=/tmp/rt.jsonl build/tests/safesubst_tests -tc='Round trip*'
       python3 crosscheck_pyyaml.py --roundtrip /tmp/rt.jsonl
"""
import datetime
import json
import os
import sys

import yaml

KINDS = {type(None): "null", bool: "bool", int: "int", float: "float",
         datetime.date: "timestamp", datetime.datetime: "timestamp", str: "string"}


def pyyaml_kind(text):
    try:
        value = yaml.safe_load("k: " + text + "\n")["k"] if text else None
    except yaml.YAMLError as error:
        return "error(%s)" % str(error).splitlines()[0]
    return KINDS.get(type(value), type(value).__name__)


def roundtrip(path):
    failures = total = 0
    forms = {}
    for line in open(path, encoding="utf-8"):
        case = json.loads(line)
        total += 1
        forms[case["form"]] = forms.get(case["form"], 0) + 1
        try:
            root = yaml.safe_load(case["document"])
            ok = isinstance(root, dict) and list(root) == ["key"]
            value = root["key"] if ok else None
            if isinstance(value, list) and len(value) == 1:
                value = value[0]
            problem = None if ok and value == case["expected"] else "read %r" % (value,)
        except yaml.YAMLError as error:
            problem = "error: " + str(error).splitlines()[0]
        if problem:
            failures += 1
            if failures <= 30:
                print("FAIL %s %r: %s" % (case["form"], case["document"], problem))
    print("%d documents (%s), %d failures with PyYAML %s" % (
        total, ", ".join("%s %d" % item for item in sorted(forms.items())), failures, yaml.__version__))
    return 1 if failures else 0


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--roundtrip":
        return roundtrip(sys.argv[2])
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "resolve.tsv")
    violations = rows = agree = 0
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        kind, text = line.split("\t")[:2]
        rows += 1
        theirs = pyyaml_kind(text)
        if theirs == kind:
            agree += 1
        elif theirs.startswith("error") and kind == "other":
            print("other     %-22r PyYAML has no constructor for it, as expected" % text)
        elif theirs.startswith("error") and kind == "string":
            print("syntax    %-22r not a plain scalar on its own (FitsPlain's concern)" % text)
        elif theirs != "string" and kind == "string":
            violations += 1
            print("VIOLATION %-22r ours=%s pyyaml=%s" % (text, kind, theirs))
        else:
            print("differs   %-22r ours=%s pyyaml=%s" % (text, kind, theirs))
    print("%d rows, %d agree with PyYAML %s, %d union violations" % (rows, agree, yaml.__version__, violations))
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
