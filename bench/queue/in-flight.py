"""What the Go delay server saw of one client (bench/http/alt/h2server.go -trace FILE).

    python3 bench/queue/in-flight.py TRACE OFFSET C

reads the trace's lines from byte OFFSET (where the client's run began) and prints, tab-separated:
the seconds from the first open request to the last, the mean requests in flight, the share of
that time with at least 0.9 x C in flight, and the answered rate between the 10th and 90th
percentile of the run's requests (its steady state, without the start and the end).
"""
import sys

path, offset, c = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(path) as f:
    f.seek(offset)
    rows = [tuple(map(int, line.split())) for line in f if line.strip()]
busy = [r for r in rows if r[1] > 0]
if not busy:
    print("-\t-\t-\t-")
    sys.exit(0)
first = rows[0][2]
total = rows[-1][2] - first


def reached(fraction):
    return next(r for r in rows if r[2] - first >= fraction * total)


a, b = reached(0.1), reached(0.9)
span = (busy[-1][0] - busy[0][0]) / 1000
mean = sum(r[1] for r in busy) / len(busy)
full = sum(1 for r in busy if r[1] >= 0.9 * c) / len(busy)
steady = (b[2] - a[2]) / max((b[0] - a[0]) / 1000, 1e-9)
print(f"{span:.2f}\t{mean:.0f}\t{full * 100:.0f}%\t{steady:.0f}")
