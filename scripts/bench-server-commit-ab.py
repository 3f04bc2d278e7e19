#!/usr/bin/env python3
"""One-connection latency of a durable 100-item add (POST .../items, fsync'd before its 200)
on two `amq serve` binaries in turn, three rounds: the A/B of redb's one-phase against its
two-phase commits (BENCHMARKS.md, "amq serve under load"). Usage:
scripts/bench-server-commit-ab.py BINARY_A BINARY_B; 400 requests per binary and round, on
127.0.0.1:18940, the data in ./ab (removed first)."""
import http.client, json, subprocess, sys, time, shutil, os, statistics
def run(binary, conns=1, reqs=400):
    shutil.rmtree("ab", ignore_errors=True)
    p = subprocess.Popen([binary, "serve", "--data", "ab", "--listen", "127.0.0.1:18940"], stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    for _ in range(100):
        try:
            c = http.client.HTTPConnection("127.0.0.1", 18940); c.request("GET", "/api/v1/filters"); c.getresponse().read(); break
        except Exception: time.sleep(0.05)
    c.request("PUT", "/api/v1/filters/b", json.dumps({"kind":"bloom","items":1000000,"fpr":0.01}), {"content-type":"application/json"}); c.getresponse().read()
    lat = []
    t0 = time.perf_counter()
    for i in range(reqs):
        body = json.dumps({"items": [f"k{i}-{j}" for j in range(100)]})
        s = time.perf_counter()
        c.request("POST", "/api/v1/filters/b/items", body, {"content-type":"application/json"}); r = c.getresponse(); r.read()
        assert r.status == 200, r.status
        lat.append(time.perf_counter() - s)
    total = time.perf_counter() - t0
    p.terminate(); p.wait()
    lat.sort()
    return total / reqs * 1e3, lat[len(lat)//2] * 1e3, lat[int(len(lat)*0.99)] * 1e3
for rnd in range(3):
    for b in sys.argv[1:3]:
        m, med, p99 = run(b)
        print(f"{b} round {rnd}: mean {m:.2f} ms, median {med:.2f} ms, p99 {p99:.2f} ms per 100-item durable add", flush=True)
