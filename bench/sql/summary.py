#!/usr/bin/env python3
"""Summarises bench/sql/out/results.csv: per file, cores and client, the median, min and max of the
runs, the median's ratio to psql's median (same file and cores), the client's median CPU (user +
system) and CPU per MB of the file, and the peak RSS. Markdown."""
import csv
import statistics
import sys
from collections import defaultdict

cells = defaultdict(list)
for row in csv.DictReader(open(sys.argv[1])):
    if row["client"].startswith("warm-"):
        continue
    cells[(row["file"], row["cores"], row["client"])].append(
        (float(row["seconds"]), int(row["peak_rss_kb"]), float(row.get("cpu_seconds") or "nan"), float(row.get("mb") or "nan"))
    )

print("| file | client cores | client | median s | min s | max s | x psql | client CPU s | CPU s/MB | peak RSS MB | runs |")
print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for (file, cores, client), runs in sorted(cells.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] != "psql", kv[0][2])):
    times = [r[0] for r in runs]
    median = statistics.median(times)
    base = cells.get((file, cores, "psql"))
    ratio = median / statistics.median([r[0] for r in base]) if base else float("nan")
    rss = max(r[1] for r in runs) / 1024
    cpu = statistics.median([r[2] for r in runs])
    per_mb = cpu / runs[0][3] if runs[0][3] >= 1 else float("nan")  # not for a file of bytes
    print(f"| {file} | {cores} | {client} | {median:.2f} | {min(times):.2f} | {max(times):.2f} | {ratio:.2f} | {cpu:.2f} | {per_mb:.4f} | {rss:.0f} | {len(times)} |")
