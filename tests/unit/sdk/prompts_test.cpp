#include "tritongym/sdk/prompts.hpp"

#include <gtest/gtest.h>

namespace tritongym {
namespace {

TEST(Prompts, ExtractsTheLastPythonBlock) {
  std::string text = "First:\n```python\nold = 1\n```\nthen\n```cpp\nint x;\n```\nfinal:\n```python\nnew = 2\n```\n";
  EXPECT_EQ(extract_python_code(text), "new = 2\n");
  EXPECT_EQ(extract_python_code("```\nbare = 3\n```"), "bare = 3\n");
  EXPECT_EQ(extract_python_code("no code here"), "");
  EXPECT_EQ(extract_python_code("```python\nunterminated"), "");
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
