#include "libs/service/access_log.h"

#include <unistd.h>

#include <cstdio>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "google/protobuf/descriptor.h"
#include "libs/base/error.h"
#include "libs/service/grpc_status.h"
#include "libs/service/log.h"
#include "nlohmann/json.hpp"
#include "prometheus/counter.h"
#include "prometheus/registry.h"

namespace service {
namespace {

// Literal, not derived from the policy table (whose rows say who, not what a call does);
// access_log_test.cc checks that every method of the arbiter.v1 services is classified.
const absl::flat_hash_set<absl::string_view>& MutatingMethods() {
  static const auto* const kMethods = new absl::flat_hash_set<absl::string_view>{
      "/arbiter.v1.Arbitration/CreateGame",
      "/arbiter.v1.Arbitration/StartGame",
      "/arbiter.v1.Arbitration/ArchiveGame",
      "/arbiter.v1.Arbitration/Arrive",
      "/arbiter.v1.Arbitration/SubmitMove",
      "/arbiter.v1.Arbitration/SubmitMoves",
      "/arbiter.v1.Arbitration/Resign",
      "/arbiter.v1.Arbitration/OfferDraw",
      "/arbiter.v1.Arbitration/RespondDraw",
      "/arbiter.v1.Arbitration/Claim",
      "/arbiter.v1.Arbitration/Rule",
      "/arbiter.v1.Arbitration/ConfirmResult",
      "/arbiter.v1.Arbitration/SetResult",
      "/arbiter.v1.Arbitration/PauseGame",
      "/arbiter.v1.Arbitration/ResumeGame",
      "/arbiter.v1.Arbitration/AdjustTime",
      "/arbiter.v1.Arbitration/SetClocks",
      "/arbiter.v1.Arbitration/ReportIllegalMove",
      "/arbiter.v1.Arbitration/CompleteIllegalMove",
      "/arbiter.v1.Arbitration/RuleIrregularity",
      "/arbiter.v1.Arbitration/StopClocks",
      "/arbiter.v1.Arbitration/RuleStop",
      "/arbiter.v1.Arbitration/UsePower",
      "/arbiter.v1.Arbitration/SubmitBoardFeed",
      "/arbiter.v1.Arbitration/SealMove",
      "/arbiter.v1.Arbitration/AdjournGame",
      "/arbiter.v1.Arbitration/ResumeAdjournedGame",
      "/arbiter.v1.Arbitration/ReportEnvelopeLost",
      "/arbiter.v1.Arbitration/PauseEvent",
      "/arbiter.v1.Arbitration/ResumeEvent",
      "/arbiter.v1.Arbitration/CreateEvent",
      "/arbiter.v1.Arbitration/CreateRound",
      "/arbiter.v1.ClockAuthority/CreateClock",
      "/arbiter.v1.ClockAuthority/StartClock",
      "/arbiter.v1.ClockAuthority/PressClock",
      "/arbiter.v1.ClockAuthority/RecordArrival",
      "/arbiter.v1.ClockAuthority/ClaimFlag",
      "/arbiter.v1.ClockAuthority/PauseClock",
      "/arbiter.v1.ClockAuthority/ResumeClock",
      "/arbiter.v1.ClockAuthority/AdjustClock",
      "/arbiter.v1.ClockAuthority/SetClock",
      "/arbiter.v1.ClockAuthority/ReplaceClock",
  };
  return *kMethods;
}

constexpr size_t kMaxRequestIdBytes = 128;

// A caller's id is kept when it is short printable ASCII (it is echoed and logged).
bool UsableRequestId(absl::string_view id) {
  if (id.empty() || id.size() > kMaxRequestIdBytes) return false;
  for (char c : id) {
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

void WriteToStderr(const std::string& lines) {
  std::fwrite(lines.data(), 1, lines.size(), stderr);
  std::fflush(stderr);
}

}  // namespace

bool IsMutating(absl::string_view full_method) { return MutatingMethods().contains(full_method); }

bool LogRateLimiter::Allow(absl::Time now, std::int64_t* suppressed) {
  const std::int64_t second = absl::ToUnixSeconds(now);
  absl::MutexLock lock(&mu_);
  if (second != window_) {
    window_ = second;
    used_ = 0;
  }
  if (used_ >= per_second_) {
    ++suppressed_;
    return false;
  }
  ++used_;
  *suppressed = suppressed_;
  suppressed_ = 0;
  return true;
}

namespace {

// `s` quoted as a JSON string; false (nothing appended) when it has a byte beyond ASCII, which
// the general formatter then handles (UTF-8 checked, invalid bytes replaced).
bool AppendAsciiJson(std::string* out, absl::string_view s) {
  for (unsigned char c : s) {
    if (c >= 0x80) return false;
  }
  out->push_back('"');
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
    } else if (c < 0x20 || c == 0x7f) {
      absl::StrAppend(out, "\\u00", absl::Hex(c, absl::kZeroPad2));
    } else {
      out->push_back(static_cast<char>(c));
    }
  }
  out->push_back('"');
  return true;
}

// "2026-12-01T20:26:19.604843957+00:00", as Log writes its "ts" (RFC 3339, UTC).
std::string Timestamp(absl::Time t) {
  return absl::FormatTime(absl::RFC3339_full, t, absl::UTCTimeZone());
}

}  // namespace

std::string FormatCallLine(const CallRecord& r) {
  // By hand: the log's thread formats one line per mutating call (16k a second at the move
  // benchmark's rate), and the general JSON library took several times longer.
  std::string line;
  line.reserve(256);
  absl::StrAppend(&line, "{\"ts\":\"", Timestamp(r.time),
                  "\",\"level\":\"info\",\"msg\":\"call\",\"request_id\":");
  bool ascii = AppendAsciiJson(&line, r.request_id);
  const std::pair<const char*, const std::string*> fields[] = {{",\"subject\":", &r.subject},
                                                               {",\"role\":", &r.role},
                                                               {",\"method\":", &r.method},
                                                               {",\"game_id\":", &r.game_id}};
  for (const auto& [key, value] : fields) {
    if (!ascii) break;
    line += key;
    ascii = AppendAsciiJson(&line, *value);
  }
  const bool timed = r.begun != absl::InfinitePast();
  // Microseconds are enough, and a fixed format keeps the line cheap.
  const std::string ms =
      timed ? absl::StrFormat("%.3f", absl::ToDoubleMilliseconds(r.time - r.begun)) : "";
  if (ascii) {
    absl::StrAppend(&line, ",\"code\":\"", GrpcCodeName(r.code), "\"");
    if (timed) absl::StrAppend(&line, ",\"ms\":", ms);
    line += "}\n";
    return line;
  }
  nlohmann::ordered_json j = {
      {"ts", Timestamp(r.time)},    {"level", "info"},      {"msg", "call"},
      {"request_id", r.request_id}, {"subject", r.subject}, {"role", r.role},
      {"method", r.method},         {"game_id", r.game_id}, {"code", GrpcCodeName(r.code)}};
  if (timed) j["ms"] = absl::ToDoubleMilliseconds(r.time - r.begun);
  // Replace, not throw, on invalid UTF-8 (a game id is the caller's text).
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

AsyncLineWriter::AsyncLineWriter(size_t capacity, Sink sink, absl::Duration period)
    : capacity_(capacity), sink_(sink != nullptr ? std::move(sink) : Sink(&WriteToStderr)) {
  // The writer polls: a caller never wakes it (a wake-up is a system call on the caller's
  // thread), and a line waits at most one period.
  thread_ = std::thread([this, period] {
    while (!stop_.WaitForNotificationWithTimeout(period)) Flush();
  });
}

AsyncLineWriter::~AsyncLineWriter() {
  stop_.Notify();
  thread_.join();
  Flush();
}

bool AsyncLineWriter::Push(CallRecord record) {
  absl::MutexLock lock(&mu_);
  if (queue_.size() >= capacity_) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  queue_.push_back(std::move(record));
  return true;
}

void AsyncLineWriter::Flush() {
  absl::MutexLock write_lock(&write_mu_);
  std::vector<CallRecord> batch;
  {
    absl::MutexLock lock(&mu_);
    batch.swap(queue_);
  }
  if (!batch.empty()) {
    std::string text;
    for (const CallRecord& r : batch) text += FormatCallLine(r);
    sink_(text);
  }
  const std::uint64_t dropped = dropped_.load(std::memory_order_relaxed);
  if (dropped != dropped_reported_ && on_dropped_ != nullptr)
    on_dropped_(dropped - dropped_reported_);
  dropped_reported_ = dropped;
}

AccessLog::AccessLog(prometheus::Registry* registry, AsyncLineWriter::Sink sink)
    : writer_(8192, std::move(sink)),
      id_prefix_(static_cast<std::uint32_t>(absl::GetCurrentTimeNanos() ^
                                            (static_cast<std::uint64_t>(getpid()) << 20))) {
  if (registry != nullptr) {
    dropped_ = &prometheus::BuildCounter()
                    .Name("arbiter_log_lines_dropped_total")
                    .Help("Call log lines dropped because the log's queue was full")
                    .Register(*registry)
                    .Add({});
    suppressed_ = &prometheus::BuildCounter()
                       .Name("arbiter_log_auth_failures_suppressed_total")
                       .Help("Failed-authentication warnings not written (rate limit)")
                       .Register(*registry)
                       .Add({});
    prometheus::Counter* counter = dropped_;
    writer_.OnDropped([counter](std::uint64_t n) { counter->Increment(static_cast<double>(n)); });
  }
}

std::string AccessLog::NewRequestId() {
  return absl::StrCat(absl::Hex(id_prefix_, absl::kZeroPad8), "-",
                      next_id_.fetch_add(1, std::memory_order_relaxed));
}

std::shared_ptr<CallRecord> AccessLog::Begin(grpc::ServerContextBase* ctx,
                                             absl::string_view full_method,
                                             const google::protobuf::Message& request,
                                             bool reply_header) {
  if (!IsMutating(full_method)) return nullptr;
  auto record = std::make_shared<CallRecord>();
  record->begun = absl::Now();
  record->method = std::string(full_method);
  if (ctx != nullptr) {
    const auto& md = ctx->client_metadata();
    auto it = md.find("x-request-id");
    if (it != md.end() &&
        UsableRequestId(absl::string_view(it->second.data(), it->second.size()))) {
      record->request_id.assign(it->second.data(), it->second.size());
    }
  }
  if (record->request_id.empty()) record->request_id = NewRequestId();
  if (ctx != nullptr && reply_header) ctx->AddInitialMetadata("x-request-id", record->request_id);
  const google::protobuf::FieldDescriptor* game =
      request.GetDescriptor()->FindFieldByName("game_id");
  if (game != nullptr && game->type() == google::protobuf::FieldDescriptor::TYPE_STRING &&
      !game->is_repeated()) {
    record->game_id = request.GetReflection()->GetString(request, game);
  }
  return record;
}

void AccessLog::End(std::shared_ptr<CallRecord> record, int code) {
  if (record == nullptr || !LogEnabled(LogLevel::kInfo)) return;
  record->time = absl::Now();
  record->code = code;
  writer_.Push(std::move(*record));
}

void AccessLog::AuthFailure(const grpc::ServerContextBase& ctx, absl::string_view full_method,
                            const absl::Status& status) {
  std::int64_t suppressed = 0;
  if (!auth_limiter_.Allow(absl::Now(), &suppressed)) {
    if (suppressed_ != nullptr) suppressed_->Increment();
    return;
  }
  Log(LogLevel::kWarning, "authentication failed",
      {{"method", std::string(full_method)},
       {"peer", ctx.peer()},
       {"code", base::ErrorCode(status)},
       {"error", BoundedStatusMessage(status.message())},
       {"suppressed_before", absl::StrCat(suppressed)}});
}

}  // namespace service
