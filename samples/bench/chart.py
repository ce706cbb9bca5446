#!/usr/bin/env python3
"""Draws `glreader-bench compare --json` results as a PNG: one panel per ffmpeg output and
buffer count, bars per method grouped by resolution (median fps, whiskers min..max), and a
panel for the row measured under a competing CPU load.

usage: chart.py RESULTS.json OUT.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)


def panel(axes, title, cells, methods):
    sizes = [c["size"] for c in cells]
    width = 0.8 / len(methods)
    colours = plt.get_cmap("tab20").colors  # one colour per method, however many
    for i, (key, label) in enumerate(methods.items()):
        medians = [c[key]["median"] for c in cells]
        low = [c[key]["median"] - c[key]["min"] for c in cells]
        high = [c[key]["max"] - c[key]["median"] for c in cells]
        xs = [s + (i - (len(methods) - 1) / 2) * width for s in range(len(cells))]
        axes.bar(xs, medians, width, yerr=[low, high], capsize=2, label=label, color=colours[i % len(colours)])
    axes.set_xticks(range(len(cells)), sizes)
    axes.set_title(title, fontsize=10)
    axes.set_ylabel("frames per second")
    axes.set_yscale("log")
    axes.grid(axis="y", alpha=0.3)


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        results = json.load(f)
    methods = results["methods"]
    groups = {}
    for c in results["results"]:
        if c["competing_load"]:
            key = f'{c["output"]}, {c["buffers"]} buffer(s), one core kept busy'
        else:
            key = f'ffmpeg {c["output"]}, {c["buffers"]} buffer(s)'
        groups.setdefault(key, []).append(c)
    columns = 2
    rows = (len(groups) + columns - 1) // columns
    figure, axes = plt.subplots(rows, columns, figsize=(7 * columns, 3.6 * rows), squeeze=False)
    for ax, (title, cells) in zip(axes.flat, groups.items()):
        panel(ax, title, cells, methods)
    for ax in list(axes.flat)[len(groups):]:
        ax.axis("off")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    legend_rows = (len(labels) + 3) // 4
    figure.legend(handles, labels, loc="lower center", ncol=4, fontsize=9)
    figure.suptitle(f'glreader vs TurboPipe: {results["renderer"]}, {results["cpus"]} CPUs, '
                    f'{results["runs"]} interleaved runs (bars: median, whiskers: min..max)', fontsize=11)
    # Room below the panels for the legend's rows.
    figure.tight_layout(rect=(0, 0.03 + 0.25 * legend_rows / (3.6 * rows + 1), 1, 0.96))
    figure.savefig(sys.argv[2], dpi=90)
    print(f"wrote {sys.argv[2]}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
