#!/usr/bin/env python3
"""bench/report.py: the report of bench/run.sh's raw CSV.

  report.py CSV "TOOLS"                 the markdown (stdout)
  report.py --plot PREFIX CSV "TOOLS"   PREFIX-PROFILE.png for every profile (gnuplot),
                                        prints their file names

Per profile: a summary (median wall of every tool, s3c as a fraction of raw
curl, s3c's requests), the details (wall min / median, ratio to s3c, CPU,
peak RSS, requests, connections, emulator CPU), then issue 12's targets and
every row where a peer beats s3c. A cell with a failed, wrong or timed-out run
says so.
"""
import csv
import math
import os
import statistics
import subprocess
import sys

NAMES = {
    "s3c": "s3c (defaults)",
    "aws": "AWS CLI (defaults)",
    "aws-tuned": "AWS CLI (tuned: 64, 1GB, 256MB)",
    "aws-crt": "AWS CLI (CRT client)",
    "rclone": "rclone (defaults)",
    "rclone-64": "rclone --transfers 64 --checkers 64",
    "curl": "raw curl: N parallel unsigned, unverified curl requests (a reference, not a ceiling)",
    "s3c-8mib": "s3c --part-size 8MiB (its parts before issue 12)",
    "s3c-nohedge": "s3c, S3C_HEDGE_BUDGET=0 (no hedged requests)",
    "s3c-base": "s3c of another build (S3C_BASE), defaults",
}
SHORT = {
    "s3c": "s3c", "aws": "AWS CLI", "aws-tuned": "AWS CLI tuned", "aws-crt": "AWS CLI CRT",
    "rclone": "rclone", "rclone-64": "rclone 64", "curl": "raw curl", "s3c-8mib": "s3c 8 MiB parts",
    "s3c-nohedge": "s3c no hedging", "s3c-base": "s3c base",
}
DIRS = ["up", "down", "s3s3", "xregion"]


def load(path):
    rows = list(csv.DictReader(open(path, newline="")))
    cells, profiles, order = {}, [], {}
    for r in rows:
        p = r["profile"]
        if p not in profiles:
            profiles.append(p)
            order[p] = []
        key = (r["workload"], r["direction"])
        if key not in order[p]:
            order[p].append(key)
        cells.setdefault((p,) + key + (r["tool"],), []).append(r)
    return cells, profiles, order


def summary(runs):
    ok = [r for r in runs if r["status"] == "ok"]
    bad = [r for r in runs if r["status"] != "ok"]
    walls = [float(r["wall_s"]) for r in ok]

    def med(field, conv=float):
        return statistics.median(conv(r[field]) for r in ok) if ok else None
    return {
        "ok": ok, "bad": bad, "n": len(runs),
        "min": min(walls) if walls else None,
        "med": statistics.median(walls) if walls else None,
        "cpu": med("cpu_s"),
        "rss": max(int(r["peak_rss_kb"]) for r in ok) / 1024 if ok else None,
        "req": med("emu_requests", int),
        "conns": med("emu_connections", int),
        "emu": med("emu_cpu_s"),
        "par": ok[0]["parallel"] if ok else "",
        "parts": ok[0]["parts"] if ok else "",
        "bytes": int(runs[0]["files"]) * int(runs[0]["file_bytes"]) if runs else 0,
    }


def label(wl):
    return wl.replace("_", " ")


