// Files for tests: a path in the test's private directory, and a file replaced atomically (as a
// Kubernetes Secret update replaces it: a reader sees the old text or the new, never half).
#ifndef ARBITER_LIBS_BASE_TEST_FILES_H_
#define ARBITER_LIBS_BASE_TEST_FILES_H_

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace base::testing {

// `name` under $TEST_TMPDIR (Bazel's per-test directory), or /tmp.
inline std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir != nullptr ? dir : "/tmp", "/", name);
}

inline void WriteFileAtomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".new";
  std::ofstream(tmp) << text;
  ASSERT_EQ(std::rename(tmp.c_str(), path.c_str()), 0) << path;
}

}  // namespace base::testing

#endif  // ARBITER_LIBS_BASE_TEST_FILES_H_
