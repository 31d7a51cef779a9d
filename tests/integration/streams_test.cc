// How streams are served, over real gRPC on loopback against the rules, clock and arbitration
// services (libs/service/async_stream.h, stream_gate.h, watch_hub.h): no stream holds one of the
// server's threads (idle health watchers without a token, or a few tokens' WatchGame streams, once
// took every thread of the port, and every other call was refused RESOURCE_EXHAUSTED); the caps on
// open streams in all and without a token; the probes of the health port answering whatever the
// load; hundreds and then ten thousand watchers of one game on one replica on one store watch,
// each seeing every move in order; and a hostile load of a thousand streams with and a thousand
// without a token while a player's moves and the probes keep their deadlines.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/support/async_stream.h"
#include "gtest/gtest.h"
#include "proto/arbiter/v1/arbitration.grpc.pb.h"
#include "proto/arbiter/v1/clock.grpc.pb.h"
#include "proto/arbiter/v1/rules.grpc.pb.h"
#include "proto/grpc/health/v1/health.grpc.pb.h"
#include "tests/integration/testing/calls.h"
#include "tests/integration/testing/test_server.h"
#include "tests/integration/testing/tokens.h"

namespace integration {
namespace {

namespace v1 = arbiter::v1;
using grpc::health::v1::Health;
using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;
using service::Role;
using AS = v1::Arbitration::Stub;

// Many server streams held open from one client thread (the async API): each reads until its
// stream ends and keeps what it read and how it ended.
template <typename Response>
class HeldStreams {
 public:
  using Open = std::function<std::unique_ptr<grpc::ClientAsyncReader<Response>>(
      grpc::ClientContext*, grpc::CompletionQueue*)>;

  HeldStreams() : poller_([this] { Poll(); }) {}
  ~HeldStreams() {
    {
      absl::MutexLock lock(&mu_);
      for (const std::unique_ptr<Stream>& s : streams_) s->ctx->TryCancel();
      mu_.Await(absl::Condition(
          +[](HeldStreams* h) ABSL_EXCLUSIVE_LOCKS_REQUIRED(h->mu_) {
            return h->ended_ == static_cast<int>(h->streams_.size());
          },
          this));
    }
    cq_.Shutdown();
    poller_.join();
  }

  // Opens one stream with `token` ("" = none).
  void Add(const std::string& token, const Open& open) {
    auto stream = std::make_unique<Stream>();
    stream->owner = this;
    stream->ctx = std::make_unique<Call>(token, absl::Minutes(10));
    Stream* s = stream.get();
    {
      absl::MutexLock lock(&mu_);
      streams_.push_back(std::move(stream));
    }
    s->reader = open(s->ctx.get(), &cq_);
    s->reader->StartCall(&s->started);
  }

  int size() {
    absl::MutexLock lock(&mu_);
    return static_cast<int>(streams_.size());
  }
  // Streams that received at least `n` messages.
  int WithAtLeast(size_t n) {
    absl::MutexLock lock(&mu_);
    return static_cast<int>(
        std::count_if(streams_.begin(), streams_.end(),
                      [n](const std::unique_ptr<Stream>& s) { return s->received.size() >= n; }));
  }
  int ended() {
    absl::MutexLock lock(&mu_);
    return ended_;
  }
  // Waits up to `timeout` for `done` (called under the lock) to hold.
  bool WaitFor(const std::function<bool()>& done, absl::Duration timeout) {
    const absl::Time until = absl::Now() + timeout;
    while (absl::Now() < until) {
      if (done()) return true;
      absl::SleepFor(absl::Milliseconds(20));
    }
    return done();
  }
  // Every stream's messages, and the statuses of those that ended.
  std::vector<std::vector<Response>> Received() {
    absl::MutexLock lock(&mu_);
    std::vector<std::vector<Response>> out;
    for (const std::unique_ptr<Stream>& s : streams_) out.push_back(s->received);
    return out;
  }
  std::vector<grpc::Status> EndStatuses() {
    absl::MutexLock lock(&mu_);
    std::vector<grpc::Status> out;
    for (const std::unique_ptr<Stream>& s : streams_) {
      if (s->ended) out.push_back(s->status);
    }
    return out;
  }

