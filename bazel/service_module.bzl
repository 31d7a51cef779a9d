"""A service as arbiterd hosts it: the CreateModule services/modules.h declares."""

def service_module(deps):
    """The package's "module" library: module.cc, its CreateModule, for services/arbiterd.

    Args:
      deps: what module.cc builds the service from (the service, its host or flags);
        libs/service:module, services:modules and absl are added.
    """
    native.cc_library(
        name = "module",
        visibility = ["//services/arbiterd:__pkg__"],
        srcs = ["module.cc"],
        deps = deps + [
            "//libs/service:module",
            "//services:modules",
            "@system_absl//:lib",
        ],
    )
