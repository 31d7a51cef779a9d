// The contract suite (testing/game_store_contract.cc) on the Redis store, against a real
// redis-server that this test starts on a free loopback port with the shipped redis.conf (AOF on,
// appendfsync as deployed) and stops at the end. Redis-only behaviour is in redis_failure_test.cc.
#include "libs/store/redis_game_store.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/base/varint.h"
#include "libs/store/testing/game_store_contract.h"
#include "libs/store/testing/redis_fixture.h"
#include "libs/store/testing/redis_server.h"
#include "proto/arbiter/v1/common.pb.h"

namespace store {
namespace {

using testing::GameStoreContractTest;
using testing::RedisEnvironment;
using testing::RedisServer;
using testing::RedisServerOptions;
using testing::Request;
using testing::StoreFactory;

// One server for the whole binary, and one with authentication as deployed (the store's ACL user,
// the default user off); every test gets its server empty (FLUSHALL, sent as the harness's admin).
[[maybe_unused]] ::testing::Environment* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new RedisEnvironment(
        {RedisServerOptions{}, RedisServerOptions{.acl_password = "contract-suite-password"}}));

std::unique_ptr<GameStore> MakeStore(RedisGameStoreOptions options, bool acl = false) {
  RedisServer* server = RedisEnvironment::server(acl ? 1 : 0);
  if (server == nullptr) return nullptr;
  absl::StatusOr<std::string> flushed = server->Command({"FLUSHALL"});
  EXPECT_TRUE(flushed.ok()) << flushed.status();
  options.connection.port = server->port();
  if (acl) {
    options.connection.user = server->store_user().user;
    options.connection.password = server->store_user().password;
  }
  options.connection.connect_timeout = absl::Seconds(1);
  options.connection.command_timeout = absl::Seconds(5);
  absl::StatusOr<std::unique_ptr<RedisGameStore>> store = RedisGameStore::Create(options);
  EXPECT_TRUE(store.ok()) << store.status();
  if (!store.ok()) return nullptr;
  // As the services' stores do when they connect: it also learns that the library places names.
  EXPECT_TRUE((*store)->CheckFunctions().ok());
  return std::move(*store);
}

// A contract run on a store made with these options (its port and credentials set by MakeStore).
StoreFactory Setup(std::string name, RedisGameStoreOptions options, bool acl = false) {
  return {std::move(name), [options, acl] { return MakeStore(options, acl); }};
}

// A codec for the contract's test bodies (arbiter.v1.Move): the UCI string reversed, so that a
// record shows which form it holds. `faithful` false: a codec whose forms do not read back.
class ReversingCodec final : public EventCodec {
 public:
  explicit ReversingCodec(bool faithful = true) : faithful_(faithful) {}
  absl::string_view type_url() const override { return "type.googleapis.com/arbiter.v1.Move"; }
  std::optional<std::string> Encode(const arbiter::v1::GameEvent& event) const override {
    arbiter::v1::Move move;
    if (!event.body().UnpackTo(&move)) return std::nullopt;
    return std::string(move.uci().rbegin(), move.uci().rend());
  }
  absl::StatusOr<std::string> Decode(absl::string_view compact,
                                     std::int64_t recorded_at_ms) const override {
    arbiter::v1::Move move;
    move.set_uci(faithful_ ? std::string(compact.rbegin(), compact.rend()) : "e2e4");
    return move.SerializeAsString();
  }

