// Prints docs/ROLES.md from the policy table of a server hosting every service:
//   bazel run //tests/integration:roles_doc > docs/ROLES.md
#include <iostream>

#include "tests/integration/roles_doc.h"

int main() {
  std::cout << integration::HostedRolesDoc();
  return 0;
}
