// A store that keeps count of the asynchronous appends sent through it until each has called back,
// so that whoever owns what those callbacks call into (an authority, its observers, the service
// that replies) can wait for them before destroying it. The Redis store answers an append on its
// I/O thread, possibly after the host that sent it began to tear down: without the wait, the
// answer runs into a destroyed authority (libs/service/module.h: a host's Stop).
//
//   ledger::DrainingStore appends(store.get());   // the authority writes through it
//   ClockAuthority authority(&appends, ...);
//   ...  appends.Drain();  // no append in flight, none accepted; then destroy the authority
#ifndef ARBITER_LIBS_LEDGER_DRAINING_STORE_H_
#define ARBITER_LIBS_LEDGER_DRAINING_STORE_H_

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "libs/store/forwarding_store.h"

namespace ledger {

class DrainingStore final : public store::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;

  // Forwarded and counted until `done` has returned; once Drain has begun, refused at once
  // (UNAVAILABLE ERR_STORE_UNAVAILABLE: the server is shutting down) without reaching the store.
  void AppendAsync(store::AppendRequest request, AppendCallback done) override;

  // Refuses every later AppendAsync and waits until those in flight have called back. Idempotent.
  void Drain();

  int in_flight();

 private:
  void Answered();

  absl::Mutex mu_;
  int in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  bool draining_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace ledger

#endif  // ARBITER_LIBS_LEDGER_DRAINING_STORE_H_
