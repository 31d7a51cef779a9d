#include "tools/arbiterctl/record_cmds.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "libs/base/error.h"
#include "libs/record/errors.h"
#include "libs/record/record.h"
#include "nlohmann/json.hpp"
#include "proto/arbiter/v1/arbitration.grpc.pb.h"
#include "tools/arbiterctl/client.h"
#include "tools/arbiterctl/errors.h"

namespace arbiterctl {
namespace {

constexpr char kRecordUsage[] =
    "arbiterctl record keygen --private-key PATH [--public-key PATH]\n"
    "  arbiterctl record verify --record FILE (--public-key FILE | --keys FILE) [--json]\n"
    "  arbiterctl record get --game ID [--block]   (--server, --token, ...)\n"
    "  arbiterctl record keys                      (--server, --token, ...)";

using Stub = arbiter::v1::Arbitration::Stub;

absl::StatusOr<std::string> ReadAll(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return base::Error(kErrFileNotFound, absl::StrCat("cannot open ", path));
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// A new file only, readable by its owner alone: a private key is never written over another
// (a rotation keeps the old one until its records' keys are published) nor left readable.
absl::Status WriteNewPrivate(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) {
    return base::Error(kErrFileNotFound,
                       absl::StrCat("cannot create ", path, ": ", std::strerror(errno)));
  }
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!ok) return base::Error(kErrFileNotFound, absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

int Keygen(const Args& args, std::ostream& out, std::ostream& err) {
  const std::string path = args.Get("private-key");
  if (path.empty()) return Usage(err, "record", kRecordUsage, "--private-key PATH is required");
  const record::SigningKey key = record::SigningKey::Generate();
  if (absl::Status st = WriteNewPrivate(path, key.ToPem()); !st.ok()) return PrintError(st, err);
  const std::string public_pem = key.public_key().ToPem();
  if (args.Has("public-key")) {
    std::ofstream pub(args.Get("public-key"), std::ios::binary | std::ios::trunc);
    if (!(pub << public_pem)) {
      return PrintError(
          base::Error(kErrFileNotFound, absl::StrCat("cannot write ", args.Get("public-key"))),
          err);
    }
  }
  out << public_pem;
  err << "key id " << key.key_id() << "\n";
  return 0;
}

int Verify(const Args& args, std::ostream& out, std::ostream& err) {
  const bool json = args.Has("json");
  const std::string record_path = args.Get("record");
  if (record_path.empty() || args.Has("public-key") == args.Has("keys")) {
    return Usage(err, "record", kRecordUsage,
                 "verify needs --record FILE and one of --public-key FILE, --keys FILE");
  }
  const std::string keys_path = args.Has("keys") ? args.Get("keys") : args.Get("public-key");
  absl::StatusOr<std::string> text = ReadAll(record_path);
  if (!text.ok()) return PrintError(text.status(), err);
  absl::StatusOr<record::KeyRing> keys = record::KeyRing::FromFile(keys_path);
  if (!keys.ok()) return PrintError(keys.status(), err);
  absl::StatusOr<record::ParsedRecord> r = record::Verify(*text, *keys);
  if (!r.ok()) {
    if (json) {
      out << nlohmann::ordered_json{{"verified", false},
                                    {"code", base::ErrorCode(r.status())},
                                    {"message", std::string(r.status().message())}}
                 .dump()
          << "\n";
    }
    err << "arbiterctl record verify: " << record_path << ": " << base::ErrorCode(r.status())
        << ": " << r.status().message() << "\n";
    return 1;
  }
  const record::SignatureBlock& b = r->block;
  const std::string signed_at = absl::FormatTime(
      "%Y-%m-%dT%H:%M:%E3SZ", absl::FromUnixMillis(b.signed_at_ms), absl::UTCTimeZone());
  if (json) {
    out << nlohmann::ordered_json{{"verified", true},           {"game_id", b.game_id},
                                  {"version", b.version},       {"result", b.result},
                                  {"signed_at", signed_at},     {"key_id", b.key_id},
                                  {"pgn_sha256", b.pgn_sha256}, {"log_sha256", b.log_sha256}}
               .dump()
        << "\n";
  } else {
    out << "verified: game " << b.game_id << " at version " << b.version << ", result " << b.result
        << ", signed " << signed_at << " with key " << b.key_id << "\n";
  }
  return 0;
}

int Get(const Args& args, std::ostream& out, std::ostream& err) {
  if (args.Get("game").empty()) return Usage(err, "record", kRecordUsage, "--game ID is required");
  std::unique_ptr<Stub> stub = arbiter::v1::Arbitration::NewStub(Connect(args));
  grpc::ClientContext ctx;
  Prepare(args, &ctx);
  arbiter::v1::GetSignedRecordRequest req;
  req.set_game_id(args.Get("game"));
  arbiter::v1::GetSignedRecordReply reply;
  const grpc::Status st = stub->GetSignedRecord(&ctx, req, &reply);
  if (!st.ok()) return PrintRpcError(st, args.Has("json"), out, err);
  if (reply.archived()) err << "archived: the signature block only (the PGN is the platform's)\n";
  out << (args.Has("block") || reply.archived() ? reply.signature_block() : reply.record());
  return 0;
}

int Keys(const Args& args, std::ostream& out, std::ostream& err) {
  std::unique_ptr<Stub> stub = arbiter::v1::Arbitration::NewStub(Connect(args));
  grpc::ClientContext ctx;
  Prepare(args, &ctx);
  arbiter::v1::GetRecordKeysReply reply;
  const grpc::Status st = stub->GetRecordKeys(&ctx, {}, &reply);
  if (!st.ok()) return PrintRpcError(st, args.Has("json"), out, err);
  // A file `record verify --keys` reads: each key's PEM after a comment naming it.
  for (const arbiter::v1::RecordKey& key : reply.keys()) {
    out << "# key id " << key.key_id() << (key.signing() ? " (signing)" : " (rotated out)") << "\n"
        << key.public_key_pem();
  }
  return 0;
}

}  // namespace

int RunRecord(const Args& args, std::ostream& out, std::ostream& err) {
  const std::string sub = args.positional.size() == 2 ? args.positional[1] : "";
  if (sub == "keygen") return Keygen(args, out, err);
  if (sub == "verify") return Verify(args, out, err);
  if (sub == "get") return Get(args, out, err);
  if (sub == "keys") return Keys(args, out, err);
  return Usage(err, "record", kRecordUsage, "record keygen|verify|get|keys");
}

}  // namespace arbiterctl
