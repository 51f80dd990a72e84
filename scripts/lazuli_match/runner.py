"""Scheduling games over worker threads, collecting results, writing PGN and reports.

A match is one or more *matchups*: the first engine against the second (a plain match), or
against each of the others in turn (a gauntlet). Every matchup plays the same openings, each
twice with colours reversed. Pairs are interleaved across matchups so that a match cut short
(time budget, SPRT decision, Ctrl-C, SIGTERM) still has comparable numbers for every opponent.

Stopping by hand: SIGTERM (``kill PID``) starts no new pair and lets the started pairs finish,
then writes the summary and JSON as usual; a second SIGTERM, or Ctrl-C, stops at once (the
unfinished games are not counted). SIGTERM works for a match started in the background, where
the shell ignores SIGINT.

Each worker thread owns its own engine processes, so ``concurrency`` games run side by side
without sharing an engine. Results are reported from the first engine's point of view.
"""

from __future__ import annotations

import json
import signal
import threading
import time
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, TextIO, Tuple

from .engines import EnginePlayer, EngineSpec, EngineStartError
from .game import BUG_KINDS, GameResult, GameSettings, play_game
from .openings import Opening
from .report import elo_fields, matchup_lines
from .resume import FinishedPairs
from .stats import PENTA_LABELS, Sprt, Tally, format_elo, pentanomial_elo


@dataclass
class MatchConfig:
    engines: List[EngineSpec]
    settings: GameSettings
    openings: List[Opening]
    pairs: int  # game pairs per matchup
    concurrency: int = 1
    pgn_path: Optional[str] = None
    sprt: Optional[Sprt] = None
    stop_on_bug: Tuple[str, ...] = ()
    max_minutes: Optional[float] = None
    json_path: Optional[str] = None
    # Pairs an earlier run of this match finished (see resume.py): counted, not played again.
    resumed: Optional[FinishedPairs] = None


@dataclass(frozen=True)
class GameJob:
    matchup: int  # index of the opponent in config.engines (1..)
    pair: int
    leg: int  # 0: first engine has White, 1: colours reversed
    opening: Opening


@dataclass
class MatchupState:
    opponent: str
    tally: Tally = field(default_factory=Tally)
    pending: Dict[int, float] = field(default_factory=dict)  # pair -> score of the first game
    bugs: Dict[str, Dict[str, int]] = field(default_factory=dict)  # engine -> kind -> count
    llr: Optional[float] = None
    decision: Optional[str] = None
    # Pairs and LLR when the SPRT first crossed a bound: the test is decided there, and the
    # pairs still in flight then move the LLR shown but not the decision.
    decided_at: Optional[Tuple[int, float]] = None


