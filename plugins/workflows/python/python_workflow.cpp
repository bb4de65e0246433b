// tritongym.workflow.python: an agent loop written in Python. This plugin alone embeds the interpreter
// (pybind11); the host links no libpython. The module's run(episode) drives the same EpisodeContext as
// C++ workflows: the core charges every call to the budget.
#include <pybind11/embed.h>
#include <pybind11/stl.h>

#include <boost/json.hpp>

#include <filesystem>
#include <mutex>

#include "tritongym/sdk/config.hpp"
#include "tritongym/sdk/plugin.hpp"
#include "tritongym/sdk/prompts.hpp"

namespace py = pybind11;

namespace {

using namespace tritongym;

// Raised in Python when the episode's budget is spent; a workflow should return what it has.
struct BudgetExhausted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

py::object json_to_python(const std::string& text) {
  return py::module_::import("json").attr("loads")(text);
}

std::string python_to_json(const py::handle& value) {
  return py::module_::import("json").attr("dumps")(value).cast<std::string>();
}

Role role_of(const std::string& name) {
  if (name == "system") return Role::system;
  if (name == "assistant") return Role::assistant;
  if (name == "tool") return Role::tool;
  if (name == "user") return Role::user;
  throw std::invalid_argument("unknown role '" + name + "' (system, user, assistant, tool)");
}

// What Python sees as `episode`. Valid during run() only.
class PythonEpisode {
 public:
  explicit PythonEpisode(EpisodeContext& episode) : episode_(episode) {}

  py::dict task() const {
    const TaskSpec& task = episode_.task();
    py::dict out;
    out["id"] = task.id;
    out["dsl"] = task.dsl;
    out["entry_function"] = task.entry_function;
    out["entry_parameters"] = task.entry_parameters;
    out["description"] = task.description;
    out["prompt"] = task_prompt(task);
    return out;
  }

  py::list tools() const {
    py::list out;
    for (const auto& tool : episode_.tools()) {
      py::dict entry;
      entry["name"] = tool.name;
      entry["description"] = tool.description;
      entry["parameters"] = json_to_python(tool.parameters_json);
      out.append(entry);
    }
    return out;
  }

  py::dict chat(const py::list& messages, bool offer_tools, const std::string& tool_choice,
                std::optional<double> temperature, std::optional<int64_t> max_output_tokens) {
    ChatRequest request;
    for (const auto& item : messages) {
      py::dict message = item.cast<py::dict>();
      ChatMessage out;
      out.role = role_of(message["role"].cast<std::string>());
      if (message.contains("content") && !message["content"].is_none()) out.content = message["content"].cast<std::string>();
      if (message.contains("tool_call_id")) out.tool_call_id = message["tool_call_id"].cast<std::string>();
      if (message.contains("tool_calls"))
        for (const auto& call : message["tool_calls"].cast<py::list>()) {
          py::dict c = call.cast<py::dict>();
          out.tool_calls.push_back({c["id"].cast<std::string>(), c["name"].cast<std::string>(),
                                    py::isinstance<py::str>(c["arguments"]) ? c["arguments"].cast<std::string>()
                                                                            : python_to_json(c["arguments"])});
        }
      request.messages.push_back(std::move(out));
    }
    if (offer_tools) request.tools = episode_.tools();
    request.tool_choice = tool_choice;
    request.temperature = temperature;
    request.max_output_tokens = max_output_tokens;
    Result<ChatResponse> response = Status(StatusCode::internal, "not called");
    {
      py::gil_scoped_release unlocked;  // a model call can take minutes
      response = episode_.chat(request);
    }
    if (!response) {
      if (response.status().code() == StatusCode::resource_exhausted) throw BudgetExhausted(response.status().message());
      throw std::runtime_error(response.status().to_string());
    }
    py::list calls;
    for (const auto& call : response->message.tool_calls) {
      py::dict entry;
      entry["id"] = call.id;
      entry["name"] = call.name;
      entry["arguments"] = call.arguments_json;
      calls.append(entry);
    }
    py::dict usage;
    usage["input_tokens"] = response->usage.input_tokens;
    usage["output_tokens"] = response->usage.output_tokens;
    py::dict out;
    out["content"] = response->message.content;
    out["tool_calls"] = calls;
    out["finish_reason"] = response->finish_reason;
    out["usage"] = usage;
    return out;
  }

  py::dict call_tool(const std::string& name, const py::object& arguments, const std::string& id) {
    ToolCall call{id.empty() ? "py-" + std::to_string(++calls_) : id, name,
                  py::isinstance<py::str>(arguments) ? arguments.cast<std::string>() : python_to_json(arguments)};
    Result<ToolResult> result = Status(StatusCode::internal, "not called");
    {
      py::gil_scoped_release unlocked;
      result = episode_.call_tool(call);
    }
    if (!result) {
      if (result.status().code() == StatusCode::resource_exhausted) throw BudgetExhausted(result.status().message());
      throw std::runtime_error(result.status().to_string());
    }
    py::dict out;
    out["ok"] = result->ok;
    out["text"] = result->text;
    return out;
  }

