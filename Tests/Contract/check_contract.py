"""Checks locstream's machine-readable contract (docs/schema, docs/openapi.json, docs/asyncapi.json).

`check_contract.py documents` checks the documents themselves: every schema against the
draft 2020-12 meta-schema, docs/openapi.json with openapi-spec-validator, docs/asyncapi.json
for its version and the rules of its operations and channels, that every $ref reachable from either resolves, and that asyncapi.json
refers to every message schema and openapi.json to every HTTP body schema.

`check_contract.py instances` reads JSON lines from stdin, one instance each:
  {"label": ..., "schema": "server-message.json", "valid": true, "instance": ...}
  {"label": ..., "openapi": ["post", "/v1/locations", "202"], "instance": ...}
and checks each against the schema file, or against the OpenAPI response body schema of that
operation and status; "valid": false expects a failure. It prints every mismatch.

Both exit 1 on any failure. They read nothing but files below docs/.
"""

import json
import pathlib
import re
import sys

import jsonschema
import referencing
import referencing.jsonschema
from jsonschema.exceptions import best_match

DOCS = pathlib.Path(__file__).resolve().parent.parent.parent / "docs"
SCHEMAS = DOCS / "schema"


def retrieve(uri):
    """Loads a file: URI below docs/ as a draft 2020-12 resource; nothing else is fetched."""
    path = pathlib.Path(uri.removeprefix("file://")).resolve()
    if not uri.startswith("file://") or DOCS not in path.parents:
        raise referencing.exceptions.NoSuchResource(ref=uri)
    return referencing.Resource.from_contents(
        json.loads(path.read_text()), default_specification=referencing.jsonschema.DRAFT202012
    )


REGISTRY = referencing.Registry(retrieve=retrieve)


def validator(uri):
    """A draft 2020-12 validator of the schema at `uri` (a file URI, with a fragment if any)."""
    return jsonschema.Draft202012Validator({"$ref": uri}, registry=REGISTRY)


def pointer_token(text):
    return text.replace("~", "~0").replace("/", "~1")


def check_instance(line):
    """The failures of one instance line (an empty list when it passes)."""
    entry = json.loads(line)
    label = entry.get("label", "")
    if "openapi" in entry:
        method, path, status = entry["openapi"]
        pointer = "/".join(
            ["paths", pointer_token(path), method, "responses", status, "content", "application~1json", "schema"]
        )
        uri = (DOCS / "openapi.json").as_uri() + "#/" + pointer
    else:
        uri = (SCHEMAS / entry["schema"]).as_uri()
    try:
        errors = list(validator(uri).iter_errors(entry["instance"]))
    except referencing.exceptions.Unresolvable as error:
        return [f"{label}: {uri} does not resolve: {error}"]
    if entry.get("valid", True):
        return [f"{label}: {best_match(errors).message} in {json.dumps(entry['instance'])}"] if errors else []
    return [] if errors else [f"{label}: expected invalid against {uri}: {json.dumps(entry['instance'])}"]


def refs(node):
    """Every $ref value in a JSON document."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from refs(value)


def unresolved_refs(start):
    """The $refs reachable from the file `start` that do not resolve, as messages."""
    failures, seen, todo = [], set(), [start.as_uri()]
    while todo:
        uri = todo.pop()
        if uri in seen:
            continue
        seen.add(uri)
        resolver = REGISTRY.resolver(base_uri=uri)
        for ref in refs(retrieve(uri).contents):
            try:
                resolved = resolver.lookup(ref)
            except referencing.exceptions.Unresolvable as error:
                failures.append(f"{uri}: $ref {ref} does not resolve: {error}")
                continue
            target = resolved.resolver._base_uri.split("#")[0]
            if target.startswith("file://"):
                todo.append(target)
    return failures


def check_documents():
    from openapi_spec_validator import validate as validate_openapi  # only this mode needs it

    failures = []
    for path in sorted(SCHEMAS.glob("*.json")):
        try:
            jsonschema.Draft202012Validator.check_schema(json.loads(path.read_text()))
        except (ValueError, jsonschema.SchemaError) as error:
            failures.append(f"{path.name}: {error}")
    openapi = DOCS / "openapi.json"
    try:
        validate_openapi(json.loads(openapi.read_text()), base_uri=openapi.as_uri())
    except Exception as error:  # the validator raises several kinds; each is a finding
        failures.append(f"openapi.json: {error}")
    failures += asyncapi_failures(json.loads((DOCS / "asyncapi.json").read_text()))
    for name in ("openapi.json", "asyncapi.json"):
        failures += unresolved_refs(DOCS / name)
    failures += unreferenced(DOCS / "asyncapi.json", ("client-", "server-"))
    failures += unreferenced(DOCS / "openapi.json", ("http-",))
    return failures


def asyncapi_failures(doc):
    """What breaks the AsyncAPI 3 rules that no validator here checks: the version, info,
    channel addresses, and operations whose action is send or receive, whose channel exists,
    and whose messages (and reply messages) are messages of that channel."""
    failures = []
    if not re.fullmatch(r"3\.\d+\.\d+", str(doc.get("asyncapi", ""))):
        failures.append(f"asyncapi is {doc.get('asyncapi')!r}, not 3.x.y")
    if not all(isinstance(doc.get("info", {}).get(key), str) for key in ("title", "version")):
        failures.append("info needs a title and a version")
    channels = doc.get("channels", {})
    failures += [f"channel {name} has no address" for name, channel in channels.items() if "address" not in channel]
    for name, operation in doc.get("operations", {}).items():
        if operation.get("action") not in ("send", "receive"):
            failures.append(f"operation {name}: action {operation.get('action')!r}")
        for part in [operation] + ([operation["reply"]] if "reply" in operation else []):
            channel = part.get("channel", {}).get("$ref", "")
            if channel.removeprefix("#/channels/") not in channels:
                failures.append(f"operation {name}: channel {channel!r} is not a channel")
            for message in part.get("messages", []):
                if not message.get("$ref", "").startswith(channel + "/messages/"):
                    failures.append(f"operation {name}: {message} is not a message of {channel}")
    messages = doc.get("components", {}).get("messages", {})
    failures += [f"message {name} has no payload" for name, message in messages.items() if "payload" not in message]
    return [f"asyncapi.json: {failure}" for failure in failures]


def unreferenced(document, prefixes):
    """The schemas named with `prefixes` that `document` does not refer to directly, as
    messages (the unions client-message.json and server-message.json excepted)."""
    named = {pathlib.PurePosixPath(ref.split("#")[0]).name for ref in refs(json.loads(document.read_text()))}
    return [
        f"{document.name} does not refer to schema/{path.name}"
        for path in sorted(SCHEMAS.glob("*.json"))
        if path.name.startswith(prefixes)
        and path.name not in ("client-message.json", "server-message.json")
        and path.name not in named
    ]


def main():
    if sys.argv[1:] == ["documents"]:
        failures = check_documents()
        checked = "documents"
    elif sys.argv[1:] == ["instances"]:
        lines = [line for line in sys.stdin if line.strip()]
        failures = [failure for line in lines for failure in check_instance(line)]
        checked = f"{len(lines)} instances"
    else:
        sys.exit("usage: check_contract.py documents | instances < lines")
    for failure in failures:
        print(failure)
    print(f"checked {checked}: {len(failures)} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
