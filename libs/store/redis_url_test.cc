// The store's URL (--store=redis://[user@]host[:port]) and its password file
// (--store_password_file, which travels as ?password_file=): what is accepted, what is refused, and
// that a refusal never echoes a password.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/store/errors.h"
#include "libs/store/redis_client.h"

namespace store {
namespace {

using ::base::HasErrorCode;
using ::testing::HasSubstr;
using ::testing::Not;

std::string WriteFile(const std::string& name, const std::string& content) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string path = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/", name);
  std::ofstream(path, std::ios::trunc) << content;
  return path;
}

TEST(RedisUrlTest, HostAndPort) {
  absl::StatusOr<RedisConnectionOptions> o = ParseRedisUrl("redis://redis:6380");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->host, "redis");
  EXPECT_EQ(o->port, 6380);
  EXPECT_EQ(o->user, "");
  EXPECT_EQ(o->password, "");
  o = ParseRedisUrl("redis://10.0.0.5");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->host, "10.0.0.5");
  EXPECT_EQ(o->port, 6379);
  o = ParseRedisUrl("redis://[::1]:7000");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->host, "::1");
  EXPECT_EQ(o->port, 7000);
}

TEST(RedisUrlTest, UserAndPasswordFileTrimmed) {
  const std::string file = WriteFile("pw1", "  s3cret-Passw0rd\n\n");
  absl::StatusOr<RedisConnectionOptions> o =
      ParseRedisUrl(absl::StrCat("redis://arbiter@redis:6379?password_file=", file));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->user, "arbiter");
  EXPECT_EQ(o->password, "s3cret-Passw0rd");
  EXPECT_EQ(o->host, "redis");
  EXPECT_EQ(o->port, 6379);
  // A password file alone: AUTH password, as the default user (requirepass).
  o = ParseRedisUrl(absl::StrCat("redis://redis?password_file=", file));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->user, "");
  EXPECT_EQ(o->password, "s3cret-Passw0rd");
}

TEST(RedisUrlTest, RefusesAPasswordInTheUrlWithoutEchoingIt) {
  absl::StatusOr<RedisConnectionOptions> o = ParseRedisUrl("redis://arbiter:hunter2@redis:6379");
  EXPECT_THAT(o.status(), HasErrorCode(base::kErrBadArgument));
  EXPECT_THAT(std::string(o.status().message()), Not(HasSubstr("hunter2")));
  EXPECT_THAT(std::string(o.status().message()), HasSubstr("--store_password_file"));
  // Not even when something else is wrong too.
  for (const char* url : {"redis://arbiter:hunter2@redis?bogus=1", "rediss://arbiter:hunter2@r",
                          "redis://arbiter:hunter2@redis:port"}) {
    o = ParseRedisUrl(url);
    EXPECT_THAT(o.status(), HasErrorCode(base::kErrBadArgument)) << url;
    EXPECT_THAT(std::string(o.status().message()), Not(HasSubstr("hunter2"))) << url;
  }
}

TEST(RedisUrlTest, RefusesMalformedUrls) {
  for (const char* url :
       {"redis:/x", "http://redis:6379", "redis://", "redis://:6379", "redis://redis:0",
        "redis://redis:65536", "redis://redis:port", "redis://@redis", "redis://redis/1",
        "redis://redis?db=1", "redis://[::1", "redis://arbiter@redis"}) {
    EXPECT_THAT(ParseRedisUrl(url).status(), HasErrorCode(base::kErrBadArgument)) << url;
  }
}

TEST(RedisUrlTest, RefusesBadPasswordFiles) {
  EXPECT_THAT(ParseRedisUrl("redis://arbiter@redis?password_file=/nonexistent/pw").status(),
              HasErrorCode(base::kErrBadArgument));
  const std::string empty = WriteFile("pw-empty", " \n");
  EXPECT_THAT(ReadRedisPasswordFile(empty).status(), HasErrorCode(base::kErrBadArgument));
  const std::string two_lines = WriteFile("pw-two", "first\nsecond\n");
  absl::StatusOr<std::string> two = ReadRedisPasswordFile(two_lines);
  EXPECT_THAT(two.status(), HasErrorCode(base::kErrBadArgument));
  EXPECT_THAT(std::string(two.status().message()), Not(HasSubstr("first")));
  const std::string huge = WriteFile("pw-huge", std::string(10000, 'x'));
  EXPECT_THAT(ReadRedisPasswordFile(huge).status(), HasErrorCode(base::kErrBadArgument));
}

