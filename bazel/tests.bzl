"""The test shapes the packages repeat: a gtest binary, one that runs servers, one on Redis."""

def arbiter_cc_test(name, srcs = None, deps = [], **kwargs):
    """A cc_test of <name>.cc (unless `srcs` says otherwise) linked with gtest's main.

    Other arguments (size, data, tags, env, shard_count, ...) go to the cc_test as they are."""
    native.cc_test(
        name = name,
        srcs = srcs if srcs != None else [name + ".cc"],
        deps = deps + ["@system_gtest_main//:lib"],
        **kwargs
    )

def integration_cc_test(name, tags = [], **kwargs):
    """An arbiter_cc_test that starts servers or processes: medium, tagged "integration"."""
    arbiter_cc_test(
        name = name,
        size = "medium",
        tags = ["integration"] + tags,
        **kwargs
    )

def redis_cc_test(name, data = [], deps = [], **kwargs):
    """An integration_cc_test on a redis-server it starts (libs/store/testing/redis_server.h) with
    the store's settings (libs/store/redis.conf)."""
    integration_cc_test(
        name = name,
        data = ["//libs/store:redis.conf"] + data,
        deps = deps + ["//libs/store/testing:redis_server"],
        **kwargs
    )

def test_support_library(name, srcs = None, hdrs = None, **kwargs):
    """A testonly cc_library of <name>.cc and <name>.h (unless told otherwise): what tests and
    benchmarks share (servers they start, requests they build, helpers they call).

    Other arguments (deps, data, visibility, ...) go to the cc_library as they are."""
    native.cc_library(
        name = name,
        testonly = True,
        srcs = srcs if srcs != None else [name + ".cc"],
        hdrs = hdrs if hdrs != None else [name + ".h"],
        **kwargs
    )
