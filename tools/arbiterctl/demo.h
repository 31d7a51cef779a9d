// `arbiterctl demo`: a short game a person can follow, showing what the rules core rules on:
// moves validated, an illegal move refused with its reason and code, check, a claimable draw.
#ifndef ARBITER_TOOLS_ARBITERCTL_DEMO_H_
#define ARBITER_TOOLS_ARBITERCTL_DEMO_H_

#include <iosfwd>

namespace arbiterctl {

int RunDemo(std::ostream& out);

}  // namespace arbiterctl

#endif  // ARBITER_TOOLS_ARBITERCTL_DEMO_H_
