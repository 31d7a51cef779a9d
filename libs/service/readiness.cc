#include "libs/service/readiness.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "libs/base/error.h"
#include "libs/service/log.h"

namespace service {

std::string NotReadyMessage(absl::string_view service, const absl::Status& cause) {
  return absl::StrCat(service,
                      " is not serving yet: its store has not answered since the server started (",
                      cause.message(), "); retrying every second");
}

StoreReadiness::StoreReadiness(Server* server, ServiceEnv* env, std::vector<Watched> watched,
                               absl::Duration interval)
    : server_(server), env_(env), watched_(std::move(watched)), interval_(interval) {
  for (const Watched& w : watched_) up_.push_back(w.connected);
  failures_.assign(watched_.size(), 0);
}

void StoreReadiness::Start() {
  if (watched_.empty() || thread_.joinable()) return;
  thread_ = std::thread([this] {
    while (!stop_.WaitForNotificationWithTimeout(interval_)) CheckOnce();
  });
}

void StoreReadiness::Stop() {
  if (!stop_.HasBeenNotified()) stop_.Notify();
  if (thread_.joinable()) thread_.join();
}

void StoreReadiness::CheckOnce() {
  for (size_t i = 0; i < watched_.size(); ++i) {
    if (server_->shutting_down()) return;
    Watched& w = watched_[i];
    if (!w.connected) {
      absl::Status connected = w.module->Connect();
      if (!connected.ok()) {
        env_->SetNotReady(w.name, NotReadyMessage(w.name, connected));
        // Once every 30 tries (about half a minute): the outage stays visible in the log.
        if (++failures_[i] % 30 == 0) {
          Log(LogLevel::kWarning, "the store still does not answer: not serving",
              {{"service", w.name},
               {"code", base::ErrorCode(connected)},
               {"error", std::string(connected.message())}});
        }
        continue;
      }
      w.connected = true;
      up_[i] = true;
      w.module->Start();
      env_->SetReady(w.name);
      server_->health()->Follow(w.name, true);
      Log(LogLevel::kInfo, "the store answers: serving", {{"service", w.name}});
      continue;
    }
    absl::Status ping = w.module->Ping();
    server_->health()->Follow(w.name, ping.ok());
    if (ping.ok() != up_[i]) {
      up_[i] = ping.ok();
      if (ping.ok()) {
        Log(LogLevel::kInfo, "the store answers again: SERVING", {{"service", w.name}});
      } else {
        Log(LogLevel::kWarning, "the store does not answer: NOT_SERVING",
            {{"service", w.name},
             {"code", base::ErrorCode(ping)},
             {"error", std::string(ping.message())}});
      }
    }
  }
}

}  // namespace service
