#include "libs/service/access_log.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "google/protobuf/descriptor.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "prometheus/registry.h"
#include "proto/arbiter/v1/arbitration.pb.h"
#include "proto/arbiter/v1/clock.pb.h"

namespace service {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1'800'000'000);

TEST(LogRateLimiterTest, AllowsNPerSecondAndCountsTheRest) {
  LogRateLimiter limiter(3);
  std::int64_t suppressed = -1;
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(limiter.Allow(kT0 + absl::Milliseconds(10 * i), &suppressed));
    EXPECT_EQ(suppressed, 0);
  }
  EXPECT_FALSE(limiter.Allow(kT0 + absl::Milliseconds(500), &suppressed));
  EXPECT_FALSE(limiter.Allow(kT0 + absl::Milliseconds(999), &suppressed));
  // The next second: allowed again, and told how many were not written.
  EXPECT_TRUE(limiter.Allow(kT0 + absl::Seconds(1), &suppressed));
  EXPECT_EQ(suppressed, 2);
  EXPECT_TRUE(limiter.Allow(kT0 + absl::Seconds(1), &suppressed));
  EXPECT_EQ(suppressed, 0);
}

TEST(LogRateLimiterTest, ZeroWritesNothing) {
  LogRateLimiter limiter(0);
  std::int64_t suppressed = 0;
  EXPECT_FALSE(limiter.Allow(kT0, &suppressed));
  EXPECT_FALSE(limiter.Allow(kT0 + absl::Seconds(5), &suppressed));
}

TEST(CallLineTest, CarriesEveryField) {
  CallRecord r;
  r.time = kT0;
  r.request_id = "req-1";
  r.subject = "platform-1";
  r.role = "platform";
  r.method = "/arbiter.v1.Arbitration/SubmitMove";
  r.game_id = "g\"1";  // quoted as JSON
  r.code = 9;          // FAILED_PRECONDITION
  r.begun = kT0 - absl::Microseconds(1500);
  const std::string line = FormatCallLine(r);
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  nlohmann::json j = nlohmann::json::parse(line);
  EXPECT_EQ(j["level"], "info");
  EXPECT_EQ(j["msg"], "call");
  EXPECT_EQ(j["request_id"], "req-1");
  EXPECT_EQ(j["subject"], "platform-1");
  EXPECT_EQ(j["role"], "platform");
  EXPECT_EQ(j["method"], "/arbiter.v1.Arbitration/SubmitMove");
  EXPECT_EQ(j["game_id"], "g\"1");
  EXPECT_EQ(j["code"], "FAILED_PRECONDITION");
  EXPECT_EQ(j["ts"], "2027-01-15T08:00:00+00:00");
  EXPECT_DOUBLE_EQ(j["ms"].get<double>(), 1.5);  // from admission to the end
  EXPECT_FALSE(nlohmann::json::parse(FormatCallLine(CallRecord{})).contains("ms"));
}

TEST(CallLineTest, ControlCharactersAndUtf8StayOneValidLine) {
  CallRecord r;
  r.subject = "a\nb\x01\\";
  r.game_id = "partie-\xc3\xa9t\xc3\xa9";  // UTF-8: the general formatter
  for (const std::string& line :
       {FormatCallLine(r), FormatCallLine(CallRecord{.subject = "x\ny"})}) {
    EXPECT_EQ(line.find('\n'), line.size() - 1) << line;
    EXPECT_NO_THROW(nlohmann::json::parse(line)) << line;
  }
  nlohmann::json j = nlohmann::json::parse(FormatCallLine(r));
  EXPECT_EQ(j["subject"], "a\nb\x01\\");
  EXPECT_EQ(j["game_id"], "partie-\xc3\xa9t\xc3\xa9");
  EXPECT_EQ(j["msg"], "call");
}

TEST(CallLineTest, InvalidUtf8DoesNotThrow) {
  CallRecord r;
  r.game_id = "\xff\xfe";
  EXPECT_NO_THROW(nlohmann::json::parse(FormatCallLine(r)));
}

