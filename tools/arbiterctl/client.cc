#include "tools/arbiterctl/client.h"

#include <chrono>
#include <fstream>
#include <memory>
#include <ostream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "libs/base/error.h"
#include "libs/base/errors.h"
#include "libs/service/grpc_status.h"
#include "nlohmann/json.hpp"
#include "proto/arbiter/v1/rules.grpc.pb.h"
#include "proto/grpc/health/v1/health.grpc.pb.h"

namespace arbiterctl {
namespace {

namespace v1 = arbiter::v1;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::shared_ptr<grpc::Channel> Connect(const ClientArgs& args) {
  const std::string target = args.Get("server", "127.0.0.1:7070");
  std::shared_ptr<grpc::ChannelCredentials> creds;
  if (args.Has("tls_ca")) {
    grpc::SslCredentialsOptions options;
    options.pem_root_certs = ReadFile(args.Get("tls_ca"));
    if (args.Has("tls_cert")) {
      options.pem_cert_chain = ReadFile(args.Get("tls_cert"));
      options.pem_private_key = ReadFile(args.Get("tls_key"));
    }
    creds = grpc::SslCredentials(options);
  } else {
    creds = grpc::InsecureChannelCredentials();
  }
  return grpc::CreateChannel(target, creds);
}

void Prepare(const ClientArgs& args, grpc::ClientContext* ctx, bool deadline) {
  if (args.Has("token")) ctx->AddMetadata("authorization", "Bearer " + args.Get("token"));
  if (!deadline && !args.Has("timeout_ms")) return;
  int timeout_ms = 10000;
  (void)absl::SimpleAtoi(args.Get("timeout_ms", "10000"), &timeout_ms);
  ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms));
}

namespace {

std::string ToJson(const google::protobuf::Message& m) {
  std::string out;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(m, &out, options);
  return out;
}

std::vector<std::string> SplitMoves(const std::string& text) {
  std::vector<std::string> moves;
  for (absl::string_view m : absl::StrSplit(text, absl::ByAnyChar(", "), absl::SkipEmpty()))
    moves.emplace_back(m);
  return moves;
}

int Health(const ClientArgs& args, std::ostream& out, std::ostream& err) {
  auto stub = grpc::health::v1::Health::NewStub(Connect(args));
  grpc::ClientContext ctx;
  Prepare(args, &ctx);
  grpc::health::v1::HealthCheckRequest req;
  req.set_service(args.Get("service", ""));
  grpc::health::v1::HealthCheckResponse resp;
  grpc::Status st = stub->Check(&ctx, req, &resp);
  const bool json = args.Has("json");
  if (!st.ok()) return PrintRpcError(st, json, out, err);
  const std::string status =
      grpc::health::v1::HealthCheckResponse::ServingStatus_Name(resp.status());
  if (json) {
    out << nlohmann::json{{"service", req.service()}, {"status", status}}.dump() << "\n";
  } else {
    out << (req.service().empty() ? "server" : req.service()) << ": " << status << "\n";
  }
  return resp.status() == grpc::health::v1::HealthCheckResponse::SERVING ? 0 : 1;
}

using RulesStub = v1::RulesValidation::Stub;

// The calls of `rules`: each sends its request and prints the response, as JSON with --json,
// else as text.
class RulesCalls {
 public:
  RulesCalls(const ClientArgs& args, std::ostream& out, std::ostream& err)
      : args_(args), stub_(v1::RulesValidation::NewStub(Connect(args))), out_(out), err_(err) {}

  // Sends `req` by `method`; `text(response, out)` prints the response without --json. Exits
  // with `exit_code(response)`, or 2 after an RPC error.
  template <typename Request, typename Response, typename Text, typename ExitCode>
  int Ask(grpc::Status (RulesStub::*method)(grpc::ClientContext*, const Request&, Response*),
          const Request& req, const Text& text, const ExitCode& exit_code) {
    grpc::ClientContext ctx;
    Prepare(args_, &ctx);
    Response resp;
    grpc::Status st = ((*stub_).*method)(&ctx, req, &resp);
    const bool json = args_.Has("json");
    if (!st.ok()) return PrintRpcError(st, json, out_, err_);
    if (json) {
      out_ << ToJson(resp) << "\n";
    } else {
      text(resp, out_);
    }
    return exit_code(resp);
  }
  // The same, exit 0.
  template <typename Request, typename Response, typename Text>
  int Ask(grpc::Status (RulesStub::*method)(grpc::ClientContext*, const Request&, Response*),
          const Request& req, const Text& text) {
    return Ask(method, req, text, [](const Response&) { return 0; });
  }

