// The store's address as --store names it (ParseRedisUrl) and its password file.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "libs/base/error.h"
#include "libs/store/game_store.h"
#include "libs/store/redis_client.h"

namespace store {
namespace {

absl::Status BadUrl(absl::string_view url, absl::string_view why) {
  return base::Error(base::kErrBadArgument, absl::StrCat("redis URL ", url, ": ", why));
}

// host[:port] or [v6]:port, with `default_port` when none is given.
absl::StatusOr<RedisAddress> ParseHostPort(absl::string_view url, absl::string_view rest,
                                           int default_port) {
  RedisAddress a{std::string(rest), default_port};
  if (absl::StartsWith(rest, "[")) {  // [::1]:6379
    size_t close = rest.find(']');
    if (close == absl::string_view::npos) return BadUrl(url, "unclosed '[' in the host");
    a.host = std::string(rest.substr(1, close - 1));
    rest = rest.substr(close + 1);
    if (!rest.empty() && !absl::ConsumePrefix(&rest, ":")) return BadUrl(url, "bad port");
    if (!rest.empty() && (!absl::SimpleAtoi(rest, &a.port) || a.port <= 0 || a.port > 65535)) {
      return BadUrl(url, "bad port");
    }
  } else if (size_t colon = rest.rfind(':'); colon != absl::string_view::npos) {
    a.host = std::string(rest.substr(0, colon));
    if (!absl::SimpleAtoi(rest.substr(colon + 1), &a.port) || a.port <= 0 || a.port > 65535) {
      return BadUrl(url, "bad port");
    }
  }
  if (a.host.empty()) return BadUrl(url, "needs a host");
  return a;
}

}  // namespace

absl::StatusOr<std::string> ReadRedisPasswordFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return base::Error(base::kErrBadArgument,
                       absl::StrCat("password file ", path, ": ", std::strerror(errno)));
  }
  // A secret is 64 bytes or so: read a little more than the longest one accepted, no more.
  std::string text(8192, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  absl::string_view password = absl::StripAsciiWhitespace(text);
  if (password.empty()) {
    return base::Error(base::kErrBadArgument, absl::StrCat("password file ", path, " is empty"));
  }
  if (password.size() > 4096 || std::any_of(password.begin(), password.end(),
                                            [](char ch) { return ch == '\n' || ch == '\r'; })) {
    return base::Error(base::kErrBadArgument,
                       absl::StrCat("password file ", path,
                                    ": expected one line (the password), at most 4096 bytes"));
  }
  return std::string(password);
}

