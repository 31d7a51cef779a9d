// The arbitration service (proto/arbiter/v1/arbitration.proto): a thin gRPC face of
// libs/arbitration. Each handler enters through ServiceEnv::Serve (authentication, the policy
// table, deadlines, status conversion), turns the request into a Command, runs it through the
// GameAuthority and answers with the game as the caller may see it.
//
// Who may call what (the rows this service adds to the policy table):
//   CreateGame                                     platform, service
//   StartGame                                      platform, arbiter, service (6.5)
//   Arrive                                         platform, arbiter, service, player (6.6)
//   SubmitMove, Resign, OfferDraw, RespondDraw,    platform, service, player
//   Claim, ConfirmResult
//   SubmitMoves (the stream; each message is       platform, service, player
//   admitted as a SubmitMove)
//   Rule, SetResult, PauseGame, ResumeGame,        arbiter, service
//   AdjustTime, SetClocks, SubmitBoardFeed
//   RuleIrregularity, RuleStop, UsePower           arbiter, service
//   ReportIllegalMove                              arbiter, service, platform, player (the
//                                                  opponent's report: side = the offender)
//   CompleteIllegalMove, StopClocks                platform, service, player
//   SealMove                                       platform, service, player (Appendix A1)
//   AdjournGame, ResumeAdjournedGame,              arbiter, service (Appendix A)
//   ReportEnvelopeLost
//   GetGame, WatchGame, ExportPgn                  every role
//   WatchGames (the firehose, firehose.h)          every role, each seeing the games it may
//   ArchiveGame                                    platform, service (a game that is over
//                                                  leaves the live store)
//   GetSignedRecord                                platform, arbiter, service, player (own game)
//   GetRecordKeys                                  every role
//   ListArbiterCalls                               arbiter, service (an event-scoped token: its
//                                                  event's)
//   ListGames                                      platform, arbiter, service, player (its own
//                                                  games); a token scoped to an event: its event's
//   PauseEvent, ResumeEvent                        arbiter, service (6.13a; an event-scoped token:
//                                                  its event only)
//   CreateEvent, CreateRound, GetEventResults,     platform, arbiter, service (an event-scoped
//   ExportEventPgn                                 token: its event only)
//   GetEvent                                       every role (an event-scoped token: its event)
// A player's token acts only in its own game (the policy's game binding) and for its own colour
// (the request's `side`, checked here: the policy table only knows a field named `color`).
// Every event records who did it: the token's subject and role ("insecure"/"dev" under
// --insecure_dev).
//
// Observers see the game through its broadcast delay (GameCreated.broadcast_delay_plies / _ms):
// the moves of the last N plies and those younger than the delay are held back, and with them
// everything recorded after the first move held back. Search-analysis advice on a 10.2 claim is
// for arbiters only (12.2).
//
// How calls are served. SubmitMove, the hot path (>= 16,000 moves/s through Redis with
// appendfsync always), and every other game command (Resign, OfferDraw, the arbiter's Rule,
// SetResult, ...: those made by CommandAsync) are served from the completion queues
// (libs/service/async_unary.h), so none holds a thread of the synchronous server while the store
// appends. A move, and a command that reads nothing while it is made and asks no search, is
// decided on the queue's thread on the cached state and answered from the Redis client's thread
// that reads the append's reply (GameAuthority::ExecuteAsync), with no thread waiting for the
// store; what that path cannot finish (no cached state, a refusal, a conflict, a retry), and the
// commands that read or may wait for search-analysis (Serving::kOnPool), run on this service's
// worker pool. CreateGame, SealMove, ArchiveGame, the reads and the events' methods block on the
// store and are synchronous, served by gRPC's thread pool; WatchGame's streams hold no thread
// (libs/service/async_stream.h): ten thousand observers of one game on one replica share one
// store watch (libs/service/watch_hub.h) and are written to from memory; none uses the callback
// API (see libs/service/health.h for why). Measured: services/arbitration/README.md.
#ifndef ARBITER_SERVICES_ARBITRATION_ARBITRATION_SERVICE_H_
#define ARBITER_SERVICES_ARBITRATION_ARBITRATION_SERVICE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "libs/arbitration/authority.h"
#include "libs/arbitration/sealed_move.h"
#include "libs/arbitration/signed_record.h"
#include "libs/base/worker_pool.h"
#include "libs/service/async_stream.h"
#include "libs/service/async_unary.h"
#include "libs/service/server.h"
#include "libs/service/ticker.h"
#include "libs/service/watch_hub.h"
#include "proto/arbiter/v1/arbitration.grpc.pb.h"
#include "services/arbitration/firehose.h"