def report(path, tools):
    cells, profiles, order = load(path)
    targets, losses = [], []
    for p in profiles:
        print("## Profile %s" % p)
        print()
        print("Median wall seconds (s3c's ratio in parentheses: the tool's time over s3c's, above 1: s3c is")
        print("faster). *of raw curl*: raw curl's time over s3c's, how close s3c comes to N parallel unsigned curl")
        print("requests moving the same bytes. *requests*: what the emulator served s3c (its parts or ranges an")
        print("object in brackets).")
        print()
        peers = [t for t in tools if t not in ("s3c", "curl")]
        head = ["workload", "direction", "raw curl (N)", "s3c", "of raw curl", "s3c requests"] + [SHORT.get(t, t) for t in peers]
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for wl, d in order[p]:
            base = summary(cells.get((p, wl, d, "s3c"), []))
            lim = summary(cells.get((p, wl, d, "curl"), []))
            row = [label(wl), d]
            row.append("%.2f (%s)" % (lim["med"], lim["par"]) if lim["med"] is not None else ("FAILED" if lim["n"] else ""))
            row.append("%.2f" % base["med"] if base["med"] is not None else ("FAILED" if base["n"] else ""))
            row.append("%.0f%%" % (100 * lim["med"] / base["med"]) if lim["med"] and base["med"] else "")
            row.append("%.0f [%s]" % (base["req"], base["parts"]) if base["req"] is not None else "")
            for t in peers:
                s = summary(cells.get((p, wl, d, t), []))
                if not s["n"]:
                    row.append("")
                elif s["med"] is None:
                    row.append("FAILED")
                else:
                    row.append("%.2f (%.1f)" % (s["med"], s["med"] / base["med"]) if base["med"] else "%.2f" % s["med"])
                    if base["med"] and s["med"] < base["med"]:
                        losses.append("%s %s %s: %s %.2f s vs s3c %.2f s (s3c is %.0f%% slower)" % (
                            p, label(wl), d, NAMES.get(t, t), s["med"], base["med"], 100 * (base["med"] / s["med"] - 1)))
            print("| " + " | ".join(row) + " |")
        print()
        print("<details><summary>Every tool: wall min / median, CPU, RSS, requests, connections</summary>")
        print()
        print("| workload | direction | tool | wall s, min / median | ratio vs s3c | CPU s | CPU-s/GB | peak RSS MB "
              "| requests | connections | emulator CPU s | notes |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for wl, d in order[p]:
            base = summary(cells.get((p, wl, d, "s3c"), []))
            for t in tools:
                runs = cells.get((p, wl, d, t))
                if not runs:
                    continue
                s = summary(runs)
                notes = ""
                if t == "curl" and s["ok"]:
                    notes = "N = %s, %s request(s) an object" % (s["par"], s["parts"])
                if s["bad"]:
                    kinds = sorted({r["status"] for r in s["bad"]})
                    notes = "%d of %d runs %s: %s" % (len(s["bad"]), len(runs), "/".join(kinds),
                                                      s["bad"][0]["note"] or "no detail")
                if s["med"] is None:
                    print("| %s | %s | %s | **FAILED** | | | | | | | | %s |" % (label(wl), d, NAMES.get(t, t), notes))
                    continue
                ratio = "%.2f" % (s["med"] / base["med"]) if base["med"] else ""
                print("| %s | %s | %s | %.2f / %.2f | %s | %.2f | %.2f | %.0f | %.0f | %.0f | %.2f | %s |" % (
                    label(wl), d, NAMES.get(t, t), s["min"], s["med"], ratio, s["cpu"], s["cpu"] / (s["bytes"] / 1e9),
                    s["rss"], s["req"], s["conns"], s["emu"], notes))
        print()
        print("</details>")
        print()
        # issue 12's targets, for this profile
        for wl, d in order[p]:
            base = summary(cells.get((p, wl, d, "s3c"), []))
            if base["med"] is None:
                if base["n"]:
                    targets.append("FAIL %s %s %s: s3c has no successful run" % (p, label(wl), d))
                continue
            if base["rss"] >= 100:
                targets.append("FAIL %s %s %s: s3c peak RSS %.0f MB (limit 100)" % (p, label(wl), d, base["rss"]))
            big = cells.get((p, wl, d, "s3c"))[0]
            if int(big["file_bytes"]) >= 200000000 and d in ("up", "down"):
                crt = summary(cells.get((p, wl, d, "aws-crt"), []))
                lim = summary(cells.get((p, wl, d, "curl"), []))
                gb = base["bytes"] / 1e9
                line = "%s %s %s: s3c %.2f s, %.2f CPU-s/GB" % (p, label(wl), d, base["med"], base["cpu"] / gb)
                ok = True
                if crt["med"] is not None:
                    line += "; %.1fx the CRT client (target 2x)" % (crt["med"] / base["med"])
                    ok &= crt["med"] >= 2 * base["med"]
                if lim["med"] is not None:
                    line += "; %.0f%% of raw curl (target 50%%)" % (100 * lim["med"] / base["med"])
                    ok &= lim["med"] >= 0.5 * base["med"]
                targets.append(("ok   " if ok else "FAIL ") + line)
    tls_section(cells, profiles, order, tools)
    print("## Issue 12's targets")
    print()
    print("4 x 200 MB and 2 x 1 GiB, up and down: s3c at least 2x faster than the AWS CLI's CRT client and at")
    print("least 50% of raw curl; client CPU at most 1.5 CPU-s/GB where MD5 is the check, 0.5 where a stored")
    print("CRC is (s3emu keeps a CRC64NVME of every object s3c uploads); peak RSS under 100 MB on every row.")
    print()
    rss = [summary(v)["rss"] for k, v in cells.items() if k[3] == "s3c" and summary(v)["rss"] is not None]
    for c in targets:
        print("- " + (("**" + c + "**") if c.startswith("FAIL") else c))
    if rss:
        print("- s3c peak RSS: at most %.0f MB over all rows (limit 100)" % max(rss))
    print()
    print("## Rows where a peer beats s3c (median wall)")
    print()
    for l in losses or ["none"]:
        print("- " + l)
    tails(cells, profiles, order, tools)


def tails(cells, profiles, order, tools):
    """Issue 17's target for every profile with a tail ("...-tailPpct-xM") beside the same profile
    without one: s3c's median with the tail at most 1.25 times its median without, with at most 3%
    more requests; and what the tail costs each tool."""
    pairs = [(p, p.split("-tail")[0]) for p in profiles if "-tail" in p and p.split("-tail")[0] in profiles]
    if not pairs:
        return
    print()
    print("## Tails (issue 17): each tool with the tail over the same tool without it")
    print()
    print("Target: s3c with the tail at most 1.25x its own time without it, with at most 3% more requests")
    print("(the emulator's count: s3c's duplicates of overdue requests).")
    print()
    head = ["profile", "workload", "direction", "s3c without / with (ratio)", "s3c requests without / with (extra)",
            "target"] + ["%s without / with (ratio)" % SHORT.get(t, t) for t in tools if t not in ("s3c", "curl")]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for p, base_p in pairs:
        for wl, d in order[p]:
            a = summary(cells.get((base_p, wl, d, "s3c"), []))
            b = summary(cells.get((p, wl, d, "s3c"), []))
            if a["med"] is None or b["med"] is None:
                continue
            ratio = b["med"] / a["med"]
            extra = (b["req"] - a["req"]) / a["req"] if a["req"] else 0
            row = [p, label(wl), d, "%.2f / %.2f (%.2f)" % (a["med"], b["med"], ratio),
                   "%.0f / %.0f (%+.1f%%)" % (a["req"], b["req"], 100 * extra),
                   "ok" if ratio <= 1.25 and extra <= 0.03 else "**FAIL**"]
            for t in tools:
                if t in ("s3c", "curl"):
                    continue
                x = summary(cells.get((base_p, wl, d, t), []))
                y = summary(cells.get((p, wl, d, t), []))
                row.append("%.2f / %.2f (%.2f)" % (x["med"], y["med"], y["med"] / x["med"])
                           if x["med"] and y["med"] else "")
            print("| " + " | ".join(row) + " |")


def tls_section(cells, profiles, order, tools):
    """Issue 17: what HTTPS costs each tool, in client CPU-seconds per GB, where
    the same run has the profile over http and over https."""
    pairs = [(p[len("https-"):], p) for p in profiles if p.startswith("https-") and p[len("https-"):] in profiles]
    if not pairs:
        return
    print("## What TLS costs: client CPU-seconds per GB, http and https")
    print()
    print("Median user+sys CPU of the tool over the GB moved (min over the repetitions in brackets), plain")
    print("HTTP against HTTPS in the same run; *TLS adds*: the difference of the medians. Issue 17's target for")
    print("s3c: at most 0.6 CPU-s/GB more on a large transfer (AES-128-GCM alone: 0.23 on this CPU, 4.4 GB/s")
    print("by `openssl speed -evp aes-128-gcm` in 16 KiB blocks).")
    print()
    print("| profile | workload | direction | tool | http CPU-s/GB | https CPU-s/GB | TLS adds | https wall s, min / median |")
    print("|---|---|---|---|---|---|---|---|")
    for plain, tls in pairs:
        for wl, d in order[tls]:
            for t in tools:
                a = summary(cells.get((plain, wl, d, t), []))
                b = summary(cells.get((tls, wl, d, t), []))
                if not b["n"]:
                    continue
                if b["med"] is None:
                    print("| %s | %s | %s | %s | | FAILED | | |" % (plain, label(wl), d, NAMES.get(t, t)))
                    continue
                gb = b["bytes"] / 1e9
                bmin = min(float(r["cpu_s"]) for r in b["ok"]) / gb
                cell_a = ""
                add = ""
                if a["cpu"] is not None:
                    amin = min(float(r["cpu_s"]) for r in a["ok"]) / gb
                    cell_a = "%.2f (%.2f)" % (a["cpu"] / gb, amin)
                    add = "%+.2f" % ((b["cpu"] - a["cpu"]) / gb)
                print("| %s | %s | %s | %s | %s | %.2f (%.2f) | %s | %.2f / %.2f |" % (
                    plain, label(wl), d, NAMES.get(t, t), cell_a, b["cpu"] / gb, bmin, add, b["min"], b["med"]))
    print()


def plot(prefix, path, tools):
    """One PNG per profile: four panels (directions), a cluster of bars per
    workload, a bar per tool, median wall seconds on a log scale."""
    cells, profiles, order = load(path)
    names = []
    for p in profiles:
        dat = "%s-%s.dat" % (prefix, p)
        png = "%s-%s.png" % (prefix, p)
        dirs = [d for d in DIRS if any(k[1] == d for k in order[p])]
        wls = []
        for wl, _ in order[p]:
            if wl not in wls:
                wls.append(wl)
        present = [t for t in tools if any(k[0] == p and k[3] == t for k in cells)]
        meds = [summary(v)["med"] for k, v in cells.items() if k[0] == p]
        top = max([m for m in meds if m] or [1.0])
        with open(dat, "w") as f:
            for d in dirs:
                f.write("# %s\n" % d)
                f.write("workload " + " ".join('"%s"' % SHORT.get(t, t) for t in present) + "\n")
                for wl in wls:
                    vals = []
                    for t in present:
                        s = summary(cells.get((p, wl, d, t), []))
                        vals.append("%.3f" % s["med"] if s["med"] else "NaN")
                    f.write('"%s" %s\n' % (label(wl).replace(" x ", "×"), " ".join(vals)))
                f.write("\n\n")
        gp = "%s-%s.gp" % (prefix, p)
        colors = {"s3c": "#d62728", "aws": "#1f77b4", "aws-tuned": "#aec7e8", "aws-crt": "#9467bd",
                  "rclone-64": "#2ca02c", "rclone": "#98df8a", "curl": "#bcbd22", "s3c-8mib": "#ff9896",
                  "s3c-nohedge": "#c5b0d5", "s3c-base": "#8c564b"}
        with open(gp, "w") as f:
            f.write('set terminal pngcairo size 1600,1000 font "DejaVu Sans,11"\n')
            f.write('set output "%s"\n' % png)
            f.write('set multiplot layout 2,2 title "s3c and its peers on s3emu, profile %s: median wall seconds '
                    '(log scale; lower is better)" font ",14"\n' % p)
            f.write("set style data histogram\nset style histogram cluster gap 1\n")
            f.write("set style fill solid 0.9 border -1\nset boxwidth 0.9\n")
            f.write("set logscale y\nset grid ytics mytics\nset ylabel \"seconds\"\n")
            f.write("set key top left font \",9\" maxrows 3\nset xtics nomirror\n")
            # one scale for the four panels, with room above the bars for the key
            f.write("set yrange [0.01:%g]\n" % (10 ** math.ceil(math.log10(top * 3))))
            for i, d in enumerate(dirs):
                f.write('set title "%s"\n' % {"up": "upload", "down": "download", "s3s3": "S3 to S3, one region",
                                               "xregion": "S3 to S3, across regions"}[d])
                plots = []
                for j, t in enumerate(present):
                    if not any(summary(cells.get((p, wl, d, t), []))["med"] for wl in wls):
                        continue  # no bar: gnuplot refuses a column without a point
                    plots.append("'%s' index %d using %d:xtic(1) title columnheader(%d) lc rgb '%s'" % (
                        os.path.basename(dat), i, j + 2, j + 2, colors.get(t, "#7f7f7f")))
                f.write("plot " + ", \\\n     ".join(plots) + "\n")
            f.write("unset multiplot\n")
        subprocess.run(["gnuplot", os.path.basename(gp)], cwd=os.path.dirname(os.path.abspath(gp)), check=True)
        os.remove(gp)
        os.remove(dat)
        names.append(os.path.basename(png))
    print(" ".join(names))


if __name__ == "__main__":
    if sys.argv[1] == "--plot":
        plot(sys.argv[2], sys.argv[3], sys.argv[4].split())
    else:
        report(sys.argv[1], sys.argv[2].split())
