"""Time controls and the per-game clock.

Three kinds of limit are supported, one per match:

- ``10+0.1``: a clock of 10 s per side plus 0.1 s per move (``40/60+0.5`` style move counts
  are not supported);
- a fixed time per move (``movetime``);
- a fixed number of nodes per move.

A match may give each engine its own clock (time odds, ``tc=`` in an engine's settings): the
yardstick for what a second thread is worth is what twice the time is worth. Only clocks can
differ per engine; movetime and nodes limits are the same for both sides.

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
    """One of: base+increment clock, fixed movetime, fixed nodes (exactly one is set)."""

    base: Optional[float] = None
    increment: float = 0.0
    movetime: Optional[float] = None
    nodes: Optional[int] = None

    @staticmethod
    def parse_clock(text: str) -> "TimeControl":
        """Parses ``BASE[+INC]`` in seconds, e.g. ``10+0.1`` or ``60``."""
        match = re.fullmatch(r"\s*(\d+(?:\.\d*)?)\s*(?:\+\s*(\d+(?:\.\d*)?))?\s*", text)
        if not match:
            raise ValueError(f"time control {text!r} is not BASE+INC in seconds, e.g. 10+0.1")
        base = float(match.group(1))
        increment = float(match.group(2) or 0.0)
        if base <= 0.0:
            raise ValueError("the base time must be positive")
        return TimeControl(base=base, increment=increment)

    @property
    def uses_clock(self) -> bool:
        return self.base is not None

    def describe(self) -> str:
        if self.base is not None:
            return f"{self.base:g}+{self.increment:g}"
        if self.movetime is not None:
            return f"movetime {self.movetime:g}s"
        return f"nodes {self.nodes}"

    def pgn_tag(self) -> str:
        """The PGN ``TimeControl`` tag value (``-`` when there is no clock)."""
        if self.base is not None:
            return f"{self.base:g}+{self.increment:g}"
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

    def limit(self) -> chess.engine.Limit:
        """The ``go`` limits for the side to move."""
        tc = self.tcs[chess.WHITE]
        if tc.base is not None:
            return chess.engine.Limit(
                white_clock=self.remaining[chess.WHITE],
                black_clock=self.remaining[chess.BLACK],
                white_inc=self.tcs[chess.WHITE].increment,
                black_inc=self.tcs[chess.BLACK].increment,
            )
        if tc.movetime is not None:
            return chess.engine.Limit(time=tc.movetime)
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

        The increment is added only after a move made in time, as on a real clock.
        """
        if self.tcs[color].base is None:
            return True
        self.remaining[color] -= elapsed
        if self.remaining[color] < 0.0:
            return False
        self.remaining[color] += self.tcs[color].increment
        return True
