#!/usr/bin/env python3
"""Writes the benchmark's SQL files (not a test).

  copy.sql   seed 003's migration: one COPY ... FROM STDIN of 5 650 000 lines, ~116 MB (~20.6 bytes
             a line) into a table of matching shape (id bigint, code integer, name text)
  small.sql  many small statements: DDL with 20 dollar-quoted plpgsql functions, then 200 000 INSERTs
  one.sql    one `SELECT 1;`: the start-up, from start to exit
  huge.sql   with --huge: the COPY file ten times over, 56 500 000 lines, ~1.2 GB

Usage: generate.py DIR [--huge]
"""
import os
import sys


def copy_file(path, lines):
    with open(path, "w") as f:
        f.write("CREATE TABLE big (id bigint, code integer, name text);\n")
        f.write("COPY big (id, code, name) FROM STDIN;\n")
        batch = []
        for i in range(1, lines + 1):
            batch.append(f"{i}\t{(i * 7919) % 100000}\tname{i % 100}\n")
            if len(batch) == 100_000:
                f.write("".join(batch))
                batch = []
        f.write("".join(batch))
        f.write("\\.\n")


def small_file(path, inserts):
    with open(path, "w") as f:
        f.write("CREATE TABLE small (id bigint PRIMARY KEY, name text NOT NULL, note text);\n")
        for k in range(20):
            f.write(
                f"CREATE FUNCTION small_f{k}(x bigint) RETURNS text LANGUAGE plpgsql AS $body$\n"
                "DECLARE s text := 'it''s; fine';\n"
                "BEGIN\n"
                "  -- a comment; with a semicolon\n"
                f"  RETURN s || x::text || $q${k};$q$;\n"
                "END;\n"
                "$body$;\n"
            )
        for i in range(inserts):
            f.write(f"INSERT INTO small (id, name, note) VALUES ({i}, 'name {i}', 'a; ''quoted'' note');\n")


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    targets = [
        ("copy.sql", lambda p: copy_file(p, 5_650_000)),
        ("small.sql", lambda p: small_file(p, 200_000)),
        ("one.sql", lambda p: open(p, "w").write("SELECT 1;\n")),
    ]
    if "--huge" in sys.argv:
        targets.append(("huge.sql", lambda p: copy_file(p, 56_500_000)))
    for name, make in targets:
        path = os.path.join(out, name)
        if not os.path.exists(path):
            make(path)
        print(f"{path}: {os.path.getsize(path)} bytes", file=sys.stderr)


main()
