"""`lazuli serve` and `lazuli connect` on loopback: a game through the relay, WebSocket, and the
clients a server must survive (wrong, missing, slow or garbage secrets, huge lines, many
connections, a client that never reads), with the server's threads and memory counted."""

import base64
import getpass
import os
import pathlib
import secrets
import shutil
import socket
import struct
import subprocess
import time

import chess
import chess.engine
import pytest
from websockets.sync.client import connect as ws_connect

from conftest import engine_path


def thread_count(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


def rss_kb(pid: int) -> int:
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def settle(predicate, seconds: float = 10.0) -> bool:
    """Waits until `predicate()` holds, up to `seconds`."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


class Server:
    def __init__(self, tmp: pathlib.Path, *extra: str, mode: int = 0o600) -> None:
        self.secret = secrets.token_hex(32)
        self.secret_file = tmp / "secret"
        self.secret_file.write_text(self.secret + "\n")
        self.secret_file.chmod(mode)
        args = [engine_path(), "serve", "--listen", "127.0.0.1:0", "--secret-file", str(self.secret_file), *extra]
        self.log = open(tmp / "serve.log", "w+")
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.log, text=True)
        first = self.proc.stdout.readline()
        assert first.startswith("listening on 127.0.0.1:"), first
        self.port = int(first.rsplit(":", 1)[1])

    def log_text(self) -> str:
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)
        self.log.close()


@pytest.fixture
def server(tmp_path):
    s = Server(tmp_path, "--max-connections", "3", "--max-threads", "2", "--max-hash", "64",
               "--auth-timeout", "2", "--write-timeout", "3", "--lines-per-second", "100000",
               "--max-per-address", "16")
    yield s
    assert s.proc.poll() is None, "the server died"
    s.close()


class Client:
    """A raw TCP client of the line protocol."""

    def __init__(self, port: int, secret: str | None = None) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.buffer = b""
        if secret is not None:
            self.send(f"auth {secret}")
            assert self.line() == "authok"

    def send(self, text: str) -> None:
        self.sock.sendall((text + "\n").encode())

    def line(self, timeout: float = 10) -> str | None:
        """The next line, or None when the server closed the connection."""
        self.sock.settimeout(timeout)
        while b"\n" not in self.buffer:
            try:
                chunk = self.sock.recv(65536)
            except ConnectionResetError:  # closed with our bytes unread
                chunk = b""
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode()

    def until(self, prefix: str, timeout: float = 10) -> list[str]:
        lines = []
        while True:
            line = self.line(timeout)
            assert line is not None, f"closed before {prefix!r}: {lines[-5:]}"
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def dribble(self, text: str, gap: float) -> None:
        """Sends `text` a byte at a time, `gap` seconds apart, until done or the server closes."""
        try:
            for ch in text:
                self.sock.sendall(ch.encode())
                time.sleep(gap)
        except OSError:
            pass

    def closed_without_output(self, timeout: float = 10) -> bool:
        return self.line(timeout) is None and self.buffer == b""

    def close(self) -> None:
        self.sock.close()


def test_a_whole_game_through_lazuli_connect(server):
    relay = [engine_path(), "connect", f"127.0.0.1:{server.port}", "--secret-file", str(server.secret_file)]
    board = chess.Board()
    with chess.engine.SimpleEngine.popen_uci(relay, timeout=20) as engine:
        assert engine.id["name"].startswith("Lazuli")
        assert engine.options["Threads"].max == 2  # the server's cap, not the engine's own
        engine.configure({"Hash": 16})
        while not board.is_game_over(claim_draw=True) and board.ply() < 300:
            result = engine.play(board, chess.engine.Limit(nodes=2000))
            assert result.move in board.legal_moves
            board.push(result.move)
    assert board.is_game_over(claim_draw=True) or board.ply() == 300
    assert "authenticated" in server.log_text()


def test_connect_reports_a_wrong_secret_and_a_lost_server_as_uci(server, tmp_path):
    wrong = tmp_path / "wrong"
    wrong.write_text(secrets.token_hex(32) + "\n")
    out = subprocess.run([engine_path(), "connect", f"127.0.0.1:{server.port}", "--secret-file", str(wrong)],
                         input="uci\n", capture_output=True, text=True, timeout=30)
    assert out.returncode == 1
    assert out.stdout.startswith("info string lazuli connect:") and "wrong secret" in out.stdout, out.stdout
    # The server goes away during a search: the GUI hears of it and gets a bestmove.
    relay = subprocess.Popen([engine_path(), "connect", f"127.0.0.1:{server.port}", "--secret-file",
                              str(server.secret_file)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    relay.stdin.write("isready\ngo infinite\n")
    relay.stdin.flush()
    assert relay.stdout.readline().strip() == "readyok"
    server.proc.kill()
    server.proc.wait()
    rest = relay.stdout.read()
    assert relay.wait(timeout=10) == 1
    assert "info string lazuli connect: lost the connection" in rest and rest.rstrip().endswith("bestmove 0000"), rest
    server.proc = subprocess.Popen(["sleep", "60"])  # for the fixture's check


def test_websocket_uci_go_and_stop(server):
    with ws_connect(f"ws://127.0.0.1:{server.port}") as ws:
        ws.send(f"auth {server.secret}")
        assert ws.recv(timeout=5) == "authok"
        ws.send("uci")
        lines = []
        while not lines or lines[-1] != "uciok":
            lines.append(ws.recv(timeout=5))
        assert any(line.startswith("option name Hash type spin") and line.endswith("max 64") for line in lines)
        ws.send("position startpos moves e2e4\ngo infinite")
        time.sleep(0.3)
        sent = time.monotonic()
        ws.send("stop")
        while True:
            line = ws.recv(timeout=5)
            if line.startswith("bestmove"):
                break
        assert time.monotonic() - sent < 2
        move = chess.Move.from_uci(line.split()[1])
        assert move in chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").legal_moves
    # A wrong secret over WebSocket is closed without engine output.
    with ws_connect(f"ws://127.0.0.1:{server.port}") as ws:
        ws.send("auth nope")
        with pytest.raises(Exception):
            ws.recv(timeout=5)


def test_bad_secrets_are_closed_without_engine_output(server):
    pid = server.proc.pid
    base_threads = thread_count(pid)
    # Wrong, missing (just a command), garbage, and a first line longer than any secret.
    for first in ["auth " + "0" * 64, "uci", "\x00\xff garbage \x01", "auth " + "a" * 100_000]:
        c = Client(server.port)
        start = time.monotonic()
        c.sock.sendall(first.encode("latin-1") + b"\nisready\n")
        assert c.closed_without_output(), first[:20]
        assert time.monotonic() - start >= 0.9, "a wrong secret is answered after a delay"
        c.close()
    # Nothing at all, and a secret sent too slowly: cut off at the time allowed (2 s here).
    silent = Client(server.port)
    assert silent.closed_without_output(timeout=6)
    # A secret, and a WebSocket handshake, dribbled out a byte at a time: cut off at the deadline.
    for text, gap in [(f"auth {server.secret}\n", 0.05), ("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n", 0.2)]:
        slow = Client(server.port)
        start = time.monotonic()
        slow.dribble(text, gap)
        assert slow.closed_without_output(timeout=6), text
        assert time.monotonic() - start < 5, text
    # Sent byte by byte within the time allowed, the secret is good.
    good = Client(server.port)
    good.dribble(f"auth {server.secret}\nisready\n", 0.002)
    assert good.line() == "authok" and good.line() == "readyok"
    good.close()
    log = server.log_text()
    assert log.count("wrong or missing secret") >= 3 and "longer than any secret" in log
    assert "no secret within the time allowed" in log
    assert settle(lambda: thread_count(pid) == base_threads), (thread_count(pid), base_threads)


def test_huge_lines_many_connections_and_the_connection_limit(server):
    pid = server.proc.pid
    base_threads = thread_count(pid)
    c = Client(server.port, server.secret)
    c.sock.sendall(b"x" * (10 << 20) + b"\nisready\n")
    assert c.line(30) == "info string input line of 10485760 bytes is longer than 262144 bytes; ignored"
    assert c.line() == "readyok"
    c.close()
    base_rss = rss_kb(pid)
    for _ in range(1000):
        socket.create_connection(("127.0.0.1", server.port), timeout=10).close()
    assert settle(lambda: thread_count(pid) == base_threads, 15), (thread_count(pid), base_threads)
    assert rss_kb(pid) < base_rss + 20_000, (base_rss, rss_kb(pid))
    # Three served at once; the fourth, once it has shown the secret, is told why and closed;
    # connections that have not are not served and take no served one's place.
    waiting = [Client(server.port) for _ in range(5)]
    clients = [Client(server.port, server.secret) for _ in range(3)]
    time.sleep(0.2)
    extra = Client(server.port)
    extra.send(f"auth {server.secret}")
    assert extra.line() == "error the server takes at most 3 connections"
    assert extra.line() is None
    for w in waiting:
        w.close()
    for client in clients:
        client.send("go depth 5")
    for client in clients:
        assert client.until("bestmove")[-1].split()[1] != "0000"
        client.send("quit")
        assert client.line() is None
    assert settle(lambda: thread_count(pid) == base_threads), (thread_count(pid), base_threads)


def test_file_options_and_caps_are_refused_remotely_and_the_rest_applies(server):
    c = Client(server.port, server.secret)
    for option, value in [("Hash File", "/tmp/x.hash"), ("EvalFile", "/etc/passwd"), ("Debug Log File", "/tmp/l"),
                          ("SyzygyPath", "/"), ("Threads", "3"), ("Hash", "65")]:
        c.send(f"setoption name {option} value {value}")
        c.send("isready")
        lines = c.until("readyok")
        assert len(lines) == 2 and lines[0].startswith(f"info string {option}: "), lines
    for button in ["Save Hash", "Load Hash"]:
        c.send(f"setoption name {button}")
        c.send("isready")
        lines = c.until("readyok")
        assert len(lines) == 2 and "server's files" in lines[0], lines
    c.send("setoption name Threads value 2")
    c.send("setoption name Hash value 64")
    c.send("go perft 7")
    c.send("isready")
    lines = c.until("readyok")
    # The new thread count says where its threads run, then the refused perft.
    assert lines[0].startswith("info string 2 threads"), lines
    assert lines[1:] == ["info string perft depth must be at most 6, found 7", "readyok"], lines
    c.close()


def test_a_client_that_leaves_mid_search_frees_its_threads_and_table(server):
    pid = server.proc.pid
    base_threads, base_rss = thread_count(pid), rss_kb(pid)
    c = Client(server.port, server.secret)
    c.send("setoption name Threads value 2")
    c.send("setoption name Hash value 64")
    c.send("isready")
    c.until("readyok")
    c.send("go infinite")
    c.line()
    assert thread_count(pid) > base_threads
    c.close()
    assert settle(lambda: thread_count(pid) == base_threads, 5), (thread_count(pid), base_threads)
    assert settle(lambda: rss_kb(pid) < base_rss + 30_000, 5), (base_rss, rss_kb(pid))


def test_a_client_that_hangs_up_during_a_deep_perft_frees_its_place(tmp_path):
    s = Server(tmp_path, "--max-connections", "1", "--auth-timeout", "2")
    try:
        pid = s.proc.pid
        base_threads = thread_count(pid)
        c = Client(s.port, s.secret)
        # About eight billion leaves: minutes of counting, within the server's perft depth.
        c.send("position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
        c.send("go perft 6")
        time.sleep(0.3)
        c.close()
        assert settle(lambda: thread_count(pid) == base_threads, 5), (thread_count(pid), base_threads)
        d = Client(s.port, s.secret)
        d.send("isready")
        assert d.until("readyok", timeout=5)[-1] == "readyok"
        d.close()
    finally:
        s.close()


def vm_size_kb(pid: int) -> int:
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1])
    raise AssertionError("no VmSize")


def test_a_session_the_memory_limit_cannot_hold_is_refused_and_the_server_goes_on(tmp_path):
    import resource
    idle = Server(tmp_path)
    time.sleep(0.3)
    size_kb = vm_size_kb(idle.proc.pid)
    idle.close()
    # Room for a connection's thread, not for its session's 16 MB table.
    limit = (size_kb + 12 * 1024) * 1024
    secret = secrets.token_hex(32)
    (tmp_path / "secret").write_text(secret + "\n")
    args = [engine_path(), "serve", "--listen", "127.0.0.1:0", "--secret-file", str(tmp_path / "secret")]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)))
    try:
        port = int(proc.stdout.readline().rsplit(":", 1)[1])
        for _ in range(3):
            c = Client(port)
            c.send(f"auth {secret}")
            line = c.line()
            assert line is not None and line.startswith("error "), line
            c.close()
        time.sleep(0.3)
        assert proc.poll() is None, "the server died"
    finally:
        proc.kill()
        proc.wait(timeout=10)


def test_websocket_pings_before_the_secret_do_not_outlast_the_deadline(tmp_path):
    """A client that sends pings and never reads their pongs holds its place no longer than the
    time allowed for the secret, however long the write time-out is."""
    s = Server(tmp_path, "--auth-timeout", "2", "--write-timeout", "30", "--max-per-address", "1")
    try:
        a = socket.socket()
        a.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        a.connect(("127.0.0.1", s.port))
        key = base64.b64encode(os.urandom(16)).decode()
        a.sendall((f"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        reply = b""
        while b"\r\n\r\n" not in reply:
            reply += a.recv(1)
        assert reply.startswith(b"HTTP/1.1 101"), reply
        mask = os.urandom(4)
        ping = bytes([0x89, 0x80 | 125]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(b"x" * 125))
        a.setblocking(False)
        start = time.monotonic()
        while time.monotonic() - start < 4:
            try:
                a.send(ping * 64)
            except BlockingIOError:
                time.sleep(0.01)
            except OSError:  # closed by the server
                break
        # The place of the one connection this address may hold is free again.
        def served() -> bool:
            c = Client(s.port)
            c.send(f"auth {s.secret}")
            ok = c.line(timeout=5) == "authok"
            c.close()
            return ok
        assert settle(served, 5), "the flooding client still holds its place"
        a.close()
    finally:
        s.close()


def test_a_secret_file_others_can_read_is_warned_about(tmp_path):
    for mode, warned in [(0o644, True), (0o600, False)]:
        s = Server(tmp_path, mode=mode)
        c = Client(s.port, s.secret)
        c.close()
        text = s.log_text()
        s.close()
        assert ("other users of this machine can read the secret" in text) == warned, (oct(mode), text)


def test_a_flood_of_refused_connections_does_not_flood_the_log(tmp_path):
    s = Server(tmp_path, "--max-per-address", "1", "--auth-timeout", "20")
    try:
        held = socket.create_connection(("127.0.0.1", s.port))
        for _ in range(100):
            socket.create_connection(("127.0.0.1", s.port)).close()
        assert settle(lambda: s.log_text().count("refused:") >= 20, 5), s.log_text()
        time.sleep(0.5)
        logged = s.log_text().count("refused:")
        assert logged == 20, f"{logged} refusals logged one by one"
        held.close()
    finally:
        s.close()


def test_a_client_that_never_reads_is_closed_and_the_others_are_served(server):
    pid = server.proc.pid
    base_threads = thread_count(pid)
    stuck = Client(server.port, server.secret)
    stuck.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    # Each `uci` answer is a few kilobytes; thousands of them fill every buffer on the way.
    try:
        stuck.sock.settimeout(5)
        for _ in range(20):
            stuck.sock.sendall(b"uci\n" * 200)
    except OSError:
        pass
    other = Client(server.port, server.secret)
    other.send("go depth 4")
    assert other.until("bestmove")[-1].startswith("bestmove ")
    other.close()
    assert settle(lambda: "cannot write to the client" in server.log_text(), 15), server.log_text()[-2000:]
    stuck.close()
    assert settle(lambda: thread_count(pid) == base_threads, 10), (thread_count(pid), base_threads)


def test_an_idle_client_is_closed(tmp_path):
    s = Server(tmp_path, "--idle-timeout", "1")
    try:
        c = Client(s.port, s.secret)
        c.send("isready")
        assert c.line() == "readyok"
        start = time.monotonic()
        assert c.line(timeout=10) is None
        assert 0.8 <= time.monotonic() - start < 5
        assert "idle for too long" in s.log_text()
    finally:
        s.close()


def table_files_open(pid: int) -> int:
    """How many Syzygy table files the process holds open."""
    fd_dir = pathlib.Path(f"/proc/{pid}/fd")
    count = 0
    for fd in fd_dir.iterdir():
        try:
            count += ".rtb" in os.readlink(fd)
        except OSError:
            pass
    return count


def test_the_operators_tablebases_serve_every_client_opened_once(tmp_path):
    tables = pathlib.Path(__file__).resolve().parents[1] / "data" / "syzygy"
    s = Server(tmp_path, "--syzygy", str(tables))
    try:
        opened, clients = [], []
        for _ in range(2):
            c = Client(s.port, s.secret)
            clients.append(c)
            c.send("setoption name SyzygyPath value /")
            c.send("position fen 8/8/8/3k4/8/8/8/1N2KB2 w - - 0 1")
            c.send("go depth 3")
            lines = c.until("bestmove")
            assert any(line.startswith("info string SyzygyPath: refused") for line in lines), lines
            assert any(" tbhits " in line and " tbhits 0 " not in line for line in lines), lines
            opened.append(table_files_open(s.proc.pid))
        for c in clients:
            c.close()
        # The second client, connected beside the first, probed the same tables through the
        # server's one set: no file was opened twice.
        assert opened[0] >= 1 and opened[1] == opened[0], opened
    finally:
        s.close()


def test_serve_refuses_a_short_secret_file_and_bad_arguments(tmp_path):
    short = tmp_path / "short"
    short.write_text("abc\n")
    out = subprocess.run([engine_path(), "serve", "--listen", "127.0.0.1:0", "--secret-file", str(short)],
                         capture_output=True, text=True, timeout=10)
    assert out.returncode == 1 and "at least 32 characters" in out.stderr
    out = subprocess.run([engine_path(), "serve", "--max-connections", "0"], capture_output=True, text=True, timeout=10)
    assert out.returncode == 2
    out = subprocess.run([engine_path(), "serve", "--listen", "127.0.0.1:0", "--syzygy", str(tmp_path / "none")],
                         capture_output=True, text=True, timeout=10)
    assert out.returncode == 1 and "not a directory" in out.stderr
    # Without a secret file one is generated and printed once.
    proc = subprocess.Popen([engine_path(), "serve", "--listen", "127.0.0.1:0"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        port = int(proc.stdout.readline().rsplit(":", 1)[1])
        secret = proc.stdout.readline().split()[1]
        assert len(secret) == 64
        c = Client(port, secret)
        c.send("isready")
        assert c.line() == "readyok"
    finally:
        proc.kill()
        proc.wait()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.skipif(not (shutil.which("sshd") or os.path.exists("/usr/sbin/sshd")) or not shutil.which("ssh"),
                    reason="needs OpenSSH's sshd and ssh")
def test_the_ssh_tunnel_recipe_of_docs_serve(server, tmp_path):
    """docs/serve.md's recipe, with a throw-away sshd on loopback standing in for the big machine."""
    sshd = shutil.which("sshd") or "/usr/sbin/sshd"
    for name in ["host", "user"]:
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / name)], check=True)
    (tmp_path / "authorized_keys").write_text((tmp_path / "user.pub").read_text())
    ssh_port, local_port = free_port(), free_port()
    (tmp_path / "sshd_config").write_text(
        f"Port {ssh_port}\nListenAddress 127.0.0.1\nHostKey {tmp_path / 'host'}\n"
        f"AuthorizedKeysFile {tmp_path / 'authorized_keys'}\nPidFile {tmp_path / 'sshd.pid'}\n"
        "StrictModes no\nUsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
        "PermitRootLogin prohibit-password\nAllowTcpForwarding yes\n")
    if os.geteuid() == 0:
        os.makedirs("/run/sshd", exist_ok=True)  # sshd's privilege separation directory
    daemon = subprocess.Popen([sshd, "-D", "-e", "-f", str(tmp_path / "sshd_config")], stderr=subprocess.DEVNULL)
    tunnel = None
    try:
        assert settle(lambda: socket.socket().connect_ex(("127.0.0.1", ssh_port)) == 0, 10)
        tunnel = subprocess.Popen(
            ["ssh", "-N", "-L", f"{local_port}:127.0.0.1:{server.port}", "-p", str(ssh_port), "-i", str(tmp_path / "user"),
             "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes",
             "-o", "ExitOnForwardFailure=yes", "-o", "LogLevel=ERROR", f"{getpass.getuser()}@127.0.0.1"])
        assert settle(lambda: socket.socket().connect_ex(("127.0.0.1", local_port)) == 0, 15), "no tunnel"
        relay = [engine_path(), "connect", f"127.0.0.1:{local_port}", "--secret-file", str(server.secret_file)]
        board = chess.Board()
        with chess.engine.SimpleEngine.popen_uci(relay, timeout=20) as engine:
            for _ in range(6):
                move = engine.play(board, chess.engine.Limit(nodes=2000)).move
                assert move in board.legal_moves
                board.push(move)
        assert "from 127.0.0.1" in server.log_text()
    finally:
        if tunnel:
            tunnel.kill()
            tunnel.wait()
        daemon.kill()
        daemon.wait()