 private:
  const bool faithful_;
};

// A codec whose form ends with a name (EventCodec::NameAt): a test body's UCI "<name>/<rest>"
// (the contract's are "<command id>/<i>") as the rest's length and bytes, then the name's length
// and bytes.
class NamingCodec final : public EventCodec {
 public:
  absl::string_view type_url() const override { return "type.googleapis.com/arbiter.v1.Move"; }
  std::optional<std::string> Encode(const arbiter::v1::GameEvent& event) const override {
    arbiter::v1::Move move;
    if (!event.body().UnpackTo(&move)) return std::nullopt;
    const std::pair<absl::string_view, absl::string_view> parts =
        absl::StrSplit(move.uci(), absl::MaxSplits('/', 1));
    std::string form;
    base::PutBytes(form, parts.second);
    base::PutBytes(form, parts.first);
    return form;
  }
  absl::StatusOr<std::string> Decode(absl::string_view compact,
                                     std::int64_t recorded_at_ms) const override {
    base::ByteReader in(compact);
    absl::string_view rest, name;
    if (!in.Bytes(rest) || !in.Bytes(name) || !in.empty()) {
      return absl::DataLossError("a damaged test form");
    }
    arbiter::v1::Move move;
    move.set_uci(absl::StrCat(name, "/", rest));
    return move.SerializeAsString();
  }
  std::optional<std::size_t> NameAt(absl::string_view compact) const override {
    base::ByteReader in(compact);
    absl::string_view rest;
    if (!in.Bytes(rest)) return std::nullopt;
    return compact.size() - in.left();
  }
};

std::vector<StoreFactory> Setups() {
  // Other options: a key prefix, two shards, a pool smaller than the number of racing threads
  // (they queue for connections).
  RedisGameStoreOptions small_pool;
  small_pool.key_prefix = "t:";
  small_pool.num_deadline_shards = 2;
  small_pool.connection.pool_size = 3;
  // Pipelined: concurrent commands share batches on few connections (the racing-writer cases run
  // through it with several batches in flight).
  RedisGameStoreOptions pipelined;
  pipelined.connection.pool_size = 4;
  pipelined.connection.pipeline_lanes = 2;
  pipelined.connection.max_batch = 8;
  // Through the store's ACL user (libs/store/redis-users.acl), as deployed: every command and
  // script of the store is allowed to it; pipelined, so batches run on authenticated
  // connections.
  RedisGameStoreOptions acl;
  acl.connection.pool_size = 4;
  acl.connection.pipeline_lanes = 2;
  // Every test body kept in a codec's compact form (event_codec.h): the contract holds whatever
  // form a record keeps.
  RedisGameStoreOptions compact;
  compact.event_codec = std::make_shared<ReversingCodec>();
  // Every test body's name (its command id) kept in the game's list, a place in its record, past
  // 250 names inline again.
  RedisGameStoreOptions named;
  named.event_codec = std::make_shared<NamingCodec>();
  return {Setup("Redis", {}),
          Setup("RedisSmallPool", small_pool),
          Setup("RedisPipelined", pipelined),
          Setup("RedisAcl", acl, /*acl=*/true),
          Setup("RedisCompact", compact),
          Setup("RedisNamed", named)};
}

INSTANTIATE_TEST_SUITE_P(Redis, GameStoreContractTest, ::testing::ValuesIn(Setups()),
                         testing::StoreFactoryName);

// After an archive the game's keys are gone, its deadline entry too (the shard's index keys with
// it, being empty), and only the tombstone key is left, under the game's hash tag (and the
// shard's feed and its epoch, which are every game's of the shard, not this one's).
TEST(RedisArchiveTest, OnlyTheTombstoneKeyRemains) {
  std::unique_ptr<GameStore> store = MakeStore({});
  ASSERT_NE(store, nullptr);
  auto* redis = static_cast<RedisGameStore*>(store.get());
  ASSERT_TRUE(store->Append(Request("g1", 0, "c1", 3, DeadlineUpdate::Set(5000))).ok());
  ASSERT_TRUE(store->Append(Request("g1", 3, "c2", 1)).ok());
  absl::StatusOr<std::string> keys = RedisEnvironment::server()->Command({"KEYS", "*"});
  ASSERT_TRUE(keys.ok()) << keys.status();
  // game, log, deadlines, deadline-info, the shard's feed: the command ids are in the log's
  // records.
  EXPECT_EQ(std::set<std::string>(absl::StrSplit(*keys, '\n')).size(), 5u) << *keys;
  absl::StatusOr<ArchiveResult> archived = store->Archive({"g1", 4, "done"});
  ASSERT_TRUE(archived.ok()) << archived.status();
  keys = RedisEnvironment::server()->Command({"KEYS", "*"});
  ASSERT_TRUE(keys.ok()) << keys.status();
  std::set<std::string> left = absl::StrSplit(*keys, '\n');
  // The shard's deadline-info may hold its feed's epoch (field '': redis_functions.lua), and
  // nothing of the game.
  const int shard = DeadlineShard("g1", kDefaultDeadlineShards);
  if (left.erase(redis->ShardKey("deadline-info", shard)) == 1) {
    EXPECT_EQ(
        *RedisEnvironment::server()->Command({"HKEYS", redis->ShardKey("deadline-info", shard)}),
        "");
  }
  EXPECT_EQ(left,
            (std::set<std::string>{redis->Key("archived", "g1"), redis->ShardKey("feed", shard)}));
  EXPECT_EQ(*RedisEnvironment::server()->Command({"TYPE", redis->Key("archived", "g1")}), "hash");
}

// A game written by the arbiter_v2 functions (one proto entry per event, field `e`; the command
// records in the cmd hash; version and tip in the game's hash; arbiter_v1's without a tip) reads
// as it was written, a retry of one of its commands is answered from its record, and it appends
// on: its log then holds both encodings.
TEST(RedisOldLogTest, AGameWrittenByArbiterV2ReadsAndAppends) {
  std::unique_ptr<GameStore> store = MakeStore({});
  ASSERT_NE(store, nullptr);
  auto* redis = static_cast<RedisGameStore*>(store.get());
  RedisServer& admin = *RedisEnvironment::server();
  AppendRequest old = Request("g1", 0, "c1", 2);
  old.fingerprint = "fp1";
  for (int i = 0; i < 2; ++i) {
    arbiter::v1::GameEvent e = old.events[i];
    e.set_version(i + 1);
    e.set_command_id("c1");
    ASSERT_TRUE(admin
                    .Command({"XADD", redis->Key("log", "g1"), absl::StrCat(i + 1, "-0"), "e",
                              e.SerializeAsString()})
                    .ok());
  }
  arbiter::v1::GameSnapshot snapshot = old.snapshot;
  snapshot.set_version(2);
  // arbiter_v1: no tip.
  ASSERT_TRUE(
      admin.Command({"HSET", redis->Key("game", "g1"), "v", "2", "s", snapshot.SerializeAsString()})
          .ok());
  absl::StatusOr<std::string> identity =
      admin.Command({"EVAL", "return 'c:' .. redis.sha1hex(ARGV[1])", "0", "fp1"});
  ASSERT_TRUE(identity.ok()) << identity.status();
  ASSERT_TRUE(
      admin.Command({"HSET", redis->Key("cmd", "g1"), "c1", absl::StrCat("1|2|", *identity)}).ok());

  absl::StatusOr<arbiter::v1::GameSnapshot> read = store->ReadSnapshot("g1");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->version(), 2);
  EXPECT_EQ(read->tip(), "");
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> events = store->ReadEvents("g1", 1, kHead);
  ASSERT_TRUE(events.ok()) << events.status();
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[1].version(), 2);
  EXPECT_EQ((*events)[1].command_id(), "c1");
  absl::StatusOr<std::optional<AppendResult>> looked = store->LookupCommand("g1", "c1");
  ASSERT_TRUE(looked.ok()) << looked.status();
  ASSERT_TRUE(looked->has_value());
  EXPECT_EQ(**looked, (AppendResult{1, 2, true}));
  // The retry of its command: replayed; with another fingerprint: reused.
  absl::StatusOr<AppendResult> retry = store->Append(old);
  ASSERT_TRUE(retry.ok()) << retry.status();
  EXPECT_EQ(*retry, (AppendResult{1, 2, true}));
  old.fingerprint = "fp2";
  EXPECT_THAT(store->Append(old), base::HasErrorCode(kErrCommandIdReused));

  AppendRequest next = Request("g1", 2, "c2");
  next.expected_tip = "not the tip";
  EXPECT_THAT(store->Append(next), base::HasErrorCode(kErrVersionConflict));
  next.expected_tip = read->tip();
  absl::StatusOr<AppendResult> appended = store->Append(next);
  ASSERT_TRUE(appended.ok()) << appended.status();
  EXPECT_EQ(appended->version, 3);
  events = store->ReadEvents("g1", 2, kHead);
  ASSERT_TRUE(events.ok()) << events.status();
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[0].command_id(), "c1");
  EXPECT_EQ((*events)[1].command_id(), "c2");
  EXPECT_EQ((*events)[1].version(), 3);
  read = store->ReadSnapshot("g1");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->version(), 3);
  EXPECT_EQ(read->tip(), appended->tip);
}

