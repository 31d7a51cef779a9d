// What arbiterctl's clock and game clients share (`arbiterctl clock|game <subcommand> --game ID
// ...`): the checks every subcommand makes, one table of subcommands, a call sent only when every
// flag read well, its reply or its error printed, and `watch`.
//
//   constexpr ClientCall<Stub, v1::GameReply> kCalls[] = {
//       {"resign", [](Call& c) { c.Send(&Stub::Resign, ...); }}, ...};
//   constexpr ClientStream<Stub> kStreams[] = {{"watch", Watch}};
//   return RunClientCommand<v1::Arbitration, v1::GameReply>(args, Usage, kCalls, Print,
//                                                           kStreams, out, err);
#ifndef ARBITER_TOOLS_ARBITERCTL_CLIENT_COMMANDS_H_
#define ARBITER_TOOLS_ARBITERCTL_CLIENT_COMMANDS_H_

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "grpcpp/client_context.h"
#include "grpcpp/support/status.h"
#include "grpcpp/support/sync_stream.h"
#include "tools/arbiterctl/args.h"
#include "tools/arbiterctl/client.h"

namespace arbiterctl {

// A usage error of one client command ("clock", "game"): the message and the usage line; exit 2.
using UsageFn = int (*)(std::ostream& err, const std::string& message);

// One subcommand's call: its flags, read as its request is built, the request sent (Send) only
// when every flag read well, and the reply.
template <typename Stub, typename Reply>
class RpcCall {
 public:
  RpcCall(const ClientArgs& args, Stub& stub) : args_(args), flags_(args), stub_(stub) {
    Prepare(args, &ctx_);
  }

  const ClientArgs& args() const { return args_; }
  FlagReader& flags() { return flags_; }

  // A request that names the game (--game) and nothing else yet.
  template <typename Request>
  Request ForGame() const {
    Request req;
    req.set_game_id(args_.Get("game"));
    return req;
  }
  // A mutating command's request: --game, [--command-id], [--expected-version].
  template <typename Request>
  Request Command() {
    Request req;
    SetCommandFields(args_, flags_, &req);
    return req;
  }
  // `start`'s request: the mutating command's fields and [--absent white,black] (6.6), the
  // players absent at the start.
  template <typename Request>
  Request StartCommand() {
    Request req = Command<Request>();
    for (absl::string_view s : absl::StrSplit(args_.Get("absent"), ',', absl::SkipEmpty())) {
      req.add_absent(flags_.Color(std::string(s), "absent"));
    }
    return req;
  }

  // Sends `request` by `method` unless a flag read badly.
  template <typename Request>
  void Send(grpc::Status (Stub::*method)(grpc::ClientContext*, const Request&, Reply*),
            const Request& request) {
    if (flags_.ok()) status_ = (stub_.*method)(&ctx_, request, &reply_);
  }

  const grpc::Status& status() const { return status_; }
  const Reply& reply() const { return reply_; }

 private:
  const ClientArgs& args_;
  FlagReader flags_;
  Stub& stub_;
  grpc::ClientContext ctx_;
  grpc::Status status_;
  Reply reply_;
};

// A subcommand answered by one Reply: it builds its request from the flags and sends it.
template <typename Stub, typename Reply>
struct ClientCall {
  const char* name;
  void (*send)(RpcCall<Stub, Reply>& call);
};

// A subcommand that prints by itself (watch, pgn); returns the exit code.
template <typename Stub>
struct ClientStream {
  const char* name;
  int (*run)(const ClientArgs& args, Stub& stub, std::ostream& out, std::ostream& err);
};

// Runs the subcommand args.positional[1], which needs --game ID: one of `streams`, or one of
// `calls` whose reply `print` prints (as JSON with --json). Exit codes: those of `print` and of
// the streams; 2 for a usage error (nothing sent) or an RPC error.
template <typename Service, typename Reply>
int RunClientCommand(const ClientArgs& args, UsageFn usage,
                     absl::Span<const ClientCall<typename Service::Stub, Reply>> calls,
                     int (*print)(const Reply& reply, bool json, std::ostream& out),
                     absl::Span<const ClientStream<typename Service::Stub>> streams,
                     std::ostream& out, std::ostream& err) {
  const std::string what = args.positional.size() > 1 ? args.positional[1] : "";
  if (what.empty()) return usage(err, "which command?");
  if (!args.Has("game") || args.Get("game").empty()) return usage(err, "--game ID is required");
  std::unique_ptr<typename Service::Stub> stub = Service::NewStub(Connect(args));
  for (const auto& stream : streams) {
    if (what == stream.name) return stream.run(args, *stub, out, err);
  }
  for (const auto& call : calls) {
    if (what != call.name) continue;
    RpcCall<typename Service::Stub, Reply> rpc(args, *stub);
    call.send(rpc);
    const bool json = args.Has("json");
    if (!rpc.flags().ok()) return usage(err, rpc.flags().error());
    if (!rpc.status().ok()) return PrintRpcError(rpc.status(), json, out, err);
    return print(rpc.reply(), json, out);
  }
  return usage(err, absl::StrCat("unknown command \"", what, "\""));
}

// `watch --game ID [--after-version N] [--count N]`: prints every update as it comes with
// `print(update)` and flushes it, until --count of them, until `last(update, count)` (count:
// --count, or -1 without it) or until the stream ends. Exit 0, or 2 for a bad flag or an RPC
// error.
template <typename Stub, typename Request, typename Update, typename Print, typename Last>
int Watch(const ClientArgs& args, Stub& stub,
          std::unique_ptr<grpc::ClientReader<Update>> (Stub::*method)(grpc::ClientContext*,
                                                                      const Request&),
          UsageFn usage, const Print& print, const Last& last, std::ostream& out,
          std::ostream& err) {
  FlagReader flags(args);
  Request req;
  req.set_game_id(args.Get("game"));
  if (args.Has("after-version")) req.set_after_version(flags.Int("after-version"));
  const std::int64_t count = args.Has("count") ? flags.Int("count") : -1;
  if (!flags.ok()) return usage(err, flags.error());
  grpc::ClientContext ctx;
  Prepare(args, &ctx, /*deadline=*/false);
  std::unique_ptr<grpc::ClientReader<Update>> reader = (stub.*method)(&ctx, req);
  Update update;
  std::int64_t seen = 0;
  bool stopped = false;
  while (reader->Read(&update)) {
    print(update);
    out.flush();
    ++seen;
    if ((count >= 0 && seen >= count) || last(update, count)) {
      stopped = true;
      ctx.TryCancel();
      break;
    }
  }
  grpc::Status st = reader->Finish();
  if (stopped || st.ok()) return 0;
  return PrintRpcError(st, args.Has("json"), out, err);
}

}  // namespace arbiterctl

#endif  // ARBITER_TOOLS_ARBITERCTL_CLIENT_COMMANDS_H_
