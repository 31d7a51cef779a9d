#include "libs/ledger/draining_store.h"

#include <utility>

#include "libs/base/error.h"
#include "libs/store/errors.h"

namespace ledger {

void DrainingStore::AppendAsync(store::AppendRequest request, AppendCallback done) {
  bool refused = false;
  {
    absl::MutexLock lock(&mu_);
    refused = draining_;
    if (!refused) ++in_flight_;
  }
  if (refused) {
    return done(base::Error(store::kErrStoreUnavailable,
                            "the server is shutting down: the append was not sent"));
  }
  inner()->AppendAsync(std::move(request),
                       [this, done = std::move(done)](absl::StatusOr<store::AppendResult> result) {
                         done(std::move(result));
                         Answered();
                       });
}

void DrainingStore::Answered() {
  absl::MutexLock lock(&mu_);
  --in_flight_;
}

void DrainingStore::Drain() {
  absl::MutexLock lock(&mu_);
  draining_ = true;
  mu_.Await(absl::Condition(
      +[](int* in_flight) { return *in_flight == 0; }, &in_flight_));
}

int DrainingStore::in_flight() {
  absl::MutexLock lock(&mu_);
  return in_flight_;
}

}  // namespace ledger
