// The clock-authority service (proto/arbiter/v1/clock.proto): a thin gRPC face of
// libs/clock_authority. Each handler enters through ServiceEnv::Serve (authentication, the policy
// table, deadlines, status conversion) and translates between protos and the domain.
//
// How calls are served (libs/service/async_unary.h): the clock commands arrive on a completion
// queue, are decided there on the cached state and answered from the Redis client's lane that
// reads the append's reply (ClockAuthority::ExecuteAsync); create, get and the rare retried or
// refused command run on this service's worker pool. WatchClock's streams are served from the
// queues too (libs/service/async_stream.h: no thread per stream), opened on the worker pool and
// fed by a WatchHub: one blocked store watch per deadline shard, not per game or watcher.
//
// Who may call what (the rows this service adds to the policy table):
//   CreateClock, StartClock, RecordArrival      platform, arbiter, service
//   PressClock, ClaimFlag                       platform, arbiter, service, player (game-bound:
//                                               his own game and colour)
//   GetClock, WatchClock                        every role
//   Pause/Resume/Adjust/Set/ReplaceClock        arbiter, service (6.13, 6.14, 6.11, 7.4b, ...)
// A player may not create or start a clock: that would let him pick his own game's time control
// or start it at will (6.5: the arbiter starts the clocks).
#ifndef ARBITER_SERVICES_CLOCK_AUTHORITY_CLOCK_SERVICE_H_
#define ARBITER_SERVICES_CLOCK_AUTHORITY_CLOCK_SERVICE_H_

#include <memory>
#include <vector>

#include "libs/base/worker_pool.h"
#include "libs/clock_authority/authority.h"
#include "libs/service/async_stream.h"
#include "libs/service/async_unary.h"
#include "libs/service/server.h"
#include "libs/service/watch_hub.h"
#include "proto/arbiter/v1/clock.grpc.pb.h"

namespace clock_authority_service {

struct ServiceOptions {
  int workers = 32;                // concurrent calls in the store
  int max_watched_games = 4096;    // games this replica streams at once (<= 10,000)
  int max_watch_backlog = 10'000;  // updates queued for one slow watcher before it is cut off
};

// The unary methods are served from a completion queue (libs/service/async_unary.h): the
// commands without any thread waiting for the store (ClockAuthority::ExecuteAsync), create and
// get on a worker pool (they block on the store), and WatchClock's streams (async_stream.h). Not
// the callback API: a server with any callback method polls from extra threads
// that take the completion-queue events of the rules service hosted beside it
// (libs/service/health.h). gRPC takes a method as async only when marked so on a base still
// synchronous.
using ClockGrpc = arbiter::v1::ClockAuthority;
using ClockAuthorityBase = ClockGrpc::WithAsyncMethod_CreateClock<
    ClockGrpc::WithAsyncMethod_StartClock<ClockGrpc::WithAsyncMethod_PressClock<
        ClockGrpc::WithAsyncMethod_RecordArrival<ClockGrpc::WithAsyncMethod_ClaimFlag<
            ClockGrpc::WithAsyncMethod_PauseClock<ClockGrpc::WithAsyncMethod_ResumeClock<
                ClockGrpc::WithAsyncMethod_AdjustClock<ClockGrpc::WithAsyncMethod_SetClock<
                    ClockGrpc::WithAsyncMethod_ReplaceClock<ClockGrpc::WithAsyncMethod_GetClock<
                        ClockGrpc::WithAsyncMethod_WatchClock<ClockGrpc::Service>>>>>>>>>>>>;

class ClockAuthorityService final : public ClockAuthorityBase {
 public:
  // Adds this service's rows to env->policy().
  ClockAuthorityService(service::ServiceEnv* env, clock_authority::ClockAuthority* authority,
                        ServiceOptions options = {});
  ~ClockAuthorityService() override;

  static constexpr char kName[] = "arbiter.v1.ClockAuthority";

  // Create and get run on the worker pool. The commands (StartClock, PressClock, RecordArrival,
  // ClaimFlag, Pause/Resume/Adjust/Set/ReplaceClock) reply later, from where the store finishes
  // the append (async_unary.h's AsyncHandler; ClockAuthority::ExecuteAsync): they have no member
  // of their own, each is the event its request makes (clock_service.cc).
  grpc::Status CreateClock(grpc::ServerContext* ctx, const arbiter::v1::CreateClockRequest* req,
                           arbiter::v1::ClockResponse* resp) override;
  grpc::Status GetClock(grpc::ServerContext* ctx, const arbiter::v1::GetClockRequest* req,
                        arbiter::v1::ClockResponse* resp) override;

  // For Server::Start (HostedService::async_methods).
  std::vector<service::AsyncUnaryMethod*> async_methods() const { return async_.get(); }

 private:
  // Fills in the clock event a command's request makes (INVALID_ARGUMENT for a bad request).
  template <typename Request>
  using EventOf = absl::Status (*)(const Request&, arbiter::v1::ClockEvent*);

  // Serves command `method` from the completion queues: admitted, its event made by `make`,
  // decided and appended by the authority, answered with the clock.
  // A WatchClock stream, from its arrival on a completion queue (its opening reads the store, on
  // the worker pool).
  void Watch(grpc::ServerContext* ctx, const arbiter::v1::WatchClockRequest& req,
             std::shared_ptr<service::StreamWriter<arbiter::v1::ClockUpdate>> out);
  void OpenWatch(grpc::ServerContext* ctx, const arbiter::v1::WatchClockRequest& req,
                 std::shared_ptr<service::StreamWriter<arbiter::v1::ClockUpdate>> out);

  template <typename Base, typename Request>
  void AddCommand(service::RequestMethod<Base, Request, arbiter::v1::ClockResponse> request,
                  const char* method, EventOf<Request> make);

  service::ServiceEnv* env_;
  clock_authority::ClockAuthority* authority_;
  const ServiceOptions options_;
  service::WatchHub hub_;
  std::unique_ptr<base::WorkerPool> pool_;  // `workers` threads: the calls in the store
  service::AsyncMethods<ClockAuthorityService> async_;
};

}  // namespace clock_authority_service

#endif  // ARBITER_SERVICES_CLOCK_AUTHORITY_CLOCK_SERVICE_H_
