#!/usr/bin/env python3
"""The network's scale against the hand-crafted evaluation's, and both against search scores.

The search's margins were fitted to the hand-crafted evaluation's centipawns; a network that
evaluates on another scale moves what they mean. This samples positions from the games of a
PGN written by scripts/match.py (each move's comment carries the mover's search score, as in
`+0.35/17 0.250s`), asks Lazuli's `eval` for both evaluations of each position in one process,
and prints, for the network and the hand-crafted evaluation: the median, mean and 90th
percentile of |eval|; the network over the hand-crafted evaluation, as a median ratio where
|hand-crafted| >= 50 cp and as a least-squares slope, with the correlation; and |eval - score|
where |score| < 1000 cp. Positions in check, mate scores and plies before --min-ply are left
out. Scores are the searches of whichever engines played the PGN, so a network that played it
is favoured in the last comparison. Example:

    python3 scripts/eval_scale.py --engine target/release/lazuli --pgn games.pgn.xz \\
        --positions 3000 --seed 1 [--option EvalFile=candidate.lznn]
"""

import argparse
import io
import lzma
import random
import re
import statistics
import sys
from typing import List, Optional, Sequence, Tuple

import chess.pgn

from hash_file_reuse import Engine

SCORE = re.compile(r"^([+-]\d+\.\d+)/")
HAND_CRAFTED = re.compile(r"^Final evaluation: .*, ([+-]?\d+\.\d+) \(side to move's view\)")
NETWORK = re.compile(r"^Network (\S+): .*, (-?\d+) cp \(side to move's view\)")


def read_pgn(path: str) -> io.TextIOBase:
    if path.endswith(".xz"):
        return io.TextIOWrapper(lzma.open(path), encoding="utf-8")
    return open(path, encoding="utf-8")


def positions(path: str, min_ply: int) -> List[Tuple[str, int]]:
    """Every (FEN, search score of the side to move in cp) the PGN's comments give."""
    found = []
    with read_pgn(path) as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            board = game.board()
            for ply, node in enumerate(game.mainline()):
                match = SCORE.match(node.comment or "")
                if ply >= min_ply and match and not board.is_check():
                    found.append((board.fen(), round(float(match.group(1)) * 100)))
                board.push(node.move)
    return found


class EvalEngine(Engine):
    """A Lazuli process that answers `eval` for one position after another."""

    def __init__(self, command: str, options: Sequence[str]):
        super().__init__(command)
        self.send("uci")
        self.until("uciok")
        for option in options:
            name, _, value = option.partition("=")
            self.send(f"setoption name {name} value {value}")
        self.send("isready")
        for line in self.until("readyok"):
            if line.startswith("info string"):
                print(line, file=sys.stderr)

    def evaluate(self, fen: str) -> Tuple[int, Optional[int], Optional[str]]:
        """(hand-crafted cp, network cp or None, network name) for the side to move."""
        self.send(f"position fen {fen}")
        self.send("eval")
        hand = network = name = None
        for line in self.until(("Network", "No network")):
            if found := HAND_CRAFTED.match(line):
                hand = round(float(found.group(1)) * 100)
            if found := NETWORK.match(line):
                name, network = found.group(1), int(found.group(2))
        if hand is None:
            raise RuntimeError(f"no hand-crafted evaluation in the answer for {fen}")
        return hand, network, name


def evaluate_all(command: str, options: Sequence[str], sample: Sequence[Tuple[str, int]]):
    """(hand-crafted, network, score) for each sampled position, and the network's name."""
    engine = EvalEngine(command, options)
    rows = []
    name = None
    try:
        for fen, score in sample:
            hand, network, name = engine.evaluate(fen)
            if network is None:
                raise RuntimeError("the engine uses no network: set Use NNUE, or EvalFile")
            rows.append((hand, network, score))
    finally:
        engine.close()
    return rows, name


def spread(values: Sequence[float]) -> str:
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return f"median {statistics.median(ordered):.1f}, mean {statistics.fmean(ordered):.1f}, 90th percentile {p90:.1f}"


def slope_and_correlation(xs: Sequence[float], ys: Sequence[float]) -> Optional[Tuple[float, float]]:
    """Least-squares slope of ys on xs and their correlation; None where either does not vary."""
    if len(xs) < 2:
        return None
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return sxy / sxx, sxy / (sxx * syy) ** 0.5


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine", required=True, help="a Lazuli binary")
    parser.add_argument("--pgn", required=True, help="games written by scripts/match.py (.pgn or .pgn.xz)")
    parser.add_argument("--positions", type=int, default=3000, help="positions sampled (default 3000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the sample (default 1)")
    parser.add_argument("--min-ply", type=int, default=0, help="leave out the plies before this one")
    parser.add_argument("--option", action="append", default=[], help="NAME=VALUE, a UCI option to set first")
    args = parser.parse_args()

    try:
        pool = positions(args.pgn, args.min_ply)
    except (OSError, EOFError, lzma.LZMAError, UnicodeDecodeError) as error:
        print(f"cannot read {args.pgn}: {error}", file=sys.stderr)
        return 1
    if not pool:
        print(f"no scored positions in {args.pgn}", file=sys.stderr)
        return 1
    sample = random.Random(args.seed).sample(pool, min(args.positions, len(pool)))
    try:
        rows, name = evaluate_all(args.engine, args.option, sample)
    except (OSError, RuntimeError) as error:
        print(f"{args.engine}: {error}", file=sys.stderr)
        return 1

    hands = [h for h, _, _ in rows]
    nets = [n for _, n, _ in rows]
    print(f"network {name}, {len(rows)} positions of {len(pool)} from {args.pgn} (seed {args.seed})")
    print(f"|eval| network: {spread([abs(n) for n in nets])}")
    print(f"|eval| hand-crafted: {spread([abs(h) for h in hands])}")
    ratios = [n / h for h, n, _ in rows if abs(h) >= 50]
    ratio = f"{statistics.median(ratios):.3f}" if ratios else "none"
    fit = slope_and_correlation(hands, nets)
    fitted = f"slope {fit[0]:.3f}, correlation {fit[1]:.3f}" if fit else "no slope (too few distinct evaluations)"
    print(f"network over hand-crafted: median ratio {ratio} ({len(ratios)} positions with |hand-crafted| >= 50), {fitted}")
    close = [(h, n, s) for h, n, s in rows if abs(s) < 1000]
    if close:
        print(f"|eval - score| network ({len(close)} positions, |score| < 1000): {spread([abs(n - s) for _, n, s in close])}")
        print(f"|eval - score| hand-crafted: {spread([abs(h - s) for h, _, s in close])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
