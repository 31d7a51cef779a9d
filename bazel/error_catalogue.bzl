"""A layer's error catalogue (docs/ERRORS.md): errors.json in, errors.h out.

The JSON is the data (each code, its kErr constant, its absl status code, its meaning);
bazel/gen_errors_header.py writes the header, and the cc_library keeps the name dependents use.
tools/check_error_catalogue.py reads the same JSON files."""

def error_catalogue(name, src = "errors.json", deps = [], visibility = None):
    """Generates <src minus .json>.h and <name>, the cc_library that offers it.

    Args:
      name: the cc_library's name (every layer calls it "errors").
      src: the catalogue in this package.
      deps: the catalogues whose codes this layer answers too (its "also_answers").
      visibility: of the cc_library.
    """
    hdr = src[:-len(".json")] + ".h"
    native.genrule(
        name = name + "_gen",
        srcs = [src],
        outs = [hdr],
        tools = ["//bazel:gen_errors_header.py"],
        cmd = "python3 $(location //bazel:gen_errors_header.py) $(location %s) $@" % src,
    )
    native.cc_library(
        name = name,
        hdrs = [hdr],
        deps = deps + [
            "//libs/base:error",
            "@system_absl//:lib",
        ],
        visibility = visibility,
    )
