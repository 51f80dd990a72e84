"""Openings files: one position per line, as EPD (4 fields plus optional operations such as
``hmvc``/``fmvn``) or as a full FEN. Blank lines and lines starting with ``#`` are skipped."""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from typing import List, Optional

import chess


@dataclass(frozen=True)
class Opening:
    index: int  # 0-based line index among the positions of the file
    source: str  # file name, for the PGN
    fen: str

    def board(self) -> chess.Board:
        return chess.Board(self.fen)


def parse_position(line: str) -> chess.Board:
    """A board from an EPD or FEN line (raises ValueError if neither)."""
    fields = line.split()
    if len(fields) >= 6 and fields[4].isdigit() and fields[5].isdigit():
        return chess.Board(" ".join(fields[:6]))
    board = chess.Board()
    board.set_epd(line)
    return board


def load_openings(path: str) -> List[Opening]:
    source = os.path.basename(path)
    openings: List[Opening] = []
    with open(path, encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            try:
                board = parse_position(line)
            except ValueError as err:
                raise ValueError(f"{path}:{number}: not a FEN/EPD position: {err}") from err
            if not board.is_valid():
                raise ValueError(f"{path}:{number}: illegal position {board.fen()}")
            openings.append(Opening(len(openings), source, board.fen()))
    if not openings:
        raise ValueError(f"{path}: no positions")
    return openings


def order_openings(
    openings: List[Opening], order: str, seed: Optional[int], start: int = 0
) -> List[Opening]:
    """The openings in playing order: ``sequential`` from ``start``, or ``random`` (seeded)."""
    ordered = list(openings)
    if order == "random":
        random.Random(seed).shuffle(ordered)
    elif order != "sequential":
        raise ValueError(f"unknown openings order {order!r}")
    start %= len(ordered)
    return ordered[start:] + ordered[:start]
