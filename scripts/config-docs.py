#!/usr/bin/env python3
"""Writes the configuration table (`tilawa config keys --markdown`, read on stdin) into each
document named, in place of the table that starts with its header row.

Usage: tilawa config keys --markdown | scripts/config-docs.py README.md Sources/TilawaDaemon/Configuration/CONFIGURATION.md
`make config-docs` runs it; a test fails when a document's table differs from the catalogue.
"""
import sys

HEADER = "| key | environment variable | default | meaning |"


def main(paths):
    table = sys.stdin.read().rstrip("\n").split("\n")
    if not table or table[0] != HEADER:
        raise SystemExit("config-docs: stdin is not the table of `tilawa config keys --markdown`")
    for path in paths:
        lines = open(path, encoding="utf-8").read().split("\n")
        if HEADER not in lines:
            raise SystemExit(f"config-docs: {path} has no configuration table (a line {HEADER!r})")
        start = lines.index(HEADER)
        end = start
        while end < len(lines) and lines[end].startswith("|"):
            end += 1
        updated = lines[:start] + table + lines[end:]
        if updated != lines:
            open(path, "w", encoding="utf-8").write("\n".join(updated))
            print(f"config-docs: {path} updated ({len(table) - 2} keys)")


if __name__ == "__main__":
    main(sys.argv[1:])
