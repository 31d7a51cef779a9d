"""A repository rule that turns a pkg-config module set into a cc_library, so that Bazel links the
system (Debian) libraries and never downloads anything."""

def _system_library_impl(ctx):
    args = ["pkg-config", "--cflags", "--libs"] + ctx.attr.modules
    result = ctx.execute(args)
    if result.return_code != 0:
        fail("pkg-config failed for %s: %s (install the Debian -dev packages; see README)" %
             (ctx.attr.modules, result.stderr))
    defines = []
    includes = []
    linkopts = []
    for flag in result.stdout.strip().split(" "):
        if not flag:
            continue
        if flag.startswith("-D"):
            defines.append(flag[2:])
        elif flag.startswith("-I"):
            # System include directories are already on the compiler's path.
            pass
        elif flag.startswith("-pthread"):
            linkopts.append(flag)
        else:
            linkopts.append(flag)
    linkopts = ctx.attr.linkopts_prefix + linkopts + ctx.attr.extra_linkopts
    ctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % ctx.name)
    ctx.file("BUILD.bazel", """
package(default_visibility = ["//visibility:public"])
cc_library(
    name = "lib",
    defines = {defines},
    linkopts = {linkopts},
)
""".format(defines = repr(defines), linkopts = repr(linkopts)))

system_library = repository_rule(
    implementation = _system_library_impl,
    attrs = {
        "modules": attr.string_list(mandatory = True),
        "extra_linkopts": attr.string_list(default = []),
        "linkopts_prefix": attr.string_list(default = []),
    },
    local = True,
)
