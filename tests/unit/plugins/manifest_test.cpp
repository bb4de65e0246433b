#include "plugins/manifest.hpp"

#include <gtest/gtest.h>

#include "support/test_support.hpp"

namespace tritongym::plugins {
namespace {

using testing::TemporaryDirectory;

TEST(Manifest, ReadsEveryField) {
  auto manifest = read_manifest(testing::source_dir() + "/plugins/backends/scripted/plugin.yaml");
  ASSERT_TRUE(manifest) << manifest.status().to_string();
  EXPECT_EQ(manifest->id, "tritongym.backend.scripted");
  EXPECT_EQ(manifest->kind, PluginKind::backend);
  EXPECT_EQ(manifest->library, "libtritongym_backend_scripted.so");
  EXPECT_FALSE(manifest->description.empty());
  EXPECT_NE(manifest->description.back(), '\n');
  bool found_default = false;
  for (const auto& field : manifest->config)
    if (field.name == "model_name") found_default = field.default_value == "\"scripted\"";
  EXPECT_TRUE(found_default);
  EXPECT_NE(manifest->conformance_config_json.find("replies"), std::string::npos);
}

TEST(Manifest, IdMustCarryItsKind) {
  TemporaryDirectory dir;
  std::string file = dir.write("p/plugin.yaml",
                               "id: acme.suite.greedy\nkind: workflow\nversion: 1.0.0\nlibrary: libx.so\ndescription: d\n");
  auto manifest = read_manifest(file);
  ASSERT_FALSE(manifest);
  EXPECT_NE(manifest.status().message().find("<vendor>.workflow.<name>"), std::string::npos) << manifest.status().message();
  EXPECT_EQ(manifest.status().location(), file + ":1:5");
}

TEST(Manifest, UnknownKindSuggests) {
  TemporaryDirectory dir;
  std::string file = dir.write("p/plugin.yaml",
                               "id: acme.workflow.x\nkind: workflw\nversion: 1.0.0\nlibrary: libx.so\ndescription: d\n");
  auto manifest = read_manifest(file);
  ASSERT_FALSE(manifest);
  EXPECT_NE(manifest.status().message().find("did you mean 'workflow'"), std::string::npos);
}

TEST(Manifest, ScanFindsPluginFoldersAndReportsBrokenManifests) {
  TemporaryDirectory dir;
  dir.write("plugins/a/plugin.yaml", "id: acme.workflow.a\nkind: workflow\nversion: 1.0.0\nlibrary: liba.so\ndescription: d\n");
  dir.write("plugins/b/plugin.yaml", "id: acme.workflow.b\nkind: workflow\n");
  dir.write("plugins/c/readme.txt", "not a plugin");
  ManifestScan scan = scan_manifests({(dir.path() / "plugins").string(), "/does/not/exist"});
  ASSERT_EQ(scan.manifests.size(), 1u);
  EXPECT_EQ(scan.manifests[0].id, "acme.workflow.a");
  ASSERT_EQ(scan.errors.size(), 1u);
  EXPECT_NE(scan.errors[0].message().find("missing required key 'version'"), std::string::npos);
  // A search folder may also be a single plugin's folder.
  EXPECT_EQ(scan_manifests({(dir.path() / "plugins" / "a").string()}).manifests.size(), 1u);
}

}  // namespace
}  // namespace tritongym::plugins
