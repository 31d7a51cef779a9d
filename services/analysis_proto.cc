#include "services/analysis_proto.h"

#include <utility>

#include "services/enum_table.h"

namespace services {
namespace {

namespace v1 = arbiter::v1;

constexpr std::pair<analysis::Verdict, v1::Verdict> kVerdicts[] = {
    {analysis::Verdict::kWinnable, v1::VERDICT_WINNABLE},
    {analysis::Verdict::kUnwinnable, v1::VERDICT_UNWINNABLE},
    {analysis::Verdict::kUndetermined, v1::VERDICT_UNDETERMINED}};

constexpr std::pair<analysis::Method, v1::ProofMethod> kMethods[] = {
    {analysis::Method::kGameOver, v1::PROOF_METHOD_GAME_OVER},
    {analysis::Method::kMaterial, v1::PROOF_METHOD_MATERIAL},
    {analysis::Method::kMatePattern, v1::PROOF_METHOD_MATE_PATTERN},
    {analysis::Method::kLockedPawns, v1::PROOF_METHOD_LOCKED_PAWNS},
    {analysis::Method::kExhaustive, v1::PROOF_METHOD_EXHAUSTIVE},
    {analysis::Method::kSearch, v1::PROOF_METHOD_SEARCH},
    {analysis::Method::kLimit, v1::PROOF_METHOD_LIMIT}};

// The table read from right to left.
template <typename From, typename To, std::size_t N>
constexpr From MapEnumBack(To to, const std::pair<From, To> (&table)[N], From otherwise) {
  for (const auto& [key, value] : table) {
    if (value == to) return key;
  }
  return otherwise;
}

}  // namespace

v1::Verdict VerdictProto(analysis::Verdict v) {
  return MapEnum(v, kVerdicts, v1::VERDICT_UNSPECIFIED);
}

analysis::Verdict VerdictOf(v1::Verdict v) {
  return MapEnumBack(v, kVerdicts, analysis::Verdict::kUndetermined);
}

v1::ProofMethod MethodProto(analysis::Method m) {
  return MapEnum(m, kMethods, v1::PROOF_METHOD_UNSPECIFIED);
}

analysis::Method MethodOf(v1::ProofMethod m) {
  return MapEnumBack(m, kMethods, analysis::Method::kLimit);
}

}  // namespace services
