#include "tasks/task_json.hpp"

namespace tritongym::tasks {

namespace {

boost::json::array shapes_json(const std::vector<ShapeSpec>& shapes) {
  boost::json::array out;
  for (const auto& shape : shapes) {
    boost::json::object dims;
    for (const auto& [name, size] : shape.dims) dims[name] = size;
    out.push_back({{"name", shape.name}, {"dims", dims}});
  }
  return out;
}

}  // namespace

boost::json::object task_json(const TaskSpec& task, bool full) {
  boost::json::array dtypes(task.dtypes.begin(), task.dtypes.end());
  boost::json::array tags(task.tags.begin(), task.tags.end());
  boost::json::object out{{"id", task.id}, {"suite", task.suite}, {"split", task.split}, {"category", task.category},
                          {"dsl", task.dsl}, {"entry_function", task.entry_function}, {"dtypes", dtypes},
                          {"visible_shapes", shapes_json(task.visible_shapes)},
                          {"held_out_shapes", shapes_json(task.held_out_shapes)}, {"tags", tags},
                          {"directory", task.directory}};
  if (full) {
    boost::json::array parameters(task.entry_parameters.begin(), task.entry_parameters.end());
    boost::json::object tolerance;
    for (const auto& [dtype, value] : task.tolerance) tolerance[dtype] = {{"atol", value.atol}, {"rtol", value.rtol}};
    boost::system::error_code error;
    out["entry_parameters"] = parameters;
    out["entry_scalars"] = boost::json::array(task.entry_scalars.begin(), task.entry_scalars.end());
    out["description"] = task.description;
    boost::json::value inputs = boost::json::parse(task.inputs_json, error);
    out["inputs"] = error ? boost::json::value(boost::json::array()) : inputs;
    out["small_shapes"] = shapes_json(task.small_shapes);
    out["tolerance"] = tolerance;
    out["flops"] = task.flops_formula;
    out["bytes"] = task.bytes_formula;
    out["compute_unit"] = task.compute_unit.empty() ? "tensor" : task.compute_unit;
    out["allowed_library_kernels"] = boost::json::array(task.allowed_library_kernels.begin(), task.allowed_library_kernels.end());
    out["reference"] = task.reference_path;
    out["oracle"] = task.oracle_path;
    out["triton_baseline"] = task.triton_baseline_path;
  }
  return out;
}
}  // namespace tritongym::tasks