// Command ids: a retry is answered from its record however many appends came after it (the
// records after the snapshot compared one by one, the older ones found through the filter), with
// snapshots written rarely or always; new ids are not mistaken for old ones.
TEST(RedisCommandIdsTest, ARetryLongAfterIsAnsweredFromItsRecord) {
  for (int every : {1, 16}) {
    std::unique_ptr<GameStore> store = MakeStore({});
    ASSERT_NE(store, nullptr);
    auto request = [every](std::int64_t v, const std::string& id) {
      AppendRequest r = Request("g1", v, id);
      r.snapshot_every = every;
      r.fingerprint = absl::StrCat("fp-", id);
      return r;
    };
    const int appends = 150;
    for (int v = 0; v < appends; ++v) {
      ASSERT_TRUE(store->Append(request(v, absl::StrCat("c", v))).ok()) << v;
    }
    for (int v : {1, 2, 77, 140, 149}) {
      absl::StatusOr<AppendResult> replayed = store->Append(request(v, absl::StrCat("c", v)));
      ASSERT_TRUE(replayed.ok()) << replayed.status();
      EXPECT_EQ(*replayed, (AppendResult{v + 1, v + 1, true})) << every << " " << v;
      absl::StatusOr<std::optional<AppendResult>> looked =
          store->LookupCommand("g1", absl::StrCat("c", v));
      ASSERT_TRUE(looked.ok()) << looked.status();
      EXPECT_EQ(*looked, (AppendResult{v + 1, v + 1, true}));
      AppendRequest other = request(appends, absl::StrCat("c", v));
      other.fingerprint = "another request";
      EXPECT_THAT(store->Append(other), base::HasErrorCode(kErrCommandIdReused));
    }
    absl::StatusOr<std::optional<AppendResult>> unknown = store->LookupCommand("g1", "never");
    ASSERT_TRUE(unknown.ok()) << unknown.status();
    EXPECT_FALSE(unknown->has_value());
    absl::StatusOr<std::vector<arbiter::v1::GameEvent>> events = store->ReadEvents("g1", 1, kHead);
    ASSERT_TRUE(events.ok()) << events.status();
    EXPECT_EQ(static_cast<int>(events->size()), appends);
  }
}

