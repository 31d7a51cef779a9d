#include "tests/bench/bench_util.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <thread>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"

namespace bench {

Percentiles Of(std::vector<double> v) {
  if (v.empty()) return {0, 0, 0, 0};
  std::sort(v.begin(), v.end());
  auto at = [&](size_t per_mille) {
    return v[std::min(v.size() - 1, v.size() * per_mille / 1000)];
  };
  return {at(500), at(990), at(999), v.back()};
}

double CpuSeconds(pid_t pid) {
  std::ifstream in(pid > 0 ? absl::StrCat("/proc/", pid, "/stat") : std::string("/proc/self/stat"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return 0;
  std::vector<std::string> fields = absl::StrSplit(text.substr(close + 2), ' ');
  if (fields.size() < 13) return 0;
  // Fields 14 and 15 of stat (utime, stime) are 11 and 12 after the name and state.
  return static_cast<double>(std::stoll(fields[11]) + std::stoll(fields[12])) /
         static_cast<double>(sysconf(_SC_CLK_TCK));
}

std::vector<double> CpuSeconds(const std::vector<pid_t>& pids) {
  std::vector<double> seconds;
  for (pid_t pid : pids) seconds.push_back(CpuSeconds(pid));
  return seconds;
}

std::int64_t ResidentBytes(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (!absl::StartsWith(line, "VmRSS:")) continue;
    std::int64_t kb = 0;
    if (!absl::SimpleAtoi(absl::StripSuffix(absl::StripAsciiWhitespace(line.substr(6)), " kB"),
                          &kb)) {
      return 0;
    }
    return kb * 1024;
  }
  return 0;
}

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return absl::StrCat(a, " ", b, " ", c);
}

absl::StatusOr<RedisInfo> ReadRedisInfo(const store::testing::RedisServer& redis) {
  absl::StatusOr<std::string> info = redis.Command({"INFO", "all"});
  if (!info.ok()) return info.status();
  RedisInfo out;
  for (absl::string_view line : absl::StrSplit(*info, '\n', absl::SkipEmpty())) {
    line = absl::StripTrailingAsciiWhitespace(line);
    const size_t colon = line.find(':');
    if (colon == absl::string_view::npos) continue;
    const absl::string_view field = line.substr(0, colon);
    std::int64_t* into = field == "used_memory"        ? &out.used_memory
                         : field == "aof_current_size" ? &out.aof_bytes
                         : field == "aof_rewrites"     ? &out.aof_rewrites
                                                       : nullptr;
    if (into != nullptr && !absl::SimpleAtoi(line.substr(colon + 1), into)) {
      return absl::InternalError(absl::StrCat("INFO: unreadable ", line));
    }
  }
  return out;
}

void AofMeter::Start() {
  running_ = true;
  sampler_ = std::thread([this] {
    absl::StatusOr<RedisInfo> last = ReadRedisInfo(redis_);
    const std::int64_t rewrites0 = last.ok() ? last->aof_rewrites : 0;
    while (running_.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      absl::StatusOr<RedisInfo> now = ReadRedisInfo(redis_);
      if (!now.ok()) continue;
      if (last.ok() && now->aof_bytes > last->aof_bytes) {
        bytes_ += now->aof_bytes - last->aof_bytes;
      }
      rewrites_ = now->aof_rewrites - rewrites0;
      last = now;
    }
  });
}

void AofMeter::Stop() {
  if (!running_.exchange(false)) return;
  sampler_.join();
}

absl::StatusOr<Redis> StartRedis(const std::string& appendfsync, const std::string& dir) {
  store::testing::RedisServerOptions options;
  options.appendfsync = appendfsync;
  options.dir = dir;
  absl::StatusOr<std::unique_ptr<store::testing::RedisServer>> server =
      store::testing::RedisServer::Start(options);
  if (!server.ok()) return server.status();
  Redis redis;
  redis.server = *std::move(server);
  if (absl::StatusOr<std::string> info = redis.server->Command({"INFO", "server"}); info.ok()) {
    for (absl::string_view line : absl::StrSplit(*info, absl::ByAnyChar("\r\n"))) {
      if (absl::ConsumePrefix(&line, "process_id:")) (void)absl::SimpleAtoi(line, &redis.pid);
    }
  }
  return redis;
}

std::vector<std::string> WithExtraFlags(std::vector<std::string> flags, absl::string_view extra) {
  for (absl::string_view f : absl::StrSplit(extra, ',', absl::SkipEmpty())) flags.emplace_back(f);
  return flags;
}

std::shared_ptr<grpc::Channel> Channel(int port, std::optional<int> index) {
  grpc::ChannelArguments args;
  if (index.has_value()) args.SetInt("arbiter.channel", *index);
  args.SetInt(GRPC_ARG_ENABLE_RETRIES, 0);
  return grpc::CreateCustomChannel(absl::StrCat("127.0.0.1:", port),
                                   grpc::InsecureChannelCredentials(), args);
}

void PrintCpuPer(const char* unit, const char* units, double operations,
                 const std::vector<double>& before, const std::vector<double>& after,
                 const char* separator) {
  double total = 0;
  std::string parts;
  const char* names[] = {"client", "redis", "server"};
  for (size_t i = 0; i < before.size(); ++i) {
    const double us = (after[i] - before[i]) * 1e6 / operations;
    total += us;
    absl::StrAppend(&parts, i == 0 ? "" : separator, names[std::min<size_t>(i, 2)], " ",
                    static_cast<int>(us));
  }
  std::printf("  CPU per %s: %.0f us (%s); %u cores at 100%% for this alone: %.0f %s/s\n", unit,
              total, parts.c_str(), std::thread::hardware_concurrency(),
              std::thread::hardware_concurrency() * 1e6 / total, units);
}

}  // namespace bench
