#include "libs/service/ticker.h"

#include <utility>

namespace service {

void Ticker::Start(absl::Duration period, std::function<void()> tick) {
  if (thread_.joinable()) return;
  thread_ = std::thread([this, period, tick = std::move(tick)] {
    while (!stop_.WaitForNotificationWithTimeout(period)) tick();
  });
}

void Ticker::Stop() {
  if (!stop_.HasBeenNotified()) stop_.Notify();
  if (thread_.joinable()) thread_.join();
}

}  // namespace service
