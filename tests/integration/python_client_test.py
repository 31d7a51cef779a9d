#!/usr/bin/python3
"""A platform's client in Python, as a platform engineer would write it from the docs alone.

Debian's python3-grpcio and python3-protobuf, and stubs generated from proto/ at test time with
Debian's protoc and grpc_python_plugin (protobuf-compiler, protobuf-compiler-grpc): Debian's
grpc_tools bundles protoc 3.5, which cannot read proto3 `optional` fields, so the system protoc
generates them. Against a real redis-server and a real arbiterd with JWT auth:

- an event and a round's games created and started in one call (CreateEvent, CreateRound);
- moves relayed over SubmitMoves; the relay's retry (the same command ids on a new stream) is
  `replayed` and applies nothing twice; an illegal move is a reply with its code, not the end of
  the stream;
- a version conflict, its details read the standard way: `grpc-status-details-bin` as a
  google.rpc.Status whose details hold a google.rpc.ErrorInfo (reason ERR_VERSION_CONFLICT,
  domain arbiter.v1);
- the firehose (WatchGames) shows every move of every game and a flag the server fires (6.9);
- ListGames by event and status, paged;
- the list after a restart: arbiterd killed (SIGKILL) and started again on the same Redis lists
  every game with its status, and the game goes on.

Needs python3-grpcio, python3-protobuf, protoc, grpc_python_plugin and redis-server from the
machine (tools/setup.sh installs them): without one the test fails and says which, like the tests
that need redis-server. Runs with Debian's /usr/bin/python3 (the packages' interpreter), whatever
python3 comes first on PATH.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

SRC = os.path.join(os.environ.get("TEST_SRCDIR", "."), os.environ.get("TEST_WORKSPACE", "arbiter"))
TMP = os.environ.get("TEST_TMPDIR") or tempfile.mkdtemp()
EVENT = "python-open"
BLITZ = "python-blitz"
DOMAIN = "arbiter.v1"


def die(message):
    sys.exit(f"FAIL: python_client_test: {message}")


def tool(name):
    path = shutil.which(name) or (f"/usr/bin/{name}" if os.path.exists(f"/usr/bin/{name}") else None)
    if path is None:
        die(f"{name} is not installed (tools/setup.sh installs it)")
    return path


def runfile(rel):
    path = os.path.join(SRC, rel)
    if not os.path.exists(path):
        die(f"missing runfile {rel}")
    return path


try:
    import grpc
    from google.protobuf import __version__ as protobuf_version  # noqa: F401
except ImportError as missing:
    die(f"{missing}: python3-grpcio and python3-protobuf are needed (tools/setup.sh installs them)")


def generate_stubs():
    """The platform's first step: Python modules from the .proto files, imported from here on."""
    out = os.path.join(TMP, "stubs")
    os.makedirs(out, exist_ok=True)
    plugin = f"--plugin=protoc-gen-grpc_python={tool('grpc_python_plugin')}"
    # The service's files import each other as proto/arbiter/v1/...; the standard error messages
    # are google/rpc/... under proto/.
    runs = [
        (SRC, ["proto/arbiter/v1/common.proto", "proto/arbiter/v1/arbitration.proto"], True),
        (os.path.join(SRC, "proto"), ["google/rpc/status.proto", "google/rpc/error_details.proto"],
         False),
    ]
    for root, files, services in runs:
        args = [tool("protoc"), f"-I{root}", f"--python_out={out}"]
        if services:
            args += [plugin, f"--grpc_python_out={out}"]
        got = subprocess.run(args + [os.path.join(root, f) for f in files], capture_output=True,
                             text=True)
        if got.returncode != 0:
            die(f"protoc: {got.stderr.strip()}")
    sys.path.insert(0, out)


