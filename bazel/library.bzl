"""A library of <name>.cc and <name>.h, and with `test_deps` its unit test <name>_test.cc."""

load(":tests.bzl", "arbiter_cc_test")

def arbiter_cc_library(name, srcs = None, hdrs = None, test_deps = None, test_size = None, **kwargs):
    """A cc_library of <name>.cc and <name>.h (unless `srcs` / `hdrs` say otherwise).

    Args:
      name: the library's name.
      srcs: its sources; [] for a header-only library.
      hdrs: its headers.
      test_deps: when given, also the arbiter_cc_test <name>_test (of <name>_test.cc) on the
        library and these.
      test_size: that test's size, when not the default.
      **kwargs: deps, visibility, testonly, ... go to the cc_library as they are.
    """
    native.cc_library(
        name = name,
        srcs = srcs if srcs != None else [name + ".cc"],
        hdrs = hdrs if hdrs != None else [name + ".h"],
        **kwargs
    )
    if test_deps != None:
        test_kwargs = {"size": test_size} if test_size else {}
        arbiter_cc_test(
            name = name + "_test",
            deps = [":" + name] + test_deps,
            **test_kwargs
        )