 private:
  struct Stream;
  struct Tag {
    Stream* stream;
    int kind;  // 0 started or read, 1 finished
  };
  struct Stream {
    HeldStreams* owner = nullptr;
    std::unique_ptr<Call> ctx;
    std::unique_ptr<grpc::ClientAsyncReader<Response>> reader;
    Response incoming;
    std::vector<Response> received;
    grpc::Status status;
    bool reading = false;
    bool ended = false;
    Tag started{this, 0};
    Tag finished{this, 1};
  };

  void Poll() {
    void* tag = nullptr;
    bool ok = false;
    while (cq_.Next(&tag, &ok)) {
      Tag* t = static_cast<Tag*>(tag);
      Stream* s = t->stream;
      absl::MutexLock lock(&mu_);
      if (t->kind == 1) {
        s->ended = true;
        ++ended_;
        continue;
      }
      if (ok && s->reading) s->received.push_back(s->incoming);
      if (ok) {
        s->reading = true;
        s->reader->Read(&s->incoming, &s->started);
      } else {
        s->reader->Finish(&s->status, &s->finished);
      }
    }
  }

  grpc::CompletionQueue cq_;
  absl::Mutex mu_;
  std::vector<std::unique_ptr<Stream>> streams_ ABSL_GUARDED_BY(mu_);
  int ended_ ABSL_GUARDED_BY(mu_) = 0;
  std::thread poller_;
};

// A channel of its own (its own connection), so that streams spread over several.
std::shared_ptr<grpc::Channel> Channel(int port, int id) {
  grpc::ChannelArguments args;
  args.SetInt("arbiter.test_channel", id);
  return grpc::CreateCustomChannel(absl::StrCat("127.0.0.1:", port),
                                   grpc::InsecureChannelCredentials(), args);
}

HealthCheckResponse::ServingStatus Check(Health::Stub* stub, const std::string& service,
                                         absl::Duration timeout, grpc::Status* status = nullptr) {
  Call call("", timeout);
  HealthCheckRequest req;
  req.set_service(service);
  HealthCheckResponse resp;
  grpc::Status st = stub->Check(&call, req, &resp);
  if (status != nullptr) *status = st;
  return st.ok() ? resp.status() : HealthCheckResponse::UNKNOWN;
}

void WatchHealth(HeldStreams<HealthCheckResponse>* held, Health::Stub* stub) {
  held->Add("", [stub](grpc::ClientContext* ctx, grpc::CompletionQueue* cq) {
    return stub->PrepareAsyncWatch(ctx, HealthCheckRequest(), cq);
  });
}

void WatchGame(HeldStreams<v1::GameUpdate>* held, AS* stub, const std::string& token,
               const std::string& game) {
  held->Add(token, [stub, game](grpc::ClientContext* ctx, grpc::CompletionQueue* cq) {
    return stub->PrepareAsyncWatchGame(ctx, ForGame<v1::WatchGameRequest>(game), cq);
  });
}

// A started game between alice and bob.
void Ready(AS* stub, const std::string& game) {
  ASSERT_TRUE(
      Succeeded(Unary(stub, &AS::CreateGame, AliceBobGame(game, "5400"), Token(Role::kPlatform))));
  ASSERT_TRUE(Succeeded(
      Unary(stub, &AS::StartGame, ForGame<v1::StartGameRequest>(game), Token(Role::kArbiter))));
}

grpc::Status Move(AS* stub, const std::string& game, v1::Color side, const std::string& move,
                  absl::Duration timeout = kCallTimeout) {
  auto req = ForGame<v1::SubmitMoveRequest>(game);
  req.set_side(side);
  req.set_move(move);
  const chess::Color color = side == v1::COLOR_WHITE ? chess::Color::kWhite : chess::Color::kBlack;
  return Unary(stub, &AS::SubmitMove, req, Token(Role::kPlayer, game, color), nullptr, timeout);
}

const std::vector<std::string> kOpening = {"e4", "e5", "Nf3", "Nc6", "Bb5", "a6"};

// Plays kOpening, each move within `deadline`.
void PlayOpening(AS* stub, const std::string& game, absl::Duration deadline) {
  v1::Color side = v1::COLOR_WHITE;
  for (const std::string& m : kOpening) {
    const absl::Time start = absl::Now();
    ASSERT_TRUE(Succeeded(Move(stub, game, side, m, deadline))) << m;
    EXPECT_LT(absl::Now() - start, deadline) << m;
    side = side == v1::COLOR_WHITE ? v1::COLOR_BLACK : v1::COLOR_WHITE;
  }
}

// Every watcher saw versions 1..last, each once, in order (created, started, then the moves).
void ExpectEveryUpdateInOrder(const std::vector<std::vector<v1::GameUpdate>>& seen,
                              std::int64_t last) {
  int wrong = 0;
  for (const std::vector<v1::GameUpdate>& updates : seen) {
    bool in_order = static_cast<std::int64_t>(updates.size()) == last;
    for (size_t i = 0; in_order && i < updates.size(); ++i) {
      in_order = updates[i].version() == static_cast<std::int64_t>(i) + 1;
    }
    if (!in_order && ++wrong <= 3) {
      ADD_FAILURE() << "a watcher saw " << updates.size() << " updates, not versions 1.." << last;
    }
  }
  EXPECT_EQ(wrong, 0);
}

TestServerOptions ArbitrationAndRules(Store store = Store::kMemory) {
  TestServerOptions options({Service::kArbitration, Service::kRules, Service::kClock}, store);
  options.config.metrics_address = "127.0.0.1:0";
  return options;
}

// Streams hold no thread: with the synchronous server capped at 16 threads, 200 health watchers
// without a token and 100 WatchGame and 50 WatchClock streams stay open while unary calls of
// every service, and a new watcher, are still served. Before, the 17th stream took the last
// thread and everything else was refused "Server Threadpool Exhausted".
TEST(StreamsTest, OpenStreamsHoldNoThread) {
  TestServerOptions options = ArbitrationAndRules();
  options.config.grpc_max_threads = 16;
  std::unique_ptr<TestServer> s = TestServer::StartOrDie(options);
  auto arbitration = s->Stub<v1::Arbitration>();
  auto health = s->Stub<Health>();
  auto clock = s->Stub<v1::ClockAuthority>();
  const std::string game = GameId("threads");
  Ready(arbitration.get(), game);
  v1::CreateClockRequest create = ForGame<v1::CreateClockRequest>(game);
  create.set_time_control("5400");
  create.set_edition(v1::EDITION_FIDE_2023);
  ASSERT_TRUE(Succeeded(
      Unary(clock.get(), &v1::ClockAuthority::Stub::CreateClock, create, Token(Role::kPlatform))));

  HeldStreams<HealthCheckResponse> health_watchers;
  for (int i = 0; i < 200; ++i) WatchHealth(&health_watchers, health.get());
  HeldStreams<v1::GameUpdate> game_watchers;
  for (int i = 0; i < 100; ++i) {
    WatchGame(&game_watchers, arbitration.get(), Token(Role::kObserver), game);
  }
  HeldStreams<v1::ClockUpdate> clock_watchers;
  for (int i = 0; i < 50; ++i) {
    clock_watchers.Add(
        Token(Role::kObserver), [&](grpc::ClientContext* ctx, grpc::CompletionQueue* cq) {
          return clock->PrepareAsyncWatchClock(ctx, ForGame<v1::WatchClockRequest>(game), cq);
        });
  }
  ASSERT_TRUE(health_watchers.WaitFor([&] { return health_watchers.WithAtLeast(1) == 200; },
                                      absl::Seconds(20)));
  ASSERT_TRUE(game_watchers.WaitFor([&] { return game_watchers.WithAtLeast(2) == 100; },
                                    absl::Seconds(20)));
  ASSERT_TRUE(clock_watchers.WaitFor([&] { return clock_watchers.WithAtLeast(1) == 50; },
                                     absl::Seconds(20)));

  // Unary calls of each service still answer, the synchronous ones (GetGame) included.
  EXPECT_TRUE(Succeeded(Unary(arbitration.get(), &AS::GetGame, ForGame<v1::GetGameRequest>(game),
                              Token(Role::kArbiter))));
  EXPECT_TRUE(Succeeded(Move(arbitration.get(), game, v1::COLOR_WHITE, "e4")));
  EXPECT_TRUE(
      Succeeded(Unary(s->Stub<v1::RulesValidation>().get(), &v1::RulesValidation::Stub::GetStatus,
                      OnPosition<v1::GetStatusRequest>("startpos"), Token(Role::kArbiter))));
  EXPECT_EQ(Check(health.get(), "", absl::Seconds(1)), HealthCheckResponse::SERVING);
  // The watchers saw the move.
  EXPECT_TRUE(game_watchers.WaitFor([&] { return game_watchers.WithAtLeast(3) == 100; },
                                    absl::Seconds(10)));
  EXPECT_EQ(health_watchers.ended() + game_watchers.ended() + clock_watchers.ended(), 0);
  EXPECT_TRUE(
      s->MetricsReach("arbiter_grpc_open_streams{authenticated=\"false\",grpc_method=\"Watch\","
                      "grpc_service=\"grpc.health.v1.Health\"} 200"));
  EXPECT_TRUE(
      s->MetricsReach("arbiter_grpc_open_streams{authenticated=\"true\",grpc_method=\"WatchGame\","
                      "grpc_service=\"arbiter.v1.Arbitration\"} 100"));
}

// The health port (8 threads) answers its probes with a hundred watchers on it; before, the
// eighth watcher took its last thread and the kubelet's probes failed.
TEST(StreamsTest, HealthPortAnswersItsProbesUnderWatchers) {
  TestServerOptions options({Service::kRules});
  options.config.metrics_address = "none";
  options.config.health_address = "127.0.0.1:0";
  std::unique_ptr<TestServer> s = TestServer::StartOrDie(options);
  auto stub = Health::NewStub(Channel(s->server()->health_port(), 1));
  HeldStreams<HealthCheckResponse> watchers;
  for (int i = 0; i < 100; ++i) WatchHealth(&watchers, stub.get());
  ASSERT_TRUE(watchers.WaitFor([&] { return watchers.WithAtLeast(1) == 100; }, absl::Seconds(20)));
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(Check(stub.get(), "", absl::Seconds(1)), HealthCheckResponse::SERVING);
    EXPECT_EQ(Check(stub.get(), "arbiter.v1.RulesValidation", absl::Seconds(1)),
              HealthCheckResponse::SERVING);
  }
  // A status change reaches every watcher.
  s->server()->health()->SetServing("", false);
  EXPECT_TRUE(watchers.WaitFor([&] { return watchers.WithAtLeast(2) == 100; }, absl::Seconds(10)));
  s->server()->health()->SetServing("", true);
}

// The caps: streams opened without a token (--max_unauthenticated_streams) and streams in all
// (--max_streams) are refused beyond theirs with RESOURCE_EXHAUSTED ERR_TOO_MANY_STREAMS, and a
// closed stream gives its place back.
TEST(StreamsTest, CapsOnOpenStreams) {
  TestServerOptions options = ArbitrationAndRules();
  options.config.max_unauthenticated_streams = 10;
  options.config.max_streams = 30;
  std::unique_ptr<TestServer> s = TestServer::StartOrDie(options);
  auto arbitration = s->Stub<v1::Arbitration>();
  auto health = s->Stub<Health>();
  const std::string game = GameId("caps");
  Ready(arbitration.get(), game);

  {
    HeldStreams<HealthCheckResponse> watchers;
    for (int i = 0; i < 12; ++i) WatchHealth(&watchers, health.get());
    ASSERT_TRUE(watchers.WaitFor([&] { return watchers.WithAtLeast(1) + watchers.ended() == 12; },
                                 absl::Seconds(10)));
    EXPECT_EQ(watchers.WithAtLeast(1), 10);
    std::vector<grpc::Status> refused = watchers.EndStatuses();
    ASSERT_EQ(refused.size(), 2u);
    for (const grpc::Status& st : refused) {
      EXPECT_EQ(st.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
      EXPECT_EQ(Code(st), "ERR_TOO_MANY_STREAMS");
    }
    // Authenticated streams are not held back by the unauthenticated cap: 20 more fit in 30.
    HeldStreams<v1::GameUpdate> game_watchers;
    for (int i = 0; i < 21; ++i) {
      WatchGame(&game_watchers, arbitration.get(), Token(Role::kObserver), game);
    }
    ASSERT_TRUE(game_watchers.WaitFor(
        [&] { return game_watchers.WithAtLeast(1) + game_watchers.ended() == 21; },
        absl::Seconds(10)));
    EXPECT_EQ(game_watchers.WithAtLeast(1), 20);
    refused = game_watchers.EndStatuses();
    ASSERT_EQ(refused.size(), 1u);
    EXPECT_EQ(Code(refused[0]), "ERR_TOO_MANY_STREAMS");
    EXPECT_TRUE(s->MetricsReach(
        "arbiter_grpc_stream_refusals_total{grpc_method=\"Watch\",grpc_service=\"grpc.health.v1."
        "Health\",reason=\"unauthenticated\"} 2"));
    EXPECT_TRUE(s->MetricsReach(
        "arbiter_grpc_stream_refusals_total{grpc_method=\"WatchGame\",grpc_service=\"arbiter.v1."
        "Arbitration\",reason=\"server\"} 1"));
  }
  // Every stream closed: the places are free again.
  HeldStreams<HealthCheckResponse> again;
  bool all = false;
  for (int attempt = 0; attempt < 50 && !all; ++attempt) {
    if (s->env()->streams().open() == 0) all = true;
    absl::SleepFor(absl::Milliseconds(50));
  }
  EXPECT_TRUE(all);
  for (int i = 0; i < 10; ++i) WatchHealth(&again, health.get());
  EXPECT_TRUE(again.WaitFor([&] { return again.WithAtLeast(1) == 10; }, absl::Seconds(10)));
}

// Watchers of one game on one replica (on Redis), each opened and woken by every move, and each
// sees every move in order.
struct Broadcast {
  const char* name;
  int watchers;
  int channels;             // the clients' connections they share
  absl::Duration patience;  // for all to open, then for all to see the last move
};

class BroadcastTest : public ::testing::TestWithParam<Broadcast> {};

TEST_P(BroadcastTest, EveryWatcherSeesEveryMoveInOrder) {
  const Broadcast& b = GetParam();
  TestServerOptions options = ArbitrationAndRules(Store::kRedis);
  options.config.max_streams_per_caller = 0;
  std::unique_ptr<TestServer> s = TestServer::StartOrDie(options);
  auto arbitration = s->Stub<v1::Arbitration>();
  const std::string game = GameId(b.name);
  Ready(arbitration.get(), game);
  std::vector<std::unique_ptr<AS>> stubs;
  for (int c = 0; c < b.channels; ++c) {
    stubs.push_back(v1::Arbitration::NewStub(Channel(s->port(), c)));
  }
  HeldStreams<v1::GameUpdate> watchers;
  const std::string token = Token(Role::kObserver);
  for (int i = 0; i < b.watchers; ++i) {
    WatchGame(&watchers, stubs[i % stubs.size()].get(), token, game);
  }
  ASSERT_TRUE(watchers.WaitFor([&] { return watchers.WithAtLeast(2) == b.watchers; }, b.patience))
      << watchers.WithAtLeast(2) << " watchers opened, " << watchers.ended() << " ended";
  PlayOpening(arbitration.get(), game, absl::Seconds(2));
  const std::int64_t last = 2 + static_cast<std::int64_t>(kOpening.size());
  EXPECT_TRUE(
      watchers.WaitFor([&] { return watchers.WithAtLeast(last) == b.watchers; }, b.patience))
      << watchers.WithAtLeast(last) << " of " << b.watchers << " saw every move";
  EXPECT_EQ(watchers.ended(), 0);
  ExpectEveryUpdateInOrder(watchers.Received(), last);
}

INSTANTIATE_TEST_SUITE_P(Watchers, BroadcastTest,
                         ::testing::Values(
                             // More watchers than the store has pooled connections (64), none
                             // taking one of its own. Before, the 65th failed ERR_STORE_UNAVAILABLE
                             // ("all 64 pooled connections stayed busy").
                             Broadcast{"HundredsOnePool", 300, 4, absl::Seconds(30)},
                             // A broadcast: ten thousand watchers.
                             Broadcast{"TenThousand", 10'000, 8, absl::Seconds(60)}),
                         [](const ::testing::TestParamInfo<Broadcast>& info) {
                           return std::string(info.param.name);
                         });

// Hostile load: 1,000 streams without a token (health watchers on both ports) and 1,000 with four
// tokens (250 WatchGame each) held open, while a legitimate player's moves answer within 2 s
// and the kubelet's probes within their 1 s timeout, on the production caps.
TEST(StreamsTest, HostileStreamsDoNotStallMovesOrProbes) {
  TestServerOptions options = ArbitrationAndRules(Store::kRedis);
  options.config.health_address = "127.0.0.1:0";
  std::unique_ptr<TestServer> s = TestServer::StartOrDie(options);
  auto arbitration = s->Stub<v1::Arbitration>();
  const std::string target = GameId("target");
  const std::string legit = GameId("legit");
  Ready(arbitration.get(), target);
  Ready(arbitration.get(), legit);

  std::vector<std::unique_ptr<Health::Stub>> health_stubs;
  for (int c = 0; c < 4; ++c) health_stubs.push_back(Health::NewStub(Channel(s->port(), 100 + c)));
  auto probe = Health::NewStub(Channel(s->server()->health_port(), 200));
  auto probe_flood = Health::NewStub(Channel(s->server()->health_port(), 201));
  HeldStreams<HealthCheckResponse> anonymous;
  for (int i = 0; i < 900; ++i) WatchHealth(&anonymous, health_stubs[i % 4].get());
  for (int i = 0; i < 100; ++i) WatchHealth(&anonymous, probe_flood.get());

  std::vector<std::unique_ptr<AS>> stubs;
  for (int c = 0; c < 4; ++c) stubs.push_back(v1::Arbitration::NewStub(Channel(s->port(), c)));
  HeldStreams<v1::GameUpdate> watchers;
  for (int t = 0; t < 4; ++t) {
    // Four tokens of four subjects, 250 streams each (under --max_streams_per_caller's 256).
    service::TokenClaims claims = Claims(Role::kObserver);
    claims.subject = absl::StrCat("hostile-", t);
    const std::string token = Sign(claims);
    for (int i = 0; i < 250; ++i) WatchGame(&watchers, stubs[t].get(), token, target);
  }
  ASSERT_TRUE(
      anonymous.WaitFor([&] { return anonymous.WithAtLeast(1) == 1000; }, absl::Seconds(30)))
      << anonymous.WithAtLeast(1) << " held, " << anonymous.ended() << " ended";
  ASSERT_TRUE(watchers.WaitFor([&] { return watchers.WithAtLeast(2) == 1000; }, absl::Seconds(30)))
      << watchers.WithAtLeast(2) << " held, " << watchers.ended() << " ended";
  // One more without a token is refused at once: the cap holds them.
  HeldStreams<HealthCheckResponse> one_more;
  WatchHealth(&one_more, probe_flood.get());
  EXPECT_TRUE(one_more.WaitFor([&] { return one_more.ended() == 1; }, absl::Seconds(5)));
  ASSERT_EQ(one_more.EndStatuses().size(), 1u);
  EXPECT_EQ(Code(one_more.EndStatuses()[0]), "ERR_TOO_MANY_STREAMS");

  // The legitimate player plays, the probes probe, all within their deadlines.
  std::atomic<bool> playing{true};
  std::atomic<int> probes{0}, failed_probes{0};
  std::thread prober([&] {
    while (playing.load()) {
      for (const char* name : {"", "arbiter.v1.Arbitration"}) {
        grpc::Status st;
        const absl::Time start = absl::Now();
        HealthCheckResponse::ServingStatus status = Check(probe.get(), name, absl::Seconds(1), &st);
        ++probes;
        if (status != HealthCheckResponse::SERVING || absl::Now() - start > absl::Seconds(1)) {
          ++failed_probes;
        }
      }
      absl::SleepFor(absl::Milliseconds(100));
    }
  });
  PlayOpening(arbitration.get(), legit, absl::Seconds(2));
  const absl::Time start = absl::Now();
  EXPECT_TRUE(Succeeded(Unary(arbitration.get(), &AS::GetGame, ForGame<v1::GetGameRequest>(legit),
                              Token(Role::kArbiter), nullptr, absl::Seconds(2))));
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
  // A move in the hostile watchers' game reaches all thousand of them.
  ASSERT_TRUE(Succeeded(Move(arbitration.get(), target, v1::COLOR_WHITE, "d4", absl::Seconds(2))));
  EXPECT_TRUE(watchers.WaitFor([&] { return watchers.WithAtLeast(3) == 1000; }, absl::Seconds(20)));
  playing = false;
  prober.join();
  EXPECT_GT(probes.load(), 0);
  EXPECT_EQ(failed_probes.load(), 0);
  // The main port's probe too.
  EXPECT_EQ(Check(health_stubs[0].get(), "", absl::Seconds(1)), HealthCheckResponse::SERVING);
}

}  // namespace
}  // namespace integration