// The calls of `command` (e.g. "xrange") the server has run.
std::int64_t CommandCalls(RedisServer& server, absl::string_view command) {
  absl::StatusOr<std::string> stats = server.Command({"INFO", "commandstats"});
  EXPECT_TRUE(stats.ok()) << stats.status();
  if (!stats.ok()) return -1;
  const std::string field = absl::StrCat("cmdstat_", command, ":calls=");
  const size_t at = stats->find(field);
  if (at == std::string::npos) return 0;
  std::int64_t calls = 0;
  EXPECT_TRUE(absl::SimpleAtoi(
      absl::string_view(*stats).substr(at + field.size(), stats->find(',', at) - at - field.size()),
      &calls));
  return calls;
}

// A new command id is compared with the records after the snapshot only when the client cannot
// vouch for them: a client whose own appends made them all names the snapshot, and the append
// function reads none of them (no XRANGE of the log). A retry of one of them, an append on a
// version another client moved, and a retry through another client are looked up in full and
// answered as ever; the snapshot's append reads them for its filter, and a retry long after is
// still found.
TEST(RedisCommandIdsTest, AClientsOwnAppendsSpareTheReadOfTheRecordsAfterTheSnapshot) {
  std::unique_ptr<GameStore> store = MakeStore({});
  ASSERT_NE(store, nullptr);
  RedisServer& admin = *RedisEnvironment::server();
  RedisGameStoreOptions second_options;
  second_options.connection.port = admin.port();
  absl::StatusOr<std::unique_ptr<RedisGameStore>> second = RedisGameStore::Create(second_options);
  ASSERT_TRUE(second.ok()) << second.status();
  auto request = [](std::int64_t v, const std::string& id, const std::string& tip) {
    AppendRequest r = Request("g1", v, id);
    r.snapshot_every = 16;
    r.fingerprint = absl::StrCat("fp-", id);
    r.expected_tip = v == 0 ? "" : tip;
    return r;
  };
  std::string tip;
  auto append = [&](GameStore& to, std::int64_t v, const std::string& id) {
    absl::StatusOr<AppendResult> r = to.Append(request(v, id, tip));
    EXPECT_TRUE(r.ok()) << r.status();
    if (r.ok() && !r->replayed) tip = r->tip;
    return r.ok() ? *r : AppendResult{};
  };
  for (int v = 0; v < 5; ++v) append(*store, v, absl::StrCat("c", v));
  const std::int64_t xranges = CommandCalls(admin, "xrange");
  for (int v = 5; v < 15; ++v) append(*store, v, absl::StrCat("c", v));  // 14 after the snapshot
  EXPECT_EQ(CommandCalls(admin, "xrange"), xranges);

  // A retry of one of them through the same client: the records are read, the original answers.
  EXPECT_EQ(append(*store, 15, "c7"), (AppendResult{8, 8, true}));
  EXPECT_GT(CommandCalls(admin, "xrange"), xranges);
  append(*store, 15, "c15");  // 16: writes the snapshot, and the filter of the ids before it
  const std::int64_t after_snapshot = CommandCalls(admin, "xrange");
  append(*store, 16, "c16");
  EXPECT_EQ(CommandCalls(admin, "xrange"), after_snapshot);

  // Another client moves the game on: the first's word is stale, so its append is compared in
  // full and loses the race; the other's command, retried through the first, is its record.
  const std::string stale_tip = tip;
  append(**second, 17, "other");
  absl::StatusOr<AppendResult> late = store->Append(request(17, "c17", stale_tip));
  EXPECT_THAT(late, base::HasErrorCode(kErrVersionConflict));
  EXPECT_EQ(append(*store, 18, "other"), (AppendResult{18, 18, true}));
  // A retry long after, through the filter and the older records.
  EXPECT_EQ(append(*store, 18, "c3"), (AppendResult{4, 4, true}));
  append(*store, 18, "c18");
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> events = store->ReadEvents("g1", 1, kHead);
  ASSERT_TRUE(events.ok()) << events.status();
  EXPECT_EQ(events->size(), 19u);
}

