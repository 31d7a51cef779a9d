// Readiness that follows the store: a thread that, every second, tries to connect the
// store-backed modules that have not reached their store yet (Connect; on the first success their
// service is opened to calls and the module started) and pings the others (Ping). Each service's
// health status follows: SERVING while its store answers, NOT_SERVING while it does not. The
// process's status ("", liveness) is not touched: a process whose store is down is alive, and
// restarting it would not bring the store back.
//
//   StoreReadiness readiness(server, env, modules, connected, absl::Seconds(1));
//   readiness.Start();  ...  readiness.Stop();  // before the modules' Stop
#ifndef ARBITER_LIBS_SERVICE_READINESS_H_
#define ARBITER_LIBS_SERVICE_READINESS_H_

#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "libs/service/module.h"
#include "libs/service/server.h"

namespace service {

// The message of a call to a service whose store was never reached (UNAVAILABLE ERR_NOT_READY).
std::string NotReadyMessage(absl::string_view service, const absl::Status& cause);

class StoreReadiness {
 public:
  struct Watched {
    ServiceModule* module;
    std::string name;  // the gRPC service name, for health
    bool connected;    // Connect has succeeded (and Start was called)
  };
  StoreReadiness(Server* server, ServiceEnv* env, std::vector<Watched> watched,
                 absl::Duration interval);
  ~StoreReadiness() { Stop(); }

  void Start();
  // Joins the thread (after a check it is in); idempotent.
  void Stop();
  // One round: Connect or Ping each watched module, then set its status (tests call it).
  void CheckOnce();

 private:
  Server* const server_;
  ServiceEnv* const env_;
  std::vector<Watched> watched_;
  std::vector<bool> up_;       // the last Ping's answer, to log changes only
  std::vector<int> failures_;  // failed Connects, to log one in 30
  const absl::Duration interval_;
  absl::Notification stop_;
  std::thread thread_;
};

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_READINESS_H_
