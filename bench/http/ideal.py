#!/usr/bin/env python3
"""Zero-overhead makespan of N requests at concurrency C against `weir serve --delay MIN..MAX`
(seed 1): each of C slots takes the next request as soon as it is free, and request i lasts
exactly the server's delay for key i (an id, or for a path without one the i-th arrival since
`POST /reset`). The finite-N ideal: no real client can finish these N requests faster, and its
rate N / makespan is below C / mean because the last requests drain. Same computation as
weir's LittleLaw.finiteIdeal, so every client of a scenario is measured against the delays it met.

usage: ideal.py N C MIN_S MAX_S   -> prints the makespan in seconds
"""
import heapq, sys

M = (1 << 64) - 1


def mix(z):  # SplitMix64's finaliser, as weir.http.Keyed
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)


def delay_ns(seed, key, lo_ns, hi_ns):  # Delay.Uniform.nanosFor(seed, key), purpose 1
    u = (mix((seed * 0x9E3779B97F4A7C15 + key * 0xBF58476D1CE4E5B9 + 1) & M) >> 11) / float(1 << 53)
    return lo_ns + int(u * (hi_ns - lo_ns))


n, c, lo, hi = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
lo_ns, hi_ns = round(lo * 1e9), round(hi * 1e9)
slots = [0] * max(1, min(n, c))
end = 0
for i in range(n):
    t = slots[0] + delay_ns(1, i, lo_ns, hi_ns)
    end = max(end, t)
    heapq.heapreplace(slots, t)
print(f"{end / 1e9:.4f}")