def network_file(hidden: int, seed: int) -> bytes:
    """A network file of random weights, laid out as docs/network-format.md says (version 1)."""
    state = seed | 1
    mask = (1 << 64) - 1
    values = []
    for count, bound in [(768 * hidden, 60), (hidden, 80), (2 * hidden, 6)]:
        for _ in range(count):
            state ^= (state << 13) & mask
            state ^= state >> 7
            state ^= (state << 17) & mask
            values.append(state % (2 * bound + 1) - bound)
    payload = struct.pack(f"<{len(values)}h", *values) + struct.pack("<i", 25_000)
    digest = 0xcbf29ce484222325
    for byte in payload:
        digest = ((digest ^ byte) * 0x100000001b3) & mask
    header = b"LZNN" + struct.pack("<7I", 1, 768, hidden, 1, 255, 64, 400) + struct.pack("<Q", digest)
    return header + payload


def network_of(client: Client) -> str:
    """The network hash `eval` names for the client's session."""
    client.send("eval")
    lines = client.until("Final evaluation")
    return lines[0].split()[1].rstrip(",")


def test_two_clients_search_at_once_each_with_its_own_network(tmp_path):
    path = tmp_path / "random.lznn"
    path.write_bytes(network_file(256, 9))
    s = Server(tmp_path, "--allow-files", "--max-connections", "3", "--max-threads", "1")
    try:
        a, b, alone = (Client(s.port, s.secret) for _ in range(3))
        embedded = network_of(b)
        a.send(f"setoption name EvalFile value {path}")
        a.send("isready")
        reply = a.until("readyok")
        assert "searches use the network" in reply[0] and str(path) in reply[0], reply
        loaded = network_of(a)
        assert loaded != embedded and network_of(b) == embedded
        position = "position fen r1bq1rk1/pp2ppbp/2np1np1/8/3NP3/2N1BP2/PPPQ2PP/R3KB1R w KQ - 3 9"
        for client in (a, b):
            client.send(position)
            client.send("go depth 9")
        answers = {name: client.until("bestmove") for name, client in (("a", a), ("b", b))}
        # Both searched with their own network at the same time, each as it would alone.
        alone.send(position)
        alone.send("go depth 9")
        reference = alone.until("bestmove")
        last_info = lambda lines: [line for line in lines if line.startswith("info depth 9 ")][-1]
        nodes = lambda line: int(line.split(" nodes ")[1].split()[0])
        assert nodes(last_info(answers["b"])) == nodes(last_info(reference)), (answers["b"][-2:], reference[-2:])
        assert nodes(last_info(answers["a"])) != nodes(last_info(reference)), answers["a"][-2:]
        assert network_of(a) == loaded and network_of(b) == embedded
        for client in (a, b, alone):
            client.close()
    finally:
        s.close()


