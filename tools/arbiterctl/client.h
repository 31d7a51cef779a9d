// arbiterctl's client commands: call a running Arbiter server over gRPC.
//   arbiterctl [--server=host:port] [--token=JWT] [--tls_ca=PEM [--tls_cert=PEM --tls_key=PEM]]
//     health [--service NAME] [--json]
//     rules validate --fen <FEN|startpos> --move <UCI|SAN> [--json]
//     rules status --fen <FEN|startpos> [--moves m1,m2,...] [--edition fide2023] [--json]
//     rules apply --fen <FEN|startpos> --moves m1,m2,... [--json]
//     rules legal --fen <FEN|startpos> [--json]
//     rules perft --fen <FEN|startpos> --depth N [--json]
// Exit codes: 0 done (for validate: the move is legal), 1 an answer of "no" (illegal move,
// NOT_SERVING), 2 an error (with its gRPC code and stable ERR_ code on stderr, or in the JSON).
#ifndef ARBITER_TOOLS_ARBITERCTL_CLIENT_H_
#define ARBITER_TOOLS_ARBITERCTL_CLIENT_H_

#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "tools/arbiterctl/args.h"

namespace arbiterctl {

// The flags every client command reads (the channel, the token, the deadline, --json), and those
// of `health` and `rules` besides.
inline constexpr const char* kConnectionFlags[] = {"server",  "token",      "tls_ca", "tls_cert",
                                                   "tls_key", "timeout_ms", "json"};
inline constexpr const char* kRulesFlags[] = {"service", "fen",   "move",   "moves",
                                              "edition", "depth", "letters"};

int RunClient(const ClientArgs& args, std::ostream& out, std::ostream& err);

// For every client command: the channel to --server (TLS with --tls_ca, mutual with
// --tls_cert/--tls_key), and a call's metadata (--token) and deadline (--timeout_ms, 10 s by
// default; with `deadline` false, none unless --timeout_ms is given, as a watch needs).
std::shared_ptr<grpc::Channel> Connect(const ClientArgs& args);
void Prepare(const ClientArgs& args, grpc::ClientContext* ctx, bool deadline = true);

}  // namespace arbiterctl

#endif  // ARBITER_TOOLS_ARBITERCTL_CLIENT_H_
