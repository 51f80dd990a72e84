"""Adjudication from the scores both engines report.

- **Resign**: the last ``resign_moves`` scores of *each* engine are all at least
  ``resign_score`` centipawns in absolute value and all name the same winner.
- **Draw**: from full move ``draw_move_number`` on, the last ``draw_moves`` scores of each
  engine are all within ``draw_score`` centipawns of zero.

A move without a score (for example an engine that answered before reporting any) breaks the
streak. Mate scores count as very large scores. The rules of chess themselves (mate, stalemate,
repetition, 50 moves, insufficient material) are applied by :mod:`.game`, not here.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass
from typing import Deque, Dict, Optional, Tuple

import chess

MATE_AS_CP = 100_000


@dataclass(frozen=True)
class AdjudicationRules:
    resign_score: int = 1000
    resign_moves: int = 4
    draw_score: int = 10
    draw_moves: int = 8
    draw_move_number: int = 40
    enabled: bool = True


class Adjudicator:
    """Follows one game's scores; tells when the game can be adjudicated."""

    def __init__(self, rules: AdjudicationRules) -> None:
        self.rules = rules
        depth = max(rules.resign_moves, rules.draw_moves)
        self._scores: Dict[chess.Color, Deque[Optional[int]]] = {
            chess.WHITE: collections.deque(maxlen=depth),
            chess.BLACK: collections.deque(maxlen=depth),
        }

    def record(self, mover: chess.Color, white_cp: Optional[int]) -> None:
        """Records the score (from White's point of view) that ``mover`` gave with its move."""
        self._scores[mover].append(white_cp)

    def verdict(self, board: chess.Board) -> Optional[Tuple[Optional[chess.Color], str]]:
        """``(winner or None for a draw, reason)`` if the game is decided, else None."""
        if not self.rules.enabled:
            return None
        rules = self.rules
        resign = [self._last(color, rules.resign_moves) for color in chess.COLORS]
        if all(scores is not None for scores in resign):
            both = resign[0] + resign[1]  # type: ignore[operator]
            if all(s >= rules.resign_score for s in both):
                return chess.WHITE, "both engines agree White is winning"
            if all(s <= -rules.resign_score for s in both):
                return chess.BLACK, "both engines agree Black is winning"
        if board.fullmove_number >= rules.draw_move_number:
            draw = [self._last(color, rules.draw_moves) for color in chess.COLORS]
            if all(scores is not None for scores in draw):
                both = draw[0] + draw[1]  # type: ignore[operator]
                if all(abs(s) <= rules.draw_score for s in both):
                    return None, "both engines agree the game is drawn"
        return None

    def _last(self, color: chess.Color, count: int) -> Optional[Tuple[int, ...]]:
        """The last ``count`` scores of ``color``, or None if fewer or any is missing."""
        scores = list(self._scores[color])[-count:]
        if count <= 0 or len(scores) < count or any(s is None for s in scores):
            return None
        return tuple(s for s in scores if s is not None)
