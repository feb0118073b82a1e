#!/usr/bin/env python3
"""A research probe, not part of the product: does a recording say the passage it was aligned to?

    align-acoustic-probe.py TILAWA THRESHOLD SET_DIR...   # each a `make bench-align` set

The aligner (`tilawa align`) places ayahs from pauses alone; a recording of another passage
whose pauses fit at a human pace gets markers. This probe asks the audio instead, without any
model trained elsewhere: for the aligner's placement, each placed unit's speech frames (20 ms;
7 log band energies relative to the frame's loudness, and the loudness, normalised over the
recording's speech) are aligned to the unit's letters by dynamic programming (each letter 1 to
1.5x its share of frames), one diagonal Gaussian per letter fitted on this recording alone
(three rounds of align and refit), and the mean log-likelihood a frame kept. The same is done
with 16 random stretches of Quran text of the same letter counts; the recording's score is the
claimed text's z-score among them. A recording of the passage fits its own letters far better
than random text (median z about 5.5); a recording of another passage does not (z about
N(0, 1)). Short passages (An-Nasr, 110:1-3) carry little evidence: their z is 0.4-1.3.

Prints each aligned recording's z and, at THRESHOLD, how many wrong passages given markers it
would refuse and how many correct recordings it would wrongly refuse. Needs numpy.
"""
import json
import os
import random
import subprocess
import sys
import wave

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import importlib.util