TEST(RedisUrlTest, SentinelUrl) {
  const std::string file = WriteFile("pw-sentinel", "store-pass\n");
  const std::string sentinel_file = WriteFile("pw-sentinels", "sentinel-pass\n");
  absl::StatusOr<RedisConnectionOptions> o = ParseRedisUrl(absl::StrCat(
      "redis+sentinel://arbiter@s0:26380,s1,[::1]:7000/arbiter-store?password_file=", file,
      "&sentinel_password_file=", sentinel_file, "&min_replica_acks=1&replica_ack_timeout=250ms"));
  ASSERT_TRUE(o.ok()) << o.status();
  ASSERT_EQ(o->sentinels.size(), 3u);
  EXPECT_EQ(o->sentinels[0].host, "s0");
  EXPECT_EQ(o->sentinels[0].port, 26380);
  EXPECT_EQ(o->sentinels[1].host, "s1");
  EXPECT_EQ(o->sentinels[1].port, 26379);  // the Sentinel port by default
  EXPECT_EQ(o->sentinels[2].host, "::1");
  EXPECT_EQ(o->sentinels[2].port, 7000);
  EXPECT_EQ(o->master_name, "arbiter-store");
  EXPECT_EQ(o->user, "arbiter");
  EXPECT_EQ(o->password, "store-pass");
  EXPECT_EQ(o->sentinel_password, "sentinel-pass");
  EXPECT_EQ(o->min_replica_acks, 1);
  EXPECT_EQ(o->replica_ack_timeout, absl::Milliseconds(250));
  // The durability parameters work on a plain redis:// URL too; off by default.
  o = ParseRedisUrl("redis://redis?min_replica_acks=2");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->min_replica_acks, 2);
  EXPECT_TRUE(o->sentinels.empty());
  o = ParseRedisUrl("redis://redis");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->min_replica_acks, 0);
}

TEST(RedisUrlTest, RefusesMalformedSentinelUrls) {
  for (const char* url :
       {"redis+sentinel://s0:26379", "redis+sentinel://s0:26379/", "redis+sentinel:///master",
        "redis+sentinel://s0,,s1/master", "redis+sentinel://s0:0/master",
        "redis+sentinel://s0/master?min_replica_acks=x",
        "redis+sentinel://s0/m?min_replica_acks=-1", "redis+sentinel://s0/m?replica_ack_timeout=0s",
        "redis+sentinel://s0/m?replica_ack_timeout=1", "redis://redis?sentinel_password_file=/x",
        "redis+sentinel://arbiter@s0/master", "sentinel://s0/master"}) {
    EXPECT_THAT(ParseRedisUrl(url).status(), HasErrorCode(base::kErrBadArgument)) << url;
  }
  absl::StatusOr<RedisConnectionOptions> o =
      ParseRedisUrl("redis+sentinel://arbiter:hunter2@s0/master");
  EXPECT_THAT(o.status(), HasErrorCode(base::kErrBadArgument));
  EXPECT_THAT(std::string(o.status().message()), Not(HasSubstr("hunter2")));
}

TEST(RedisUrlTest, ClusterUrl) {
  const std::string file = WriteFile("pw-cluster", "store-pass\n");
  absl::StatusOr<RedisConnectionOptions> o = ParseRedisUrl(absl::StrCat(
      "redis+cluster://arbiter@n0:7000,n1,[::1]:7002?password_file=", file, "&min_replica_acks=1"));
  ASSERT_TRUE(o.ok()) << o.status();
  ASSERT_EQ(o->cluster_nodes.size(), 3u);
  EXPECT_EQ(o->cluster_nodes[0].host, "n0");
  EXPECT_EQ(o->cluster_nodes[0].port, 7000);
  EXPECT_EQ(o->cluster_nodes[1].host, "n1");
  EXPECT_EQ(o->cluster_nodes[1].port, 6379);  // Redis's port by default
  EXPECT_EQ(o->cluster_nodes[2].host, "::1");
  EXPECT_EQ(o->cluster_nodes[2].port, 7002);
  EXPECT_TRUE(o->sentinels.empty());
  EXPECT_EQ(o->user, "arbiter");
  EXPECT_EQ(o->password, "store-pass");
  EXPECT_EQ(o->min_replica_acks, 1);
  // A plain URL names no cluster.
  o = ParseRedisUrl("redis://redis");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->cluster_nodes.empty());
}

TEST(RedisUrlTest, RefusesMalformedClusterUrls) {
  for (const char* url : {"redis+cluster://", "redis+cluster://n0,,n1", "redis+cluster://n0:0",
                          "redis+cluster://n0/0", "redis+cluster://n0?sentinel_password_file=/x",
                          "redis+cluster://arbiter@n0", "cluster://n0"}) {
    EXPECT_THAT(ParseRedisUrl(url).status(), HasErrorCode(base::kErrBadArgument)) << url;
  }
  absl::StatusOr<RedisConnectionOptions> o = ParseRedisUrl("redis+cluster://arbiter:hunter2@n0");
  EXPECT_THAT(o.status(), HasErrorCode(base::kErrBadArgument));
  EXPECT_THAT(std::string(o.status().message()), Not(HasSubstr("hunter2")));
}

}  // namespace
}  // namespace store
