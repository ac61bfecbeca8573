#!/usr/bin/env python3
"""How long a move made through one `waterfall serve` instance takes to show in another's page.

Usage: visibility.py PORT_A PORT_B FEED LAYOUT ID_1 ID_2 [ROUNDS]

Each round moves ID_1 or ID_2 (alternately) to the top of its section through instance A
(POST /v1/feeds/FEED/reorder), then asks instance B for page 0 of LAYOUT every millisecond or so
until the page shows the move's revision, and records the time from the move's answer to that
page. Prints the median, p90 and max of ROUNDS rounds (default 20), with the same for A itself
(read-your-writes). Two instances over one PostgreSQL database: DESIGN section 12.
"""
import http.client, json, statistics, sys, time

def request(port, method, path, body=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Content-Type": "application/json"} if body else {}
    connection.request(method, path, body, headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    if response.status != 200:
        raise SystemExit(f"{method} {path} on {port}: {response.status} {data[:200]!r}")
    return json.loads(data)

def main():
    port_a, port_b, feed, layout, *rest = sys.argv[1:]
    ids = rest[:2]
    rounds = int(rest[2]) if len(rest) > 2 else 20
    page = f"/v1/feeds/{feed}/layouts/{layout}/page?offset=0&limit=20"
    other, own = [], []
    for n in range(rounds):
        body = json.dumps({"moves": [{"id": ids[n % 2], "to": 0}]})
        revision = request(int(port_a), "POST", f"/v1/feeds/{feed}/reorder", body)["revision"]
        moved = time.monotonic()
        if request(int(port_a), "GET", page)["revision"] != revision:
            raise SystemExit("instance A did not read its own write")
        own.append(time.monotonic() - moved)
        while request(int(port_b), "GET", page)["revision"] < revision:
            if time.monotonic() - moved > 10:
                raise SystemExit(f"round {n}: instance B did not show revision {revision} in 10 s")
            time.sleep(0.001)
        other.append(time.monotonic() - moved)
        time.sleep(0.05)
    for name, times in (("the other instance", other), ("the same instance", own)):
        times.sort()
        print(f"move visible through {name}: median {statistics.median(times) * 1000:.1f} ms, "
              f"p90 {times[int(len(times) * 0.9) - 1] * 1000:.1f} ms, max {times[-1] * 1000:.1f} ms ({len(times)} moves)")

main()
