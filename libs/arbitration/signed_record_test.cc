#include "libs/arbitration/signed_record.h"

#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/archive.h"
#include "libs/arbitration/authority.h"
#include "libs/arbitration/errors.h"
#include "libs/arbitration/pgn_export.h"
#include "libs/arbitration/testing/game_table.h"
#include "libs/base/status_matchers.h"
#include "libs/ledger/time_source.h"
#include "libs/record/errors.h"
#include "libs/record/record.h"
#include "libs/store/memory_game_store.h"

namespace arbitration::testing {
namespace {

using ::base::HasErrorCode;

constexpr std::int64_t kT0 = 1'700'000'000'000;

v1::CreateGameRequest Game(const std::string& game_id) {
  v1::CreateGameRequest req;
  req.set_game_id(game_id);
  req.set_white_id("w");
  req.set_black_id("b");
  req.mutable_ruleset()->set_edition(v1::EDITION_FIDE_2023);
  req.set_time_control("5400");
  return req;
}

class SignedRecordTest : public ::testing::Test {
 protected:
  SignedRecordTest()
      : store_({.num_deadline_shards = 4, .now_ms = [this] { return time_.NowMs(); }}),
        authority_(&store_, &time_, analyst_, {.owner = "a"}),
        signer_(*RecordSigner::Create(key_, {})) {}

  // Created, started, and the fool's mate up to `plies` plies (4: 2. ... Qh4#, 5.1a, 0-1).
  void Play(const std::string& game, int plies) {
    ASSERT_OK(authority_.Create(game, Game(game), Who("platform", "platform"), {}).status());
    Command start;
    start.kind = CommandKind::kStart;
    start.actor = Who("platform", "platform");
    ASSERT_OK(authority_.Execute(game, start, {}).status());
    const char* moves[] = {"f3", "e5", "g4", "Qh4"};
    for (int i = 0; i < plies; ++i) {
      time_.AdvanceMs(2000);
      ASSERT_OK(authority_
                    .Execute(game,
                             PlayerMove(i % 2 == 0 ? chess::Color::kWhite : chess::Color::kBlack,
                                        moves[i]),
                             {})
                    .status());
    }
  }

  absl::StatusOr<RecordAnswer> Answer(const std::string& game, const RecordSigner* signer) {
    return SignedRecordOf(authority_, game, signer,
                          [](absl::string_view) { return absl::OkStatus(); });
  }

  record::KeyRing Ring() {
    record::KeyRing ring;
    EXPECT_OK(ring.Add(key_.public_key()));
    return ring;
  }

