"""One small macro: compile .proto files with the system protoc (and grpc_cpp_plugin for services)
into a cc_library. No proto toolchain or download is involved."""

def arbiter_cc_proto(name, srcs, deps = [], proto_deps = [], grpc = False, visibility = None):
    """Generates <name>, a cc_library of the C++ (and gRPC) code for `srcs`.

    Args:
      name: the cc_library's name.
      srcs: .proto files in this package.
      deps: cc deps, usually other arbiter_cc_proto targets whose protos these import.
      proto_deps: the .proto files those imports name (the genrule's sandbox needs them).
      grpc: also generate gRPC service stubs.
      visibility: of the cc_library.
    """
    pkg = native.package_name()
    hdrs = []
    cc_srcs = []
    for src in srcs:
        base = src[:-len(".proto")]
        hdrs.append(base + ".pb.h")
        cc_srcs.append(base + ".pb.cc")
        if grpc:
            hdrs.append(base + ".grpc.pb.h")
            cc_srcs.append(base + ".grpc.pb.cc")
    cmd = "protoc -I. --cpp_out=$(GENDIR) "
    if grpc:
        cmd += "--grpc_out=$(GENDIR) --plugin=protoc-gen-grpc=$$(command -v grpc_cpp_plugin) "
    cmd += " ".join(["%s/%s" % (pkg, s) for s in srcs])
    native.genrule(
        name = name + "_gen",
        srcs = srcs + proto_deps,
        outs = hdrs + cc_srcs,
        cmd = cmd,
    )
    lib_deps = deps + ["@system_protobuf//:lib"]
    if grpc:
        lib_deps.append("@system_grpc//:lib")
    native.cc_library(
        name = name,
        srcs = cc_srcs,
        hdrs = hdrs,
        deps = lib_deps,
        visibility = visibility,
    )
