// A store whose AppendAsync is answered later, when the test says (as the Redis store's lanes
// answer after other writers may have gone first); every other call goes to the inner store.
//
//   store::testing::DeferredStore deferred(&memory);
//   authority.ExecuteAsync(...);   // the append waits in deferred.queued()
//   deferred.Flush();              // now it runs, and its callback
#ifndef ARBITER_LIBS_STORE_TESTING_DEFERRED_STORE_H_
#define ARBITER_LIBS_STORE_TESTING_DEFERRED_STORE_H_

#include <cstddef>
#include <utility>
#include <vector>

#include "libs/store/forwarding_store.h"

namespace store::testing {

class DeferredStore final : public ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;

  void AppendAsync(AppendRequest request, AppendCallback done) override {
    queued_.push_back({std::move(request), std::move(done)});
  }
  // Runs the queued appends, in order, and their callbacks.
  void Flush() {
    std::vector<std::pair<AppendRequest, AppendCallback>> queued;
    queued.swap(queued_);
    for (auto& [request, done] : queued) done(inner()->Append(request));
  }
  size_t queued() const { return queued_.size(); }

 private:
  std::vector<std::pair<AppendRequest, AppendCallback>> queued_;
};

}  // namespace store::testing

#endif  // ARBITER_LIBS_STORE_TESTING_DEFERRED_STORE_H_
