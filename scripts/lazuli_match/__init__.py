"""Engine-vs-engine match runner for Lazuli, built on python-chess.

Modules, in dependency order:

- ``timecontrol``  -- time controls (base+increment, movetime, nodes) and per-game clocks
- ``transcript``   -- per-engine ring buffer of the UCI exchange, with timestamps
- ``engines``      -- engine specifications from the command line and the running players
- ``adjudication`` -- resign and draw adjudication from the engines' own scores
- ``game``         -- one game: clocks, rules, adjudication, bugs, PGN
- ``openings``     -- reading an EPD/FEN openings file
- ``stats``        -- W/D/L, pentanomial Elo with error bars, SPRT log-likelihood ratio
- ``runner``       -- scheduling game pairs over worker threads, PGN output, reports

``scripts/match.py`` is the command-line front end.
"""
