#include "plugins/loader.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/test_support.hpp"

namespace tritongym::plugins {
namespace {

std::string fixture(const std::string& name) { return testing::fixture_plugin_dir() + "/" + name; }

// Loads the one fixture plugin in folder `name` and returns the loader's message ("" if loaded).
std::string load_fixture(const std::string& name, Registry& registry) {
  auto manifest = read_manifest(fixture(name) + "/plugin.yaml");
  EXPECT_TRUE(manifest) << manifest.status().to_string();
  if (!manifest) return "no manifest";
  return load_plugin(*manifest, registry).message();
}

TEST(Loader, LoadsAGoodPlugin) {
  Registry registry;
  EXPECT_EQ(load_fixture("good", registry), "");
  EXPECT_TRUE(registry.contains(PluginKind::workflow, "fixture.workflow.good"));
}

TEST(Loader, RefusesAWrongAbiVersion) {
  Registry registry;
  std::string message = load_fixture("bad-abi", registry);
  EXPECT_NE(message.find("libfixture_bad_abi.so"), std::string::npos) << message;
  EXPECT_NE(message.find("ABI version 999"), std::string::npos) << message;
  EXPECT_NE(message.find("this host speaks version " + std::to_string(TRITONGYM_PLUGIN_ABI_VERSION)), std::string::npos)
      << message;
  EXPECT_FALSE(registry.contains(PluginKind::workflow, "fixture.workflow.bad-abi"));
}

TEST(Loader, RefusesAWrongRecordSize) {
  Registry registry;
  std::string message = load_fixture("bad-size", registry);
  EXPECT_NE(message.find("libfixture_bad_size.so"), std::string::npos) << message;
  EXPECT_NE(message.find("entry record is " + std::to_string(sizeof(TritonGymPluginEntry) + 8) + " bytes"),
            std::string::npos)
      << message;
}

TEST(Loader, RefusesAFingerprintMismatchNamingBothSides) {
  Registry registry;
  std::string message = load_fixture("bad-fingerprint", registry);
  EXPECT_NE(message.find("built with clang-19.1, libc++"), std::string::npos) << message;
  EXPECT_NE(message.find("this host was built with"), std::string::npos) << message;
  EXPECT_NE(message.find("libstdc++"), std::string::npos) << message;
}

TEST(Loader, RefusesALibraryWithoutEntryPoint) {
  Registry registry;
  std::string message = load_fixture("no-entry", registry);
  EXPECT_NE(message.find("libfixture_no_entry.so"), std::string::npos) << message;
  EXPECT_NE(message.find("exports no `tritongym_plugin_entry`"), std::string::npos) << message;
}

TEST(Loader, RefusesAPluginWhoseRegistrationThrows) {
  Registry registry;
  std::string message = load_fixture("throwing-register", registry);
  EXPECT_NE(message.find("registration function threw: registration exploded"), std::string::npos) << message;
}

TEST(Loader, RefusesAnIdTheManifestDoesNotDeclare) {
  Registry registry;
  std::string message = load_fixture("wrong-id", registry);
  EXPECT_NE(message.find("registers 'fixture.workflow.someone-else'"), std::string::npos) << message;
}

// Loads the library of fixture folder `name` with every plugin its manifest declares; the loader's message.
std::string load_library_fixture(const std::string& name, Registry& registry) {
  auto manifests = read_manifests(fixture(name) + "/plugin.yaml");
  EXPECT_TRUE(manifests) << manifests.status().to_string();
  if (!manifests) return "no manifest";
  return load_library(*manifests, registry).message();
}

TEST(Loader, LoadsALibraryOfSeveralPluginsItsManifestDeclares) {
  Registry registry;
  EXPECT_EQ(load_library_fixture("several", registry), "");
  EXPECT_TRUE(registry.contains(PluginKind::workflow, "fixture.workflow.first"));
  EXPECT_TRUE(registry.contains(PluginKind::workflow, "fixture.workflow.second"));
  // Each keeps its own manifest: its id, description and documented config, on the shared library.
  ASSERT_NE(registry.origin("fixture.workflow.first"), nullptr);
  EXPECT_EQ(registry.origin("fixture.workflow.first")->manifest.id, "fixture.workflow.first");
  EXPECT_EQ(registry.origin("fixture.workflow.first")->manifest.config.size(), 1u);
  EXPECT_EQ(registry.origin("fixture.workflow.second")->manifest.config.size(), 0u);
  EXPECT_EQ(registry.origin("fixture.workflow.first")->library_path, registry.origin("fixture.workflow.second")->library_path);
  // Loading one of them loads the library with the others (load_plugin reads its siblings).
  Registry again;
  auto manifests = read_manifests(fixture("several") + "/plugin.yaml");
  ASSERT_TRUE(manifests);
  EXPECT_EQ(load_plugin(manifests->back(), again).message(), "");
  EXPECT_TRUE(again.contains(PluginKind::workflow, "fixture.workflow.first"));
}

TEST(Loader, RefusesALibraryThatRegistersAnIdItsManifestDoesNotDeclareNamingBoth) {
  Registry registry;
  std::string message = load_library_fixture("undeclared-id", registry);
  EXPECT_NE(message.find("registers 'fixture.workflow.stowaway', which its plugin.yaml does not declare"),
            std::string::npos) << message;
  EXPECT_NE(message.find("fixture.workflow.declared-a, fixture.workflow.declared-b"), std::string::npos) << message;
  EXPECT_NE(message.find("libfixture_undeclared_id.so"), std::string::npos) << message;
  // Refused whole: not even the declared ones are registered.
  EXPECT_FALSE(registry.contains(PluginKind::workflow, "fixture.workflow.declared-a"));
  EXPECT_FALSE(registry.contains(PluginKind::workflow, "fixture.workflow.stowaway"));
}

TEST(Loader, RefusesALibraryThatDoesNotRegisterAnIdItsManifestDeclares) {
  Registry registry;
  std::string message = load_library_fixture("unregistered-id", registry);
  EXPECT_NE(message.find("its plugin.yaml declares 'fixture.workflow.absent', which it does not register"),
            std::string::npos) << message;
  EXPECT_NE(message.find("libfixture_unregistered_id.so"), std::string::npos) << message;
  EXPECT_FALSE(registry.contains(PluginKind::workflow, "fixture.workflow.present"));
}

TEST(Loader, RefusesAMissingLibrary) {
  Registry registry;
  std::string message = load_fixture("missing-library", registry);
  EXPECT_NE(message.find("libfixture_never_built.so"), std::string::npos) << message;
  EXPECT_NE(message.find("does not exist"), std::string::npos) << message;
}

TEST(Loader, RefusesALibraryTheDynamicLoaderRejectsInItsOwnWords) {
  // A plugin folder whose "library" is not a shared object: the message carries dlerror's reason.
  namespace fs = std::filesystem;
  fs::path folder = fs::temp_directory_path() / ("tritongym-not-elf-" + std::to_string(::getpid()));
  fs::create_directories(folder);
  std::ofstream(folder / "plugin.yaml") << "id: fixture.workflow.not-elf\nkind: workflow\nversion: 0.0.1\n"
                                           "library: libfixture_not_elf.so\ndescription: Text, not ELF.\n";
  std::ofstream(folder / "libfixture_not_elf.so") << std::string(256, '#');  // long enough to have a header
  auto manifest = read_manifest((folder / "plugin.yaml").string());
  ASSERT_TRUE(manifest) << manifest.status().to_string();
  Registry registry;
  std::string message = load_plugin(*manifest, registry).message();
  fs::remove_all(folder);
  EXPECT_NE(message.find("libfixture_not_elf.so"), std::string::npos) << message;
  EXPECT_NE(message.find("cannot be loaded"), std::string::npos) << message;
  EXPECT_NE(message.find("ELF"), std::string::npos) << message;  // glibc: "invalid ELF header"
}

TEST(Loader, DuplicateIdIsRefusedNamingBothLibraries) {
  Registry registry;
  EXPECT_EQ(load_fixture("duplicate-a", registry), "");
  std::string message = load_fixture("duplicate-b", registry);
  EXPECT_NE(message.find("duplicate plugin id 'fixture.workflow.duplicate'"), std::string::npos) << message;
  EXPECT_NE(message.find("libfixture_duplicate_a.so"), std::string::npos) << message;
  EXPECT_NE(message.find("libfixture_duplicate_b.so"), std::string::npos) << message;
}

TEST(Loader, AThrowingFactoryIsAnErrorValueNamingThePlugin) {
  Registry registry;
  ASSERT_EQ(load_fixture("throwing-factory", registry), "");
  PluginContext context;
  auto created = registry.create<Workflow>("fixture.workflow.throwing-factory", context);
  ASSERT_FALSE(created);
  EXPECT_NE(created.status().message().find("factory threw: factory exploded"), std::string::npos);
  EXPECT_NE(created.status().message().find("libfixture_throwing_factory.so"), std::string::npos);
}

TEST(Loader, GoesOnLoadingAfterRefusalsAndFreezes) {
  Registry registry;
  LoadReport report = load_plugins({testing::fixture_plugin_dir(), testing::builtin_plugin_dir()}, registry);
  EXPECT_TRUE(registry.frozen());
  std::map<std::string, std::string> outcome;
  for (const auto& plugin : report.plugins) outcome[plugin.manifest.manifest_path] = plugin.loaded ? "loaded" : plugin.message;
  EXPECT_TRUE(registry.contains(PluginKind::workflow, "fixture.workflow.good"));
  EXPECT_TRUE(registry.contains(PluginKind::workflow, "fixture.workflow.throwing-factory"));
  EXPECT_TRUE(registry.contains(PluginKind::suite, "tritongym.suite.directory"));
  EXPECT_TRUE(registry.contains(PluginKind::backend, "tritongym.backend.scripted"));
  EXPECT_TRUE(registry.contains(PluginKind::workflow, "tritongym.workflow.one-shot"));
  EXPECT_TRUE(registry.contains(PluginKind::workflow, "fixture.workflow.second"));
  // good, duplicate-a, throwing-factory, several (two plugins) and every built-in plugin load; the other fixtures
  // are refused, each plugin of a refused library with it.
  size_t builtin = scan_manifests({testing::builtin_plugin_dir()}).manifests.size();
  EXPECT_GE(builtin, 7u);
  EXPECT_EQ(report.loaded_count(), 5u + builtin);
  EXPECT_EQ(report.plugins.size(), 17u + builtin);  // 11 one-plugin manifests and 3 of two plugins each
  EXPECT_NE(outcome[testing::fixture_plugin_dir() + "/unregistered-id/plugin.yaml"].find("does not register"),
            std::string::npos);
  ASSERT_EQ(report.manifest_errors.size(), 1u);  // bad-manifest
  EXPECT_NE(report.manifest_errors[0].message().find("did you mean 'library'"), std::string::npos);
}

TEST(Loader, SearchPathIncludesTheEnvironmentVariable) {
  ::setenv("TRITONGYM_PLUGIN_PATH", "/first:/second", 1);
  auto paths = plugin_search_paths({"/from-config"});
  ::unsetenv("TRITONGYM_PLUGIN_PATH");
  ASSERT_GE(paths.size(), 3u);
  EXPECT_EQ(paths[paths.size() - 3], "/from-config");
  EXPECT_EQ(paths[paths.size() - 2], "/first");
  EXPECT_EQ(paths.back(), "/second");
}

TEST(Loader, FingerprintParsing) {
  auto parts = parse_fingerprint("compiler=gcc-12.2;stdlib=libstdc++;cxx11abi=1;sdk=0.1");
  EXPECT_EQ(parts["compiler"], "gcc-12.2");
  EXPECT_EQ(parts["cxx11abi"], "1");
  EXPECT_EQ(parts["sdk"], "0.1");
}

}  // namespace
}  // namespace tritongym::plugins
