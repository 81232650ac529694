# The whole-game graph of a 60-turn ReMATCH game with the shipped model: one position after
# another through /api/analyse (the page's old way: 48 visits, 1 line, each in its own
# request) against all positions in one /api/graph request. Usage: scripts/web-graph-time.py PORT [old|new|both]
import json, random, sys, time, urllib.request
port = int(sys.argv[1]); which = sys.argv[2] if len(sys.argv) > 2 else "both"
def post(path, body):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", json.dumps(body).encode(), {"content-type": "application/json"})
    return json.load(urllib.request.urlopen(req, timeout=3600))
def game(seed, turns=60):
    rng = random.Random(seed)
    v = post("/api/new", {"game": "rematch"}); line = [v["position"]]
    while len(line) <= turns:
        if v["outcome"]: return None
        t = rng.choice(v["turns"]); v = post("/api/play", {"game": "rematch", "position": v["position"], "turn": t})
        line.append(v["position"])
    return line
line = next(l for l in (game(s) for s in range(100)) if l)
print(f"{len(line) - 1} turns, {len(line)} positions")
if which in ("old", "both"):
    t = time.time()
    for p in line: post("/api/analyse", {"game": "rematch", "position": p, "visits": 48, "lines": 1})
    print(f"one position at a time (/api/analyse x{len(line)}): {time.time() - t:.1f} s")
if which in ("new", "both"):
    t = time.time()
    r = post("/api/graph", {"game": "rematch", "positions": line, "visits": 48})
    print(f"all together (/api/graph): {time.time() - t:.1f} s, visits {sum(p['visits'] for p in r['positions'])}")
