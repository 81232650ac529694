# Issue 61: engine lines of turns reached by several paths of steps (a HexDame king's captures
# in another order, Eximo's drops in another order): the lines asked, and how many distinct
# turns (positions after them) they show. The positions of tests/web_api.rs
# (turns_reached_by_several_paths_are_one_line_each), no model.
# Usage: scripts/web-lines-paths.py PORT VISITS[,VISITS...]
import json, sys, urllib.request
port = int(sys.argv[1])
def post(path, body):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", json.dumps(body).encode(), {"content-type": "application/json"})
    return json.load(urllib.request.urlopen(req, timeout=600))
cases = [
         ("hexdame", "red a2:w a3:w b1:w b2:w b3:w c2:w c4:w d1:w d2:w d4:w e2:w f2:W i5:R"),
         ("hexdame", "red a2:w a5:R b2:w c1:w c5:w d3:w e3:w e5:w f2:w f3:w g4:w g7:r"),
         ("eximo", "black b1:b b3:b b4:b b5:w b6:w b7:w b8:w c2:b c6:w c7:w c8:w d1:b d2:b d3:b d4:b d5:w d7:w d8:w e1:b e2:b e7:w f2:b f3:b f7:w g2:b g3:b g5:w g8:w h4:w"),
         ("eximo", "black a3:b a5:w a7:w b1:b b3:b b5:w b7:w c1:b c3:b c4:b c6:w c7:w c8:w d2:b d3:b d6:w d8:w e1:b e2:b e7:w e8:w f1:b f2:b f3:b f6:w f7:w g1:b g2:b g5:w g7:w g8:w h4:b")]
for game, pos in cases:
    legal = len(post("/api/legal", {"game": game, "position": pos})["turns"])
    asked = min(legal, 10)
    for visits in [int(x) for x in sys.argv[2].split(",")]:
        a = post("/api/analyse", {"game": game, "position": pos, "visits": visits, "lines": asked})
        ends = [post("/api/play", {"game": game, "position": pos, "turn": l["turns"][0]})["position"] for l in a["lines"]]
        print(game, legal, "asked", asked, "visits", visits, "lines", len(ends), "distinct", len(set(ends)), flush=True)
