"""Time controls and the per-game clock.

Four kinds of limit are supported, one per match:

- ``10+0.1``: a clock of 10 s per side plus 0.1 s per move; ``40/10+0.1`` adds a move count:
  each side gets another 10 s after every 40 of its moves and is told how many moves remain
  (``movestogo``);
- a fixed time per move (``movetime``);
- a fixed number of nodes per move;
- a fixed depth per move (``go depth``): what one iteration of each engine is worth, whatever
  it costs. With several threads the depth is the main thread's, so 2 threads against 1 at a
  fixed depth measures how much the helpers improve an iteration, apart from how much sooner it
  ends.

A match may give each engine its own clock (time odds, ``tc=`` in an engine's settings): the
yardstick for what a second thread is worth is what twice the time is worth. Only clocks can
differ per engine; movetime, nodes and depth limits are the same for both sides.

Only the clock kind can be forfeited: the runner measures each move from the moment ``go`` is
written to the moment ``bestmove`` is read, subtracts it from the mover's clock and flags the
mover as soon as the clock goes below zero. There is no grace period.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

import chess
import chess.engine


@dataclass(frozen=True)
class TimeControl:
    """One of: base+increment clock, fixed movetime, fixed nodes, fixed depth (exactly one is
    set)."""

    base: Optional[float] = None
    increment: float = 0.0
    movetime: Optional[float] = None
    nodes: Optional[int] = None
    depth: Optional[int] = None
    # Moves per period of a clock (``MOVES/BASE+INC``): ``base`` is added again after each.
    moves: Optional[int] = None

    @staticmethod
    def parse_clock(text: str) -> "TimeControl":
        """Parses ``[MOVES/]BASE[+INC]`` in seconds, e.g. ``10+0.1``, ``60`` or ``40/10+0.1``."""
        number = r"(\d+(?:\.\d*)?)"
        match = re.fullmatch(rf"\s*(?:(\d+)\s*/\s*)?{number}\s*(?:\+\s*{number})?\s*", text)
        if not match:
            raise ValueError(
                f"time control {text!r} is not [MOVES/]BASE+INC in seconds, e.g. 10+0.1 or 40/10+0.1"
            )
        moves = int(match.group(1)) if match.group(1) is not None else None
        base = float(match.group(2))
        increment = float(match.group(3) or 0.0)
        if base <= 0.0:
            raise ValueError("the base time must be positive")
        if moves is not None and moves <= 0:
            raise ValueError("the move count of a time control must be positive")
        return TimeControl(base=base, increment=increment, moves=moves)

    @property
    def uses_clock(self) -> bool:
        return self.base is not None

    def _clock_text(self) -> str:
        period = f"{self.moves}/" if self.moves is not None else ""
        return f"{period}{self.base:g}+{self.increment:g}"

    def describe(self) -> str:
        if self.base is not None:
            return self._clock_text()
        if self.movetime is not None:
            return f"movetime {self.movetime:g}s"
        if self.depth is not None:
            return f"depth {self.depth}"
        return f"nodes {self.nodes}"

    def pgn_tag(self) -> str:
        """The PGN ``TimeControl`` tag value (``-`` when there is no clock)."""
        if self.base is not None:
            return self._clock_text()
        if self.movetime is not None:
            return f"{self.movetime:g}/move"
        return "-"

    def new_clock(self, black: Optional["TimeControl"] = None) -> "Clock":
        """A clock for one game; ``black`` gives Black other time than White (time odds)."""
        return Clock(self, black)


class Clock:
    """Both sides' remaining time in one game, in seconds."""

    def __init__(self, tc: TimeControl, black: Optional[TimeControl] = None) -> None:
        black = black or tc
        if black != tc and not (tc.uses_clock and black.uses_clock):
            raise ValueError("only clock time controls (BASE+INC) can differ between the sides")
        # The kind of limit (clock, movetime, nodes) is the same for both sides: White's says it.
        self.tcs = {chess.WHITE: tc, chess.BLACK: black}
        self.remaining = {color: t.base or 0.0 for color, t in self.tcs.items()}
        self.moves_made = {chess.WHITE: 0, chess.BLACK: 0}

    def moves_to_go(self, color: chess.Color) -> Optional[int]:
        """Moves ``color`` must still make before its clock is refilled (``None``: no count)."""
        moves = self.tcs[color].moves
        if moves is None:
            return None
        return moves - self.moves_made[color] % moves

    def limit(self, mover: chess.Color) -> chess.engine.Limit:
        """The ``go`` limits for ``mover``, the side to move."""
        tc = self.tcs[chess.WHITE]
        if tc.base is not None:
            return chess.engine.Limit(
                white_clock=self.remaining[chess.WHITE],
                black_clock=self.remaining[chess.BLACK],
                white_inc=self.tcs[chess.WHITE].increment,
                black_inc=self.tcs[chess.BLACK].increment,
                remaining_moves=self.moves_to_go(mover),
            )
        if tc.movetime is not None:
            return chess.engine.Limit(time=tc.movetime)
        if tc.depth is not None:
            return chess.engine.Limit(depth=tc.depth)
        return chess.engine.Limit(nodes=tc.nodes)

    def deadline(self, color: chess.Color, hang_timeout: float) -> float:
        """Seconds after ``go`` when a silent engine is declared hung and killed.

        A hung engine has long forfeited (or, without a clock, is simply broken); the margin only
        exists so that a slightly late ``bestmove`` is recorded as a forfeit rather than a hang.
        """
        tc = self.tcs[color]
        if tc.base is not None:
            return max(self.remaining[color], 0.0) + hang_timeout
        if tc.movetime is not None:
            return tc.movetime + hang_timeout
        return 60.0 + hang_timeout

    def spend(self, color: chess.Color, elapsed: float) -> bool:
        """Charges ``elapsed`` seconds to ``color``; returns False if the flag fell.

        The increment (and, at the end of a move-count period, the base time) is added only after
        a move made in time, as on a real clock.
        """
        tc = self.tcs[color]
        if tc.base is None:
            return True
        self.remaining[color] -= elapsed
        if self.remaining[color] < 0.0:
            return False
        self.remaining[color] += tc.increment
        self.moves_made[color] += 1
        if tc.moves is not None and self.moves_made[color] % tc.moves == 0:
            self.remaining[color] += tc.base
        return True
