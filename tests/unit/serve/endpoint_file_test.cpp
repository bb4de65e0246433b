// `tritongym serve --endpoint-file`'s file: written whole, named by the token's file and never the token, gone
// when withdrawn or when its owner dies.
#include "serve/endpoint_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

namespace tritongym::serve {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("endpoint-file-" + std::to_string(std::random_device{}()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

std::string text_of(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(EndpointFileTest, WritesTheAddressInAFolderItMakesAndRemovesItOnce) {
  TempDir dir;
  fs::path path = dir.path / "endpoints" / "12-0.endpoint";
  {
    auto published = EndpointFile::publish(path.string(), "node7:41234", "/shared/serve-token");
    ASSERT_TRUE(published) << published.status().message();
    std::string text = text_of(path);
    EXPECT_EQ(text.substr(0, 20), "# tritongym serve on") << text;
    EXPECT_NE(text.find("bearer token in /shared/serve-token\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\nnode7:41234\n"), std::string::npos) << text;
    EXPECT_FALSE(fs::exists(endpoint_file_temporary(path.string())));
    EndpointFile moved(std::move(published.value()));
    EXPECT_EQ(moved.path(), path.string());
    moved.withdraw();
    EXPECT_FALSE(fs::exists(path));
    // Withdrawn once: a file written there since (by another server) stays when this one dies.
    std::ofstream(path) << "node8:1\n";
  }
  EXPECT_TRUE(fs::exists(path));
  {
    auto published = EndpointFile::publish(path.string(), "node9:2", "");
    ASSERT_TRUE(published);
    EXPECT_NE(text_of(path).find("no token file"), std::string::npos);
  }
  EXPECT_FALSE(fs::exists(path)) << "the destructor removes the file";
}

TEST(EndpointFileTest, AFolderThatCannotBeMadeIsNamed) {
  TempDir dir;
  std::ofstream(dir.path / "a-file") << "x";
  auto refused = EndpointFile::publish((dir.path / "a-file" / "12-0.endpoint").string(), "node:1", "");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.status().message().find("a-file"), std::string::npos) << refused.status().message();
}

TEST(EndpointFileTest, TheTemporaryNameIsHiddenBesideTheFile) {
  std::string temporary = endpoint_file_temporary("/shared/servers/endpoints/12-0.endpoint");
  EXPECT_EQ(temporary.rfind("/shared/servers/endpoints/.12-0.endpoint.tmp-", 0), 0u) << temporary;
}

}  // namespace
}  // namespace tritongym::serve