// Two callers' ids, stored scoped ("u:<32 hex>/<client id>", command_ids.h), share a client id.
// The scope is written once per game: every later record of a caller names it by its place in the
// game's list, so a move's AOF entry does not hold it. Still, each caller's retry is answered from
// its own record (old ones too: through the filter and the older records), the other caller's
// same client id is its own command, and every reader gets the whole id back.
TEST(RedisCommandIdsTest, AScopedIdIsItsCallersWithTheScopeStoredOnce) {
  std::unique_ptr<GameStore> store = MakeStore({});
  ASSERT_NE(store, nullptr);
  RedisServer& admin = *RedisEnvironment::server();
  const std::string alice = absl::StrCat("u:", std::string(32, 'a'), "/");
  const std::string bob = absl::StrCat("u:", std::string(32, 'b'), "/");
  auto request = [](std::int64_t v, const std::string& id) {
    AppendRequest r = Request("g1", v, id);
    r.snapshot_every = 16;
    r.fingerprint = absl::StrCat("fp-", id);
    return r;
  };
  // Alice's m0, Bob's m0, Alice's m1, Bob's m1, ...: 40 appends, two snapshots behind the last.
  const int appends = 40;
  auto id_at = [&](int v) {  // the id of the append that made version v + 1
    return absl::StrCat(v % 2 == 0 ? alice : bob, "m", v / 2);
  };
  for (int v = 0; v < appends; ++v) {
    absl::StatusOr<AppendResult> r = store->Append(request(v, id_at(v)));
    ASSERT_TRUE(r.ok()) << v << " " << r.status();
    EXPECT_FALSE(r->replayed) << v;
  }
  for (int v : {0, 1, 2, 17, 38, 39}) {
    absl::StatusOr<AppendResult> replayed = store->Append(request(v, id_at(v)));
    ASSERT_TRUE(replayed.ok()) << replayed.status();
    EXPECT_EQ(*replayed, (AppendResult{v + 1, v + 1, true})) << v;
    absl::StatusOr<std::optional<AppendResult>> looked = store->LookupCommand("g1", id_at(v));
    ASSERT_TRUE(looked.ok()) << looked.status();
    EXPECT_EQ(*looked, (AppendResult{v + 1, v + 1, true})) << v;
    AppendRequest other = request(appends, id_at(v));
    other.fingerprint = "another request";
    EXPECT_THAT(store->Append(other), base::HasErrorCode(kErrCommandIdReused)) << v;
  }
  // A third caller's m0 is new, as is Alice's m99.
  for (const std::string& id : {absl::StrCat("u:", std::string(32, 'c'), "/m0"), alice + "m99"}) {
    absl::StatusOr<std::optional<AppendResult>> looked = store->LookupCommand("g1", id);
    ASSERT_TRUE(looked.ok()) << looked.status();
    EXPECT_FALSE(looked->has_value()) << id;
  }
  // Every reader gets the whole ids.
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> events = store->ReadEvents("g1", 1, kHead);
  ASSERT_TRUE(events.ok()) << events.status();
  ASSERT_EQ(static_cast<int>(events->size()), appends);
  for (int v = 0; v < appends; ++v) EXPECT_EQ((*events)[v].command_id(), id_at(v)) << v;
  absl::StatusOr<std::vector<GameEvents>> watched =
      store->WaitForAnyEvents({{"g1", appends - 2}}, absl::ZeroDuration(), 10);
  ASSERT_TRUE(watched.ok()) << watched.status();
  ASSERT_EQ(watched->size(), 1u);
  ASSERT_EQ((*watched)[0].events.size(), 2u);
  EXPECT_EQ((*watched)[0].events[1].command_id(), id_at(appends - 1));
  absl::StatusOr<LatestState> latest = store->ReadLatest("g1");
  ASSERT_TRUE(latest.ok()) << latest.status();
  ASSERT_FALSE(latest->tail.empty());
  EXPECT_EQ(latest->tail.back().command_id(), id_at(appends - 1));
  // A later move of a known caller: the AOF has its client id, not its scope.
  std::string incr;
  for (const auto& f : std::filesystem::directory_iterator(admin.dir() + "/appendonlydir")) {
    if (absl::EndsWith(f.path().string(), ".incr.aof")) incr = f.path().string();
  }
  ASSERT_FALSE(incr.empty());
  const auto before = std::filesystem::file_size(incr);
  ASSERT_TRUE(store->Append(request(appends, alice + "last")).ok());
  std::ifstream in(incr, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(before));
  const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The record's header: the scope's place in the game's list (Alice's is the first), the rest.
  EXPECT_TRUE(absl::StrContains(written, absl::string_view("\xff\x01\x04last", 7))) << written;
  // The scope once only: in the test's event body, which names its command id.
  const size_t scope = written.find(std::string(32, 'a'));
  ASSERT_NE(scope, std::string::npos) << written;
  EXPECT_EQ(written.find(std::string(32, 'a'), scope + 1), std::string::npos) << written;
}

// The log's records of g1 as Redis holds them, one string.
std::string RecordsOf(GameStore& store) {
  auto& redis = static_cast<RedisGameStore&>(store);
  absl::StatusOr<std::string> entries =
      RedisEnvironment::server()->Command({"XRANGE", redis.Key("log", "g1"), "-", "+"});
  EXPECT_TRUE(entries.ok()) << entries.status();
  return entries.value_or("");
}