def test_a_websocket_go_that_waits_for_room_is_counted_once(server):
    """A `go` the session cannot take yet (its inbox is full) is read once: `isready` after the
    searches is answered in its turn, after a `go perft` before it, not ahead of it."""
    with ws_connect(f"ws://127.0.0.1:{server.port}") as ws:
        ws.send(f"auth {server.secret}")
        assert ws.recv(timeout=5) == "authok"
        # The session waits behind the first search at the second `go`; 40 long lines (20 MB of
        # inbox, more than its 16) fill its inbox and the third `go` waits for room for the rest
        # of the first search.
        ws.send("go movetime 1500\ngo depth 1")
        for _ in range(40):
            ws.send("debug off" + " " * 250_000)
        ws.send("go depth 1")
        answers = 0
        while answers < 3:
            answers += ws.recv(timeout=10).startswith("bestmove")
        ws.send("go perft 5\nisready")
        lines = []
        while not lines or lines[-1] != "readyok":
            lines.append(ws.recv(timeout=10))
        assert any(line.startswith("Nodes searched") for line in lines), lines


def test_one_address_cannot_take_every_connection(tmp_path):
    """Connections from one address at once are capped; another address is still served."""
    s = Server(tmp_path, "--max-per-address", "2", "--auth-timeout", "5")
    try:
        held = [Client(s.port), Client(s.port, s.secret)]
        start = time.monotonic()
        third = Client(s.port)
        assert third.closed_without_output(timeout=4) and time.monotonic() - start < 2
        other = socket.create_connection(("127.0.0.1", s.port), timeout=10, source_address=("127.0.0.2", 0))
        other.sendall(f"auth {s.secret}\n".encode())
        assert other.recv(100) == b"authok\n"
        other.close()
        held[0].close()
        # A place freed is a place for that address again.
        again = None
        for _ in range(50):
            again = Client(s.port)
            again.send(f"auth {s.secret}")
            if again.line(timeout=5) == "authok":
                break
            time.sleep(0.1)
        else:
            raise AssertionError("no place after one closed")
        assert "from one address" in s.log_text()
    finally:
        s.close()
