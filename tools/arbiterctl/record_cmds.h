// arbiterctl's signed-record commands (libs/record, docs/RECORDS.md):
//
//   arbiterctl record keygen --private-key PATH [--public-key PATH]
//       a new Ed25519 key: the private key to PATH (PEM PKCS#8, mode 0600, never over an existing
//       file), the public key (PEM) on stdout and to --public-key; its key id on stderr
//   arbiterctl record verify --record FILE (--public-key FILE | --keys FILE) [--json]
//       checks the signed record offline: exit 0 and what it attests, or exit 1 and why not
//       (the stable ERR_RECORD_... code and the precise reason)
//   arbiterctl record get --game ID [--block]   (a client command: GetSignedRecord)
//   arbiterctl record keys                      (a client command: GetRecordKeys, as PEM)
//
// Exit codes: 0 done (verify: the record is intact and signed by one of the keys), 1 the record
// does not verify, 2 an error (usage, a file, a key file, an RPC).
#ifndef ARBITER_TOOLS_ARBITERCTL_RECORD_CMDS_H_
#define ARBITER_TOOLS_ARBITERCTL_RECORD_CMDS_H_

#include <iosfwd>

#include "tools/arbiterctl/args.h"

namespace arbiterctl {

inline constexpr const char* kRecordFlags[] = {"private-key", "public-key", "keys",
                                               "record",      "game",       "block"};

int RunRecord(const Args& args, std::ostream& out, std::ostream& err);

}  // namespace arbiterctl

#endif  // ARBITER_TOOLS_ARBITERCTL_RECORD_CMDS_H_
