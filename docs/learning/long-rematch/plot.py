#!/usr/bin/env python3
"""Draws the long run's curve and resources as SVG (Python's standard library only).

    python3 docs/learning/long-rematch/plot.py

reads doubling-*h/<rung>/result.json and final/<rung>/result.json (the matches rate.sh plays)
and resources.csv (watch.sh's samples) beside this file and writes curve.svg (the score against
each ladder rung at each doubling of CPU-hours and at the run's end, with 95% intervals) and resources.svg (resident memory and the run
directory's size against the step).
"""
import csv
import glob
import json
import math
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
RUNGS = [("uct-1000", "uct:1000", "#1f77b4"), ("uct-3000", "uct:3000", "#d62728"),
         ("alphabeta-4", "alphabeta:4", "#2ca02c")]
W, H, LEFT, RIGHT, TOP, BOTTOM = 640, 400, 70, 170, 40, 50


def score(path):
    """(score, 95% half-width) of agent 0 over a match's games; None if not on record."""
    if not os.path.exists(path):
        return None
    games = json.load(open(path))["games"]
    points = []
    for g in games:
        w = g["winner"]
        points.append(0.5 if w is None else float(g["seats"][w] == 0))
    n = len(points)
    mean = sum(points) / n
    var = sum((p - mean) ** 2 for p in points) / max(n - 1, 1)
    return mean, 1.96 * math.sqrt(var / n)


def frame(title, xlabel, ylabel):
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
            f'font-family="sans-serif" font-size="12">',
            f'<rect width="{W}" height="{H}" fill="white"/>',
            f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="14">{title}</text>',
            f'<text x="{LEFT + (W - LEFT - RIGHT) / 2}" y="{H - 10}" '
            f'text-anchor="middle">{xlabel}</text>',
            f'<text x="15" y="{TOP + (H - TOP - BOTTOM) / 2}" text-anchor="middle" '
            f'transform="rotate(-90 15 {TOP + (H - TOP - BOTTOM) / 2})">{ylabel}</text>']


def axes(out, xs, ys, xfmt, yfmt):
    """Grid lines and tick labels; returns the (x, y) -> pixel map."""
    (x0, x1), (y0, y1) = xs, ys
    px = lambda x: LEFT + (x - x0) / (x1 - x0) * (W - LEFT - RIGHT)
    py = lambda y: H - BOTTOM - (y - y0) / (y1 - y0) * (H - TOP - BOTTOM)
    for t, label in yfmt:
        out.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{py(t)}" y2="{py(t)}" '
                   f'stroke="#ddd"/><text x="{LEFT - 6}" y="{py(t) + 4}" '
                   f'text-anchor="end">{label}</text>')
    for t, label in xfmt:
        out.append(f'<line x1="{px(t)}" x2="{px(t)}" y1="{TOP}" y2="{H - BOTTOM}" '
                   f'stroke="#eee"/><text x="{px(t)}" y="{H - BOTTOM + 16}" '
                   f'text-anchor="middle">{label}</text>')
    out.append(f'<rect x="{LEFT}" y="{TOP}" width="{W - LEFT - RIGHT}" '
               f'height="{H - TOP - BOTTOM}" fill="none" stroke="black"/>')
    return px, py


def legend(out, entries):
    for i, (name, colour) in enumerate(entries):
        y = TOP + 10 + 18 * i
        out.append(f'<line x1="{W - RIGHT + 10}" x2="{W - RIGHT + 30}" y1="{y}" y2="{y}" '
                   f'stroke="{colour}" stroke-width="2"/><text x="{W - RIGHT + 35}" '
                   f'y="{y + 4}">{name}</text>')