std::vector<arbiter::v1::GameEvent> EventsOf(GameStore& store) {
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> events = store.ReadEvents("g1", 1, kHead);
  EXPECT_TRUE(events.ok()) << events.status();
  return events.value_or(std::vector<arbiter::v1::GameEvent>{});
}

RedisGameStoreOptions WithCodec(std::shared_ptr<const EventCodec> codec, bool compact = true) {
  RedisGameStoreOptions options;
  options.event_codec = std::move(codec);
  options.compact_events = compact;
  return options;
}

// The codec's form is what the record keeps, and every read gives back the events as appended.
TEST(RedisEventCodecTest, ABodyIsKeptInTheCodecsFormAndReadAsAppended) {
  std::unique_ptr<GameStore> store = MakeStore(WithCodec(std::make_shared<ReversingCodec>()));
  ASSERT_NE(store, nullptr);
  AppendRequest create = Request("g1", 0, "c1", 2);
  AppendRequest move = Request("g1", 2, "c2", 1);
  ASSERT_TRUE(store->Append(create).ok());
  ASSERT_TRUE(store->Append(move).ok());
  const std::string records = RecordsOf(*store);
  EXPECT_TRUE(absl::StrContains(records, "1/2c")) << records;
  EXPECT_FALSE(absl::StrContains(records, "c1/2")) << records;
  const std::vector<arbiter::v1::GameEvent> events = EventsOf(*store);
  ASSERT_EQ(events.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const arbiter::v1::GameEvent& appended = i < 2 ? create.events[i] : move.events[0];
    EXPECT_EQ(events[i].body().type_url(), appended.body().type_url());
    EXPECT_EQ(events[i].body().value(), appended.body().value());
    EXPECT_EQ(events[i].recorded_at_ms(), appended.recorded_at_ms());
    EXPECT_EQ(events[i].version(), i + 1);
  }
  // The watch and the batched reads go through the same records.
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> watched =
      store->WaitForEvents("g1", 2, absl::ZeroDuration(), 10);
  ASSERT_TRUE(watched.ok()) << watched.status();
  ASSERT_EQ(watched->size(), 1u);
  EXPECT_EQ((*watched)[0].body().value(), move.events[0].body().value());
}

// Old records (every body as its bytes) read as before with a codec; a record with a compact body
// is refused by a store without the codec, precisely, not misread; with compact_events off, a
// store writes bytes and still reads forms.
TEST(RedisEventCodecTest, OldRecordsReadAndACompactOneNeedsTheCodec) {
  std::unique_ptr<GameStore> plain = MakeStore({});
  ASSERT_NE(plain, nullptr);
  ASSERT_TRUE(plain->Append(Request("g1", 0, "c1", 1)).ok());
  absl::StatusOr<std::unique_ptr<RedisGameStore>> with_codec = [] {
    RedisGameStoreOptions options = WithCodec(std::make_shared<ReversingCodec>());
    options.connection.port = RedisEnvironment::server()->port();
    return RedisGameStore::Create(options);
  }();
  ASSERT_TRUE(with_codec.ok()) << with_codec.status();
  ASSERT_TRUE((*with_codec)->Append(Request("g1", 1, "c2", 1)).ok());
  const std::vector<arbiter::v1::GameEvent> events = EventsOf(**with_codec);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].body().value(), Request("g1", 0, "c1", 1).events[0].body().value());
  EXPECT_EQ(events[1].body().value(), Request("g1", 1, "c2", 1).events[0].body().value());
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> refused = plain->ReadEvents("g1", 1, 2);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInternal);
  EXPECT_TRUE(absl::StrContains(refused.status().message(), "no codec")) << refused.status();

  std::unique_ptr<GameStore> upgrading =
      MakeStore(WithCodec(std::make_shared<ReversingCodec>(), /*compact=*/false));
  ASSERT_NE(upgrading, nullptr);
  ASSERT_TRUE(upgrading->Append(Request("g1", 0, "c1", 1)).ok());
  EXPECT_TRUE(absl::StrContains(RecordsOf(*upgrading), "c1/1"));
  EXPECT_EQ(EventsOf(*upgrading).size(), 1u);
}

// A form that does not read back as the body's bytes is not kept: the body is.
TEST(RedisEventCodecTest, AFormThatDoesNotReadBackIsNotKept) {
  std::unique_ptr<GameStore> store =
      MakeStore(WithCodec(std::make_shared<ReversingCodec>(/*faithful=*/false)));
  ASSERT_NE(store, nullptr);
  AppendRequest create = Request("g1", 0, "c1", 1);
  ASSERT_TRUE(store->Append(create).ok());
  EXPECT_TRUE(absl::StrContains(RecordsOf(*store), "c1/1"));
  const std::vector<arbiter::v1::GameEvent> events = EventsOf(*store);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].body().value(), create.events[0].body().value());
}

