// The arbiter's console (--console_address): its page, scripts and styles (static/), embedded in
// the binary by embed.py, served by the server's HTTP gateway beside the API the page calls.
#ifndef ARBITER_SERVICES_CONSOLE_ASSETS_H_
#define ARBITER_SERVICES_CONSOLE_ASSETS_H_

#include <vector>

#include "libs/service/http_gateway.h"

namespace console {

// Every file of static/ at "/<name>" with its content type ("/index.html" is also "/").
std::vector<service::StaticFile> Files();

}  // namespace console

#endif  // ARBITER_SERVICES_CONSOLE_ASSETS_H_