 private:
  const ClientArgs& args_;
  std::unique_ptr<RulesStub> stub_;
  std::ostream& out_;
  std::ostream& err_;
};

void PrintValidation(const v1::ValidateMoveResponse& resp, std::ostream& out) {
  if (resp.legal()) {
    out << "legal: " << resp.move().san() << " (UCI " << resp.move().uci() << ", Appendix E "
        << resp.move().appendix_e() << ")"
        << (resp.checkmate() ? ", checkmate"
            : resp.check()   ? ", check"
                             : "")
        << "\n  after: " << resp.after().fen() << "\n";
  } else {
    out << "illegal: " << resp.error().code()
        << (resp.error().illegal_move_reason().empty() ? ""
                                                       : " " + resp.error().illegal_move_reason())
        << ": " << resp.error().message() << "\n";
  }
}

void PrintStatus(const v1::GetStatusResponse& resp, std::ostream& out) {
  const v1::PositionStatus& s = resp.status();
  out << "position: " << s.position().fen() << "\n"
      << "check: " << s.check() << "  checkmate: " << s.checkmate()
      << "  stalemate: " << s.stalemate()
      << "  insufficient material: " << s.insufficient_material() << "\n"
      << "repetitions: " << s.repetitions() << "  half-move clock: " << s.halfmove_clock() << "\n";
  out << "threefold claim (9.2): "
      << (s.threefold().now()             ? "now"
          : s.threefold().by_moves_size() ? "with a move"
                                          : "no");
  for (const v1::Move& m : s.threefold().by_moves()) out << " " << m.san();
  out << "\nfifty-move claim (9.3): "
      << (s.fifty_moves().now()             ? "now"
          : s.fifty_moves().by_moves_size() ? "with a move"
                                            : "no");
  for (const v1::Move& m : s.fifty_moves().by_moves()) out << " " << m.san();
  out << "\nends the game by itself: "
      << (s.automatic_outcome().result() == v1::RESULT_ONGOING
              ? std::string("no")
              : v1::Termination_Name(s.automatic_outcome().termination()))
      << "\n";
}

int Rules(const ClientArgs& args, std::ostream& out, std::ostream& err) {
  RulesCalls calls(args, out, err);
  const std::string what = args.positional.size() > 1 ? args.positional[1] : "";
  v1::Position position;
  position.set_fen(args.Get("fen", "startpos"));
  if (what == "validate") {
    v1::ValidateMoveRequest req;
    *req.mutable_position() = position;
    req.set_move(args.Get("move"));
    req.set_letters(args.Get("letters") == "german" ? v1::LETTERS_GERMAN : v1::LETTERS_ENGLISH);
    return calls.Ask(&RulesStub::ValidateMove, req, PrintValidation,
                     [](const v1::ValidateMoveResponse& resp) { return resp.legal() ? 0 : 1; });
  }
  if (what == "status") {
    v1::GetStatusRequest req;
    *req.mutable_position() = position;
    for (const std::string& m : SplitMoves(args.Get("moves"))) req.add_moves(m);
    FlagReader flags(args);
    req.set_edition(flags.Edition(args.Get("edition", "fide2023")));
    if (!flags.ok()) return PrintError(base::Error(base::kErrBadArgument, flags.error()), err);
    return calls.Ask(&RulesStub::GetStatus, req, PrintStatus);
  }
  if (what == "apply") {
    v1::ApplyMovesRequest req;
    *req.mutable_position() = position;
    for (const std::string& m : SplitMoves(args.Get("moves"))) req.add_moves(m);
    return calls.Ask(&RulesStub::ApplyMoves, req,
                     [](const v1::ApplyMovesResponse& resp, std::ostream& out) {
                       for (const v1::AppliedMove& m : resp.moves())
                         out << m.move().san() << "  " << m.after().fen() << "\n";
                     });
  }
  if (what == "legal") {
    v1::LegalMovesRequest req;
    *req.mutable_position() = position;
    return calls.Ask(&RulesStub::LegalMoves, req,
                     [](const v1::LegalMovesResponse& resp, std::ostream& out) {
                       for (const v1::Move& m : resp.moves())
                         out << m.uci() << " " << m.san() << "\n";
                     });
  }
  if (what == "perft") {
    v1::PerftRequest req;
    *req.mutable_position() = position;
    int depth = 0;
    absl::SimpleAtoi(args.Get("depth", "1"), &depth);
    req.set_depth(depth);
    return calls.Ask(&RulesStub::Perft, req, [](const v1::PerftResponse& resp, std::ostream& out) {
      out << "Nodes searched: " << resp.nodes() << "\n";
    });
  }
  err << "arbiterctl rules: validate | status | apply | legal | perft\n";
  return 2;
}

}  // namespace

int RunClient(const ClientArgs& args, std::ostream& out, std::ostream& err) {
  if (args.positional.empty()) return 2;
  if (args.positional[0] == "health") return Health(args, out, err);
  if (args.positional[0] == "rules") return Rules(args, out, err);
  return 2;
}

}  // namespace arbiterctl
