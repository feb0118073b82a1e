#!/usr/bin/env python3
"""Copies every row of a Tilawa SQLite database into a Tilawa PostgreSQL database whose schema
the daemon's migrations made (`tilawa roster import` with database.url set does it), for the
benchmarks that measure the same data on both engines (scripts/bench-status.sh, BENCH_POSTGRES=1).
Not a migration tool for operators: it empties the PostgreSQL tables first.

    scripts/sqlite-to-postgres.py SQLITE_FILE POSTGRES_URL

Columns are matched by name (PostgreSQL folds them to lower case); bytes go as bytea hex; the
artifact-bytes triggers are off during the copy (session_replication_role = replica), since the
copied `meta` rows already hold the counters.
"""
import io
import sqlite3
import subprocess
import sys


def main():
    source, url = sys.argv[1], sys.argv[2]
    db = sqlite3.connect(source)
    db.text_factory = bytes
    tables = [r[0].decode() for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%'")]
    binary = set(query(url, "SELECT table_name || '.' || column_name FROM information_schema.columns WHERE data_type = 'bytea'"))
    identities = set(query(url, "SELECT table_name FROM information_schema.columns WHERE column_name = 'id' AND is_identity = 'YES'"))
    psql = subprocess.Popen(["psql", "-q", "-v", "ON_ERROR_STOP=1", url], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    out = psql.stdin
    out.write("SET session_replication_role = replica;\nBEGIN;\n")
    out.write("TRUNCATE " + ", ".join(tables) + ";\n")
    for table in tables:
        columns = [r[1].decode() if isinstance(r[1], bytes) else r[1] for r in db.execute(f'PRAGMA table_info("{table}")')]
        # Quoted: PostgreSQL reserves some names ("placing", "offset"), folded as the schema folds them.
        names = ", ".join('"' + c.lower() + '"' for c in columns)
        out.write(f"COPY {table} ({names}) FROM STDIN WITH (FORMAT csv);\n")
        quoted = ", ".join(f'"{c}"' for c in columns)
        kinds = [f"{table.lower()}.{c.lower()}" in binary for c in columns]
        for row in db.execute(f'SELECT {quoted} FROM "{table}"'):
            out.write(",".join(field(v, b) for v, b in zip(row, kinds)) + "\n")
        out.write("\\.\n")
    out.write("COMMIT;\n")
    for table in tables:
        if table.lower() in identities:
            out.write(f"SELECT setval(pg_get_serial_sequence('{table.lower()}', 'id'), (SELECT COALESCE(MAX(id), 1) FROM {table}));\n")
    out.write("ANALYZE;\n")
    out.close()
    sys.exit(psql.wait())


def query(url, sql):
    return subprocess.run(["psql", "-At", url, "-c", sql], text=True, capture_output=True, check=True).stdout.split()


def field(value, binary):
    """One CSV field: NULL unquoted and empty, anything else quoted; bytea as hex."""
    if value is None:
        return ""
    if isinstance(value, bytes):
        text = "\\x" + value.hex() if binary else value.decode("utf-8")
    else:
        text = str(value)
    return '"' + text.replace('"', '""') + '"'


if __name__ == "__main__":
    main()
