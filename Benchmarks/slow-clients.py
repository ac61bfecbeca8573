"""Page latency through `waterfall serve` with and without 200 slow clients (slowloris: each
sends a request header line a second and never finishes). Usage: python3 Benchmarks/slow-clients.py PORT [N]
against a server holding the 1M-image feed `bench` of Benchmarks/serve.sh with its layout `phone`."""
import socket, sys, time, statistics, http.client
port = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 200
def measure(label):
    c = http.client.HTTPConnection("127.0.0.1", port)
    times = []
    for i in range(300):
        t = time.perf_counter()
        c.request("GET", "/v1/feeds/bench/layouts/phone/page?offset=990000&limit=100")
        r = c.getresponse(); r.read()
        times.append(time.perf_counter() - t)
    times.sort()
    print(f"{label}: p50 {statistics.median(times)*1000:.2f} ms, p99 {times[int(len(times)*0.99)]*1000:.2f} ms, status {r.status}")
    return statistics.median(times)
base = measure("no slow clients")
slow = []
for i in range(n):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"GET /v1/feeds/bench/layouts/phone/page?offset=0&limit=100 HTTP/1.1\r\nHost: x\r\n")
    slow.append(s)
for round in range(3):
    for s in slow:
        try: s.sendall(b"X-a: b\r\n")
        except OSError: pass
    time.sleep(1)
loaded = measure(f"{n} slow clients sending a header line a second")
alive = 0
for s in slow:
    try:
        s.sendall(b"X-b: c\r\n"); alive += 1
    except OSError: pass
print(f"slow connections still open: {alive} of {n}; slowdown {loaded/base:.2f}x")
