// arbiterctl's one argument parser, one reader of flag values and one error printer, shared by
// every command.
//
//   Args args = Args::Parse(argc, argv, {"json", "divide"});  // "--json" takes no value
//   FlagReader flags(args);
//   v1::Color side = flags.Side();                 // --side white|black, required
//   if (!flags.ok()) return Usage(err, "clock", flags.error());
//   ... if (!status.ok()) return PrintRpcError(status, json, out, err);
#ifndef ARBITER_TOOLS_ARBITERCTL_ARGS_H_
#define ARBITER_TOOLS_ARBITERCTL_ARGS_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "grpcpp/grpcpp.h"
#include "proto/arbiter/v1/common.pb.h"
#include "tools/arbiterctl/names.h"

namespace arbiterctl {

namespace v1 = arbiter::v1;

// Positional arguments and --flag / --flag=value / --flag value options; the flags named in
// `boolean_flags` take no value ("--json" is "true").
struct Args {
  std::vector<std::string> positional;  // e.g. {"clock", "press"}
  std::map<std::string, std::string> flags;

  static Args Parse(int argc, const char* const* argv,
                    const std::vector<std::string>& boolean_flags);
  bool Has(const std::string& name) const { return flags.count(name) > 0; }
  std::string Get(const std::string& name, const std::string& fallback = "") const {
    auto it = flags.find(name);
    return it == flags.end() ? fallback : it->second;
  }
};
using ClientArgs = Args;

// Reads flag values; the first bad one is remembered (and the command is not sent).
class FlagReader {
 public:
  explicit FlagReader(const Args& args) : args_(args) {}
  const std::string& error() const { return error_; }
  bool ok() const { return error_.empty(); }
  void Fail(const std::string& message) {
    if (error_.empty()) error_ = message;
  }

  // "white"/"w", "black"/"b".
  v1::Color Color(const std::string& text, const std::string& flag);
  v1::Color Color(const std::string& flag) { return Color(args_.Get(flag), flag); }
  // --side, required.
  v1::Color Side();
  // A required integer.
  std::int64_t Int(const std::string& flag);
  // A required non-empty value.
  std::string Required(const std::string& flag);
  // A flag given alone ("--accept") or as "--accept=true|false"; false when absent.
  bool Bool(const std::string& flag);
  // "fide1997" ... "fide2023" (or "2001"), read by libs/clock's ParseEdition.
  v1::Edition Edition(const std::string& text);
  // "standard", "rapid", "blitz".
  v1::GameType GameType(const std::string& text);
  // The value `text` names in `names` (names.h), else a failure with `message` (for a required
  // flag left empty, its own failure came first and stands).
  template <typename Enum, std::size_t N>
  Enum OneOf(const std::string& text, const EnumName<Enum> (&names)[N],
             const std::string& message) {
    const std::optional<Enum> value = ValueNamed(names, text);
    if (!value.has_value()) Fail(message);
    return value.value_or(Enum{});
  }

 private:
  const Args& args_;
  std::string error_;
};

// The fields every mutating command shares: --game, [--command-id] (a retry with the same id is
// replayed), [--expected-version].
template <typename Request>
void SetCommandFields(const Args& args, FlagReader& flags, Request* req) {
  req->set_game_id(args.Get("game"));
  if (args.Has("command-id")) req->set_command_id(args.Get("command-id"));
  if (args.Has("expected-version")) req->set_expected_version(flags.Int("expected-version"));
}

// The error for the first flag of `args` that is not in `known` ("unknown flag --ca; did you mean
// --tls_ca?"), or "" when every flag is known. A flag the command does not read must not pass
// silently: a mistyped --ca for --tls_ca would send the call in plaintext and fail later with a
// misleading UNAVAILABLE.
std::string UnknownFlag(const Args& args, const std::vector<std::string>& known);

// A usage error of `command` ("clock", "game", ...): the message and the usage line; exit 2.
int Usage(std::ostream& err, const std::string& command, const std::string& usage,
          const std::string& message);

// An RPC failure: the gRPC code with the stable ERR_ code, on stderr, or as {"error": {...}} on
// stdout with --json; exit 2.
int PrintRpcError(const grpc::Status& status, bool json, std::ostream& out, std::ostream& err);

// A local failure (a bad FEN, a file not found): "arbiterctl: ERR_...: message" on stderr; exit 2.
int PrintError(const absl::Status& status, std::ostream& err);

}  // namespace arbiterctl

#endif  // ARBITER_TOOLS_ARBITERCTL_ARGS_H_