class MatchRunner:
    def __init__(self, config: MatchConfig, out: TextIO) -> None:
        names = [spec.name for spec in config.engines]
        if len(config.engines) < 2:
            raise ValueError("a match needs at least two engines")
        if len(set(names)) != len(names):
            raise ValueError(f"engine names must differ: {names}")
        if config.sprt is not None and len(config.engines) != 2:
            raise ValueError("SPRT needs exactly two engines")
        self.config = config
        self.out = out
        self.lead = config.engines[0].name
        self.states = {
            index: MatchupState(spec.name, bugs={self.lead: {}, spec.name: {}})
            for index, spec in enumerate(config.engines)
            if index > 0
        }
        self._lock = threading.Lock()
        self._jobs = self._job_order()
        self._started_pairs: set = set()
        self._no_new_pairs = threading.Event()  # finish started pairs, start no new ones
        self._abort = threading.Event()  # stop now; unfinished games are not counted
        self._stop_reason = ""
        self._terminations = 0  # SIGTERMs received
        self._done_pairs = self._count_resumed_pairs()
        # Errors of the runner itself (an engine that cannot start, a broken pipe): not engine
        # bugs, but the match is not valid either.
        self.fatal_errors: List[str] = []
        # A resumed match numbers its games on from the ones it counted.
        self._games_done = sum(state.tally.games for state in self.states.values())
        self._started_at = time.monotonic()
        self._pgn = open(config.pgn_path, "a", encoding="utf-8") if config.pgn_path else None
        self._bug_log_path = f"{config.pgn_path}.bugs.txt" if config.pgn_path else "match.bugs.txt"

    # --- scheduling -------------------------------------------------------------------------

    def _count_resumed_pairs(self) -> Dict[int, set]:
        """Adds the pairs an earlier run finished to the tallies; returns them per matchup."""
        done: Dict[int, set] = {index: set() for index in self.states}
        for index, state in self.states.items():
            pairs = (self.config.resumed or {}).get(state.opponent, {})
            for pair, (first, second) in sorted(pairs.items()):
                if pair >= self.config.pairs:
                    continue
                state.tally.add_game(first)
                state.tally.add_game(second)
                state.tally.add_pair(first, second)
                done[index].add(pair)
                self._update_sprt(state)
        return done

    def _update_sprt(self, state: MatchupState) -> None:
        """The LLR after a finished pair, and the decision at the first crossing of a bound."""
        sprt = self.config.sprt
        if sprt is None:
            return
        state.llr = sprt.llr(state.tally.penta)
        if state.decision is None:
            state.decision = sprt.decision(state.llr)
            if state.decision:
                state.decided_at = (state.tally.pairs, state.llr)
                self._stop(f"SPRT decided {state.decision}", hard=False)

    def _job_order(self) -> Iterator[GameJob]:
        openings = self.config.openings
        for pair in range(self.config.pairs):
            opening = openings[pair % len(openings)]
            for matchup in self.states:
                if pair in self._done_pairs[matchup]:
                    continue
                for leg in (0, 1):
                    yield GameJob(matchup, pair, leg, opening)

    def _next_job(self) -> Optional[GameJob]:
        with self._lock:
            if self._abort.is_set():
                return None
            budget = self.config.max_minutes
            if budget is not None and time.monotonic() - self._started_at > budget * 60.0:
                self._stop("time budget used up", hard=False)
            for job in self._jobs:
                key = (job.matchup, job.pair)
                if job.leg == 1:
                    if key in self._started_pairs:
                        return job
                    continue
                if self._no_new_pairs.is_set():
                    continue  # skip unstarted pairs; keep looking for second legs
                self._started_pairs.add(key)
                return job
            return None

    def _stop(self, reason: str, hard: bool) -> None:
        if not self._stop_reason:
            self._stop_reason = reason
        self._no_new_pairs.set()
        if hard:
            self._abort.set()

    # --- running ----------------------------------------------------------------------------

    def run(self) -> int:
        """Plays the match; returns the number of engine bugs seen."""
        self._print_header()
        if not self._engines_start():
            if self._pgn:
                self._pgn.close()
            return 0
        workers = [
            threading.Thread(target=self._worker, args=(n,), name=f"worker-{n}", daemon=True)
            for n in range(self.config.concurrency)
        ]
        for worker in workers:
            worker.start()
        previous_handler = self._install_sigterm()
        try:
            while any(worker.is_alive() for worker in workers):
                for worker in workers:
                    worker.join(timeout=0.2)
        except KeyboardInterrupt:
            self.out.write("\nInterrupted: stopping after the current moves.\n")
            self._stop("interrupted", hard=True)
            for worker in workers:
                worker.join()
        finally:
            if previous_handler is not None:
                signal.signal(signal.SIGTERM, previous_handler)
            if self._pgn:
                self._pgn.close()
        self._print_summary()
        if self.config.json_path:
            self._write_json(self.config.json_path)
        return sum(
            count for state in self.states.values() for kinds in state.bugs.values()
            for count in kinds.values()
        )

    def _engines_start(self) -> bool:
        """Starts and configures each engine once before any game: one that cannot start, or
        refuses an option, is a fatal error of the match, not a series of lost games."""
        for spec in self.config.engines:
            player = EnginePlayer(spec, f"{spec.name}#check")
            try:
                player.ensure_started()
            except EngineStartError as err:
                self.out.write(f"fatal error: {err}\n")
                self.out.flush()
                self.fatal_errors.append(str(err))
                return False
            finally:
                player.close()
        return True

    def _install_sigterm(self):
        """SIGTERM: finish the started pairs (a second one: stop now). Returns the old handler,
        or None where handlers cannot be set (outside the main thread)."""
        if threading.current_thread() is not threading.main_thread():
            return None

        def on_sigterm(_signum, _frame) -> None:
            self._terminations += 1
            hard = self._terminations > 1
            self.out.write("\nTerminated: " + ("stopping now.\n" if hard else
                           "finishing the started pairs (terminate again to stop now).\n"))
            self._stop("terminated", hard=hard)

        return signal.signal(signal.SIGTERM, on_sigterm)

    def _worker(self, number: int) -> None:
        players = {}
        try:
            for index, spec in enumerate(self.config.engines):
                players[index] = EnginePlayer(spec, f"{spec.name}#w{number}")
            while True:
                job = self._next_job()
                if job is None:
                    return
                lead, opponent = players[0], players[job.matchup]
                white, black = (lead, opponent) if job.leg == 0 else (opponent, lead)
                label = f"{job.pair + 1}.{job.leg + 1}"
                result = play_game(white, black, job.opening, self.config.settings, label,
                                   self._abort)
                if result is None:
                    return  # aborted mid-game: not counted
                self._record(job, result)
        except Exception as err:  # noqa: BLE001 - a setup error ends the match, loudly
            self.out.write(f"worker {number}: fatal error: {err}\n")
            with self._lock:
                self.fatal_errors.append(f"worker {number}: {err}")
            self._stop(f"fatal error: {err}", hard=True)
        finally:
            for player in players.values():
                player.close()

    # --- results ----------------------------------------------------------------------------

    def _record(self, job: GameJob, result: GameResult) -> None:
        with self._lock:
            state = self.states[job.matchup]
            self._games_done += 1
            score = result.score_for(self.lead)
            state.tally.add_game(score)
            if job.pair in state.pending:
                state.tally.add_pair(state.pending.pop(job.pair), score)
                self._update_sprt(state)
            else:
                state.pending[job.pair] = score
            if self._pgn:
                self._pgn.write(str(result.pgn) + "\n\n")
                self._pgn.flush()
            if result.bug is not None:
                kinds = state.bugs[result.bug.engine]
                kinds[result.bug.kind] = kinds.get(result.bug.kind, 0) + 1
                self._write_bug(result)
                if result.bug.engine in self.config.stop_on_bug:
                    self._stop(f"{result.bug.engine}: {result.bug.kind}", hard=True)
            self._print_game(job, result, state)

    def _write_bug(self, result: GameResult) -> None:
        bug = result.bug
        assert bug is not None
        with open(self._bug_log_path, "a", encoding="utf-8") as log:
            log.write(f"=== {bug.engine}: {bug.kind} ({time.strftime('%Y-%m-%d %H:%M:%S')})\n")
            log.write(f"{bug.detail}\n\n{result.pgn}\n\nLast UCI lines of {bug.engine} "
                      "(seconds, << to engine, >> from engine, err = stderr):\n")
            log.write("\n".join(bug.transcript) + "\n\n")
        self.out.write(f"  BUG: {bug.engine} {bug.kind}: {bug.detail} "
                       f"(details in {self._bug_log_path})\n")

    # --- output -----------------------------------------------------------------------------

    def _print_header(self) -> None:
        cfg = self.config
        self.out.write(f"Match: {cfg.settings.tc.describe()}, {cfg.pairs} pairs per opponent, "
                       f"{len(cfg.openings)} openings, concurrency {cfg.concurrency}\n")
        for spec in cfg.engines:
            self.out.write(f"  {spec.describe()}\n")
        for state in self.states.values():
            if state.tally.pairs:
                self.out.write(f"  resumed against {state.opponent}: {self._elo_line(state)}\n")
        if cfg.sprt:
            s = cfg.sprt
            self.out.write(f"  SPRT [{s.elo0:g}, {s.elo1:g}] ({s.model}) alpha {s.alpha:g} "
                           f"beta {s.beta:g}: LLR bounds ({s.lower_bound:.2f}, "
                           f"{s.upper_bound:.2f})\n")
        self.out.flush()

    def _print_game(self, job: GameJob, result: GameResult, state: MatchupState) -> None:
        tally = state.tally
        elapsed = time.monotonic() - self._started_at
        self.out.write(
            f"[{self._games_done:4d} {elapsed / 60:5.1f}m] {result.white} vs {result.black} "
            f"(opening {job.opening.index + 1}): {result.result} {result.termination}: "
            f"{result.reason} | {self.lead} vs {state.opponent}: "
            f"+{tally.wins}={tally.draws}-{tally.losses}\n"
        )
        if job.pair not in state.pending and tally.pairs:
            self.out.write(f"      {self._elo_line(state)}\n")
        self.out.flush()

    def _elo_line(self, state: MatchupState) -> str:
        tally = state.tally
        est = pentanomial_elo(tally.penta)
        text = f"pairs {tally.pairs} [{' '.join(map(str, tally.penta))}]"
        if est is not None:
            text += f" Elo {format_elo(est)}"
        if state.llr is not None and self.config.sprt is not None:
            sprt = self.config.sprt
            text += f" LLR {state.llr:.2f} ({sprt.lower_bound:.2f}, {sprt.upper_bound:.2f})"
        return text

    def summary(self) -> List[Dict[str, object]]:
        rows = []
        for state in self.states.values():
            tally = state.tally
            rows.append({
                "engine": self.lead,
                "opponent": state.opponent,
                "games": tally.games,
                "wins": tally.wins,
                "draws": tally.draws,
                "losses": tally.losses,
                "score": tally.points / tally.games if tally.games else None,
                "pairs": tally.pairs,
                "pentanomial": dict(zip(PENTA_LABELS, tally.penta)),
                **elo_fields(tally.penta),
                "llr": state.llr,
                "sprt": state.decision,
                "sprt_decided_at": ({"pairs": state.decided_at[0], "llr": state.decided_at[1]}
                                    if state.decided_at else None),
                "bugs": {name: {kind: kinds.get(kind, 0) for kind in BUG_KINDS}
                         for name, kinds in state.bugs.items()},
            })
        return rows

    def _print_summary(self) -> None:
        cfg = self.config
        minutes = (time.monotonic() - self._started_at) / 60.0
        self.out.write(f"\n=== Result ({cfg.settings.tc.describe()}, {minutes:.1f} min"
                       f"{', stopped: ' + self._stop_reason if self._stop_reason else ''})\n")
        for row in self.summary():
            for line in matchup_lines(row):
                self.out.write(line + "\n")
        self.out.flush()

    def _write_json(self, path: str) -> None:
        cfg = self.config
        data = {
            "time_control": cfg.settings.tc.describe(),
            "engines": [spec.describe() for spec in cfg.engines],
            "stopped": self._stop_reason or None,
            "matchups": self.summary(),
        }
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2)
            handle.write("\n")