namespace arbitration_service {

struct ServiceOptions {
  // The longest an observer's move released by the broadcast delay waits to be sent (at most
  // 50 ms: the watches held back by time are looked at that often).
  absl::Duration watch_poll = absl::Milliseconds(500);
  // WatchGame: games this replica streams at once (one store watch per shard for all of them:
  // libs/service/watch_hub.h), updates queued for one slow watcher before it is cut off, and
  // the threads that open watches (each reads the game's log once).
  int max_watched_games = 4096;
  int max_watch_backlog = 10'000;
  int watch_workers = 4;
  // Threads for the commands the completion-queue path hands back or serves the synchronous way
  // (they wait on the store).
  int workers = 16;
  // Appendix A: the sealed moves' master key (--seal_key_file); unset: SealMove and the opening
  // of an envelope answer FAILED_PRECONDITION ERR_SEAL_KEY_MISSING.
  std::optional<seal::MasterKey> seal_key;
  // Signed records (--record_signing_key, --record_public_keys): unset, GetSignedRecord answers
  // FAILED_PRECONDITION ERR_RECORD_SIGNING_OFF and archives keep no signature.
  std::shared_ptr<const arbitration::RecordSigner> record_signer;
};

// `Base` with each of `Marks` (gRPC's WithAsyncMethod_X templates) stacked on it.
template <typename Base, template <typename> class... Marks>
struct MarkedAsync {
  using type = Base;
};
template <typename Base, template <typename> class First, template <typename> class... Rest>
struct MarkedAsync<Base, First, Rest...> {
  using type = First<typename MarkedAsync<Base, Rest...>::type>;
};

// gRPC takes a method as async only when marked so on a base still synchronous: the streams, and
// the game commands served from the completion queues (the table in the constructor).
using ArbitrationBase = MarkedAsync<
    arbiter::v1::Arbitration::Service, arbiter::v1::Arbitration::WithAsyncMethod_WatchGames,
    arbiter::v1::Arbitration::WithAsyncMethod_WatchGame,
    arbiter::v1::Arbitration::WithAsyncMethod_SubmitMoves,
    arbiter::v1::Arbitration::WithAsyncMethod_SubmitMove,
    arbiter::v1::Arbitration::WithAsyncMethod_StartGame,
    arbiter::v1::Arbitration::WithAsyncMethod_Arrive,
    arbiter::v1::Arbitration::WithAsyncMethod_Resign,
    arbiter::v1::Arbitration::WithAsyncMethod_OfferDraw,
    arbiter::v1::Arbitration::WithAsyncMethod_RespondDraw,
    arbiter::v1::Arbitration::WithAsyncMethod_Claim, arbiter::v1::Arbitration::WithAsyncMethod_Rule,
    arbiter::v1::Arbitration::WithAsyncMethod_ConfirmResult,
    arbiter::v1::Arbitration::WithAsyncMethod_SetResult,
    arbiter::v1::Arbitration::WithAsyncMethod_PauseGame,
    arbiter::v1::Arbitration::WithAsyncMethod_ResumeGame,
    arbiter::v1::Arbitration::WithAsyncMethod_AdjustTime,
    arbiter::v1::Arbitration::WithAsyncMethod_SetClocks,
    arbiter::v1::Arbitration::WithAsyncMethod_SubmitBoardFeed,
    arbiter::v1::Arbitration::WithAsyncMethod_ReportIllegalMove,
    arbiter::v1::Arbitration::WithAsyncMethod_CompleteIllegalMove,
    arbiter::v1::Arbitration::WithAsyncMethod_RuleIrregularity,
    arbiter::v1::Arbitration::WithAsyncMethod_StopClocks,
    arbiter::v1::Arbitration::WithAsyncMethod_RuleStop,
    arbiter::v1::Arbitration::WithAsyncMethod_UsePower,
    arbiter::v1::Arbitration::WithAsyncMethod_AdjournGame,
    arbiter::v1::Arbitration::WithAsyncMethod_ResumeAdjournedGame,
    arbiter::v1::Arbitration::WithAsyncMethod_ReportEnvelopeLost>::type;

class GameWatch;

class ArbitrationService final : public ArbitrationBase {
 public:
  // Adds this service's rows to env->policy().
  ArbitrationService(service::ServiceEnv* env, arbitration::GameAuthority* authority,
                     ServiceOptions options = {});
  ~ArbitrationService() override;

