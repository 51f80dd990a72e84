"""Per-engine record of the UCI exchange, taken from python-chess's debug log.

python-chess logs every line it writes to an engine (``<< line``) and every line it reads from
it (``>> line``), from the engine's own event-loop thread, at the moment the line passes. A
logging handler files those lines by protocol object into one :class:`Transcript` per engine.
The transcript serves two purposes:

- **timing**: the time from writing ``go`` (or, for a ponder search, ``ponderhit``) to reading
  ``bestmove`` is the thinking time charged to the engine's clock, free of the ``isready`` round
  trip and of our own thread hand-offs;
- **bug reports**: after a crash, illegal move or time forfeit the last lines show what the
  engine was told and what it answered.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from typing import Deque, Dict, List, Optional, Tuple

TRANSCRIPT_LINES = 400


class Transcript:
    """The most recent UCI lines of one engine process, with monotonic timestamps."""

    def __init__(self, label: str) -> None:
        self.label = label
        self._lines: Deque[Tuple[float, str, str]] = collections.deque(maxlen=TRANSCRIPT_LINES)
        self._lock = threading.Lock()
        self.last_go: Optional[float] = None
        self.last_bestmove: Optional[float] = None

    def add(self, direction: str, line: str) -> None:
        now = time.monotonic()
        with self._lock:
            self._lines.append((now, direction, line))
            # A ponder search's clock starts at `ponderhit`, not at its `go ponder`.
            words = line.split()
            starts_clock = words[:1] == ["go"] and "ponder" not in words or line == "ponderhit"
            if direction == "<<" and starts_clock:
                self.last_go = now
                self.last_bestmove = None
            elif direction == ">>" and line.startswith("bestmove"):
                self.last_bestmove = now

    def think_time(self) -> Optional[float]:
        """Seconds from the last ``go`` to the ``bestmove`` that answered it, if both were seen."""
        with self._lock:
            if self.last_go is None or self.last_bestmove is None:
                return None
            return self.last_bestmove - self.last_go

    def tail(self, count: int = 60) -> List[str]:
        """The last ``count`` lines as text: ``+seconds  >>|<<|err  line``."""
        with self._lock:
            lines = list(self._lines)[-count:]
        if not lines:
            return []
        start = lines[0][0]
        return [f"{t - start:9.3f}  {d:<3}  {text}" for t, d, text in lines]


class _TranscriptHandler(logging.Handler):
    """Routes python-chess engine log records to the transcript of their protocol object."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self._by_protocol: Dict[int, Transcript] = {}
        self._registry_lock = threading.Lock()

    def register(self, protocol: object, transcript: Transcript) -> None:
        with self._registry_lock:
            self._by_protocol[id(protocol)] = transcript

    def unregister(self, protocol: object) -> None:
        with self._registry_lock:
            self._by_protocol.pop(id(protocol), None)

    def emit(self, record: logging.LogRecord) -> None:
        args = record.args
        if not isinstance(args, tuple) or len(args) < 2:
            return
        with self._registry_lock:
            transcript = self._by_protocol.get(id(args[0]))
        if transcript is None:
            return
        if record.msg == "%s: << %s":
            transcript.add("<<", str(args[1]))
        elif record.msg == "%s: >> %s":
            transcript.add(">>", str(args[1]))
        elif record.msg == "%s: stderr >> %s":
            transcript.add("err", str(args[1]))


_HANDLER = _TranscriptHandler()


def install() -> None:
    """Sends python-chess's engine log to the transcripts only (idempotent)."""
    logger = logging.getLogger("chess.engine")
    if _HANDLER not in logger.handlers:
        logger.addHandler(_HANDLER)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False


def register(protocol: object, transcript: Transcript) -> None:
    _HANDLER.register(protocol, transcript)


def unregister(protocol: object) -> None:
    _HANDLER.unregister(protocol)