absl::StatusOr<RedisConnectionOptions> ParseRedisUrl(absl::string_view url) {
  absl::string_view rest = url;
  // First of all, as every other error echoes the URL: a password in it is refused unechoed.
  absl::string_view authority = rest.substr(0, rest.find('?'));
  if (size_t scheme = authority.find("://"); scheme != absl::string_view::npos) {
    authority.remove_prefix(scheme + 3);
  }
  if (size_t at = authority.rfind('@');
      at != absl::string_view::npos &&
      authority.substr(0, at).find(':') != absl::string_view::npos) {
    return base::Error(base::kErrBadArgument,
                       "redis URL: a password in the URL is refused (it would show in process "
                       "listings and logs): give it in a file (--store_password_file)");
  }
  bool sentinel = false;
  bool cluster = false;
  if (absl::ConsumePrefix(&rest, "redis+sentinel://")) {
    sentinel = true;
  } else if (absl::ConsumePrefix(&rest, "redis+cluster://")) {
    cluster = true;
  } else if (!absl::ConsumePrefix(&rest, "redis://")) {
    return BadUrl(url, "expected redis://, redis+sentinel:// or redis+cluster://");
  }
  RedisConnectionOptions options;
  std::string password_file;
  std::string sentinel_password_file;
  if (size_t q = rest.find('?'); q != absl::string_view::npos) {
    for (absl::string_view param : absl::StrSplit(rest.substr(q + 1), '&', absl::SkipEmpty())) {
      absl::string_view value = param;
      if (absl::ConsumePrefix(&value, "password_file=") && !value.empty()) {
        password_file = std::string(value);
      } else if (absl::ConsumePrefix(&value, "sentinel_password_file=") && !value.empty()) {
        if (!sentinel) return BadUrl(url, "sentinel_password_file is for redis+sentinel://");
        sentinel_password_file = std::string(value);
      } else if (absl::ConsumePrefix(&value, "min_replica_acks=")) {
        if (!absl::SimpleAtoi(value, &options.min_replica_acks) || options.min_replica_acks < 0 ||
            options.min_replica_acks > 16) {
          return BadUrl(url, "min_replica_acks must be in 0..16");
        }
      } else if (absl::ConsumePrefix(&value, "replica_ack_timeout=")) {
        if (!absl::ParseDuration(value, &options.replica_ack_timeout) ||
            options.replica_ack_timeout < absl::Milliseconds(1) ||
            options.replica_ack_timeout > absl::Seconds(10)) {
          return BadUrl(url, "replica_ack_timeout must be a duration in 1ms..10s (e.g. 100ms)");
        }
      } else {
        return BadUrl(url, absl::StrCat("unknown parameter '", param,
                                        "' (known: password_file, sentinel_password_file, "
                                        "min_replica_acks, replica_ack_timeout)"));
      }
    }
    rest = rest.substr(0, q);
  }
  if (size_t at = rest.rfind('@'); at != absl::string_view::npos) {
    absl::string_view user = rest.substr(0, at);  // no ':' (checked above)
    if (user.empty()) return BadUrl(url, "empty user before '@'");
    options.user = std::string(user);
    rest = rest.substr(at + 1);
  }
  if (sentinel) {
    size_t slash = rest.find('/');
    if (slash == absl::string_view::npos || slash + 1 == rest.size()) {
      return BadUrl(url, "expected redis+sentinel://host:port,.../MASTER_NAME");
    }
    options.master_name = std::string(rest.substr(slash + 1));
    if (options.master_name.find_first_of("/ ") != std::string::npos) {
      return BadUrl(url, "bad master name");
    }
    for (absl::string_view one : absl::StrSplit(rest.substr(0, slash), ',')) {
      absl::StatusOr<RedisAddress> a = ParseHostPort(url, one, 26379);
      if (!a.ok()) return a.status();
      options.sentinels.push_back(*std::move(a));
    }
    // host/port stay at their defaults: unused with Sentinel.
  } else if (cluster) {
    if (rest.find('/') != absl::string_view::npos) {
      return BadUrl(url, "a database or path is not supported (Redis Cluster has database 0 only)");
    }
    for (absl::string_view one : absl::StrSplit(rest, ',')) {
      absl::StatusOr<RedisAddress> a = ParseHostPort(url, one, 6379);
      if (!a.ok()) return a.status();
      options.cluster_nodes.push_back(*std::move(a));
    }
    // host/port stay at their defaults: unused on a cluster (the map names the masters).
  } else {
    if (rest.find('/') != absl::string_view::npos) {
      return BadUrl(url, "a database or path is not supported (the store uses database 0)");
    }
    absl::StatusOr<RedisAddress> a = ParseHostPort(url, rest, 6379);
    if (!a.ok()) return a.status();
    options.host = a->host;
    options.port = a->port;
  }
  if (!password_file.empty()) {
    absl::StatusOr<std::string> password = ReadRedisPasswordFile(password_file);
    if (!password.ok()) return password.status();
    options.password = *std::move(password);
  } else if (!options.user.empty()) {
    return BadUrl(url, absl::StrCat("user '", options.user,
                                    "' without a password file (--store_password_file)"));
  }
  if (!sentinel_password_file.empty()) {
    absl::StatusOr<std::string> password = ReadRedisPasswordFile(sentinel_password_file);
    if (!password.ok()) return password.status();
    options.sentinel_password = *std::move(password);
  }
  return options;
}

}  // namespace store