generate_stubs()
from google.rpc import error_details_pb2, status_pb2  # noqa: E402
from proto.arbiter.v1 import arbitration_pb2 as pb  # noqa: E402
from proto.arbiter.v1 import arbitration_pb2_grpc as pb_grpc  # noqa: E402
from proto.arbiter.v1 import common_pb2  # noqa: E402


def token(role, subject, claims=None):
    """An HS256 token signed with the test key (libs/service/testdata/mint_token.py)."""
    got = subprocess.run([sys.executable, runfile("libs/service/testdata/mint_token.py"),
                          runfile("libs/service/testdata/keys.json"), role, subject,
                          json.dumps(claims or {}), "600"], capture_output=True, text=True)
    if got.returncode != 0:
        die(f"mint_token: {got.stderr.strip()}")
    return [("authorization", "Bearer " + got.stdout.strip())]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Redis:
    """A redis-server of the test's, with the store's function library loaded as an administrator
    loads it (arbiterd refuses a Redis without it)."""

    def __init__(self):
        self.port = free_port()
        data = tempfile.mkdtemp(dir=TMP)
        self.proc = subprocess.Popen(
            [tool("redis-server"), "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--dir", data], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            if self.cli("PING").stdout.strip() == "PONG":
                break
            time.sleep(0.05)
        else:
            die("redis-server did not answer PING")
        with open(runfile("libs/store/redis_functions.lua")) as library:
            loaded = self.cli("-x", "FUNCTION", "LOAD", "REPLACE", stdin=library)
        if "arbiter_v3" not in loaded.stdout:
            die(f"FUNCTION LOAD: {loaded.stdout} {loaded.stderr}")

    def cli(self, *args, stdin=None):
        return subprocess.run([tool("redis-cli"), "-p", str(self.port)] + list(args), stdin=stdin,
                              capture_output=True, text=True)

    def stop(self):
        self.proc.kill()
        self.proc.wait()


class Arbiterd:
    """arbiterd on a free loopback port over the test's Redis, with the test's keys."""

    def __init__(self, redis, name):
        self.log_path = os.path.join(TMP, f"{name}.log")
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [runfile("services/arbiterd/arbiterd"), "--services=all",
             f"--store=redis://127.0.0.1:{redis.port}",
             f"--auth_keys={runfile('libs/service/testdata/keys.json')}",
             "--grpc_address=127.0.0.1:0", "--metrics_address=none", "--shutdown_grace=0s",
             "--arbitration_sweep_interval=100ms"],
            stdout=subprocess.DEVNULL, stderr=self.log)
        self.port = None
        deadline = time.time() + 30
        while self.port is None and time.time() < deadline and self.proc.poll() is None:
            with open(self.log_path) as f:
                for line in f:
                    entry = json.loads(line) if line.startswith("{") else {}
                    if entry.get("msg") == "serving":
                        self.port = int(entry["grpc_port"])
            time.sleep(0.05)
        if self.port is None:
            with open(self.log_path) as f:
                die(f"arbiterd did not start:\n{f.read()}")
        self.channel = grpc.insecure_channel(f"127.0.0.1:{self.port}")
        self.stub = pb_grpc.ArbitrationStub(self.channel)

    def kill(self):
        """A crash: no drain, no goodbye."""
        self.channel.close()
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.log.close()


def error_info(error):
    """The standard error model (AIP-193): the trailing `grpc-status-details-bin` is a serialized
    google.rpc.Status whose details hold a google.rpc.ErrorInfo. Debian's grpcio has no
    grpc_status module (grpc_status.rpc_status.from_call does the same), so it is read here from
    the generated google.rpc messages."""
    details = dict(error.trailing_metadata() or ()).get("grpc-status-details-bin")
    if details is None:
        die(f"{error.code()} without grpc-status-details-bin: {error.details()}")
    status = status_pb2.Status.FromString(details)
    check(status.code == error.code().value[0], f"google.rpc.Status code {status.code}")
    infos = []
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            infos.append(info)
    check(len(infos) == 1, f"one ErrorInfo in the details, got {status}")
    return infos[0] if infos else error_details_pb2.ErrorInfo()


FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what, flush=True)


def create_round_games(stub, platform, event, round_number, pairings, time_control):
    """Creates the event (its edition and time control; the same again is replayed) and one of
    its rounds (pairings: [(game id, white id, black id)]) in one CreateRound: every pairing is
    checked before any game is written, and the games are created and started under command ids
    derived from the call's, so a rerun of the call creates nothing twice. Returns the round."""
    stub.CreateEvent(pb.CreateEventRequest(
        event=event, command_id=f"event:{event}", name=event.title(),
        ruleset=pb.GameRuleset(edition=common_pb2.EDITION_FIDE_2023), time_control=time_control),
        metadata=platform)
    return stub.CreateRound(pb.CreateRoundRequest(
        event=event, command_id=f"round:{event}:{round_number}", round=round_number, start=True,
        pairings=[pb.RoundPairing(game_id=game_id, white_id=white, white_name=white.title(),
                                  black_id=black, black_name=black.title())
                  for game_id, white, black in pairings]), metadata=platform)


class Firehose:
    """WatchGames on its own thread: every update, with each game's events in order."""

    def __init__(self, stub, metadata):
        self.updates = []
        self.lock = threading.Lock()
        self.call = stub.WatchGames(pb.WatchGamesRequest(), metadata=metadata)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        try:
            for update in self.call:
                with self.lock:
                    self.updates.append(update)
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.CANCELLED:
                with self.lock:
                    self.updates.append(e)

    def events(self, game_id):
        with self.lock:
            return [e for u in self.updates if not isinstance(u, grpc.RpcError)
                    and u.game_id == game_id for e in u.events]

    def wait(self, what, seconds=10):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if what():
                return True
            time.sleep(0.05)
        return False

    def close(self):
        self.call.cancel()
        self.thread.join(5)
        with self.lock:
            errors = [u for u in self.updates if isinstance(u, grpc.RpcError)]
        check(not errors, f"the firehose failed: {errors}")


def sans(events):
    return [e.event.move.san for e in events if e.event.HasField("move")]


def relay(stub, metadata, moves):
    """One SubmitMoves stream carrying (game id, command id, side, move): the replies by command
    id (they come in the order the appends finish, each naming its request)."""
    requests = [pb.SubmitMoveRequest(game_id=g, command_id=c, side=side, move=m)
                for g, c, side, m in moves]
    replies = {r.command_id: r for r in stub.SubmitMoves(iter(requests), metadata=metadata)}
    check(len(replies) == len(requests), f"{len(replies)} replies to {len(requests)} moves")
    return replies


def listed(stub, metadata, page_size=2, **query):
    """Every game of ListGames(query), following next_page_token: {game id: GameSummary}."""
    games, page_token = {}, ""
    while True:
        page = stub.ListGames(pb.ListGamesRequest(page_size=page_size, page_token=page_token,
                                                  **query), metadata=metadata)
        for game in page.games:
            check(game.game_id not in games, f"{game.game_id} listed twice")
            games[game.game_id] = game
        page_token = page.next_page_token
        if not page_token:
            return games


