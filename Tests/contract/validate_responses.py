#!/usr/bin/env python3
"""Validates real HTTP responses against openapi/openapi.yaml (OpenAPI 3.1, JSON Schema 2020-12).

Usage: validate_responses.py OPENAPI.yaml RESPONSES.jsonl [--require-every-operation]

Each line of RESPONSES.jsonl is one response the daemon gave:
  {"method": "GET", "path": "/v1/submissions/{id}", "status": 200,
   "content_type": "application/json", "headers": {...}, "body": "<text>" | null}
`path` is the document's template for the request. A HEAD on a path whose document has no HEAD
operation is checked against the GET operation (headers only), and must carry no body.
A response passes when its status is
documented for that operation, its media type is one the document lists for that status,
its headers that the document marks required are present, and a JSON body validates against
the schema (with `format` checked). Exit 0 when every response passes (and, with
--require-every-operation, every operation of the document was seen); 1 otherwise, with one
line per failure.
"""
import json
import sys

import yaml
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

BASE = "urn:tilawa:openapi"
METHODS = {"get", "put", "post", "delete", "patch", "head", "options"}


def pointer_escape(token):
    return str(token).replace("~", "~0").replace("/", "~1")


def deref(doc, node, pointer):
    """Follows local `$ref`s of response objects; returns the object and its JSON pointer."""
    seen = 0
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        if not ref.startswith("#/"):
            raise ValueError(f"non-local $ref {ref}")
        pointer = ref[1:]
        node = doc
        for part in ref[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        seen += 1
        if seen > 20:
            raise ValueError("$ref loop")
    return node, pointer


def media_matches(documented, actual):
    documented = documented.split(";")[0].strip()
    if documented == actual:
        return True
    if documented.endswith("/*"):
        return actual.startswith(documented[:-1])
    return documented == "*/*"


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    with open(argv[1], encoding="utf-8") as handle:
        doc = yaml.safe_load(handle)
    registry = Registry().with_resource(BASE, Resource.from_contents(doc, default_specification=DRAFT202012))
    require_all = "--require-every-operation" in argv[3:]

    failures = []
    seen_operations = set()
    seen_statuses = set()
    count = 0
    with open(argv[2], encoding="utf-8") as handle:
        lines = [line for line in handle if line.strip()]
    for number, line in enumerate(lines, 1):
        count += 1
        record = json.loads(line)
        method, path, status = record["method"].lower(), record["path"], str(record["status"])
        where = f"{record['method']} {path} {status}"
        item = doc.get("paths", {}).get(path, {})
        operation = item.get(method)
        if operation is None and method == "head" and "get" in item:
            # RFC 9110 §9.3.2: HEAD on a GET route answers as GET would, without the body.
            method, operation = "get", item["get"]
        if record["method"].lower() == "head" and record.get("body"):
            failures.append(f"{where}: a HEAD answer carries a body")
        if operation is None:
            failures.append(f"{where}: no such operation in the document")
            continue
        seen_operations.add((path, method))
        seen_statuses.add((path, method, status))
        responses = operation.get("responses", {})
        key = status if status in responses else (status[0] + "XX" if status[0] + "XX" in responses else "default")
        if key not in responses:
            failures.append(f"{where}: status not documented (documented: {', '.join(sorted(responses))})")
            continue
        response, pointer = deref(doc, responses[key],
                                  f"/paths/{pointer_escape(path)}/{method}/responses/{pointer_escape(key)}")
        headers = {name.lower(): value for name, value in (record.get("headers") or {}).items()}
        for name, header in (response.get("headers") or {}).items():
            header, _ = deref(doc, header, "")
            if header.get("required") and name.lower() not in headers:
                failures.append(f"{where}: required header {name} missing")
        content = response.get("content") or {}
        actual_type = (record.get("content_type") or "").split(";")[0].strip().lower()
        # A HEAD answer has the headers of the GET or problem it stands for, never a body.
        body = None if record["method"].lower() == "head" else record.get("body")
        if not content:
            if body:
                failures.append(f"{where}: the document says no body, got {actual_type or 'a body'}")
            continue
        media = next((m for m in content if media_matches(m.lower(), actual_type)), None)
        if media is None:
            failures.append(f"{where}: content type {actual_type or 'none'} not documented (documented: {', '.join(content)})")
            continue
        if "json" not in actual_type or body is None:
            continue
        schema_pointer = f"{pointer}/content/{pointer_escape(media)}/schema"
        try:
            instance = json.loads(body)
        except ValueError as error:
            failures.append(f"{where}: body is not JSON ({error})")
            continue
        validator = Draft202012Validator({"$ref": BASE + "#" + schema_pointer}, registry=registry,
                                         format_checker=Draft202012Validator.FORMAT_CHECKER)
        for error in sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path)):
            location = "/".join(str(part) for part in error.absolute_path) or "(root)"
            failures.append(f"{where}: {location}: {error.message[:300]}")

    documented = {(path, method) for path, item in doc.get("paths", {}).items() for method in item if method in METHODS}
    missing = sorted(documented - seen_operations)
    if require_all and missing:
        for path, method in missing:
            failures.append(f"{method.upper()} {path}: no response of this operation was checked")
    documented_statuses = {(path, method, status) for path, item in doc.get("paths", {}).items()
                           for method, op in item.items() if method in METHODS for status in op.get("responses", {})}
    for failure in failures:
        print("FAIL " + failure)
    print(f"{count} responses checked; {len(seen_operations)} of {len(documented)} operations; "
          f"{len(seen_statuses & documented_statuses)} of {len(documented_statuses)} documented statuses; "
          f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
