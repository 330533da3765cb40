#!/usr/bin/env python3
"""bench/report.py CSV "TOOLS": the markdown table of bench/run.sh's raw CSV.

One row per workload, direction and tool: wall min / median, the ratio of the
tool's median wall to s3c's (above 1: s3c is faster), median CPU (user+sys),
the largest peak RSS. A cell with a failed, wrong or timed-out run says so.
Then the issue's checks (issue 4, "Checked by") and every row where s3c is
slower than a peer.
"""
import csv
import statistics
import sys

NAMES = {
    "s3c": "s3c (defaults)",
    "aws": "AWS CLI (defaults)",
    "aws-tuned": "AWS CLI (tuned: 64, 1GB, 256MB)",
    "rclone": "rclone (defaults)",
    "rclone-64": "rclone --transfers 64 --checkers 64",
}


def main():
    path, tools = sys.argv[1], sys.argv[2].split()
    rows = list(csv.DictReader(open(path, newline="")))
    cells = {}   # (workload, direction, tool) -> list of rows
    order = []   # (workload, direction) in run order
    for r in rows:
        key = (r["workload"], r["direction"])
        if key not in order:
            order.append(key)
        cells.setdefault(key + (r["tool"],), []).append(r)

    def summary(runs):
        ok = [r for r in runs if r["status"] == "ok"]
        bad = [r for r in runs if r["status"] != "ok"]
        walls = [float(r["wall_s"]) for r in ok]
        return {
            "ok": ok, "bad": bad,
            "min": min(walls) if walls else None,
            "med": statistics.median(walls) if walls else None,
            "cpu": statistics.median(float(r["cpu_s"]) for r in ok) if ok else None,
            "rss": max(int(r["peak_rss_kb"]) for r in ok) / 1024 if ok else None,
            "req": statistics.median(int(r["emu_requests"]) for r in ok) if ok else None,
            "conns": statistics.median(int(r["emu_connections"]) for r in ok) if ok else None,
            "emu": statistics.median(float(r["emu_cpu_s"]) for r in ok) if ok else None,
        }

    print("| workload | direction | tool | wall s, min / median | ratio vs s3c | CPU s | peak RSS MB "
          "| requests | connections | emulator CPU s | notes |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    losses, checks = [], []
    tuned_ok, rss_max = [0], [0.0]
    for wl, d in order:
        base = summary(cells.get((wl, d, "s3c"), []))
        for t in tools:
            runs = cells.get((wl, d, t))
            if not runs:
                continue
            s = summary(runs)
            notes = ""
            if s["bad"]:
                kinds = sorted({r["status"] for r in s["bad"]})
                notes = "%d of %d runs %s: %s" % (len(s["bad"]), len(runs), "/".join(kinds),
                                                  s["bad"][0]["note"] or "no detail")
            if s["med"] is None:
                print("| %s | %s | %s | **FAILED** | | | | | | | %s |" % (
                    wl.replace("_", " "), d, NAMES.get(t, t), notes))
                continue
            ratio = ""
            if base["med"]:
                ratio = "%.2f" % (s["med"] / base["med"])
            print("| %s | %s | %s | %.2f / %.2f | %s | %.2f | %.0f | %.0f | %.0f | %.2f | %s |" % (
                wl.replace("_", " "), d, NAMES.get(t, t), s["min"], s["med"], ratio,
                s["cpu"], s["rss"], s["req"], s["conns"], s["emu"], notes))
            if t != "s3c" and base["med"] and s["med"] < base["med"]:
                losses.append("%s %s: %s %.2f s vs s3c %.2f s (s3c is %.0f%% slower)" % (
                    wl.replace("_", " "), d, NAMES.get(t, t), s["med"], base["med"],
                    100 * (base["med"] / s["med"] - 1)))
        # the checks
        name = wl.replace("_", " ")
        if base["med"] is None:
            checks.append("FAIL %s %s: s3c has no successful run" % (name, d))
            continue
        rss_max[0] = max(rss_max[0], base["rss"])
        if base["rss"] >= 100:
            checks.append("FAIL %s %s: s3c peak RSS %.0f MB (limit 100)" % (name, d, base["rss"]))
        tuned = summary(cells.get((wl, d, "aws-tuned"), []))
        if tuned["med"] is not None:
            if base["med"] < tuned["med"]:
                tuned_ok[0] += 1
            else:
                checks.append("FAIL %s %s: s3c %.2f s is not faster than the tuned AWS CLI %.2f s" % (
                    name, d, base["med"], tuned["med"]))
        if wl.startswith("10000_x_8_KiB"):
            dflt = summary(cells.get((wl, d, "aws"), []))
            if dflt["med"] is not None:
                r = dflt["med"] / base["med"]
                checks.append("%s %s %s: s3c is %.1fx faster than the AWS CLI at defaults (target 10x)" % (
                    "ok  " if r >= 10 else "FAIL", name, d, r))
    print()
    print("requests, connections, emulator CPU: what the emulator served and spent during the run (median).")
    print()
    print("### The issue's checks (s3c >= 10x the AWS CLI defaults on 10,000 x 8 KiB; faster than the tuned")
    print("### AWS CLI on every row; peak RSS under 100 MB on every row)")
    print()
    fails = [c for c in checks if c.startswith("FAIL")]
    for c in checks:
        if not c.startswith("FAIL"):
            print("- " + c)
    for c in fails:
        print("- **" + c + "**")
    print("- s3c faster than the tuned AWS CLI (median wall) on %d of %d rows" % (tuned_ok[0], len(order)))
    print("- s3c peak RSS: at most %.0f MB over all rows (limit 100)" % rss_max[0])
    print()
    print("### Rows where a peer beats s3c (median wall)")
    print()
    if losses:
        for l in losses:
            print("- " + l)
    else:
        print("- none")


if __name__ == "__main__":
    main()