  bool budget_exhausted() const { return episode_.budget_exhausted(); }
  void log(const std::string& message) { episode_.log(LogLevel::info, message); }

 private:
  EpisodeContext& episode_;
  int64_t calls_ = 0;
};

PYBIND11_EMBEDDED_MODULE(tritongym_workflow, module) {
  module.doc() = "The episode a Python workflow drives (see examples/python-workflow/).";
  py::register_exception<BudgetExhausted>(module, "BudgetExhausted");
  py::class_<PythonEpisode>(module, "Episode")
      .def_property_readonly("task", &PythonEpisode::task)
      .def("tools", &PythonEpisode::tools)
      .def("chat", &PythonEpisode::chat, py::arg("messages"), py::arg("offer_tools") = true,
           py::arg("tool_choice") = "auto", py::arg("temperature") = py::none(),
           py::arg("max_output_tokens") = py::none())
      .def("call_tool", &PythonEpisode::call_tool, py::arg("name"), py::arg("arguments"), py::arg("id") = "")
      .def("budget_exhausted", &PythonEpisode::budget_exhausted)
      .def("log", &PythonEpisode::log)
      .def("extract_python_code", [](PythonEpisode&, const std::string& text) { return extract_python_code(text); });
}

// The interpreter is started once per process and never finalised (plugins are never unloaded either).
void ensure_interpreter() {
  static std::once_flag once;
  std::call_once(once, [] {
    py::initialize_interpreter();
    PyEval_SaveThread();  // release the GIL: episodes take it when they run
  });
}

struct PythonWorkflowConfig {
  std::string module;            // path of the .py file (relative: to the project root)
  std::string function = "run";  // run(episode) -> {"final_code": ..., "summary": ...} or the code as a string
  JsonText options{"{}"};        // passed to the function as its second argument when it takes two
  static constexpr auto fields() {
    return std::make_tuple(field("module", &PythonWorkflowConfig::module),
                           field("function", &PythonWorkflowConfig::function),
                           field("options", &PythonWorkflowConfig::options));
  }
};

class PythonWorkflow final : public Workflow {
 public:
  PythonWorkflow(std::string path, PythonWorkflowConfig config) : path_(std::move(path)), config_(std::move(config)) {}

  Result<WorkflowOutcome> run(EpisodeContext& episode) noexcept override {
    try {
      py::gil_scoped_acquire locked;
      try {
        py::module_ importlib = py::module_::import("importlib.util");
        py::object spec = importlib.attr("spec_from_file_location")("tritongym_user_workflow", path_);
        py::object module = importlib.attr("module_from_spec")(spec);
        spec.attr("loader").attr("exec_module")(module);
        py::object function = module.attr(config_.function.c_str());
        PythonEpisode wrapped(episode);
        py::object options = json_to_python(config_.options.text);
        int parameters = py::module_::import("inspect").attr("signature")(function).attr("parameters").attr("__len__")().cast<int>();
        py::object returned = parameters >= 2 ? function(py::cast(&wrapped, py::return_value_policy::reference), options)
                                              : function(py::cast(&wrapped, py::return_value_policy::reference));
        WorkflowOutcome outcome;
        if (py::isinstance<py::str>(returned)) {
          outcome.final_code = returned.cast<std::string>();
        } else if (py::isinstance<py::dict>(returned)) {
          py::dict result = returned.cast<py::dict>();
          if (result.contains("final_code")) outcome.final_code = result["final_code"].cast<std::string>();
          if (result.contains("summary")) outcome.summary = result["summary"].cast<std::string>();
        } else if (!returned.is_none()) {
          return Status(StatusCode::internal, path_ + ": " + config_.function +
                                                  "() must return a dict, the code as a string, or None");
        }
        return outcome;
      } catch (py::error_already_set& error) {
        return Status(StatusCode::internal, "the Python workflow " + path_ + " raised: " + std::string(error.what()));
      }
    } catch (const std::exception& error) {
      return Status(StatusCode::internal, std::string("python workflow: ") + error.what());
    }
  }

 private:
  std::string path_;
  PythonWorkflowConfig config_;
};

Result<std::unique_ptr<Workflow>> create(const PluginContext& context) {
  auto config = parse_config<PythonWorkflowConfig>(context.config_json);
  if (!config) return config.status();
  if (config->module.empty()) return Status(StatusCode::invalid_config, "`module` (a .py file) is required", "/module");
  std::filesystem::path path(config->module);
  if (path.is_relative()) path = std::filesystem::path(context.project_root) / path;
  if (!std::filesystem::exists(path))
    return Status(StatusCode::invalid_config, "Python workflow module '" + path.string() + "' does not exist", "/module");
  ensure_interpreter();  // the heavy dependency starts here, never while plugins are listed
  return std::unique_ptr<Workflow>(std::make_unique<PythonWorkflow>(path.string(), std::move(config.value())));
}

void register_all(Registrar& registrar) { registrar.add_workflow("tritongym.workflow.python", create); }

}  // namespace

TRITONGYM_PLUGIN(register_all)
