#!/usr/bin/env python3
"""What a second thread gains one engine against another, opening for opening.

Reads the PGN of two or more "2 threads against 1" matches (scripts/smp_match.sh, with and
without --reference) played on the same openings, ideally interleaved in one sitting
(scripts/smp_interleave.sh), and reports for each subject (the 2-thread side, e.g. `lazuli-2t`
and `ethereal-chess-2t`) its pentanomial and Elo, then the difference of the first subject's
Elo and each other's over the openings both played as a full colour-reversed pair.

Because both matches used the same openings, the difference is measured pair by pair: with
``x_i`` and ``y_i`` the per-game score of the two subjects on opening ``i``, the Elo difference
is ``f(mean x) - f(mean y)`` (``f`` the logistic Elo) and its 95% interval comes from the
delta method, ``Var = (f'(x)^2 Var x + f'(y)^2 Var y - 2 f'(x) f'(y) Cov(x, y)) / n``, which
accounts for openings that are easy or hard for both. Example:

    .venv/bin/python scripts/smp_gap.py results/s25/*.pgn --subject lazuli-2t \\
        --subject ethereal-chess-2t
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections import defaultdict
from typing import Dict, Iterable, List, Optional, Sequence, TextIO, Tuple

import chess.pgn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lazuli_match.stats import PENTA_LABELS, Z_95, format_elo, logistic_elo, pentanomial_elo  # noqa: E402

RESULT_FOR_WHITE = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def read_pair_scores(handles: Iterable[TextIO], subjects: Sequence[str]) -> Dict[str, Dict[str, float]]:
    """For each subject, its per-game score on every opening it played twice (both colours).

    Games are keyed by the `Opening` tag (match.py writes `#N of FILE`), or the start FEN. An
    opening with one game, or with more than two, is left out: it is not one colour-reversed pair.
    Unfinished games (`*`) are skipped."""
    games: Dict[str, Dict[str, List[Tuple[bool, float]]]] = {s: defaultdict(list) for s in subjects}
    for handle in handles:
        while True:
            game = chess.pgn.read_game(handle)
            if game is None:
                break
            headers = game.headers
            white_score = RESULT_FOR_WHITE.get(headers.get("Result", "*"))
            if white_score is None:
                continue
            opening = headers.get("Opening") or headers.get("FEN") or chess.STARTING_FEN
            for subject in subjects:
                if headers.get("White") == subject:
                    games[subject][opening].append((True, white_score))
                elif headers.get("Black") == subject:
                    games[subject][opening].append((False, 1.0 - white_score))
    scores: Dict[str, Dict[str, float]] = {}
    for subject, by_opening in games.items():
        scores[subject] = {
            opening: (played[0][1] + played[1][1]) / 2.0
            for opening, played in by_opening.items()
            if len(played) == 2 and played[0][0] != played[1][0]
        }
    return scores


def pentanomial(pair_scores: Iterable[float]) -> List[int]:
    counts = [0] * len(PENTA_LABELS)
    for score in pair_scores:
        counts[round(score * 4)] += 1
    return counts


def elo_slope(score: float) -> float:
    """d(logistic Elo)/d(score)."""
    return 400.0 / (math.log(10.0) * score * (1.0 - score))


def paired_difference(xs: Sequence[float], ys: Sequence[float]) -> Optional[Tuple[float, float]]:
    """Elo(xs) - Elo(ys) and the half-width of its 95% interval, for per-game scores paired by
    opening; None with fewer than two pairs or a score of 0% or 100% on either side."""
    n = len(xs)
    if n != len(ys) or n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    if not (0.0 < mx < 1.0 and 0.0 < my < 1.0):
        return None
    var_x = sum((x - mx) ** 2 for x in xs) / (n - 1)
    var_y = sum((y - my) ** 2 for y in ys) / (n - 1)
    cov = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / (n - 1)
    dx, dy = elo_slope(mx), elo_slope(my)
    variance = (dx * dx * var_x + dy * dy * var_y - 2.0 * dx * dy * cov) / n
    return logistic_elo(mx) - logistic_elo(my), Z_95 * math.sqrt(max(variance, 0.0))


def report(scores: Dict[str, Dict[str, float]], subjects: Sequence[str]) -> List[str]:
    lines = []
    for subject in subjects:
        mine = scores[subject]
        penta = pentanomial(mine.values())
        est = pentanomial_elo(penta)
        counts = " ".join(f"{k} {v}" for k, v in zip(PENTA_LABELS, penta))
        elo = f"Elo {format_elo(est)}, nElo {est.nelo:+.1f}" if est else "no pairs"
        lines.append(f"{subject}: {len(mine)} pairs ({counts}); {elo}")
    first = subjects[0]
    for other in subjects[1:]:
        common = sorted(set(scores[first]) & set(scores[other]))
        xs = [scores[first][o] for o in common]
        ys = [scores[other][o] for o in common]
        line = f"{first} - {other} over the {len(common)} openings both played: "
        gap = paired_difference(xs, ys)
        if gap is None:
            lines.append(line + "not enough pairs")
            continue
        for name, values in ((first, xs), (other, ys)):
            est = pentanomial_elo(pentanomial(values))
            line += f"{name} {format_elo(est)}; "
        lines.append(line + f"difference {gap[0]:+.1f} +- {gap[1]:.1f} Elo (95%, paired)")
    return lines


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pgn", nargs="+", help="PGN files of the matches (any order)")
    parser.add_argument("--subject", action="append", required=True,
                        help="the 2-thread side of a match (give two or more; the first is compared "
                             "with each other)")
    args = parser.parse_args(argv)
    if len(args.subject) < 2:
        parser.error("give at least two --subject")
    handles = [open(path, encoding="utf-8", errors="replace") for path in args.pgn]
    try:
        scores = read_pair_scores(handles, args.subject)
    finally:
        for handle in handles:
            handle.close()
    print("\n".join(report(scores, args.subject)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
