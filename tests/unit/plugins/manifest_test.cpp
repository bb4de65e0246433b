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

TEST(Manifest, ALibraryMayDeclareSeveralPluginsOfItsKind) {
  TemporaryDirectory dir;
  std::string file = dir.write("p/plugin.yaml",
                               "kind: tool\nversion: 1.0.0\nlibrary: libx.so\nplugins:\n"
                               "  - id: acme.tool.one\n    description: first\n"
                               "    config:\n      depth: {type: integer, default: 2}\n"
                               "    conformance: {config: {depth: 1}}\n"
                               "  - id: acme.tool.two\n    description: second\n");
  auto manifests = read_manifests(file);
  ASSERT_TRUE(manifests) << manifests.status().to_string();
  ASSERT_EQ(manifests->size(), 2u);
  EXPECT_EQ((*manifests)[0].id, "acme.tool.one");
  EXPECT_EQ((*manifests)[1].id, "acme.tool.two");
  EXPECT_EQ((*manifests)[1].description, "second");
  EXPECT_EQ((*manifests)[0].config.size(), 1u);
  EXPECT_EQ((*manifests)[0].conformance_config_json, "{\"depth\":1}");
  EXPECT_EQ((*manifests)[1].conformance_config_json, "{}");
  for (const auto& manifest : *manifests) {
    EXPECT_EQ(manifest.library, "libx.so");
    EXPECT_EQ(manifest.kind, PluginKind::tool);
    EXPECT_EQ(manifest.library_ids, (std::vector<std::string>{"acme.tool.one", "acme.tool.two"}));
  }
  // read_manifest reads one plugin only, and says why not here.
  auto one = read_manifest(file);
  ASSERT_FALSE(one);
  EXPECT_NE(one.status().message().find("declares 2 plugins"), std::string::npos) << one.status().message();
  // A scan lists each plugin.
  EXPECT_EQ(scan_manifests({(dir.path() / "p").string()}).manifests.size(), 2u);
}

TEST(Manifest, PluginsOfOneLibraryAreDeclaredOneWayOnceEach) {
  TemporaryDirectory dir;
  const std::string head = "kind: tool\nversion: 1.0.0\nlibrary: libx.so\n";
  auto message = [&](const std::string& name, const std::string& rest) {
    auto read = read_manifests(dir.write(name + "/plugin.yaml", head + rest));
    return read ? std::string("read") : read.status().message();
  };
  EXPECT_NE(message("both", "id: acme.tool.one\ndescription: d\nplugins:\n  - id: acme.tool.two\n    description: d\n")
                .find("'id' belongs to each entry of 'plugins'"), std::string::npos);
  EXPECT_NE(message("neither", "").find("missing required key 'id' (or 'plugins'"), std::string::npos);
  EXPECT_NE(message("empty", "plugins: []\n").find("'plugins' lists no plugin"), std::string::npos);
  EXPECT_NE(message("twice", "plugins:\n  - id: acme.tool.one\n    description: d\n  - id: acme.tool.one\n"
                             "    description: d\n").find("id 'acme.tool.one' is declared twice"), std::string::npos);
  EXPECT_NE(message("kind", "plugins:\n  - id: acme.workflow.one\n    description: d\n").find("<vendor>.tool.<name>"),
            std::string::npos);
  EXPECT_NE(message("entry", "plugins:\n  - id: acme.tool.one\n").find("description"), std::string::npos);
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
