#!/usr/bin/env python3
"""Runs scim2-tester's conformance checks (RFC 7643/7644) against a SCIM service provider.

Usage: conformance.py BASE_URL TOKEN

BASE_URL is the provider's SCIM root (`http://127.0.0.1:8080/scim/v2`), TOKEN its bearer token
(Tilawa: the content of `scim.token_file`). Every check scim2-tester has runs: discovery
(ServiceProviderConfig, ResourceTypes, Schemas, each by id, 405 for other methods, 404 for
unknown ids and URLs), CRUD of each resource type (create, read, list, `attributes` and
`excludedAttributes`, `/.search`, replace, delete) and PATCH add, remove and replace of every
attribute the provider's schemas publish. One line per check goes to stdout, then a count by
status; the exit status is 1 when any check is an ERROR or CRITICAL (an RFC "MUST" broken), 0
otherwise, 2 when the provider could not be described at all.

The checks fill attributes with random values. Tilawa's extension (`role`, student or coach) is
the programme's fact, not a free value — a coach must already be in program.yaml — so the
checker is given the provider's published description without that extension and told to
ignore attributes it does not describe: the discovery checks still read every schema Tilawa
publishes, the extension's included; the route tests (SCIMRouteTests) cover the role.
"""
import argparse
import collections
import sys

import httpx2
from scim2_client.engines.httpx2 import SyncSCIMClient
from scim2_models import ResourceType, Schema, ScimPolicy, ScimProvider, ServiceProviderConfig
from scim2_tester import Status, check_server

TILAWA_EXTENSION = "urn:tilawa:params:scim:schemas:extension:tilawa:2.0:User"
FAILING = {Status.ERROR, Status.CRITICAL}


def describe(http):
    """The provider as it publishes itself, without Tilawa's extension."""
    probe = SyncSCIMClient(http)
    schemas = probe.query(Schema).resources or []
    resource_types = probe.query(ResourceType).resources or []
    config = probe.query(ServiceProviderConfig)
    core_schemas = [schema for schema in schemas if str(schema.id) != TILAWA_EXTENSION]
    core_types = []
    for resource_type in resource_types:
        kept = [extension for extension in resource_type.schema_extensions or [] if str(extension.schema_) != TILAWA_EXTENSION]
        core_types.append(resource_type.model_copy(update={"schema_extensions": kept or None}))
    policy = ScimPolicy(unknown=ScimPolicy.Unknown.ignore)
    return ScimProvider.from_discovery(core_schemas, core_types, config, policy)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("base_url", help="the SCIM root, e.g. http://127.0.0.1:8080/scim/v2")
    parser.add_argument("token", help="the bearer token")
    args = parser.parse_args(argv[1:])

    base = args.base_url.rstrip("/") + "/"
    with httpx2.Client(base_url=base, headers={"Authorization": f"Bearer {args.token}"}, timeout=120) as http:
        try:
            provider = describe(http)
        except Exception as error:  # noqa: BLE001 - any failure to describe the provider is reported the same way
            print(f"CRITICAL describe: the provider at {base} could not be described: {error}")
            return 2
        client = SyncSCIMClient(http, provider=provider)
        results = check_server(client)

    counts = collections.Counter()
    for result in results:
        counts[result.status.name] += 1
        where = f" [{result.resource_type}]" if result.resource_type else ""
        tags = ",".join(sorted(result.tags)) if result.tags else "-"
        reason = " ".join(str(result.reason or "").split())
        print(f"{result.status.name:10} {result.title}{where} ({tags}): {reason[:400]}")
    print("checks: " + ", ".join(f"{name} {count}" for name, count in sorted(counts.items())) + f"; {len(results)} in all")
    failed = [result for result in results if result.status in FAILING]
    if not results:
        print("FAIL no check ran")
        return 1
    if failed:
        print(f"FAIL {len(failed)} checks broke a MUST of RFC 7643/7644")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
