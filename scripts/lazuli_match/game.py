"""Playing one game between two engine players.

The game loop owns the board, the clock and the adjudicator. Each move:

1. apply the rules of chess (mate, stalemate, insufficient material, threefold repetition,
   fifty moves) -- a game ends when the position *has* occurred three times or the fifty-move
   count *has* been reached, never on a claim the mover could make with its next move;
2. ask the adjudicator whether both engines agree the game is decided;
3. send ``position`` + ``go`` to the mover with a watchdog that kills it if it stays silent long
   after its clock ran out;
4. charge the think time (``go`` written to ``bestmove`` read) to the clock.

An engine that crashes, sends an illegal move or oversteps its clock loses the game (a flag is
a draw when the opponent has no mating material) and the event is recorded as a :class:`Bug`
with the tail of its UCI transcript. The player is then discarded so that the next game starts
a fresh process.
"""

from __future__ import annotations

import datetime
import threading
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple, Union

import chess
import chess.engine
import chess.pgn

from .adjudication import MATE_AS_CP, AdjudicationRules, Adjudicator
from .engines import EnginePlayer, EngineStartError
from .openings import Opening
from .timecontrol import Clock, TimeControl

BUG_TIME_FORFEIT = "time forfeit"
BUG_ILLEGAL_MOVE = "illegal move"
BUG_CRASH = "crash"
BUG_KINDS = (BUG_TIME_FORFEIT, BUG_ILLEGAL_MOVE, BUG_CRASH)

_INFO = chess.engine.INFO_BASIC | chess.engine.INFO_SCORE


@dataclass
class Bug:
    """A game lost to a defect of the engine rather than to chess."""

    engine: str
    kind: str
    detail: str
    transcript: List[str] = field(default_factory=list)


@dataclass
class GameResult:
    white: str
    black: str
    result: str  # "1-0", "0-1" or "1/2-1/2"
    termination: str  # PGN Termination tag value
    reason: str
    plies: int
    pgn: chess.pgn.Game
    bug: Optional[Bug] = None

    def score_for(self, name: str) -> float:
        """1, 0.5 or 0 from the point of view of the engine called ``name``."""
        if self.result == "1/2-1/2":
            return 0.5
        white_won = self.result == "1-0"
        return 1.0 if white_won == (name == self.white) else 0.0


@dataclass
class GameSettings:
    tc: TimeControl
    rules: AdjudicationRules
    hang_timeout: float = 5.0
    event: str = "Lazuli match"
    # Engines think on the opponent's time: after each move python-chess sends `go ponder` on
    # the expected reply, then `ponderhit` if the opponent plays it, else `stop` and a new `go`.
    ponder: bool = False


def rules_outcome(board: chess.Board) -> Optional[Tuple[str, str]]:
    """(result, reason) when the rules of chess end the game in this position."""
    if board.is_checkmate():
        return ("0-1", "Black mates") if board.turn == chess.WHITE else ("1-0", "White mates")
    if board.is_stalemate():
        return "1/2-1/2", "stalemate"
    if board.is_insufficient_material():
        return "1/2-1/2", "insufficient material"
    if board.halfmove_clock >= 100:
        return "1/2-1/2", "fifty-move rule"
    if board.is_repetition(3):
        return "1/2-1/2", "threefold repetition"
    return None


def _win_for(color: chess.Color) -> str:
    return "1-0" if color == chess.WHITE else "0-1"


def _side(color: chess.Color) -> str:
    return "White" if color == chess.WHITE else "Black"


def format_score(score: Optional[chess.engine.PovScore], mover: chess.Color) -> str:
    """cutechess-style score from the mover's point of view: ``+0.35`` or ``+M5``."""
    if score is None:
        return "?"
    pov = score.pov(mover)
    mate = pov.mate()
    if mate is not None:
        return f"+M{mate}" if mate > 0 else f"-M{-mate}"
    cp = pov.score()
    return f"{cp / 100:+.2f}" if cp is not None else "?"


