"""Engine specifications (from the command line) and running engine players.

An engine is given on the command line as a list of ``key=value`` words::

    --engine name=lazuli cmd=/work/bin/lazuli-7b85f59 option.Hash=16 option.Threads=1
    --engine name=toga cmd=/usr/games/toga2 option.OwnBook=false "option.Number of Threads=1"

Keys: ``name`` (label in reports and PGN; defaults to the file name), ``cmd`` (executable,
required), ``arg`` (one command-line argument, repeatable), ``dir`` (working directory),
``tc`` (this engine's own clock, ``BASE+INC`` in seconds, for time-odds matches; default: the
match's) and ``option.<UCI name>=<value>`` (repeatable; option names may contain spaces if the
word is quoted).
"""

from __future__ import annotations

import os
import signal
import subprocess
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

import chess
import chess.engine

from . import transcript
from .timecontrol import TimeControl
from .transcript import Transcript


@dataclass
class EngineSpec:
    """How to start and configure one engine."""

    name: str
    cmd: str
    args: List[str] = field(default_factory=list)
    workdir: Optional[str] = None
    options: Dict[str, str] = field(default_factory=dict)
    tc: Optional[TimeControl] = None

    @staticmethod
    def parse(words: Sequence[str]) -> "EngineSpec":
        name: Optional[str] = None
        cmd: Optional[str] = None
        args: List[str] = []
        workdir: Optional[str] = None
        options: Dict[str, str] = {}
        tc: Optional[TimeControl] = None
        for word in words:
            key, sep, value = word.partition("=")
            if not sep:
                raise ValueError(f"engine setting {word!r} is not key=value")
            if key == "name":
                name = value
            elif key == "cmd":
                cmd = value
            elif key == "arg":
                args.append(value)
            elif key == "dir":
                workdir = value
            elif key == "tc":
                tc = TimeControl.parse_clock(value)
            elif key.startswith("option."):
                options[key[len("option."):]] = value
            else:
                raise ValueError(f"unknown engine setting {key!r} (name, cmd, arg, dir, tc, option.X)")
        if not cmd:
            raise ValueError(f"engine {' '.join(words)!r} has no cmd=")
        return EngineSpec(name or os.path.basename(cmd), cmd, args, workdir, options, tc)

    def describe(self) -> str:
        opts = " ".join(f"{k}={v}" for k, v in self.options.items())
        clock = f" (clock {self.tc.describe()})" if self.tc else ""
        return f"{self.name}: {' '.join([self.cmd, *self.args])} {opts}".rstrip() + clock


class EngineStartError(RuntimeError):
    """The engine could not be started or configured (not a game result: a setup error)."""


class EnginePlayer:
    """One running engine process, restarted on demand after a crash or a kill."""

    def __init__(self, spec: EngineSpec, label: str) -> None:
        self.spec = spec
        self.transcript = Transcript(label)
        self.engine: Optional[chess.engine.SimpleEngine] = None
        self.id_name: Optional[str] = None

    @property
    def name(self) -> str:
        return self.spec.name

    def ensure_started(self) -> chess.engine.SimpleEngine:
        if self.engine is None:
            self.engine = self._start()
        return self.engine

    def _start(self) -> chess.engine.SimpleEngine:
        command = [self.spec.cmd, *self.spec.args]
        try:
            # stderr goes through python-chess, which logs it into the transcript.
            engine = chess.engine.SimpleEngine.popen_uci(
                command, cwd=self.spec.workdir, stderr=subprocess.PIPE
            )
        except (OSError, chess.engine.EngineError, TimeoutError) as err:
            raise EngineStartError(f"cannot start {self.name} ({command}): {err}") from err
        transcript.register(engine.protocol, self.transcript)
        try:
            engine.configure(_coerce_options(engine, self.spec.options))
        except (chess.engine.EngineError, ValueError, TimeoutError) as err:
            engine.close()
            raise EngineStartError(f"cannot configure {self.name}: {err}") from err
        self.id_name = engine.id.get("name")
        return engine

    def pid(self) -> Optional[int]:
        return self.engine.transport.get_pid() if self.engine else None

    def kill(self) -> None:
        """Kills the process at once (thread-safe: used by the hang watchdog)."""
        pid = self.pid()
        if pid is not None:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def discard(self) -> None:
        """Kills and forgets the process; the next game starts a fresh one."""
        if self.engine is not None:
            self.kill()
            transcript.unregister(self.engine.protocol)
            self.engine.close()
            self.engine = None

    def close(self) -> None:
        """Asks the engine to quit politely, then makes sure it is gone."""
        if self.engine is None:
            return
        try:
            self.engine.quit()
        except Exception:  # noqa: BLE001 - a dead or stuck engine is killed below anyway
            pass
        self.discard()


def _coerce_options(engine: chess.engine.SimpleEngine, options: Dict[str, str]) -> Dict[str, object]:
    """Converts option values from text to the type the engine declared (spin, check, ...)."""
    declared = engine.options
    result: Dict[str, object] = {}
    for name, text in options.items():
        if name not in declared:
            raise ValueError(f"the engine has no UCI option {name!r}")
        kind = declared[name].type
        if kind == "spin":
            result[name] = int(text)
        elif kind == "check":
            lowered = text.lower()
            if lowered not in ("true", "false"):
                raise ValueError(f"option {name!r} is a check: use true or false, not {text!r}")
            result[name] = lowered == "true"
        elif kind == "button":
            result[name] = None
        else:
            result[name] = text
    return result
