// ExecuteAsync as a test sends it, and the commands an observer saw finish. Send: the answer once
// the callback ran (nullopt while it has not), the offload run on the caller's thread and counted.
//
//   auto r = ledger::testing::Send(authority, "g1", press, {.command_id = "m1"}, &offloaded);
//   store.Flush();  // a DeferredStore answers the append
//   ASSERT_TRUE(r->has_value());
#ifndef ARBITER_LIBS_LEDGER_TESTING_SEND_H_
#define ARBITER_LIBS_LEDGER_TESTING_SEND_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"

namespace ledger::testing {

// `authority`: a GameAuthority, a ClockAuthority or a ledger::Authority.
template <typename Authority, typename Command, typename Options>
auto Send(Authority& authority, const std::string& game, const Command& command,
          const Options& options, int* offloaded = nullptr) {
  using Answer = std::decay_t<decltype(authority.Get(game))>;  // absl::StatusOr<Result>
  auto out = std::make_shared<std::optional<Answer>>();
  authority.ExecuteAsync(
      game, command, options,
      [offloaded](std::function<void()> work) {
        if (offloaded != nullptr) ++*offloaded;
        work();
      },
      [out](Answer r) {
        EXPECT_FALSE(out->has_value()) << "answered twice";
        *out = std::move(r);
      });
  return out;
}

// An authority's observer (`Observer`: either domain's) that counts the commands it finished,
// and those that failed.
template <typename Observer>
class CommandCounter : public Observer {
 public:
  void OnCommand(absl::string_view, const absl::Status& status) override {
    ++commands;
    if (!status.ok()) ++failed;
  }
  int commands = 0;
  int failed = 0;
};

}  // namespace ledger::testing

#endif  // ARBITER_LIBS_LEDGER_TESTING_SEND_H_