_spec = importlib.util.spec_from_file_location("bench_align", os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-align.py"))
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
TEXT = bench.load_text(os.path.join(ROOT, "data", "quran", "quran-simple-clean.txt"))
ALL = "".join(c for key in sorted(TEXT) for c in TEXT[key] if "\u0621" <= c <= "\u064a")
SYMBOLS = {c: i for i, c in enumerate(sorted(set(ALL)))}
EDGES = [100, 300, 600, 1000, 1500, 2000, 2500, 3000, 3500, 4000, 5000, 6000, 8000, 11025]
GROUPS = [[0], [1], [2], [3, 4], [5, 6, 7], [8, 9, 10], [11, 12]]
SLACK, ROUNDS, DRAWS = 1.5, 3, 16


def letters(unit):
    if unit.get("preface") == "istiadha":
        words = bench.ISTIADHA.split()
    elif unit.get("preface") == "basmala":
        words = bench.BASMALA.split()
    else:
        words = bench.ayah_text(TEXT, unit["surah"], unit["ayah"])
    return [c for c in "".join(words) if "\u0621" <= c <= "\u064a"]


def features(path):
    """20-ms frames: 7 log band energies relative to the frame's loudness, and the loudness."""
    with wave.open(path) as w:
        rate = w.getframerate()
        x = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(float)
    n, hop = int(0.025 * rate), int(0.02 * rate)
    frames = np.lib.stride_tricks.sliding_window_view(x, n)[::hop] * np.hanning(n)
    spectrum = np.abs(np.fft.rfft(frames, axis=1)) ** 2
    freqs = np.fft.rfftfreq(n, 1 / rate)
    bands = np.stack([spectrum[:, (freqs >= a) & (freqs < b)].sum(1) for a, b in zip(EDGES[:-1], EDGES[1:])], 1)
    grouped = np.log(np.stack([bands[:, g].sum(1) for g in GROUPS], 1) + 1e-3)
    loudness = np.log(bands.sum(1) + 1e-3)
    return np.column_stack([grouped - loudness[:, None], loudness])


def align_letters(loglik, symbols, longest):
    """Best split of the frames into the letters in order (each 1..longest frames): score, labels."""
    frames, count = loglik.shape[0], len(symbols)
    sums = np.vstack([np.zeros(loglik.shape[1]), np.cumsum(loglik, 0)])
    previous = np.full(frames + 1, -1e18)
    previous[0] = 0
    back = np.zeros((count, frames + 1), np.int16)
    for i, symbol in enumerate(symbols):
        column = sums[:, symbol]
        current = np.full(frames + 1, -1e18)
        chosen = np.zeros(frames + 1, np.int16)
        for d in range(1, longest + 1):
            candidate = previous[:frames + 1 - d] + (column[d:] - column[:frames + 1 - d])
            better = candidate > current[d:]
            current[d:][better] = candidate[better]
            chosen[d:][better] = d
        previous, back[i] = current, chosen
    if previous[frames] < -1e17:
        return None, None
    labels = np.zeros(frames, np.int32)
    end = frames
    for i in range(count - 1, -1, -1):
        d = back[i, end]
        labels[end - d:end] = symbols[i]
        end -= d
    return previous[frames], labels


def fit(X, units, texts):
    """Mean log-likelihood a frame of the units under per-letter Gaussians fitted to this recording."""
    labels = np.zeros(len(X), np.int32)
    used = np.zeros(len(X), bool)
    for frames, symbols in zip(units, texts):
        labels[frames] = symbols[np.arange(len(frames)) * len(symbols) // len(frames)]
        used[frames] = True
    variance = X[used].var(0) + 1e-3
    total = None
    for _ in range(ROUNDS):
        means = np.array([X[used & (labels == k)].mean(0) if (used & (labels == k)).sum() > 3 else X[used].mean(0)
                          for k in range(len(SYMBOLS))])
        loglik = -0.5 * (((X[:, None, :] - means[None]) ** 2) / variance).sum(2)
        total = 0.0
        for frames, symbols in zip(units, texts):
            longest = max(2, int(np.ceil(SLACK * len(frames) / len(symbols))))
            if longest * len(symbols) < len(frames):
                return None
            score, found = align_letters(loglik[frames], symbols, longest)
            if score is None:
                return None
            total += score
            labels[frames] = found
    return total / used.sum()


def zscore(report, path):
    X = features(path)
    times = np.arange(len(X)) * 0.02
    speech = np.zeros(len(X), bool)
    for start, end in report["speech_segments"]:
        speech[(times >= start) & (times < end)] = True
    X = (X - X[speech].mean(0)) / (X[speech].std(0) + 1e-6)
    placed = [u for u in report["units"] if u.get("start_seconds") is not None and u.get("placed") != "run_together"]
    units, kept = [], []
    for unit in placed:
        frames = np.where(speech & (times >= unit["start_seconds"]) & (times < unit["end_seconds"]))[0]
        if len(frames):
            units.append(frames)
            kept.append(unit)
    if not units:
        return None
    claimed = fit(X, units, [np.array([SYMBOLS[c] for c in letters(u)]) for u in kept])
    if claimed is None:
        return None
    rng = random.Random(len(X))
    null = []
    for _ in range(DRAWS):
        texts = []
        for unit in kept:
            count = len(letters(unit))
            start = rng.randrange(0, len(ALL) - count)
            texts.append(np.array([SYMBOLS[c] for c in ALL[start:start + count]]))
        value = fit(X, units, texts)
        if value is not None:
            null.append(value)
    null = np.array(null)
    return float((claimed - null.mean()) / (null.std() + 1e-9))


def main(argv):
    tilawa, threshold, sets = argv[1], float(argv[2]), argv[3:]
    correct, wrong = [], []
    for directory in sets:
        for entry in json.load(open(os.path.join(directory, "set.json")))["entries"]:
            path = os.path.join(directory, entry["file"])
            run = subprocess.run([tilawa, "align", "--json", "--ayahs", entry["ayahs"], path], capture_output=True, text=True)
            report = json.loads(run.stdout)
            if report.get("unavailable_reason") is not None:
                continue
            z = zscore(report, path)
            kind = "wrong" if entry["wrong"] else ("flawed" if entry.get("flaw") else "correct")
            print("%s %s %-7s against %-10s recites %-10s z %s" % (directory, entry["file"], kind, entry["ayahs"], entry["passage"],
                                                                  "-" if z is None else "%.2f" % z), flush=True)
            (wrong if entry["wrong"] else correct).append(z if z is not None else float("-inf"))
    print("correct or flawed recordings given markers: %d; refused at z < %.2f: %d (lowest %s)" % (
        len(correct), threshold, sum(z < threshold for z in correct), " ".join("%.2f" % z for z in sorted(correct)[:5])))
    print("wrong passages given markers: %d; refused at z < %.2f: %d; left: %s" % (
        len(wrong), threshold, sum(z < threshold for z in wrong), " ".join("%.2f" % z for z in sorted(wrong) if z >= threshold)))


if __name__ == "__main__":
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    main(sys.argv)
