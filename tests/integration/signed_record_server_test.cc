// Signed records through a real arbiterd with authentication on a real redis-server: a game is
// played to its end (5.1a: checkmate) and both players confirm the result (8.7); its signed
// record verifies with the keys the server publishes, names the game, version and result, and
// its log's digest is the one a reader of the log (WatchGame from the start, as the arbiter)
// recomputes. Who may read it follows the policy table; a game in play has no signed record.
// Archived, the tombstone keeps the signature: with the PGN the platform kept, it verifies.
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "gtest/gtest.h"
#include "libs/arbitration/signed_record.h"
#include "libs/record/record.h"
#include "libs/store/testing/redis_server.h"
#include "proto/arbiter/v1/arbitration.grpc.pb.h"
#include "tests/integration/clock_process.h"
#include "tests/integration/testing/calls.h"
#include "tests/integration/testing/tokens.h"

namespace integration {
namespace {

namespace v1 = arbiter::v1;
using service::Role;
using Stub = v1::Arbitration::Stub;
using ::testing::HasSubstr;

std::string TmpPath(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/", name);
}

class SignedRecordServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<store::testing::RedisServer>> redis =
        store::testing::RedisServer::Start({});
    ASSERT_TRUE(redis.ok()) << redis.status() << " (redis-server is installed by tools/setup.sh)";
    redis_ = *std::move(redis);
    const std::string binary = testing_util::FindRunfile("services/arbiterd/arbiterd");
    const std::string keys = testing_util::FindRunfile(kKeysFile);
    ASSERT_FALSE(binary.empty()) << "services/arbiterd/arbiterd is not in the runfiles";
    // A key rotated out, published beside the signing key.
    std::ofstream(TmpPath("signing.key")) << signing_.ToPem();
    std::ofstream(TmpPath("old.pub")) << old_.public_key().ToPem();
    absl::StatusOr<std::unique_ptr<testing_util::ServerProcess>> p =
        testing_util::ServerProcess::Start(
            binary,
            {"--services=arbitration", absl::StrCat("--store=redis://127.0.0.1:", redis_->port()),
             absl::StrCat("--auth_keys=", keys), "--metrics_address=none",
             "--arbitration_engine_path=", "--shutdown_grace=0s",
             absl::StrCat("--record_signing_key=", TmpPath("signing.key")),
             absl::StrCat("--record_public_keys=", TmpPath("old.pub"))});
    ASSERT_TRUE(p.ok()) << p.status();
    server_ = *std::move(p);
    stub_ = v1::Arbitration::NewStub(grpc::CreateChannel(
        absl::StrCat("127.0.0.1:", server_->grpc_port()), grpc::InsecureChannelCredentials()));
  }

  template <typename Request, typename Method>
  void Ok(Method method, const Request& req, const std::string& token) {
    v1::GameReply reply;
    grpc::Status st = Unary(stub_.get(), method, req, token, &reply);
    ASSERT_TRUE(st.ok()) << Code(st) << " " << st.error_message();
  }

  std::string Player(const std::string& game, v1::Color side) {
    return Token(Role::kPlayer, game,
                 side == v1::COLOR_WHITE ? chess::Color::kWhite : chess::Color::kBlack);
  }

  // Created and started; the fool's mate up to `plies` plies (4: 2. ... Qh4#, 0-1).
  void Play(const std::string& game, int plies) {
    Ok(&Stub::CreateGame, AliceBobGame(game), Token(Role::kPlatform));
    Ok(&Stub::StartGame, ForGame<v1::StartGameRequest>(game), Token(Role::kPlatform));
    const char* moves[] = {"f3", "e5", "g4", "Qh4"};
    for (int i = 0; i < plies; ++i) {
      v1::SubmitMoveRequest m = ForGame<v1::SubmitMoveRequest>(game);
      m.set_side(i % 2 == 0 ? v1::COLOR_WHITE : v1::COLOR_BLACK);
      m.set_move(moves[i]);
      Ok(&Stub::SubmitMove, m, Player(game, m.side()));
    }
  }

  grpc::Status GetRecord(const std::string& game, const std::string& token,
                         v1::GetSignedRecordReply* reply) {
    return Unary(stub_.get(), &Stub::GetSignedRecord, ForGame<v1::GetSignedRecordRequest>(game),
                 token, reply);
  }

  record::KeyRing Published() {
    v1::GetRecordKeysReply keys;
    EXPECT_TRUE(Succeeded(Unary(stub_.get(), &Stub::GetRecordKeys, v1::GetRecordKeysRequest(),
                                Token(Role::kObserver), &keys)));
    record::KeyRing ring;
    for (const v1::RecordKey& k : keys.keys()) {
      absl::StatusOr<record::PublicKey> key = record::PublicKey::FromPem(k.public_key_pem());
      EXPECT_TRUE(key.ok()) << key.status();
      EXPECT_EQ(key->key_id(), k.key_id());
      EXPECT_TRUE(ring.Add(*key).ok());
    }
    return ring;
  }

