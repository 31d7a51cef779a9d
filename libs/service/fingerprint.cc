#include "libs/service/fingerprint.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"

namespace service {

std::string RequestFingerprint(absl::string_view method, const google::protobuf::Message& request) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream out(&stream);
    out.SetSerializationDeterministic(true);
    request.SerializeToCodedStream(&out);
  }
  std::uint64_t a = 14695981039346656037ull;
  std::uint64_t b = 0x6c62272e07bb0142ull;
  for (unsigned char c : bytes) {
    a = (a ^ c) * 1099511628211ull;
    b = (b ^ c) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull;
  }
  return absl::StrCat(method, ":", absl::Hex(a, absl::kZeroPad16), absl::Hex(b, absl::kZeroPad16));
}

}  // namespace service
