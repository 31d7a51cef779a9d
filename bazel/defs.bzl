"""The project's macros, loaded from one place: load("//bazel:defs.bzl", "arbiter_cc_test", ...)."""

load(":error_catalogue.bzl", _error_catalogue = "error_catalogue")
load(":library.bzl", _arbiter_cc_library = "arbiter_cc_library")
load(":proto.bzl", _arbiter_cc_proto = "arbiter_cc_proto")
load(":service_module.bzl", _service_module = "service_module")
load(
    ":tests.bzl",
    _arbiter_cc_test = "arbiter_cc_test",
    _integration_cc_test = "integration_cc_test",
    _redis_cc_test = "redis_cc_test",
    _test_support_library = "test_support_library",
)

arbiter_cc_library = _arbiter_cc_library
arbiter_cc_proto = _arbiter_cc_proto
arbiter_cc_test = _arbiter_cc_test
error_catalogue = _error_catalogue
integration_cc_test = _integration_cc_test
redis_cc_test = _redis_cc_test
service_module = _service_module
test_support_library = _test_support_library