  // The log as the arbiter reads it: WatchGame from the start up to `version`.
  std::vector<v1::ArbitrationEvent> Log(const std::string& game, std::int64_t version) {
    Call call(Token(Role::kArbiter), absl::Seconds(5));
    std::unique_ptr<grpc::ClientReader<v1::GameUpdate>> reader =
        stub_->WatchGame(&call, ForGame<v1::WatchGameRequest>(game));
    std::vector<v1::ArbitrationEvent> events;
    v1::GameUpdate update;
    while (static_cast<std::int64_t>(events.size()) < version && reader->Read(&update)) {
      events.push_back(update.event());
    }
    call.TryCancel();
    reader->Finish();
    return events;
  }

  const record::SigningKey signing_ = record::SigningKey::Generate();
  const record::SigningKey old_ = record::SigningKey::Generate();
  std::unique_ptr<store::testing::RedisServer> redis_;
  std::unique_ptr<testing_util::ServerProcess> server_;
  std::unique_ptr<Stub> stub_;
};

TEST_F(SignedRecordServerTest, AFinishedGamesRecordIsSignedAndVerifies) {
  Play("mate", 4);  // 5.1a: 2. ... Qh4# ends the game, 0-1
  for (v1::Color side : {v1::COLOR_WHITE, v1::COLOR_BLACK}) {
    v1::ConfirmResultRequest confirm = ForGame<v1::ConfirmResultRequest>("mate");
    confirm.set_side(side);
    Ok(&Stub::ConfirmResult, confirm, Player("mate", side));  // 8.7
  }
  const record::KeyRing published = Published();
  ASSERT_EQ(published.keys().size(), 2u);
  EXPECT_NE(published.Find(signing_.key_id()), nullptr);
  EXPECT_NE(published.Find(old_.key_id()), nullptr);

  // The platform's copy and the player's are the same record, signed.
  v1::GetSignedRecordReply reply;
  ASSERT_TRUE(Succeeded(GetRecord("mate", Token(Role::kPlatform), &reply)));
  EXPECT_FALSE(reply.archived());
  absl::StatusOr<record::ParsedRecord> r = record::Verify(reply.record(), published);
  ASSERT_TRUE(r.ok()) << r.status() << "\n" << reply.record();
  EXPECT_EQ(r->block.game_id, "mate");
  EXPECT_EQ(r->block.result, "0-1");
  EXPECT_EQ(r->block.key_id, signing_.key_id());
  EXPECT_THAT(r->pgn, HasSubstr("2. g4"));
  EXPECT_THAT(r->pgn, HasSubstr("Qh4#"));
  EXPECT_EQ(record::RenderBlock(r->block), reply.signature_block());
  // The log's digest is what the arbiter's view of the log gives, confirmations included.
  const std::vector<v1::ArbitrationEvent> log = Log("mate", r->block.version);
  ASSERT_EQ(static_cast<std::int64_t>(log.size()), r->block.version);
  EXPECT_TRUE(log.back().has_confirmed()) << log.back().DebugString();
  EXPECT_EQ(arbitration::LogDigest(log), r->block.log_sha256);
  v1::GetSignedRecordReply player;
  ASSERT_TRUE(Succeeded(GetRecord("mate", Player("mate", v1::COLOR_BLACK), &player)));
  EXPECT_TRUE(record::Verify(player.record(), published).ok());
}

// The store keeps each move in its compact form (libs/arbitration/move_codec.h): the log's
// records in Redis hold no move's UCI or SAN string, and every reader gets the moves as played,
// byte for byte (the signed record's digest above is over the same events read back).
TEST_F(SignedRecordServerTest, TheMovesAreKeptCompactAndReadAsPlayed) {
  Play("compact", 4);
  absl::StatusOr<std::string> keys = redis_->Command({"KEYS", "*:log:compact"});
  ASSERT_TRUE(keys.ok()) << keys.status();
  ASSERT_FALSE(keys->empty());
  absl::StatusOr<std::string> records = redis_->Command({"XRANGE", *keys, "-", "+"});
  ASSERT_TRUE(records.ok()) << records.status();
  for (const char* uci : {"f2f3", "e7e5", "g2g4", "d8h4"}) {
    EXPECT_THAT(*records, ::testing::Not(HasSubstr(uci))) << uci;
  }
  EXPECT_THAT(*records, ::testing::Not(HasSubstr("Qh4#")));
  const std::vector<v1::ArbitrationEvent> log = Log("compact", 7);
  std::vector<std::string> played;
  for (const v1::ArbitrationEvent& e : log) {
    if (!e.has_move()) continue;
    played.push_back(absl::StrCat(e.move().side(), " ", e.move().uci(), " ", e.move().san()));
    EXPECT_GT(e.move().clock_ms(), 0);
    EXPECT_EQ(e.move().ends_game(), e.move().uci() == "d8h4");
    EXPECT_EQ(e.actor().role(), "player");
  }
  EXPECT_EQ(played,
            (std::vector<std::string>{"1 f2f3 f3", "2 e7e5 e5", "1 g2g4 g4", "2 d8h4 Qh4#"}));
}