  ledger::FakeTime time_{kT0};
  store::MemoryGameStore store_;
  LocalAnalyst analyst_;
  GameAuthority authority_;
  const record::SigningKey key_ = record::SigningKey::Generate();
  RecordSigner signer_;
};

// 5.1a: the checkmate ends the game; its record is signed at the version of the mate, with the
// result, and the PGN the platform reads (no advice, 12.2).
TEST_F(SignedRecordTest, AGameOverIsSignedWithItsResultVersionAndLog) {
  Play("g", 4);
  absl::StatusOr<RecordAnswer> a = Answer("g", &signer_);
  ASSERT_OK(a.status());
  EXPECT_FALSE(a->archived);
  absl::StatusOr<record::ParsedRecord> r = record::Verify(a->record, Ring());
  ASSERT_OK(r.status());
  EXPECT_EQ(r->block.result, "0-1");
  EXPECT_EQ(r->block.game_id, "g");
  EXPECT_EQ(r->block.signed_at_ms, time_.NowMs());
  absl::StatusOr<CommandResult> now = authority_.Get("g");
  ASSERT_OK(now.status());
  EXPECT_EQ(r->block.version, now->version);
  EXPECT_EQ(r->pgn, ExportPgn(*now->game, PgnExportOptions{}));
  // The log's digest: every event of the store's log, decoded, in order.
  absl::StatusOr<std::vector<v1::GameEvent>> stored = store_.ReadEvents("g", 1, store::kHead);
  ASSERT_OK(stored.status());
  std::vector<v1::ArbitrationEvent> events;
  for (const v1::GameEvent& e : *stored) events.push_back(*FromStoreEvent(e));
  EXPECT_EQ(r->block.log_sha256, LogDigest(events));
  // One event fewer is another digest.
  events.pop_back();
  EXPECT_NE(r->block.log_sha256, LogDigest(events));
}

TEST_F(SignedRecordTest, AGameInPlayHasNoSignedRecord) {
  Play("g", 2);
  EXPECT_THAT(Answer("g", &signer_), HasErrorCode(kErrGameNotOver));
  EXPECT_THAT(Answer("none", &signer_), HasErrorCode("ERR_GAME_NOT_FOUND"));
}

TEST_F(SignedRecordTest, WithoutAKeyNothingIsSigned) {
  Play("g", 4);
  EXPECT_THAT(Answer("g", nullptr), HasErrorCode(record::kErrRecordSigningOff));
}

TEST_F(SignedRecordTest, TheCallersEventIsAskedFirst) {
  Play("g", 4);
  absl::StatusOr<RecordAnswer> a = SignedRecordOf(authority_, "g", &signer_, [](absl::string_view) {
    return absl::PermissionDeniedError("no");
  });
  EXPECT_EQ(a.status().code(), absl::StatusCode::kPermissionDenied);
}

TEST_F(SignedRecordTest, TheTombstoneKeepsTheSignatureOfTheArchivedRecord) {
  Play("g", 4);
  absl::StatusOr<ArchiveOutcome> archived = Archive(
      authority_, "g", Who("platform", "platform"),
      [](absl::string_view) { return absl::OkStatus(); }, &signer_);
  ASSERT_OK(archived.status());
  absl::StatusOr<record::ParsedRecord> kept = record::Verify(archived->signed_record, Ring());
  ASSERT_OK(kept.status());
  EXPECT_EQ(SignatureBlockOf(archived->archived), record::RenderBlock(kept->block));
  absl::StatusOr<RecordAnswer> later = Answer("g", nullptr);  // a server without the key now
  ASSERT_OK(later.status());
  EXPECT_TRUE(later->archived);
  EXPECT_TRUE(later->record.empty());
  EXPECT_OK(record::Verify(kept->pgn + later->signature_block, Ring()));
}

// The tombstone is bounded (store::kMaxTombstoneBytes): the signature fits beside the longest
// game id and event a request may carry.
TEST_F(SignedRecordTest, TheSignatureFitsTheTombstoneOfTheLongestNames) {
  const std::string game(store::kMaxIdLength, 'g');
  v1::CreateGameRequest create = Game(game);
  create.set_event(std::string(256, 'e'));
  ASSERT_OK(authority_.Create(game, create, Who("platform", "platform"), {}).status());
  Command start;
  start.kind = CommandKind::kStart;
  start.actor = Who("platform", "platform");
  ASSERT_OK(authority_.Execute(game, start, {}).status());
  Command resign;
  resign.kind = CommandKind::kResign;
  resign.actor = Who("w", "player");
  resign.side = chess::Color::kWhite;
  ASSERT_OK(authority_.Execute(game, resign, {}).status());
  absl::StatusOr<ArchiveOutcome> archived = Archive(
      authority_, game, Who(std::string(64, 'p'), "platform"),
      [](absl::string_view) { return absl::OkStatus(); }, &signer_);
  ASSERT_OK(archived.status());
  EXPECT_LE(archived->archived.ByteSizeLong(), static_cast<size_t>(store::kMaxTombstoneBytes));
  EXPECT_OK(record::Verify(archived->signed_record, Ring()));
}

TEST_F(SignedRecordTest, AGameArchivedWithoutAKeyHasNoSignature) {
  Play("g", 4);
  ASSERT_OK(Archive(authority_, "g", Who("platform", "platform"), [](absl::string_view) {
              return absl::OkStatus();
            }).status());
  EXPECT_THAT(Answer("g", &signer_), HasErrorCode(record::kErrRecordSigningOff));
}

// Appendix A: the sealed box and wrapped key are cleared before the digest, as WatchGame clears
// them for everyone; the rest of the event counts.
TEST_F(SignedRecordTest, TheDigestLeavesOutTheSealedMovesSecret) {
  v1::ArbitrationEvent sealed;
  sealed.mutable_move_sealed()->set_box("secret box");
  sealed.mutable_move_sealed()->set_wrapped_key("wrapped");
  v1::ArbitrationEvent seen = sealed;
  seen.mutable_move_sealed()->clear_box();
  seen.mutable_move_sealed()->clear_wrapped_key();
  EXPECT_EQ(DigestEncoding(sealed), DigestEncoding(seen));
  EXPECT_EQ(LogDigest({sealed}), LogDigest({seen}));
  v1::ArbitrationEvent other = seen;
  other.set_at_ms(1);
  EXPECT_NE(LogDigest({other}), LogDigest({seen}));
}

}  // namespace
}  // namespace arbitration::testing