  // A command served from the completion queues replies later, from where it finishes
  // (async_unary.h).
  using Reply = std::function<void(grpc::Status)>;

  static constexpr char kName[] = "arbiter.v1.Arbitration";
  // "/arbiter.v1.Arbitration/<name>": a method as the policy table, the access log and
  // admission name it.
  static std::string FullMethod(absl::string_view name);

  grpc::Status CreateGame(grpc::ServerContext* ctx, const arbiter::v1::CreateGameRequest* req,
                          arbiter::v1::GameReply* resp) override;
  void StartGame(grpc::ServerContext* ctx, const arbiter::v1::StartGameRequest* req,
                 arbiter::v1::GameReply* resp, Reply reply);
  void Arrive(grpc::ServerContext* ctx, const arbiter::v1::ArriveRequest* req,
              arbiter::v1::GameReply* resp, Reply reply);
  void SubmitMove(grpc::ServerContext* ctx, const arbiter::v1::SubmitMoveRequest* req,
                  arbiter::v1::GameReply* resp, Reply reply);
  // One move of a SubmitMoves stream (move_stream.h), served as a SubmitMove call.
  void SubmitStreamedMove(grpc::ServerContext* ctx, const arbiter::v1::SubmitMoveRequest* req,
                          arbiter::v1::GameReply* resp, Reply reply);
  void Resign(grpc::ServerContext* ctx, const arbiter::v1::ResignRequest* req,
              arbiter::v1::GameReply* resp, Reply reply);
  void OfferDraw(grpc::ServerContext* ctx, const arbiter::v1::OfferDrawRequest* req,
                 arbiter::v1::GameReply* resp, Reply reply);
  void RespondDraw(grpc::ServerContext* ctx, const arbiter::v1::RespondDrawRequest* req,
                   arbiter::v1::GameReply* resp, Reply reply);
  void Claim(grpc::ServerContext* ctx, const arbiter::v1::ClaimRequest* req,
             arbiter::v1::GameReply* resp, Reply reply);
  void Rule(grpc::ServerContext* ctx, const arbiter::v1::RuleRequest* req,
            arbiter::v1::GameReply* resp, Reply reply);
  void ConfirmResult(grpc::ServerContext* ctx, const arbiter::v1::ConfirmResultRequest* req,
                     arbiter::v1::GameReply* resp, Reply reply);
  void SetResult(grpc::ServerContext* ctx, const arbiter::v1::SetResultRequest* req,
                 arbiter::v1::GameReply* resp, Reply reply);
  void PauseGame(grpc::ServerContext* ctx, const arbiter::v1::PauseGameRequest* req,
                 arbiter::v1::GameReply* resp, Reply reply);
  void ResumeGame(grpc::ServerContext* ctx, const arbiter::v1::ResumeGameRequest* req,
                  arbiter::v1::GameReply* resp, Reply reply);
  void AdjustTime(grpc::ServerContext* ctx, const arbiter::v1::AdjustTimeRequest* req,
                  arbiter::v1::GameReply* resp, Reply reply);
  void SetClocks(grpc::ServerContext* ctx, const arbiter::v1::SetClocksRequest* req,
                 arbiter::v1::GameReply* resp, Reply reply);
  // An electronic board's feed (4.3-4.7, 7.4a).
  void SubmitBoardFeed(grpc::ServerContext* ctx, const arbiter::v1::SubmitBoardFeedRequest* req,
                       arbiter::v1::GameReply* resp, Reply reply);
  // Article 7, 6.13b/d, 12, 13.4.
  void ReportIllegalMove(grpc::ServerContext* ctx, const arbiter::v1::ReportIllegalMoveRequest* req,
                         arbiter::v1::GameReply* resp, Reply reply);
  void CompleteIllegalMove(grpc::ServerContext* ctx,
                           const arbiter::v1::CompleteIllegalMoveRequest* req,
                           arbiter::v1::GameReply* resp, Reply reply);
  void RuleIrregularity(grpc::ServerContext* ctx, const arbiter::v1::RuleIrregularityRequest* req,
                        arbiter::v1::GameReply* resp, Reply reply);
  void StopClocks(grpc::ServerContext* ctx, const arbiter::v1::StopClocksRequest* req,
                  arbiter::v1::GameReply* resp, Reply reply);
  void RuleStop(grpc::ServerContext* ctx, const arbiter::v1::RuleStopRequest* req,
                arbiter::v1::GameReply* resp, Reply reply);
  void UsePower(grpc::ServerContext* ctx, const arbiter::v1::UsePowerRequest* req,
                arbiter::v1::GameReply* resp, Reply reply);
  // Appendix A: adjourned games (libs/arbitration/adjournment.h).
  grpc::Status SealMove(grpc::ServerContext* ctx, const arbiter::v1::SealMoveRequest* req,
                        arbiter::v1::GameReply* resp) override;
  void AdjournGame(grpc::ServerContext* ctx, const arbiter::v1::AdjournGameRequest* req,
                   arbiter::v1::GameReply* resp, Reply reply);
  void ResumeAdjournedGame(grpc::ServerContext* ctx,
                           const arbiter::v1::ResumeAdjournedGameRequest* req,
                           arbiter::v1::GameReply* resp, Reply reply);
  void ReportEnvelopeLost(grpc::ServerContext* ctx,
                          const arbiter::v1::ReportEnvelopeLostRequest* req,
                          arbiter::v1::GameReply* resp, Reply reply);
  grpc::Status GetGame(grpc::ServerContext* ctx, const arbiter::v1::GetGameRequest* req,
                       arbiter::v1::GameReply* resp) override;
  grpc::Status ExportPgn(grpc::ServerContext* ctx, const arbiter::v1::ExportPgnRequest* req,
                         arbiter::v1::ExportPgnReply* resp) override;
  grpc::Status ArchiveGame(grpc::ServerContext* ctx, const arbiter::v1::ArchiveGameRequest* req,
                           arbiter::v1::ArchiveGameReply* resp) override;
  // Signed records (libs/arbitration/signed_record.h; record_methods.cc).
  grpc::Status GetSignedRecord(grpc::ServerContext* ctx,
                               const arbiter::v1::GetSignedRecordRequest* req,
                               arbiter::v1::GetSignedRecordReply* resp) override;
  grpc::Status GetRecordKeys(grpc::ServerContext* ctx, const arbiter::v1::GetRecordKeysRequest* req,
                             arbiter::v1::GetRecordKeysReply* resp) override;
  grpc::Status ListGames(grpc::ServerContext* ctx, const arbiter::v1::ListGamesRequest* req,
                         arbiter::v1::ListGamesReply* resp) override;
  grpc::Status PauseEvent(grpc::ServerContext* ctx, const arbiter::v1::PauseEventRequest* req,
                          arbiter::v1::EventGamesReply* resp) override;
  grpc::Status ResumeEvent(grpc::ServerContext* ctx, const arbiter::v1::ResumeEventRequest* req,
                           arbiter::v1::EventGamesReply* resp) override;

