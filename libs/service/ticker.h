// A thread that does something every period until stopped: the gauges a host refreshes every
// second (services/arbitration, services/clock_authority), the analysis service's worker gauges.
//
//   ticker_.Start(absl::Seconds(1), [this] { metrics_->Tick(...); });
//   ...
//   ticker_.Stop();  // or the destructor
#ifndef ARBITER_LIBS_SERVICE_TICKER_H_
#define ARBITER_LIBS_SERVICE_TICKER_H_

#include <functional>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

namespace service {

class Ticker {
 public:
  Ticker() = default;
  ~Ticker() { Stop(); }

  Ticker(const Ticker&) = delete;
  Ticker& operator=(const Ticker&) = delete;

  // Calls `tick` every `period` (the first after one period) on a thread of its own; nothing
  // when it runs already. Once stopped, it does not start again.
  void Start(absl::Duration period, std::function<void()> tick);
  // Stops the thread (after a tick it is in) and joins it; idempotent.
  void Stop();

 private:
  absl::Notification stop_;
  std::thread thread_;
};

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_TICKER_H_