def play_game(
    white: EnginePlayer,
    black: EnginePlayer,
    opening: Opening,
    settings: GameSettings,
    round_label: str,
    abort: Optional[threading.Event] = None,
) -> Optional[GameResult]:
    """Plays one game from ``opening``; never raises for engine misbehaviour.

    Returns None if ``abort`` is set before the game ends (the game is then not counted), also
    when the engine to move fails after it was set.
    """
    players: Dict[chess.Color, EnginePlayer] = {chess.WHITE: white, chess.BLACK: black}
    board = opening.board()
    clock = (white.spec.tc or settings.tc).new_clock(black.spec.tc or settings.tc)
    adjudicator = Adjudicator(settings.rules)
    game_id = f"{round_label}:{white.name}-{black.name}:{time.monotonic_ns()}"

    pgn = chess.pgn.Game()
    pgn.setup(board)
    node: chess.pgn.GameNode = pgn
    result: Optional[str] = None
    termination = "normal"
    reason = ""
    bug: Optional[Bug] = None

    while result is None:
        if abort is not None and abort.is_set():
            return None
        ended = rules_outcome(board)
        if ended is not None:
            result, reason = ended
            break
        verdict = adjudicator.verdict(board)
        if verdict is not None:
            winner, reason = verdict
            result = "1/2-1/2" if winner is None else _win_for(winner)
            termination = "adjudication"
            break

        mover = board.turn
        player = players[mover]
        outcome = _ask_move(player, board, clock, settings, game_id)
        if isinstance(outcome, Bug):
            player.discard()
            if abort is not None and abort.is_set():
                # Stopping the match can take the engines down with it (a signal to the whole
                # process group): what looks like a crash then is the stop, not the engine.
                return None
            bug = outcome
            termination = {
                BUG_TIME_FORFEIT: "time forfeit",
                BUG_ILLEGAL_MOVE: "rules infraction",
                BUG_CRASH: "abandoned",
            }[bug.kind]
            opponent_can_mate = not board.has_insufficient_material(not mover)
            if bug.kind == BUG_TIME_FORFEIT and not opponent_can_mate:
                result = "1/2-1/2"
            else:
                result = _win_for(not mover)
            reason = f"{_side(mover)} ({player.name}) {bug.kind}: {bug.detail}"
            break

        play, elapsed = outcome
        white_cp = None
        score = play.info.get("score")
        if score is not None:
            white_cp = score.white().score(mate_score=MATE_AS_CP)
        adjudicator.record(mover, white_cp)
        node = node.add_variation(play.move)
        depth = play.info.get("depth")
        node.comment = f"{format_score(score, mover)}/{depth if depth is not None else '?'} {elapsed:.3f}s"
        board.push(play.move)

    if reason:
        text = reason.replace("{", "(").replace("}", ")")
        node.comment = f"{node.comment}, {text}" if node.comment else text
    _set_headers(pgn, white, black, settings, round_label, result, termination, opening)
    plies = len(board.move_stack)
    return GameResult(white.name, black.name, result, termination, reason, plies, pgn, bug)


def _ask_move(
    player: EnginePlayer,
    board: chess.Board,
    clock: Clock,
    settings: GameSettings,
    game_id: str,
) -> Union[Bug, Tuple[chess.engine.PlayResult, float]]:
    """``(PlayResult, think seconds)`` for a good move in time, otherwise a :class:`Bug`."""
    mover = board.turn
    try:
        engine = player.ensure_started()
    except EngineStartError as err:
        return Bug(player.name, BUG_CRASH, f"could not (re)start: {err}", player.transcript.tail())

    fired = threading.Event()

    def on_hang() -> None:
        fired.set()
        player.kill()

    deadline = clock.deadline(mover, settings.hang_timeout)
    watchdog = threading.Timer(deadline, on_hang)
    watchdog.daemon = True
    started = time.monotonic()
    watchdog.start()
    try:
        play = engine.play(board, clock.limit(mover), game=game_id, info=_INFO, ponder=settings.ponder)
    except chess.engine.EngineTerminatedError as err:
        if fired.is_set():
            detail = f"no bestmove {deadline:.3f}s after go; killed"
            return Bug(player.name, BUG_TIME_FORFEIT, detail, player.transcript.tail())
        return Bug(player.name, BUG_CRASH, f"process died: {err}", player.transcript.tail())
    except chess.engine.EngineError as err:
        return Bug(player.name, BUG_ILLEGAL_MOVE, f"bad bestmove: {err}", player.transcript.tail())
    except TimeoutError:
        player.kill()
        detail = f"no answer in time (python-chess timeout after {time.monotonic() - started:.3f}s)"
        return Bug(player.name, BUG_TIME_FORFEIT, detail, player.transcript.tail())
    finally:
        watchdog.cancel()

    elapsed = player.transcript.think_time()
    if elapsed is None:
        elapsed = time.monotonic() - started

    if play.move is None or not board.is_legal(play.move):
        sent = play.move.uci() if play.move is not None else "(none)"
        detail = f"bestmove {sent} is not legal in {board.fen()}"
        return Bug(player.name, BUG_ILLEGAL_MOVE, detail, player.transcript.tail())
    remaining_before = clock.remaining[mover]
    if not clock.spend(mover, elapsed):
        detail = (
            f"used {elapsed * 1000:.1f} ms with {remaining_before * 1000:.1f} ms on the clock "
            f"(over by {(elapsed - remaining_before) * 1000:.1f} ms; bestmove {play.move.uci()})"
        )
        return Bug(player.name, BUG_TIME_FORFEIT, detail, player.transcript.tail())
    return play, elapsed


def _set_headers(
    pgn: chess.pgn.Game,
    white: EnginePlayer,
    black: EnginePlayer,
    settings: GameSettings,
    round_label: str,
    result: str,
    termination: str,
    opening: Opening,
) -> None:
    headers = pgn.headers
    headers["Event"] = settings.event
    headers["Site"] = "?"
    headers["Date"] = datetime.date.today().strftime("%Y.%m.%d")
    headers["Round"] = round_label
    headers["White"] = white.name
    headers["Black"] = black.name
    headers["Result"] = result
    white_tc, black_tc = (player.spec.tc or settings.tc for player in (white, black))
    if white_tc == black_tc:
        headers["TimeControl"] = white_tc.pgn_tag()
    else:
        # Time odds, tagged as cutechess does.
        headers["WhiteTimeControl"] = white_tc.pgn_tag()
        headers["BlackTimeControl"] = black_tc.pgn_tag()
    headers["Termination"] = termination
    headers["Opening"] = f"#{opening.index + 1} of {opening.source}"
    headers["PlyCount"] = str(len(list(pgn.mainline_moves())))