  // Adds the signed records' rows to the policy table (record_methods.cc).
  void AddRecordPolicy();
  grpc::Status ListArbiterCalls(grpc::ServerContext* ctx,
                                const arbiter::v1::ListArbiterCallsRequest* req,
                                arbiter::v1::ListArbiterCallsReply* resp) override;
  void AddListingPolicy();
  // Events and rounds (libs/arbitration/event_rounds.h; event_methods.cc).
  grpc::Status CreateEvent(grpc::ServerContext* ctx, const arbiter::v1::CreateEventRequest* req,
                           arbiter::v1::EventReply* resp) override;
  grpc::Status GetEvent(grpc::ServerContext* ctx, const arbiter::v1::GetEventRequest* req,
                        arbiter::v1::EventReply* resp) override;
  grpc::Status CreateRound(grpc::ServerContext* ctx, const arbiter::v1::CreateRoundRequest* req,
                           arbiter::v1::RoundReply* resp) override;
  grpc::Status GetEventResults(grpc::ServerContext* ctx,
                               const arbiter::v1::GetEventResultsRequest* req,
                               arbiter::v1::EventResultsReply* resp) override;
  grpc::Status ExportEventPgn(grpc::ServerContext* ctx,
                              const arbiter::v1::ExportEventPgnRequest* req,
                              arbiter::v1::ExportPgnReply* resp) override;
  void AddEventPolicy();

  // For Server::Start (HostedService::async_methods).
  std::vector<service::AsyncUnaryMethod*> async_methods() const;

 private:
  // The reply for the game `r` (a round's game) as `who` sees it.
  absl::Status ReplyOf(const service::Principal& who, absl::string_view game_id,
                       const arbitration::CommandResult& r, arbiter::v1::GameReply* resp) const;