def main():
    W, B = common_pb2.COLOR_WHITE, common_pb2.COLOR_BLACK
    ONGOING, ENDED = pb.LISTED_STATUS_ONGOING, pb.LISTED_STATUS_ENDED
    redis = Redis()
    server = Arbiterd(redis, "arbiterd-1")
    platform = token("platform", "plat")
    try:
        stub = server.stub
        firehose = Firehose(stub, platform)
        # From now on: its first update (the position to resume from) says the stream stands.
        check(firehose.wait(lambda: firehose.updates), "the firehose sent no first position")

        # A round of three long games, and a 2-second game in another round whose flag falls.
        round1 = create_round_games(stub, platform, EVENT, 1,
                                    [("py-1", "ann", "bob"), ("py-2", "cat", "dan"),
                                     ("py-3", "eve", "fay")], "5400+30")
        games = [g.game.game_id for g in round1.games]
        check(games == ["py-1", "py-2", "py-3"], f"created {games}")
        create_round_games(stub, platform, BLITZ, 2, [("py-flag", "gil", "hal")], "2+0")
        # The round again (a rerun of the script): replayed, nothing new.
        again = create_round_games(stub, platform, EVENT, 1,
                                   [("py-1", "ann", "bob"), ("py-2", "cat", "dan"),
                                    ("py-3", "eve", "fay")], "5400+30")
        check(again.replayed and [g.game.version for g in again.games] ==
              [g.game.version for g in round1.games], "CreateRound retried is not replayed")

        # The relay: White's first moves in the three games, then Black's, on one stream.
        first = relay(stub, platform, [("py-1", "py-1:1", W, "e4"), ("py-2", "py-2:1", W, "d4"),
                                       ("py-3", "py-3:1", W, "c4")])
        for command_id, reply in first.items():
            check(reply.code == 0 and not reply.game.replayed,
                  f"{command_id}: code {reply.code} {reply.error.code}")
        # The connection dropped before the relay saw the replies: it sends the same moves again,
        # with the same command ids, on a new stream. Each is replayed; none is applied twice.
        retried = relay(stub, platform, [("py-1", "py-1:1", W, "e4"),
                                         ("py-2", "py-2:1", W, "d4"),
                                         ("py-3", "py-3:1", W, "c4")])
        for command_id, reply in retried.items():
            check(reply.code == 0 and reply.game.replayed, f"{command_id} retried: not replayed")
            check(reply.game.game.version == first[command_id].game.game.version,
                  f"{command_id} retried: version {reply.game.game.version}")
        second = relay(stub, platform, [("py-1", "py-1:2", B, "e5"), ("py-2", "py-2:2", B, "d5"),
                                        ("py-3", "py-3:2", B, "Nf6"),
                                        # 3.1: a rook cannot pass its own pawn.
                                        ("py-1", "py-1:bad", W, "Ra3")])
        bad = second["py-1:bad"]
        check(bad.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
              and bad.error.code == "ERR_ILLEGAL_MOVE",
              f"an illegal move in the relay: code {bad.code} {bad.error.code}")
        for game_id in games:
            game = stub.GetGame(pb.GetGameRequest(game_id=game_id), metadata=platform).game
            check(len(game.moves_san) == 2, f"{game_id}: moves {list(game.moves_san)}")

        # A version conflict: a move sent against a version the game has left.
        stale = second["py-1:2"].game.game.version - 1
        try:
            stub.SubmitMove(pb.SubmitMoveRequest(game_id="py-1", expected_version=stale, side=W,
                                                 move="Nf3"), metadata=platform)
            check(False, "a stale expected_version was accepted")
        except grpc.RpcError as e:
            check(e.code() == grpc.StatusCode.ABORTED, f"conflict: {e.code()}")
            info = error_info(e)
            check(info.reason == "ERR_VERSION_CONFLICT" and info.domain == DOMAIN,
                  f"conflict's ErrorInfo: {info}")
        # An unknown game: NOT_FOUND, the same way.
        try:
            stub.GetGame(pb.GetGameRequest(game_id="py-none"), metadata=platform)
            check(False, "GetGame of no game answered")
        except grpc.RpcError as e:
            info = error_info(e)
            check(e.code() == grpc.StatusCode.NOT_FOUND and info.reason == "ERR_GAME_NOT_FOUND"
                  and info.domain == DOMAIN, f"unknown game: {e.code()} {info}")

        # The firehose saw every move of every game, in order, once (the retries added nothing),
        # and the flag the server fired in py-flag: 6.9, White's time is up and Black can mate.
        want = {"py-1": ["e4", "e5"], "py-2": ["d4", "d5"], "py-3": ["c4", "Nf6"]}
        firehose.wait(lambda: all(sans(firehose.events(g)) == m for g, m in want.items()))
        for game_id, moves in want.items():
            check(sans(firehose.events(game_id)) == moves,
                  f"firehose {game_id}: {sans(firehose.events(game_id))}")
        ended = lambda: [e for e in firehose.events("py-flag") if e.event.HasField("ended")]
        check(firehose.wait(ended, 15), "firehose: py-flag did not end")
        check(any(e.event.HasField("flag") for e in firehose.events("py-flag")),
              "firehose: no flag in py-flag")
        if ended():
            outcome = ended()[0].event.ended
            check(outcome.outcome.result == common_pb2.RESULT_BLACK_WINS,
                  f"6.9: White's flag, Black can mate: {outcome}")
            check(ended()[0].event.actor.role == "server", "the flag is not the server's")
        firehose.close()

        # ListGames by event, by event and status, by round, by player, two games a page.
        every = listed(stub, platform, event=EVENT)
        check(sorted(every) == ["py-1", "py-2", "py-3"], f"event's games: {every}")
        ongoing = listed(stub, platform, event=EVENT, status=ONGOING)
        check(sorted(ongoing) == ["py-1", "py-2", "py-3"], f"ongoing: {sorted(ongoing)}")
        done = listed(stub, platform, event=BLITZ, status=ENDED)
        check(sorted(done) == ["py-flag"] and done["py-flag"].result == "0-1",
              f"ended: {done}")
        check(sorted(listed(stub, platform, event=BLITZ, round="2")) == ["py-flag"], "round 2")
        check(sorted(listed(stub, platform, player_id="dan")) == ["py-2"], "dan's games")

        # A crash: arbiterd killed, started again on the same Redis. The list comes from the
        # store's index, not from the process: every game with its status, and they go on.
        server.kill()
        server = Arbiterd(redis, "arbiterd-2")
        stub = server.stub
        after = listed(stub, platform, page_size=50)
        check({g: s.status for g, s in after.items()} ==
              {"py-1": ONGOING, "py-2": ONGOING, "py-3": ONGOING, "py-flag": ENDED},
              f"after the restart: {after}")
        check(after.get("py-2", pb.GameSummary()).white_id == "cat", "py-2's players lost")
        game = stub.GetGame(pb.GetGameRequest(game_id="py-1"), metadata=platform).game
        check(list(game.moves_san) == ["e4", "e5"] and game.event == EVENT and game.round == "1"
              and game.time_control == "5400+30", f"py-1 after the restart: {game}")
        moved = stub.SubmitMove(pb.SubmitMoveRequest(
            game_id="py-1", command_id="py-1:3", expected_version=game.version, side=W,
            move="Nf3"), metadata=platform)
        check(list(moved.game.moves_san) == ["e4", "e5", "Nf3"], "py-1 does not go on")
        replayed = stub.SubmitMove(pb.SubmitMoveRequest(
            game_id="py-1", command_id="py-1:1", side=W, move="e4"), metadata=platform)
        # Answered as of its own append (the game then), and applied once.
        check(replayed.replayed and list(replayed.game.moves_san) == ["e4"],
              f"a move from before the restart, retried, is not replayed: {replayed}")
        game = stub.GetGame(pb.GetGameRequest(game_id="py-1"), metadata=platform).game
        check(list(game.moves_san) == ["e4", "e5", "Nf3"], f"py-1 after the retry: {game}")
    finally:
        server.kill()
        redis.stop()
    if FAILURES:
        with open(server.log_path) as f:
            print("--- server log (last lines):\n" + "".join(f.readlines()[-20:]))
        sys.exit(f"python_client_test: {len(FAILURES)} failures")
    print("python client: ok")


if __name__ == "__main__":
    main()