// Every method of the stateful services is classified: the reads are exactly those whose names
// say so (Get..., Watch..., Export..., List...), every other one changes state. A new RPC fails
// this test until access_log.cc's explicit list says what it is.
TEST(IsMutatingTest, EveryMethodIsClassified) {
  // The stateless services change nothing.
  for (const char* stateless : {"arbiter.v1.RulesValidation", "arbiter.v1.SearchAnalysis"}) {
    const auto* s =
        google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(stateless);
    ASSERT_NE(s, nullptr) << stateless;
    for (int i = 0; i < s->method_count(); ++i) {
      EXPECT_FALSE(IsMutating(absl::StrCat("/", stateless, "/", s->method(i)->name())));
    }
  }
  int writes = 0;
  for (const char* stateful : {"arbiter.v1.Arbitration", "arbiter.v1.ClockAuthority"}) {
    const auto* s = google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(stateful);
    ASSERT_NE(s, nullptr) << stateful;
    for (int i = 0; i < s->method_count(); ++i) {
      const std::string& name = s->method(i)->name();
      const bool read = absl::StartsWith(name, "Get") || absl::StartsWith(name, "Watch") ||
                        absl::StartsWith(name, "Export") || absl::StartsWith(name, "List");
      EXPECT_EQ(IsMutating(absl::StrCat("/", stateful, "/", name)), !read)
          << stateful << "/" << name << " is not classified as it should be";
      writes += read ? 0 : 1;
    }
  }
  // 28 of the game (SubmitMoves; 6 of Article 7 and the powers; 1 the board feed; 4
  // adjournment; ArchiveGame), 4 of an event (PauseEvent, ResumeEvent: 6.13a; CreateEvent,
  // CreateRound), 10 of the clock
  EXPECT_EQ(writes, 42);
}

TEST(AccessLogTest, MutatingCallsGetALineWithTheGameIdReadsNone) {
  std::vector<std::string> written;
  {
    AccessLog log(nullptr, [&written](const std::string& lines) { written.push_back(lines); });
    arbiter::v1::SubmitMoveRequest move;
    move.set_game_id("game-7");
    std::shared_ptr<CallRecord> r = log.Begin(nullptr, "/arbiter.v1.Arbitration/SubmitMove", move);
    ASSERT_NE(r, nullptr);
    EXPECT_FALSE(r->request_id.empty());
    EXPECT_EQ(r->game_id, "game-7");
    r->subject = "p1";
    r->role = "player";
    std::shared_ptr<CallRecord> second =
        log.Begin(nullptr, "/arbiter.v1.Arbitration/SubmitMove", move);
    EXPECT_NE(second->request_id, r->request_id);  // ids are unique in the process
    log.End(r, 0);
    arbiter::v1::GetGameRequest get;
    get.set_game_id("game-7");
    EXPECT_EQ(log.Begin(nullptr, "/arbiter.v1.Arbitration/GetGame", get), nullptr);
    log.writer().Flush();
  }
  ASSERT_EQ(written.size(), 1u);
  nlohmann::json j = nlohmann::json::parse(written[0]);
  EXPECT_EQ(j["game_id"], "game-7");
  EXPECT_EQ(j["subject"], "p1");
  EXPECT_EQ(j["role"], "player");
  EXPECT_EQ(j["code"], "OK");
  EXPECT_EQ(j["method"], "/arbiter.v1.Arbitration/SubmitMove");
}

TEST(AsyncLineWriterTest, AFullQueueDropsAndCounts) {
  std::string out;
  std::uint64_t reported = 0;
  // A period long enough that the writer thread does not drain the queue during the test.
  AsyncLineWriter writer(
      2, [&out](const std::string& lines) { out += lines; }, absl::Hours(1));
  writer.OnDropped([&reported](std::uint64_t n) { reported += n; });
  CallRecord r;
  r.request_id = "a";
  EXPECT_TRUE(writer.Push(r));
  EXPECT_TRUE(writer.Push(r));
  EXPECT_FALSE(writer.Push(r));
  EXPECT_FALSE(writer.Push(r));
  EXPECT_EQ(writer.dropped(), 2u);
  writer.Flush();
  EXPECT_EQ(reported, 2u);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 2);
  EXPECT_TRUE(writer.Push(r));  // room again after the batch
}

TEST(AccessLogTest, RegistersItsCounters) {
  prometheus::Registry registry;
  AccessLog log(&registry, [](const std::string&) {});
  std::set<std::string> names;
  for (const auto& family : registry.Collect()) names.insert(family.name);
  EXPECT_TRUE(names.count("arbiter_log_lines_dropped_total"));
  EXPECT_TRUE(names.count("arbiter_log_auth_failures_suppressed_total"));
}

}  // namespace
}  // namespace service
