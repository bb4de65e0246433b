#include "plugins/registry.hpp"

#include <gtest/gtest.h>

namespace tritongym::plugins {
namespace {

class NullSuite final : public Suite {
 public:
  Result<std::vector<TaskSpec>> load_tasks() noexcept override { return std::vector<TaskSpec>{}; }
};

Factory<Suite> null_suite_factory() {
  return [](const PluginContext&) -> Result<std::unique_ptr<Suite>> { return std::unique_ptr<Suite>(new NullSuite); };
}

Registry::Origin origin(const std::string& library) { return {library, {}}; }

TEST(Registry, CreatesRegisteredObjects) {
  Registry registry;
  ASSERT_TRUE(registry.add<Suite>("acme.suite.null", null_suite_factory(), origin("libnull.so")));
  auto suite = registry.create<Suite>("acme.suite.null", {});
  ASSERT_TRUE(suite);
  EXPECT_TRUE((*suite)->load_tasks());
}

TEST(Registry, DuplicateIdIsRejectedNamingBothLibraries) {
  Registry registry;
  ASSERT_TRUE(registry.add<Suite>("acme.suite.null", null_suite_factory(), origin("liba.so")));
  Status status = registry.add<Suite>("acme.suite.null", null_suite_factory(), origin("libb.so"));
  ASSERT_FALSE(status);
  EXPECT_NE(status.message().find("liba.so"), std::string::npos);
  EXPECT_NE(status.message().find("libb.so"), std::string::npos);
}

TEST(Registry, FrozenRegistryRefusesAdditions) {
  Registry registry;
  registry.freeze();
  EXPECT_FALSE(registry.add<Suite>("acme.suite.null", null_suite_factory(), origin("liba.so")));
}

TEST(Registry, UnknownIdSuggestsTheClosestOfItsKind) {
  Registry registry;
  ASSERT_TRUE(registry.add<Suite>("acme.suite.directory", null_suite_factory(), origin("liba.so")));
  auto missing = registry.create<Suite>("acme.suite.directroy", {});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.status().message().find("did you mean 'acme.suite.directory'"), std::string::npos)
      << missing.status().message();
  // A short name matches the last part of an id.
  auto short_name = registry.create<Suite>("directory", {});
  ASSERT_FALSE(short_name);
  EXPECT_NE(short_name.status().message().find("did you mean 'acme.suite.directory'"), std::string::npos)
      << short_name.status().message();
}

TEST(Registry, IdOfAnotherKindSaysSo) {
  Registry registry;
  ASSERT_TRUE(registry.add<Suite>("acme.suite.null", null_suite_factory(), origin("liba.so")));
  auto wrong = registry.create<Workflow>("acme.suite.null", {});
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.status().message().find("is a suite plugin, not a workflow"), std::string::npos);
}

TEST(Registry, FactoryErrorsPassThroughAndExceptionsAreCaught) {
  Registry registry;
  ASSERT_TRUE(registry.add<Suite>(
      "acme.suite.failing",
      [](const PluginContext&) -> Result<std::unique_ptr<Suite>> {
        return Status(StatusCode::invalid_config, "bad key", "/x");
      },
      origin("liba.so")));
  ASSERT_TRUE(registry.add<Suite>(
      "acme.suite.throwing",
      [](const PluginContext&) -> Result<std::unique_ptr<Suite>> { throw std::logic_error("boom"); },
      origin("libb.so")));
  ASSERT_TRUE(registry.add<Suite>(
      "acme.suite.empty", [](const PluginContext&) -> Result<std::unique_ptr<Suite>> { return std::unique_ptr<Suite>(); },
      origin("libc.so")));
  auto failing = registry.create<Suite>("acme.suite.failing", {});
  EXPECT_EQ(failing.status().location(), "/x");
  auto throwing = registry.create<Suite>("acme.suite.throwing", {});
  EXPECT_NE(throwing.status().message().find("boom"), std::string::npos);
  EXPECT_NE(throwing.status().message().find("libb.so"), std::string::npos);
  auto empty = registry.create<Suite>("acme.suite.empty", {});
  EXPECT_EQ(empty.status().code(), StatusCode::internal);
}

}  // namespace
}  // namespace tritongym::plugins
