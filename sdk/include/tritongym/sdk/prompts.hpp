// TritonGym SDK: helpers every workflow needs, so that all workflows show a task to the model the
// same way (a fair comparison depends on it) and read code back the same way.
#pragma once

#include <boost/json.hpp>

#include <string>
#include <string_view>

#include "tritongym/sdk/status.hpp"
#include "tritongym/sdk/types.hpp"

namespace tritongym {

// The candidate contract, as the model reads it (docs/candidate-contract.md quotes it verbatim; a
// test keeps the two identical).
inline constexpr const char* kCandidateContract =
    "The candidate is one Python file. It defines the task's entry function, with the task's parameters in "
    "order, and the kernels it launches, written in the task's DSL. The entry function receives the inputs "
    "as positional arguments: contiguous tensors on the device the task runs on, and Python numbers for "
    "scalars. It must not modify them. It returns a new tensor (or a tuple of new tensors, in the order the "
    "task gives) of the shape and dtype the task states. The computation must happen in the kernels you "
    "write: PyTorch may allocate outputs (torch.empty and friends) and make views, nothing more. The file "
    "may import torch, triton and the Python standard library; it must not start processes, write files "
    "outside its working folder, or use the network. What it prints is returned to you.";

// The task as the model sees it: description, entry point, dtypes, visible shapes, the candidate
// contract. Never includes held-out shapes or the oracle.
inline std::string task_prompt(const TaskSpec& task) {
  std::string text = "# Task " + task.id + " (" + task.category + ", DSL: " + task.dsl + ")\n\n";
  text += task.description;
  if (!text.empty() && text.back() != '\n') text += "\n";
  text += "\nWrite one Python file that defines `def " + task.entry_function + "(";
  for (size_t i = 0; i < task.entry_parameters.size(); ++i) text += (i ? ", " : "") + task.entry_parameters[i];
  text += ")` returning the output tensor(s), computed by kernels you write in " + task.dsl + ".\n\n";
  text += kCandidateContract;
  text += "\n\n";
  if (!task.dtypes.empty()) {
    text += "dtypes:";
    for (const auto& dtype : task.dtypes) text += " " + dtype;
    text += "\n";
  }
  if (!task.visible_shapes.empty()) {
    text += "Shapes you can test on (the final score also uses other shapes):\n";
    for (const auto& shape : task.visible_shapes) {
      text += "  -";
      for (const auto& [name, size] : shape.dims) text += " " + name + "=" + std::to_string(size);
      text += "\n";
    }
  }
  return text;
}

// The code of the last ```python (or ```py, or bare ```) fenced block in `text`; "" when none.
inline std::string extract_python_code(std::string_view text) {
  std::string found;
  size_t position = 0;
  while (true) {
    size_t open = text.find("```", position);
    if (open == std::string_view::npos) break;
    size_t line_end = text.find('\n', open);
    if (line_end == std::string_view::npos) break;
    std::string_view language = text.substr(open + 3, line_end - open - 3);
    while (!language.empty() && (language.back() == ' ' || language.back() == '\r')) language.remove_suffix(1);
    size_t close = text.find("```", line_end + 1);
    if (close == std::string_view::npos) break;
    if (language.empty() || language == "python" || language == "py" || language == "python3")
      found = std::string(text.substr(line_end + 1, close - line_end - 1));
    position = close + 3;
  }
  return found;
}

// The arguments of a code-taking tool call (compile, test, submit): {"code": "..."} as JSON text.
inline std::string code_arguments(const std::string& code) {
  return boost::json::serialize(boost::json::object{{"code", code}});
}

// The `code` argument of a tool call's JSON text; "" when it has none or the JSON is invalid.
inline std::string code_argument_of(std::string_view arguments_json) {
  boost::system::error_code error;
  boost::json::value arguments = boost::json::parse(arguments_json, error);
  if (error || !arguments.is_object()) return "";
  const auto* code = arguments.as_object().if_contains("code");
  return code && code->is_string() ? std::string(code->as_string()) : "";
}

// Applies SEARCH/REPLACE edit blocks, the diff format of edit-based workflows:
//   <<<<<<< SEARCH
//   lines to find (exactly once)
//   =======
//   lines to put instead
//   >>>>>>> REPLACE
// Returns the edited code, or an invalid_argument Status saying which block failed and why (for the model).
inline Result<std::string> apply_search_replace(const std::string& code, std::string_view edits) {
  const std::string open = "<<<<<<< SEARCH\n", middle = "=======\n", close = ">>>>>>> REPLACE";
  std::string result = code;
  size_t position = 0;
  int block = 0;
  while (true) {
    size_t start = edits.find(open, position);
    if (start == std::string_view::npos) break;
    ++block;
    size_t divider = edits.find(middle, start + open.size());
    size_t end = divider == std::string_view::npos ? divider : edits.find(close, divider + middle.size());
    if (divider == std::string_view::npos || end == std::string_view::npos)
      return Status(StatusCode::invalid_argument, "edit block " + std::to_string(block) + " is not closed");
    std::string search(edits.substr(start + open.size(), divider - start - open.size()));
    std::string replace(edits.substr(divider + middle.size(), end - divider - middle.size()));
    if (search.empty()) return Status(StatusCode::invalid_argument, "edit block " + std::to_string(block) + " searches nothing");
    size_t found = result.find(search);
    if (found == std::string::npos)
      return Status(StatusCode::invalid_argument, "edit block " + std::to_string(block) +
                                                      ": the SEARCH text is not in the current code (copy it exactly)");
    if (result.find(search, found + 1) != std::string::npos)
      return Status(StatusCode::invalid_argument, "edit block " + std::to_string(block) +
                                                      ": the SEARCH text occurs more than once; include more lines");
    result.replace(found, search.size(), replace);
    position = end + close.size();
  }
  if (block == 0) return Status(StatusCode::invalid_argument, "no SEARCH/REPLACE block in the reply");
  return result;
}

}  // namespace tritongym
