"""Plots page latency against depth from the depth sweep's CSV: keyset against OFFSET, per backend,
log scale. Usage: plot.py docs/depth.csv docs/depth.png [caption]"""

import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

source, target = sys.argv[1], sys.argv[2]
caption = sys.argv[3] if len(sys.argv) > 3 else ""

series = defaultdict(list)  # (backend, method) -> [(depth, µs)]
with open(source, newline="") as f:
    for row in csv.DictReader(f):
        if row["median_us"]:
            series[(row["backend"], row["method"])].append((int(row["depth"]), float(row["median_us"])))

colors = {"SQLite": "#1f77b4", "PostgreSQL": "#d62728", "MariaDB": "#2ca02c"}
fig, ax = plt.subplots(figsize=(9, 5.5), dpi=110)
for (backend, method), points in sorted(series.items(), key=lambda item: (item[0][1], item[0][0])):
    points.sort()
    x = [depth / 1000 for depth, _ in points]
    y = [us / 1000 for _, us in points]
    keyset = method == "keyset"
    ax.plot(
        x,
        y,
        color=colors.get(backend, "black"),
        linestyle="-" if keyset else "--",
        marker="o" if keyset else "s",
        linewidth=2.2 if keyset else 1.6,
        markersize=5,
        label=f"{backend}, {'keyset' if keyset else 'OFFSET'}",
    )
    end = points[-1][1] / 1000
    label = f"{end / 1000:.2g} s" if end >= 1000 else f"{end:.3g} ms" if end >= 0.1 else f"{end * 1000:.0f} µs"
    ax.annotate(label, (x[-1], y[-1]), textcoords="offset points", xytext=(6, -3), fontsize=8,
                color=colors.get(backend, "black"))

ax.set_yscale("log")
ax.set_xlabel("depth: rows before the page (thousands)")
ax.set_ylabel("latency of one 20-row page (ms, log scale)")
ax.set_title("Keyset pages cost the same at any depth; OFFSET pages grow with it\n"
             "1,000,000 rows, 100 per timestamp, ORDER BY created_at DESC, id DESC")
ax.grid(True, which="major", alpha=0.35)
ax.grid(True, which="minor", alpha=0.12)
ax.set_xlim(-20, max(x for points in series.values() for x, _ in [(p[0] / 1000, 0) for p in points]) * 1.12)
handles, labels = ax.get_legend_handles_labels()
order = sorted(range(len(labels)), key=lambda i: ("OFFSET" in labels[i], labels[i]))
ax.legend([handles[i] for i in order], [labels[i] for i in order], loc="center right", fontsize=9, ncol=2)
if caption:
    fig.text(0.01, 0.01, caption, fontsize=7.5, color="#555555")
fig.tight_layout(rect=(0, 0.03 if caption else 0, 1, 1))
fig.savefig(target)
print(f"wrote {target}")