  // How a command is served from the completion queues (CommandAsync).
  enum class Serving {
    // Decided on the queue's thread on the replica's cached state and answered from where the
    // store finishes the append (GameAuthority::ExecuteAsync): no thread waits for the store.
    // Only for a command that reads nothing while it is made and asks no search while it is
    // decided beyond what a move asks.
    kOnQueue,
    // One move of a SubmitMoves stream, the same way (ServiceEnv::ServeStreamMessage).
    kStreamed,
    // Made and decided the synchronous way on this service's worker pool
    // (GameAuthority::Execute): a command whose making reads the game (an envelope to open,
    // Appendix A9) or whose ruling may wait for search-analysis (a claim, 10.2, C3; an
    // arbiter's ruling, B7; a reported second illegal move, 7.5.5; an arrival, A9).
    kOnPool,
  };

  // A command through ServiceEnv::ServeQueuedAsync: `make` builds it from the request (with the
  // caller's actor; it is copied to the pool, so it captures nothing of the caller's frame by
  // reference), the authority decides and appends it, the reply is the game after it. A token
  // that serves one event goes the kOnPool way whatever `how` says (its game is read first).
  template <typename Request, typename Make>
  void CommandAsync(grpc::ServerContext* ctx, const char* method, const Request* req,
                    arbiter::v1::GameReply* resp, Make make, Reply reply,
                    Serving how = Serving::kOnQueue);
  // A player command that is only its kind and the side it is for (SideFor): Resign, ...
  template <typename Request>
  void SideCommand(grpc::ServerContext* ctx, const char* method, const Request* req,
                   arbiter::v1::GameReply* resp, arbitration::CommandKind kind, Reply reply,
                   Serving how = Serving::kOnQueue);
  void Move(grpc::ServerContext* ctx, const arbiter::v1::SubmitMoveRequest* req,
            arbiter::v1::GameReply* resp, Reply reply, Serving how);
  // 8.7: the record signed into `resp` when the confirmation completed it (with a signer).
  void SignConfirmed(const std::string& game_id, arbiter::v1::GameReply* resp);

  // WatchGame, from its arrival on a completion queue: admitted there, opened on the watch
  // workers (the log's read), then fed by the hub.
  void StartWatch(grpc::ServerContext* ctx, const arbiter::v1::WatchGameRequest& req,
                  std::shared_ptr<service::StreamWriter<arbiter::v1::GameUpdate>> out);
  void OpenWatch(const service::Principal& who, const arbiter::v1::WatchGameRequest& req,
                 std::shared_ptr<service::StreamWriter<arbiter::v1::GameUpdate>> out);
  // Observers' moves the broadcast delay releases by time (the delay ticker).
  void ReleaseDelayed();
  // WatchGames, from its arrival on a completion queue: admitted there, subscribed on the watch
  // workers (the feed's head is a store read).
  void StartWatchGames(grpc::ServerContext* ctx, const arbiter::v1::WatchGamesRequest& req,
                       std::shared_ptr<service::StreamWriter<arbiter::v1::GamesUpdate>> out);

  // Appendix A: `command` gets the sealed move in clear when the game's envelope is closed (the
  // rulings open it only when the replying player is present, A7).
  absl::Status OpenEnvelopeFor(absl::string_view game_id, arbitration::Command* command);

  service::ServiceEnv* env_;
  arbitration::GameAuthority* authority_;
  const ServiceOptions options_;
  // Appendix A: the sealed moves' secret (seals and opens; never logged).
  const arbitration::SealedMoves sealed_moves_;
  std::unique_ptr<base::WorkerPool> pool_;  // what ExecuteAsync hands back (it blocks)
  std::vector<std::unique_ptr<service::AsyncUnaryMethod>> async_;
  // WatchGame: one store watch per shard for every watcher of this replica, in memory from there.
  service::WatchHub hub_;
  std::unique_ptr<base::WorkerPool> watch_pool_;
  absl::Mutex watches_mu_;
  absl::flat_hash_map<const GameWatch*, std::shared_ptr<GameWatch>> delayed_
      ABSL_GUARDED_BY(watches_mu_);
  // WatchGames: one feed reader for every subscriber of this replica (firehose.h).
  std::unique_ptr<Firehose> firehose_;
  service::Ticker delay_ticker_;
};

}  // namespace arbitration_service

#endif  // ARBITER_SERVICES_ARBITRATION_ARBITRATION_SERVICE_H_
