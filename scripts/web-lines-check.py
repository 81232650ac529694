# Issue 61's engine lines through the API: a HexDame position with 17 legal turns (no model:
# the server's search without a net) and a ReMATCH position with 12 or more (the shipped
# model), 10 lines asked, as tests/web_api.rs asks them. Prints, for each, the legal turns,
# the lines answered and each line's visits and share of the root's visits.
# Usage: scripts/web-lines-check.py PORT  (a server of `checkers-zero serve --model models/rematch`)
import json, random, sys, urllib.request
port = int(sys.argv[1])
def post(path, body):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", json.dumps(body).encode(), {"content-type": "application/json"})
    return json.load(urllib.request.urlopen(req, timeout=3600))
def position(game, want):
    for seed in range(200):
        rng = random.Random(seed)
        v = post("/api/new", {"game": game})
        for _ in range(40):
            if v["outcome"]: break
            if want(len(v["turns"])): return v["position"], len(v["turns"])
            v = post("/api/play", {"game": game, "position": v["position"], "turn": rng.choice(v["turns"])})
    raise SystemExit(f"no {game} position found")
def report(game, pos, legal, visits):
    a = post("/api/analyse", {"game": game, "position": pos, "visits": visits, "lines": 10})
    root = a["visits"]
    print(f"{game} {pos!r}: {legal} legal turns, {visits} visits asked, 10 lines asked")
    print(f"  lines answered: {len(a['lines'])}; root visits {root}")
    print(f"  position: value {a.get('value')}, wdl {a.get('wdl')}, net_wdl {a.get('net_wdl', '(no such field)')}")
    for l in a["lines"]:
        wdl = l.get("wdl")
        said = f"wdl {[round(x, 3) for x in wdl]} (W - L {wdl[0] - wdl[2]:+.3f})" if wdl else "no wdl"
        print(f"  {l['turns'][0]:<12} visits {l['visits']:>5}  share {100 * l['visits'] / root:5.1f}%  q {l['q']:+.3f}  {said}")
    shares = [round(100 * l["visits"] / root) for l in a["lines"]]
    print(f"  shares % {shares}, sum {sum(shares)}")
    print(f"  turns visited: {len(a['turns'])}: visits {[t['visits'] for t in a['turns']]}")
hex_pos, n = position("hexdame", lambda k: k == 17)
report("hexdame", hex_pos, n, 400)
rem_pos, n = position("rematch", lambda k: k >= 12)
report("rematch", rem_pos, n, 400)
report("rematch", rem_pos, n, 5000)