// A request of one event whose body's UCI is `uci` ("<name>/<rest>" for NamingCodec).
AppendRequest NamedMove(std::int64_t expected_version, const std::string& uci) {
  AppendRequest r = Request("g1", expected_version, absl::StrCat("m", expected_version));
  arbiter::v1::Move move;
  move.set_uci(uci);
  r.events[0].mutable_body()->PackFrom(move);
  return r;
}

// A name the records repeat is kept once, in the game's list beside the callers' scopes, and each
// record names it by its place; every read gives the events back as appended. A store that has
// not seen the library place names (no CheckFunctions) keeps them inline, and when the list is
// full a name stays inline too; both read back.
TEST(RedisEventCodecTest, ANameIsKeptOnceInTheGamesListAndReadBackEverywhere) {
  std::unique_ptr<GameStore> store = MakeStore(WithCodec(std::make_shared<NamingCodec>()));
  ASSERT_NE(store, nullptr);
  auto& redis = static_cast<RedisGameStore&>(*store);
  const std::vector<std::string> ucis = {"alice/e2e4", "bob/e7e5", "alice/g1f3", "bob/b8c6"};
  for (int v = 0; v < 4; ++v) ASSERT_TRUE(store->Append(NamedMove(v, ucis[v])).ok()) << v;
  std::string records = RecordsOf(*store);
  EXPECT_FALSE(absl::StrContains(records, "alice")) << records;
  EXPECT_FALSE(absl::StrContains(records, "bob")) << records;
  absl::StatusOr<std::string> list =
      RedisEnvironment::server()->Command({"HGET", redis.Key("game", "g1"), "u"});
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_EQ(*list,
            "\x05"
            "alice"
            "\x03"
            "bob");
  auto expect_ucis = [&](const std::vector<arbiter::v1::GameEvent>& events,
                         const std::vector<std::string>& expected) {
    ASSERT_EQ(events.size(), expected.size());
    for (size_t i = 0; i < events.size(); ++i) {
      arbiter::v1::Move move;
      ASSERT_TRUE(events[i].body().UnpackTo(&move));
      EXPECT_EQ(move.uci(), expected[i]) << i;
    }
  };
  expect_ucis(EventsOf(*store), ucis);

  // A store that never asked the library: the names inline, read by either store.
  absl::StatusOr<std::unique_ptr<RedisGameStore>> unchecked = [] {
    RedisGameStoreOptions options = WithCodec(std::make_shared<NamingCodec>());
    options.connection.port = RedisEnvironment::server()->port();
    return RedisGameStore::Create(options);
  }();
  ASSERT_TRUE(unchecked.ok()) << unchecked.status();
  ASSERT_TRUE((*unchecked)->Append(NamedMove(4, "carol/f1c4")).ok());
  EXPECT_TRUE(absl::StrContains(RecordsOf(*store), "carol"));
  std::vector<std::string> all = ucis;
  all.push_back("carol/f1c4");
  expect_ucis(EventsOf(*store), all);
  expect_ucis(EventsOf(**unchecked), all);

  // 250 places in all (alice, bob and p5..p252; carol was left inline), then inline: the list
  // is full.
  for (int v = 5; v < 253; ++v) {
    all.push_back(absl::StrCat("p", v, "/x"));
    ASSERT_TRUE(store->Append(NamedMove(v, all.back())).ok()) << v;
  }
  all.push_back("overflow/y");
  ASSERT_TRUE(store->Append(NamedMove(253, all.back())).ok());
  records = RecordsOf(*store);
  EXPECT_FALSE(absl::StrContains(records, "p252"));
  EXPECT_TRUE(absl::StrContains(records, "overflow"));
  expect_ucis(EventsOf(*store), all);
  // The watch and the batched reads (with the list read beside the range) read the same.
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> watched =
      store->WaitForEvents("g1", 251, absl::ZeroDuration(), 10);
  ASSERT_TRUE(watched.ok()) << watched.status();
  expect_ucis(*watched, {all[251], all[252], all[253]});
  std::vector<absl::StatusOr<std::vector<arbiter::v1::GameEvent>>> ranges =
      store->ReadEventsOfGames({{"g1", 1, 4}});
  ASSERT_EQ(ranges.size(), 1u);
  ASSERT_TRUE(ranges[0].ok()) << ranges[0].status();
  expect_ucis(*ranges[0], ucis);
}

