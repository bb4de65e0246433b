#include "tritongym/sdk/prompts.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "support/test_support.hpp"

namespace tritongym {
namespace {

TEST(Prompts, ExtractsTheLastPythonBlock) {
  std::string text = "First:\n```python\nold = 1\n```\nthen\n```cpp\nint x;\n```\nfinal:\n```python\nnew = 2\n```\n";
  EXPECT_EQ(extract_python_code(text), "new = 2\n");
  EXPECT_EQ(extract_python_code("```\nbare = 3\n```"), "bare = 3\n");
  EXPECT_EQ(extract_python_code("no code here"), "");
  EXPECT_EQ(extract_python_code("```python\nunterminated"), "");
}

TEST(Prompts, SearchReplaceEditsApplyExactlyOnce) {
  std::string code = "a = 1\nb = 2\nc = 3\n";
  auto edited = apply_search_replace(code, "Change b.\n<<<<<<< SEARCH\nb = 2\n=======\nb = 20\n>>>>>>> REPLACE\n"
                                           "<<<<<<< SEARCH\nc = 3\n=======\n>>>>>>> REPLACE\n");
  ASSERT_TRUE(edited) << edited.status().message();
  EXPECT_EQ(*edited, "a = 1\nb = 20\n");
  auto missing = apply_search_replace(code, "<<<<<<< SEARCH\nd = 4\n=======\nd = 5\n>>>>>>> REPLACE\n");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.status().message().find("block 1"), std::string::npos);
  auto ambiguous = apply_search_replace("x\nx\n", "<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n");
  EXPECT_NE(ambiguous.status().message().find("more than once"), std::string::npos);
  EXPECT_FALSE(apply_search_replace(code, "no edits here"));
  EXPECT_FALSE(apply_search_replace(code, "<<<<<<< SEARCH\nb = 2\n=======\nb = 3\n"));
}

TEST(Prompts, TaskPromptShowsVisibleShapesOnly) {
  TaskSpec task;
  task.id = "standard/add";
  task.category = "elementwise";
  task.dsl = "triton";
  task.description = "Add.";
  task.entry_function = "add";
  task.entry_parameters = {"x", "y"};
  task.visible_shapes = {{"visible-0", {{"N", 1024}}}};
  task.held_out_shapes = {{"held-out-0", {{"N", 99991}}}};
  std::string prompt = task_prompt(task);
  EXPECT_NE(prompt.find("def add(x, y)"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("N=1024"), std::string::npos);
  EXPECT_EQ(prompt.find("99991"), std::string::npos);
}

}  // namespace
}  // namespace tritongym

namespace tritongym {
namespace {

TEST(Prompts, TheDocumentedContractIsTheOneTheModelReads) {
  std::ifstream in(testing::source_dir() + "/docs/candidate-contract.md");
  std::stringstream text;
  text << in.rdbuf();
  std::string doc = text.str();
  size_t begin = doc.find("<!-- contract -->\n");
  size_t end = doc.find("\n<!-- /contract -->");
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  begin += std::string("<!-- contract -->\n").size();
  EXPECT_EQ(doc.substr(begin, end - begin), kCandidateContract);
  TaskSpec task;
  EXPECT_NE(task_prompt(task).find(kCandidateContract), std::string::npos);
}

}  // namespace
}  // namespace tritongym
