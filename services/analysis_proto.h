// The search analysis's answers in proto terms and back (proto/arbiter/v1/analysis.proto): what
// the search-analysis service sends and what the arbitration service, asking it, reads.
#ifndef ARBITER_SERVICES_ANALYSIS_PROTO_H_
#define ARBITER_SERVICES_ANALYSIS_PROTO_H_

#include "libs/analysis/unwinnable.h"
#include "proto/arbiter/v1/analysis.pb.h"

namespace services {

arbiter::v1::Verdict VerdictProto(analysis::Verdict v);
// UNSPECIFIED (a reply that names none) reads as undetermined: nothing is proved by it.
analysis::Verdict VerdictOf(arbiter::v1::Verdict v);

arbiter::v1::ProofMethod MethodProto(analysis::Method m);
// UNSPECIFIED reads as the limit (the method of an undetermined answer).
analysis::Method MethodOf(arbiter::v1::ProofMethod m);

}  // namespace services

#endif  // ARBITER_SERVICES_ANALYSIS_PROTO_H_
