#!/usr/bin/env python3
"""GPU time of a BFS team's searches by kind of kernel, from tools/cupti/trace.c's lines.

usage: summary.py TRACE.txt

For a `warpgraph bench bfs --gpus G --warm-each` run: each search starts at an
`mbfs_reset` kernel and ends before the tree's first copy to the host (over 1 MiB); the
bench's setup search comes first, then each root's warm-up and its timed search, which
alone are summed. Prints, for each GPU, the mean over the timed searches of the
microseconds spent in each kind of kernel, and of the span from the reset's start to
the last kernel's end. An exchange's kernel time includes its wait for the slowest rank.
Then where the GPU stood idle: the mean gap before each kind of kernel (from the end of
the one before), and the first timed search's kernels in order (start, time, gap before).
"""
import collections
import sys


def kind(name):
    if name.startswith("nccl_symAG_ST") or name == "nccl_AllGather_RING":
        return "exchange: bitmap"
    if name.startswith("nccl_symAG_LL"):
        return "exchange: counts"
    if name.startswith("nccl"):
        return "exchange: other"
    if name.startswith("copy") or name.startswith("memset"):
        return "copies"
    return name


def main(path):
    recs = collections.defaultdict(list)
    for line in open(path):
        p = line.split()
        if p[0] == "K":
            name = p[6].split("(")[0]
            if "ncclSymk" in name:
                name = "nccl_symAG_" + ("ST" if "_ST" in name else "LL")
            elif "nccl" in name:
                name = "nccl_" + "_".join(name.split("_")[1:3])
            recs[int(p[1])].append((int(p[3]), int(p[4]), name))
        elif p[0] in "CS":
            what = "copy" if p[0] == "C" else "memset"
            recs[int(p[1])].append((int(p[3]), int(p[4]), f"{what}:{p[5]}"))
        elif p[0] == "DROPPED":
            print(f"warning: CUPTI dropped {p[1]} records", file=sys.stderr)
    for dev in sorted(recs):
        r = sorted(recs[dev])
        starts = [i for i, x in enumerate(r) if x[2] == "mbfs_reset"]
        total = collections.defaultdict(float)
        idle = collections.defaultdict(float)
        spans = []
        first = None
        # The setup's search first, then warm-up and timed search in turn.
        for j, i in enumerate(starts):
            if j == 0 or j % 2 == 1:
                continue
            end = starts[j + 1] if j + 1 < len(starts) else len(r)
            search = r[i:end]
            tree = [k for k, x in enumerate(search)
                    if x[2].startswith("copy") and int(x[2].split(":")[1]) > 1 << 20]
            search = search[: tree[0]] if tree else search
            spans.append((search[-1][1] - search[0][0]) / 1e3)
            end_before = search[0][0]
            for a, b, name in search:
                total[kind(name)] += (b - a) / 1e3
                idle[kind(name)] += max(0, a - end_before) / 1e3
                end_before = max(end_before, b)
            if first is None:
                first = search
        if not spans:
            print(f"GPU {dev}: no timed search found")
            continue
        n = len(spans)
        print(f"GPU {dev}: {n} timed searches, span {sum(spans) / n:.1f} us "
              f"({' '.join(f'{s:.0f}' for s in spans)})")
        for k, v in sorted(total.items(), key=lambda kv: -kv[1]):
            print(f"  {k:<24} {v / n:8.1f} us")
        print(f"  idle before each kind (mean a search, {sum(idle.values()) / n:.1f} us in all):")
        for k, v in sorted(idle.items(), key=lambda kv: -kv[1]):
            if v / n >= 0.05:
                print(f"    {k:<22} {v / n:8.1f} us")
        print("  the first timed search, kernel by kernel (start, time, idle before; us):")
        t0 = end_before = first[0][0]
        for a, b, name in first:
            gap = max(0, a - end_before) / 1e3
            print(f"    {(a - t0) / 1e3:8.1f} {(b - a) / 1e3:7.1f} {gap:6.1f}  {name}")
            end_before = max(end_before, b)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
