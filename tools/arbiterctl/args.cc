#include "tools/arbiterctl/args.h"

#include <algorithm>
#include <cstddef>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "libs/base/error.h"
#include "libs/laws/edition.h"
#include "libs/laws/proto_convert.h"
#include "libs/service/grpc_status.h"
#include "nlohmann/json.hpp"

namespace arbiterctl {

Args Args::Parse(int argc, const char* const* argv, const std::vector<std::string>& boolean_flags) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0) {
      args.positional.push_back(a);
      continue;
    }
    a = a.substr(2);
    const size_t eq = a.find('=');
    if (eq != std::string::npos) {
      args.flags[a.substr(0, eq)] = a.substr(eq + 1);
    } else if (std::find(boolean_flags.begin(), boolean_flags.end(), a) != boolean_flags.end()) {
      args.flags[a] = "true";
    } else if (i + 1 < argc) {
      args.flags[a] = argv[++i];
    } else {
      args.flags[a] = "";
    }
  }
  return args;
}

namespace {

// Edit distance, with '-' and '_' the same letter (the server's flags use '_', the commands' '-').
std::size_t Distance(const std::string& a, const std::string& b) {
  auto same = [](char x, char y) {
    return x == y || ((x == '-' || x == '_') && (y == '-' || y == '_'));
  };
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] =
          std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same(a[i - 1], b[j - 1]) ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// Whether `name` is one of the '-'/'_'-separated words of `flag` ("ca" of "tls_ca").
bool IsWordOf(const std::string& name, const std::string& flag) {
  for (absl::string_view word : absl::StrSplit(flag, absl::ByAnyChar("-_"))) {
    if (word == name) return true;
  }
  return false;
}

}  // namespace

std::string UnknownFlag(const Args& args, const std::vector<std::string>& known) {
  for (const auto& [name, value] : args.flags) {
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    // The closest known flag, if it is close: two edits, or a word of it.
    const std::string* closest = nullptr;
    std::size_t best = 3;
    for (const std::string& flag : known) {
      const std::size_t d = IsWordOf(name, flag) ? 0 : Distance(name, flag);
      if (d < best) best = d, closest = &flag;
    }
    return absl::StrCat("unknown flag --", name,
                        closest == nullptr ? "" : absl::StrCat("; did you mean --", *closest, "?"));
  }
  return "";
}

v1::Color FlagReader::Color(const std::string& text, const std::string& flag) {
  if (text == "white" || text == "w") return v1::COLOR_WHITE;
  if (text == "black" || text == "b") return v1::COLOR_BLACK;
  Fail(absl::StrCat("--", flag, " must be white or black, got \"", text, "\""));
  return v1::COLOR_UNSPECIFIED;
}

v1::Color FlagReader::Side() {
  if (!args_.Has("side")) {
    Fail("--side white|black is required");
    return v1::COLOR_UNSPECIFIED;
  }
  return Color(args_.Get("side"), "side");
}

std::int64_t FlagReader::Int(const std::string& flag) {
  std::int64_t v = 0;
  if (!args_.Has(flag)) {
    Fail(absl::StrCat("--", flag, " is required"));
  } else if (!absl::SimpleAtoi(args_.Get(flag), &v)) {
    Fail(absl::StrCat("--", flag, " must be an integer, got \"", args_.Get(flag), "\""));
  }
  return v;
}

std::string FlagReader::Required(const std::string& flag) {
  if (!args_.Has(flag) || args_.Get(flag).empty()) Fail(absl::StrCat("--", flag, " is required"));
  return args_.Get(flag);
}

bool FlagReader::Bool(const std::string& flag) {
  if (!args_.Has(flag)) return false;
  const std::string v = args_.Get(flag);
  if (v.empty() || v == "true" || v == "1") return true;
  if (v == "false" || v == "0") return false;
  Fail(absl::StrCat("--", flag, " must be true or false, got \"", v, "\""));
  return false;
}

v1::Edition FlagReader::Edition(const std::string& text) {
  const std::string name = text.rfind("fide", 0) == 0 ? text : "fide" + text;  // "2001" too
  absl::StatusOr<laws::Edition> edition = laws::ParseEdition(name);
  if (!edition.ok()) {
    Fail(absl::StrCat("--edition must be fide1997, fide2001, fide2005 or fide2023, got \"", text,
                      "\""));
    return v1::EDITION_UNSPECIFIED;
  }
  return laws::ToProto(*edition);
}

v1::GameType FlagReader::GameType(const std::string& text) {
  if (text == "standard") return v1::GAME_TYPE_STANDARD;
  if (text == "rapid") return v1::GAME_TYPE_RAPID;
  if (text == "blitz") return v1::GAME_TYPE_BLITZ;
  Fail(absl::StrCat("--game-type must be standard, rapid or blitz, got \"", text, "\""));
  return v1::GAME_TYPE_UNSPECIFIED;
}

int Usage(std::ostream& err, const std::string& command, const std::string& usage,
          const std::string& message) {
  err << "arbiterctl " << command << ": " << message << "\n"
      << "usage: " << usage << "\n";
  return 2;
}

int PrintRpcError(const grpc::Status& status, bool json, std::ostream& out, std::ostream& err) {
  v1::ErrorInfo info = service::ErrorInfoOf(status);
  const std::string grpc_code = service::GrpcCodeName(static_cast<int>(status.error_code()));
  if (json) {
    out << nlohmann::ordered_json{{"error",
                                   {{"grpc_code", grpc_code},
                                    {"code", info.code()},
                                    {"message", status.error_message()}}}}
               .dump()
        << "\n";
  } else {
    err << "arbiterctl: " << grpc_code << (info.code().empty() ? "" : " " + info.code()) << ": "
        << status.error_message() << "\n";
  }
  return 2;
}

int PrintError(const absl::Status& status, std::ostream& err) {
  err << "arbiterctl: " << base::ErrorCode(status) << ": " << status.message() << "\n";
  return 2;
}

}  // namespace arbiterctl
