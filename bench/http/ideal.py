#!/usr/bin/env python3
"""Zero-overhead makespan of N requests at concurrency C with delays uniform(MIN, MAX) seconds
(each of C slots takes the next request as soon as it is free). The finite-N ideal: no real
client can finish N requests faster, and its rate N / makespan is below C / mean because the
last requests drain.

usage: ideal.py N C MIN_S MAX_S   -> prints the makespan in seconds
"""
import heapq, random, sys

n, c, lo, hi = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
rng = random.Random(1)
slots = [0.0] * min(n, c)
end = 0.0
for _ in range(n):
    t = slots[0] + rng.uniform(lo, hi)
    end = max(end, t)
    heapq.heapreplace(slots, t)
print(f"{end:.4f}")
