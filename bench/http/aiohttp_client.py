#!/usr/bin/env python3
"""The seed's Python client: aiohttp, a Semaphore(C), every task created up front.

usage: aiohttp_client.py URL-PREFIX N C   (requests URL-PREFIX0 .. URL-PREFIX{N-1})
Prints one JSON line: finished, ok, errors, elapsed_s, rps.
"""
import asyncio, json, sys, time

import aiohttp


async def main(prefix: str, n: int, c: int) -> None:
    sem = asyncio.Semaphore(c)
    ok = errors = 0
    conn = aiohttp.TCPConnector(limit=c)
    timeout = aiohttp.ClientTimeout(total=60)
    async with aiohttp.ClientSession(connector=conn, timeout=timeout) as session:
        async def call(i: int) -> None:
            nonlocal ok, errors
            async with sem:
                try:
                    async with session.get(f"{prefix}{i}") as resp:
                        await resp.read()
                        if resp.status == 200:
                            ok += 1
                        else:
                            errors += 1
                except Exception:
                    errors += 1

        start = time.monotonic()
        await asyncio.gather(*(call(i) for i in range(n)))
        elapsed = time.monotonic() - start
    print(json.dumps({"finished": ok + errors, "ok": ok, "errors": errors,
                      "elapsed_s": elapsed, "rps": (ok + errors) / elapsed}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
