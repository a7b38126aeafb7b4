#!/usr/bin/env python3
"""Validates ckpt's JSON output against formats/schemas (run by tests/cli/json_schema_test.cc).

validate_json.py SCHEMA_DIR OUTPUT_DIR

Each file of OUTPUT_DIR is named <document>.<anything>.json (one document) or
<document>.<anything>.ndjson (one document a line) and is checked against
SCHEMA_DIR/ckpt.<document>.schema.json. A file whose name ends in .invalid.json must be
rejected: it is a mutated document that proves the schema can fail. Prints one line per file
and exits 0 when every file came out as expected, 1 otherwise, 3 when jsonschema is missing.
"""
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed (.ci/install-deps installs it)")
    sys.exit(3)


def main():
    schema_dir, output_dir = sys.argv[1], sys.argv[2]
    validators = {}
    failures = 0
    names = sorted(os.listdir(output_dir))
    if not names:
        print("no outputs to validate")
        return 1
    for name in names:
        document = name.split(".", 1)[0]
        if document not in validators:
            with open(os.path.join(schema_dir, f"ckpt.{document}.schema.json")) as f:
                schema = json.load(f)
            jsonschema.Draft202012Validator.check_schema(schema)
            validators[document] = jsonschema.Draft202012Validator(schema)
        validator = validators[document]
        with open(os.path.join(output_dir, name), encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
        docs = [line for line in text.splitlines() if line] if name.endswith(".ndjson") else [text]
        errors = []
        for i, d in enumerate(docs):
            try:
                instance = json.loads(d)
            except ValueError as e:
                errors.append(f"document {i}: not JSON: {e}")
                continue
            for e in validator.iter_errors(instance):
                path = "/".join(str(p) for p in e.absolute_path)
                errors.append(f"document {i} at /{path}: {e.message}")
                break
        expect_invalid = name.endswith(".invalid.json")
        if expect_invalid:
            ok = bool(errors)
            print(f"{'ok' if ok else 'FAIL'} {name}: {'rejected: ' + errors[0] if errors else 'accepted a mutated document'}")
        else:
            ok = not errors and bool(docs)
            print(f"{'ok' if ok else 'FAIL'} {name}: {len(docs)} documents" + ("" if ok else ": " + "; ".join(errors[:5])))
        failures += 0 if ok else 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
