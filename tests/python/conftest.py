"""Fixtures for driving the release binary with python-chess.

The binary is `target/release/lazuli` under the repository root, or whatever `LAZULI_BIN` names.
Every engine started here is quit (or killed) when its test ends.
"""

import logging
import os
import pathlib
import threading
import time

import chess
import chess.engine
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def engine_path() -> str:
    path = os.environ.get("LAZULI_BIN") or str(ROOT / "target" / "release" / "lazuli")
    if not os.access(path, os.X_OK):
        pytest.fail(f"no engine binary at {path}: run `cargo build --release` or set LAZULI_BIN")
    return path


class Transcript(logging.Handler):
    """Every line python-chess sends (`<<`) or receives (`>>`), with the time it was logged."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.guard = threading.Lock()
        self.lines: list[tuple[float, str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if not isinstance(record.args, tuple) or len(record.args) != 2:
            return
        direction = {"%s: << %s": "sent", "%s: >> %s": "received"}.get(record.msg)
        if direction:
            with self.guard:
                self.lines.append((time.perf_counter(), direction, str(record.args[1])))

    def sent(self) -> list[str]:
        with self.guard:
            return [line for _, d, line in self.lines if d == "sent"]

    def received(self) -> list[str]:
        with self.guard:
            return [line for _, d, line in self.lines if d == "received"]

    def mark(self) -> int:
        with self.guard:
            return len(self.lines)

    def since(self, mark: int) -> list[tuple[float, str, str]]:
        with self.guard:
            return self.lines[mark:]


@pytest.fixture
def transcript():
    handler = Transcript()
    logger = logging.getLogger("chess.engine")
    old_level = logger.level
    logger.setLevel(logging.DEBUG)
    logger.addHandler(handler)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(old_level)


def start_engine(**options) -> chess.engine.SimpleEngine:
    engine = chess.engine.SimpleEngine.popen_uci([engine_path()], timeout=10.0)
    if options:
        engine.configure(options)
    return engine


@pytest.fixture
def engine():
    engine = start_engine()
    yield engine
    engine.quit()


def play_timed_game(white, black, base, inc, max_plies, board=None):
    """Play white against black with a clock kept here; returns the board and the clocks' lows."""
    board = board or chess.Board()
    clocks = {chess.WHITE: base, chess.BLACK: base}
    lowest = dict(clocks)
    game = object()
    players = {chess.WHITE: white, chess.BLACK: black}
    while not board.is_game_over(claim_draw=True) and board.ply() < max_plies:
        limit = chess.engine.Limit(
            white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK], white_inc=inc, black_inc=inc
        )
        mover = board.turn
        started = time.perf_counter()
        result = players[mover].play(board, limit, game=game)
        used = time.perf_counter() - started
        clocks[mover] -= used
        assert clocks[mover] > 0, f"{chess.COLOR_NAMES[mover]} lost on time at ply {board.ply()}"
        lowest[mover] = min(lowest[mover], clocks[mover])
        clocks[mover] += inc
        assert result.move is not None and result.move in board.legal_moves, f"illegal {result.move}"
        board.push(result.move)
    return board, lowest
