"""Reading back the finished pairs of an interrupted match from its PGN.

A match that was cut off (a machine that went away, a stop by hand) has every finished game in
its PGN. ``finished_pairs`` recovers, per opponent, the pairs whose two games are both there,
so that the same command with ``--resume`` counts them and plays only the pairs still missing.
A pair with one game only is played again whole; the later games of a pair supersede earlier
ones, so a PGN resumed several times reads back the same way.
"""

from __future__ import annotations

import re
from typing import Callable, Dict, List, Optional, Tuple

import chess

_TAG = re.compile(r'^\[(\w+)\s+"(.*)"\]\s*$')
_ROUND = re.compile(r"^(\d+)\.([12])$")
_LEAD_POINTS = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}

# opponent name -> pair index -> (lead's score in leg 0, lead's score in leg 1)
FinishedPairs = Dict[str, Dict[int, Tuple[float, float]]]


def _games(path: str) -> List[Dict[str, str]]:
    """The tag sections of every game in the file, in order."""
    games: List[Dict[str, str]] = []
    current: Optional[Dict[str, str]] = None
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            match = _TAG.match(line)
            if match:
                if current is None:
                    current = {}
                    games.append(current)
                current[match.group(1)] = match.group(2)
            elif line.strip():
                current = None  # the move text ends a tag section
    return games


def finished_pairs(
    path: str, lead: str, opponents: List[str], time_control: Optional[str],
    planned: Optional[Callable[[int], str]] = None,
) -> FinishedPairs:
    """The finished pairs in the PGN at ``path`` of ``lead`` against each of ``opponents``.

    Raises ValueError when the file belongs to another match: a game without the lead engine or
    against an engine not in this match, another time control, or a round that is not
    ``pair.leg``. ``time_control`` is the PGN tag every game must carry (None: not checked,
    as with time odds). ``planned(pair)`` is the FEN the pair's opening must have: a game
    played from another position (the same command with another --seed, --openings or
    --openings-start) is refused too."""
    legs: Dict[Tuple[str, int], Dict[int, float]] = {}
    for number, tags in enumerate(_games(path), start=1):
        where = f"{path}: game {number}"
        white, black = tags.get("White"), tags.get("Black")
        if lead not in (white, black):
            raise ValueError(f"{where}: {white} against {black}, without {lead}")
        opponent = black if white == lead else white
        if opponent not in opponents:
            raise ValueError(f"{where}: {opponent} is not in this match")
        if time_control is not None and tags.get("TimeControl", time_control) != time_control:
            raise ValueError(f"{where}: time control {tags['TimeControl']}, not {time_control}")
        round_match = _ROUND.match(tags.get("Round", ""))
        if not round_match:
            raise ValueError(f"{where}: round {tags.get('Round')!r} is not pair.leg")
        points = _LEAD_POINTS.get(tags.get("Result", ""))
        if points is None:
            continue  # unfinished
        pair, leg = int(round_match.group(1)) - 1, int(round_match.group(2)) - 1
        if planned is not None:
            played, expected = tags.get("FEN", chess.STARTING_FEN), planned(pair)
            if played != expected:
                raise ValueError(f"{where}: pair {pair + 1} was played from {played}, but this "
                                 f"run plans {expected} (another --seed or --openings?)")
        lead_is_white = white == lead
        if lead_is_white != (leg == 0):
            raise ValueError(f"{where}: {lead} has the wrong colour for leg {leg + 1}")
        legs.setdefault((opponent, pair), {})[leg] = points[0] if lead_is_white else points[1]
    result: FinishedPairs = {name: {} for name in opponents}
    for (opponent, pair), scores in legs.items():
        if len(scores) == 2:
            result[opponent][pair] = (scores[0], scores[1])
    return result