// 8.7: the confirmation that completes the result (both players signed the scoresheet) is when
// Arbiter signs the record: its reply carries it, at the game's version then; the first
// confirmation carries none.
TEST_F(SignedRecordServerTest, TheConfirmationThatCompletesTheResultCarriesTheSignedRecord) {
  Play("confirmed", 4);  // 5.1a: 2. ... Qh4#, 0-1
  v1::ConfirmResultRequest confirm = ForGame<v1::ConfirmResultRequest>("confirmed");
  confirm.set_side(v1::COLOR_BLACK);
  v1::GameReply first;
  ASSERT_TRUE(Succeeded(Unary(stub_.get(), &Stub::ConfirmResult, confirm,
                              Player("confirmed", v1::COLOR_BLACK), &first)));
  EXPECT_TRUE(first.signed_record().empty());
  confirm.set_side(v1::COLOR_WHITE);
  v1::GameReply second;
  ASSERT_TRUE(Succeeded(Unary(stub_.get(), &Stub::ConfirmResult, confirm,
                              Player("confirmed", v1::COLOR_WHITE), &second)));
  ASSERT_FALSE(second.signed_record().empty());
  absl::StatusOr<record::ParsedRecord> r = record::Verify(second.signed_record(), Published());
  ASSERT_TRUE(r.ok()) << r.status() << "\n" << second.signed_record();
  EXPECT_EQ(r->block.game_id, "confirmed");
  EXPECT_EQ(r->block.result, "0-1");
  EXPECT_EQ(r->block.version, second.game().version());
  EXPECT_EQ(r->block.key_id, signing_.key_id());
  EXPECT_THAT(r->pgn, HasSubstr("Qh4#"));
  // Any changed byte fails the verification.
  std::string changed = second.signed_record();
  changed[changed.find("Qh4#")] = 'K';
  EXPECT_FALSE(record::Verify(changed, Published()).ok());
}

TEST_F(SignedRecordServerTest, OnlyAFinishedGameIsSignedAndOnlyForThoseWhoMayReadIt) {
  Play("live", 2);
  v1::GetSignedRecordReply reply;
  grpc::Status st = GetRecord("live", Token(Role::kArbiter), &reply);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(Code(st), "ERR_GAME_NOT_OVER");
  EXPECT_TRUE(reply.record().empty());
  st = GetRecord("nothing", Token(Role::kArbiter), &reply);
  EXPECT_EQ(Code(st), "ERR_GAME_NOT_FOUND");
  st = GetRecord("bad id{", Token(Role::kArbiter), &reply);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  Play("over", 4);
  // An observer reads the PGN through the broadcast delay, not the record; a player only his own.
  st = GetRecord("over", Token(Role::kObserver), &reply);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  st = GetRecord("over", Player("live", v1::COLOR_WHITE), &reply);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(Succeeded(GetRecord("over", Player("over", v1::COLOR_WHITE), &reply)));
}

TEST_F(SignedRecordServerTest, AnArchivedGameKeepsItsSignatureInTheTombstone) {
  Play("kept", 4);
  v1::ArchiveGameReply archived;
  ASSERT_TRUE(
      Succeeded(Unary(stub_.get(), &Stub::ArchiveGame, ForGame<v1::ArchiveGameRequest>("kept"),
                      Token(Role::kPlatform), &archived)));
  const record::KeyRing published = Published();
  // The platform keeps the signed record the archive answered.
  absl::StatusOr<record::ParsedRecord> kept = record::Verify(archived.signed_record(), published);
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(archived.archived().record_signature().key_id(), signing_.key_id());
  EXPECT_EQ(archived.archived().record_signature().signature(), kept->block.signature);
  // Later, the live store has only the signature; with the PGN the platform kept, the record.
  v1::GetSignedRecordReply reply;
  ASSERT_TRUE(Succeeded(GetRecord("kept", Token(Role::kArbiter), &reply)));
  EXPECT_TRUE(reply.archived());
  EXPECT_TRUE(reply.record().empty());
  EXPECT_EQ(reply.signature_block(), record::RenderBlock(kept->block));
  EXPECT_TRUE(record::Verify(kept->pgn + reply.signature_block(), published).ok());
  // Archiving again answers the same tombstone, and no second record.
  v1::ArchiveGameReply again;
  ASSERT_TRUE(
      Succeeded(Unary(stub_.get(), &Stub::ArchiveGame, ForGame<v1::ArchiveGameRequest>("kept"),
                      Token(Role::kPlatform), &again)));
  EXPECT_TRUE(again.replayed());
  EXPECT_EQ(again.archived().SerializeAsString(), archived.archived().SerializeAsString());
}

}  // namespace
}  // namespace integration