def rated():
    """(CPU-hours, folder) of each rating on record: the doublings and the run's end, at the
    CPU time of the checkpoint rated (its state.json in the committed run), else the
    doubling's nominal hours."""
    out = []
    for folder in glob.glob(os.path.join(HERE, "doubling-*h")) + [os.path.join(HERE, "final")]:
        result = os.path.join(folder, RUNGS[0][0], "result.json")
        if not os.path.exists(result):
            continue
        step = int(re.search(r"step-(\d+)", json.load(open(result))["agents"][0]).group(1))
        state = os.path.join(HERE, "run", "checkpoints", f"step-{step:08d}", "state.json")
        if os.path.exists(state):
            hours = json.load(open(state))["cpu_s"] / 3600
        else:
            hours = int(re.search(r"doubling-(\d+)h$", folder).group(1))
        out.append((hours, folder))
    return sorted(out)


def curve():
    points_at = rated()
    out = frame("Long ReMATCH run: score at 100 visits against the ladder",
                "CPU-hours of training (log scale)", "score (points per game)")
    top = max([h for h, _ in points_at] + [2])
    px, py = axes(out, (-0.25, math.log2(top) + 0.25), (0.3, 1.0),
                  [(math.log2(h), str(h)) for h in [1, 2, 4, 8, 16] if h <= top],
                  [(y / 10, f"{y * 10}%") for y in range(3, 11)])
    out.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{py(0.5)}" y2="{py(0.5)}" '
               f'stroke="#888" stroke-dasharray="4 3"/>')
    for folder, name, colour in RUNGS:
        points = []
        for h, rating in points_at:
            s = score(os.path.join(rating, folder, "result.json"))
            if s:
                points.append((px(math.log2(h)), s))
        path = " ".join(f"{x:.1f},{py(m):.1f}" for x, (m, _) in points)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" '
                   f'stroke-width="2"/>')
        for x, (m, e) in points:
            out.append(f'<line x1="{x}" x2="{x}" y1="{py(m - e)}" y2="{py(m + e)}" '
                       f'stroke="{colour}"/><circle cx="{x}" cy="{py(m)}" r="3" '
                       f'fill="{colour}"><title>{name}: {m:.1%} ± {e:.1%}</title></circle>')
    legend(out, [(n, c) for _, n, c in RUNGS])
    return out + ["</svg>"]


def tick_every(span):
    """A step between x labels that fits about eight of them."""
    for every in (10000, 20000, 50000, 100000):
        if span / every <= 9:
            return every
    return 200000


def resources():
    rows = list(csv.DictReader(open(os.path.join(HERE, "resources.csv"))))
    steps = [int(r["step"]) for r in rows]
    pids = [r["pid"] for r in rows]
    rss = [int(r["peak_rss_kib"]) / 2 ** 20 for r in rows]
    disk = [int(r["run_disk_kib"]) / 2 ** 20 for r in rows]
    out = frame("Long ReMATCH run: memory and disk", "training step",
                "GiB (peak resident memory, run directory)")
    x1 = max(steps) * 1.05
    ymax = math.ceil(max(rss + disk) + 0.5)
    px, py = axes(out, (0, x1), (0, ymax),
                  [(s, f"{s // 1000}k") for s in range(0, int(x1), tick_every(x1))],
                  [(y, str(y)) for y in range(0, ymax + 1)])
    for values, colour in [(rss, "#1f77b4"), (disk, "#ff7f0e")]:
        # One line per training process: a resume starts a new process (and its peak).
        for pid in dict.fromkeys(pids):
            path = " ".join(f"{px(s):.1f},{py(v):.1f}"
                            for s, v, p in zip(steps, values, pids) if p == pid)
            out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" '
                       f'stroke-width="2"/>')
    legend(out, [("peak RSS", "#1f77b4"), ("run directory", "#ff7f0e"),
                 ("(a line per process)", "white")])
    return out + ["</svg>"]


if __name__ == "__main__":
    for name, lines in [("curve.svg", curve()), ("resources.svg", resources())]:
        with open(os.path.join(HERE, name), "w") as f:
            f.write("\n".join(lines) + "\n")
        print("wrote", os.path.join(HERE, name))