// What one move, as the services append it (one event, the snapshot not due, the deadline bound
// kept), adds to the AOF after `before`.
std::string MoveInTheAof(RedisGameStoreOptions options) {
  std::unique_ptr<GameStore> store = MakeStore(std::move(options));
  if (store == nullptr) return "";
  RedisServer& admin = *RedisEnvironment::server();
  AppendRequest create = Request("g1", 0, "c0", 1, DeadlineUpdate::Bound(5000));
  create.snapshot_every = 16;
  EXPECT_TRUE(store->Append(create).ok());
  // The AOF's open increment (appendfsync always: the write is in it when the reply comes).
  std::string incr;
  for (const auto& f : std::filesystem::directory_iterator(admin.dir() + "/appendonlydir")) {
    if (absl::EndsWith(f.path().string(), ".incr.aof")) incr = f.path().string();
  }
  EXPECT_FALSE(incr.empty());
  if (incr.empty()) return "";
  const auto before = std::filesystem::file_size(incr);
  AppendRequest move = Request("g1", 1, "c1", 1, DeadlineUpdate::Bound(6000));
  move.snapshot_every = 16;
  EXPECT_TRUE(store->Append(move).ok());
  std::ifstream in(incr, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(before));
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Without the feed: one XADD in the AOF, no MULTI/EXEC around it, and no more bytes than the
// move's record needs.
TEST(RedisBytesTest, AMoveIsOneCommandInTheAof) {
  const std::string written = MoveInTheAof({.feed_retention = 0});
  EXPECT_TRUE(absl::StartsWith(written, "*5\r\n$4\r\nXADD\r\n")) << written;
  EXPECT_FALSE(absl::StrContains(written, "MULTI")) << written;
  EXPECT_EQ(written.find("\r\n*"), std::string::npos) << "one command: " << written;
  // Framing, key, ID "2-1", field, and the record: command id "c1", identity, the event (its
  // type URL inline here: a test body, not a known envelope).
  EXPECT_LE(written.size(), 150u) << written;
}

// With the feed (the default) the AOF gets the same: the feed's entry is replicated, not written
// to the AOF (redis_functions.lua: a restart renumbers the feed past what it lost), so neither its
// XADD nor a MULTI/EXEC around two writes is there.
TEST(RedisBytesTest, AMovesFeedEntryIsNotWrittenToTheAof) {
  const std::string written = MoveInTheAof({});
  EXPECT_TRUE(absl::StartsWith(written, "*5\r\n$4\r\nXADD\r\n")) << written;
  EXPECT_FALSE(absl::StrContains(written, "MULTI")) << written;
  EXPECT_FALSE(absl::StrContains(written, ":feed")) << written;
  EXPECT_EQ(written.find("\r\n*"), std::string::npos) << "one command: " << written;
  EXPECT_LE(written.size(), 150u) << written;
}

// Feed entries of the earlier form (fields g and v, "<last>-<events>") read as they did, beside
// the one-field form: a server reads the feed that an older one wrote.
TEST(RedisFeedTest, EntriesOfTheEarlierFormStillRead) {
  std::unique_ptr<GameStore> store = MakeStore({});
  ASSERT_NE(store, nullptr);
  auto& redis = static_cast<RedisGameStore&>(*store);
  // The shard's feed written once since the library was loaded, so that its numbering goes on
  // one by one (the first entry after a load jumps: redis_functions.lua).
  ASSERT_TRUE(store->Append(Request("g1", 0, "c1", 2)).ok());
  absl::StatusOr<FeedPosition> head = store->FeedHead();
  ASSERT_TRUE(head.ok()) << head.status();
  const int shard = DeadlineShard("g1", store->NumDeadlineShards());
  ASSERT_TRUE(RedisEnvironment::server()
                  ->Command({"XADD", redis.ShardKey("feed", shard), "1-*", "g", "g0", "v", "7-2"})
                  .ok());
  ASSERT_TRUE(store->Append(Request("g1", 2, "c2", 1)).ok());
  absl::StatusOr<std::vector<FeedEntry>> read = store->ReadFeed(*head, 10, absl::ZeroDuration());
  ASSERT_TRUE(read.ok()) << read.status();
  const std::int64_t at = head->next[shard];
  EXPECT_EQ(*read, (std::vector<FeedEntry>{{shard, at, "g0", 6, 7}, {shard, at + 1, "g1", 3, 3}}));
}

// The tip names what the append wrote, not only its command id: the same command decided again
// with another timestamp (a retry on a promoted replica that lacked the first) is another tip, and
// the same append is the same tip (a digest, not a counter).
TEST(RedisTipTest, TheTipIsADigestOfTheAppend) {
  std::unique_ptr<GameStore> store = MakeStore({});
  ASSERT_NE(store, nullptr);
  absl::StatusOr<AppendResult> a = store->Append(Request("a", 0, "c1"));
  absl::StatusOr<AppendResult> b = store->Append(Request("b", 0, "c1"));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->tip, b->tip);
  EXPECT_EQ(a->tip.size(), 40u);  // SHA-1, hex
  AppendRequest at_one = Request("a", 1, "c2");
  at_one.events[0].set_recorded_at_ms(1000);
  AppendRequest at_two = Request("b", 1, "c2");
  at_two.events[0].set_recorded_at_ms(2000);
  a = store->Append(at_one);
  b = store->Append(at_two);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->tip, b->tip);
}

}  // namespace
}  // namespace store
