#include "task_yaml.hpp"

#include <boost/json.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include "tritongym/sdk/did_you_mean.hpp"
#include "yaml_to_json.hpp"

namespace tritongym::suite_directory {
namespace {

namespace fs = std::filesystem;

// Reads a YAML task file with errors that carry the file and the position of the offending node.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  Status error(const YAML::Node& node, const std::string& message) const {
    YAML::Mark mark = node.Mark();
    std::string where = file_;
    if (!mark.is_null()) where += ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
    return Status(StatusCode::invalid_config, message, where);
  }

  Status check_keys(const YAML::Node& map, const std::vector<std::string>& allowed, const std::string& context) const {
    if (!map.IsMap()) return error(map, context + " must be a mapping");
    for (const auto& pair : map) {
      std::string key = pair.first.as<std::string>();
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
        return error(pair.first, "unknown key '" + key + "' in " + context + did_you_mean(key, allowed));
    }
    return {};
  }

  Status string(const YAML::Node& parent, const char* key, std::string& out, bool required) const {
    YAML::Node node = parent[key];
    if (!node) return required ? error(parent, std::string("missing required key '") + key + "'") : Status();
    if (!node.IsScalar()) return error(node, std::string("'") + key + "' must be a string");
    out = node.Scalar();
    return {};
  }

  Status strings(const YAML::Node& parent, const char* key, std::vector<std::string>& out) const {
    YAML::Node node = parent[key];
    if (!node) return {};
    if (!node.IsSequence()) return error(node, std::string("'") + key + "' must be a list of strings");
    for (const auto& item : node) {
      if (!item.IsScalar()) return error(item, std::string("'") + key + "' must be a list of strings");
      out.push_back(item.Scalar());
    }
    return {};
  }

  // `ood_search:` the sets searched for a close counterpart of an out-of-distribution task, one
  // {set, found} entry each (docs/task-format.md). Checked for its form; the harness does not use it.
  Status ood_search(const YAML::Node& list) const {
    if (!list.IsSequence() || list.size() == 0)
      return error(list, "ood_search must be a non-empty list of {set: NAME, found: WHAT}, one per set searched");
    for (const auto& item : list) {
      if (Status s = check_keys(item, {"set", "found"}, "an ood_search entry"); !s.is_ok()) return s;
      for (const char* key : {"set", "found"}) {
        std::string text;
        if (Status s = string(item, key, text, true); !s.is_ok()) return s;
        if (text.empty()) return error(item[key], std::string("ood_search: '") + key + "' must not be empty");
      }
    }
    return {};
  }

  // `audit_exempt:` {RULE or RULE@SHAPE: one-line reason} -> task.audit_exemptions (docs/task-format.md, "The bar";
  // `tasks audit` checks the rule names and lists every exemption it uses).
  Status audit_exempt(const YAML::Node& map, std::map<std::string, std::string>& out) const {
    if (!map.IsMap())
      return error(map, "audit_exempt must map a rule (or RULE@SHAPE) to a one-line reason, e.g. "
                        "{oracle-vs-baselines@held-out-1: cuBLAS-class GEMM at an odd K}");
    for (const auto& pair : map) {
      if (!pair.second.IsScalar() || pair.second.as<std::string>().empty())
        return error(pair.second, "audit_exempt." + pair.first.as<std::string>() + " needs a one-line reason");
      out[pair.first.as<std::string>()] = pair.second.as<std::string>();
    }
    return {};
  }

  // `inputs:` -> JSON text for the worker: [{name, shape, dtype, distribution, low, high, mean, std, value}]
  Status inputs(const YAML::Node& list, std::string& out) const {
    if (!list.IsSequence()) return error(list, "inputs must be a list, one entry per parameter of the entry function");
    static const std::vector<std::string> keys = {"name", "shape", "dtype", "distribution", "low", "high", "mean", "std", "value"};
    boost::json::array array;
    for (const auto& item : list) {
      if (Status s = check_keys(item, keys, "an input"); !s.is_ok()) return s;
      if (!item["name"]) return error(item, "an input needs a name");
      if (item["value"] && item["shape"]) return error(item, "an input has either a value (a scalar) or a shape (a tensor)");
      if (item["distribution"]) {
        static const std::vector<std::string> distributions = {"normal", "uniform", "randint"};
        std::string name = item["distribution"].Scalar();
        if (std::find(distributions.begin(), distributions.end(), name) == distributions.end())
          return error(item["distribution"], "distribution '" + name + "' must be normal, uniform or randint" +
                                                 did_you_mean(name, distributions));
      }
      array.push_back(plugin_common::yaml_to_json(item));
    }
    out = boost::json::serialize(array);
    return {};
  }

  Status shapes(const YAML::Node& list, const std::string& prefix, std::vector<ShapeSpec>& out) const {
    if (!list.IsSequence()) return error(list, "shapes." + prefix + " must be a list of {dim: size} mappings");
    size_t index = 0;
    for (const auto& item : list) {
      if (!item.IsMap() || item.size() == 0) return error(item, "a shape must be a mapping like {M: 4096, N: 4096}");
      ShapeSpec shape;
      shape.name = prefix + "-" + std::to_string(index++);
      for (const auto& dim : item) {
        std::string name = dim.first.as<std::string>();
        int64_t size = 0;
        try {
          size = dim.second.as<int64_t>();
        } catch (const YAML::Exception&) {
          return error(dim.second, "shape dimension '" + name + "' must be an integer");
        }
        if (size <= 0) return error(dim.second, "shape dimension '" + name + "' must be positive");
        shape.dims[name] = size;
      }
      out.push_back(std::move(shape));
    }
    return {};
  }

 private:
  std::string file_;
};

// The size of one element of a dtype a task may list; 0 for a name this check does not know.
size_t element_bytes(const std::string& dtype) {
  static const std::map<std::string, size_t> sizes{
      {"float64", 8}, {"int64", 8},   {"float32", 4}, {"int32", 4},         {"float16", 2},
      {"bfloat16", 2}, {"int16", 2},  {"int8", 1},    {"uint8", 1},         {"bool", 1},
      {"float8_e4m3fn", 1}, {"float8_e5m2", 1}};
  auto found = sizes.find(dtype);
  return found == sizes.end() ? 0 : found->second;
}

// A task over dtypes of different sizes moves a different number of bytes in each: a byte formula that
// does not use dtype_bytes gives one of them a wrong speed-of-light floor (too high flags an honest
// kernel as faster than light; too low hides how far it is from the floor).
Status check_bytes_scale_with_dtype(const Reader& reader, const YAML::Node& root, const TaskSpec& task) {
  if (task.bytes_formula.empty() || task.bytes_formula.find("dtype_bytes") != std::string::npos) return {};
  std::map<size_t, std::string> by_size;
  for (const auto& dtype : task.dtypes)
    if (size_t size = element_bytes(dtype)) by_size.emplace(size, dtype);
  if (by_size.size() < 2) return {};
  std::string sizes;
  for (const auto& [size, dtype] : by_size) sizes += (sizes.empty() ? "" : ", ") + dtype + " " + std::to_string(size);
  return reader.error(root["bytes"], "bytes: the dtypes have elements of different sizes (" + sizes +
                                         " bytes) but the formula does not use dtype_bytes, so the speed-of-light "
                                         "floor is wrong for all but one of them");
}

}  // namespace

Result<TaskSpec> parse_task_yaml(const std::string& task_yaml_path, const std::string& suite) {
  Reader reader(task_yaml_path);
  YAML::Node root;
  try {
    root = YAML::LoadFile(task_yaml_path);
  } catch (const YAML::BadFile&) {
    return Status(StatusCode::not_found, "cannot read " + task_yaml_path, task_yaml_path);
  } catch (const YAML::Exception& error) {
    return Status(StatusCode::invalid_config, "invalid YAML: " + error.msg,
                  task_yaml_path + ":" + std::to_string(error.mark.line + 1) + ":" + std::to_string(error.mark.column + 1));
  }
  if (!root.IsMap()) return reader.error(root, "task.yaml must be a mapping");
  static const std::vector<std::string> keys = {
      "id", "split", "category", "dsl", "entry", "description", "dtypes", "shapes", "tolerance",
      "flops", "bytes", "allowed_library_kernels", "tags", "inputs", "ood_search", "audit_exempt", "compute_unit"};
  if (Status s = reader.check_keys(root, keys, "task.yaml"); !s.is_ok()) return s;

  TaskSpec task;
  fs::path folder = fs::absolute(task_yaml_path).parent_path();
  std::string local_id = folder.filename().string();
  if (Status s = reader.string(root, "id", local_id, false); !s.is_ok()) return s;
  static const std::regex id_pattern("^[a-z0-9][a-z0-9_-]*$");
  if (!std::regex_match(local_id, id_pattern))
    return reader.error(root["id"] ? root["id"] : root, "task id '" + local_id + "' must be lower-case letters, digits, - or _");
  task.id = suite + "/" + local_id;
  task.suite = suite;
  task.directory = folder.string();
  task.source_file = fs::absolute(task_yaml_path).string();
  task.dsl = "triton";
  if (Status s = reader.string(root, "split", task.split, true); !s.is_ok()) return s;
  static const std::vector<std::string> splits = {"standard", "ood", "dsl", "community"};
  if (std::find(splits.begin(), splits.end(), task.split) == splits.end())
    return reader.error(root["split"], "split '" + task.split + "' must be standard, ood, dsl or community" +
                                           did_you_mean(task.split, splits));
  if (Status s = reader.string(root, "category", task.category, true); !s.is_ok()) return s;
  if (Status s = reader.string(root, "dsl", task.dsl, false); !s.is_ok()) return s;
  if (Status s = reader.string(root, "description", task.description, true); !s.is_ok()) return s;

  YAML::Node entry = root["entry"];
  if (!entry) return reader.error(root, "missing required key 'entry' ({function: NAME, parameters: [..]})");
  if (Status s = reader.check_keys(entry, {"function", "parameters", "scalars"}, "entry"); !s.is_ok()) return s;
  if (Status s = reader.string(entry, "function", task.entry_function, true); !s.is_ok()) return s;
  if (Status s = reader.strings(entry, "parameters", task.entry_parameters); !s.is_ok()) return s;
  if (Status s = reader.strings(entry, "scalars", task.entry_scalars); !s.is_ok()) return s;
  for (const auto& scalar : task.entry_scalars)
    if (std::find(task.entry_parameters.begin(), task.entry_parameters.end(), scalar) == task.entry_parameters.end())
      return reader.error(entry["scalars"], "entry.scalars names '" + scalar + "', which is not one of entry.parameters");

  if (Status s = reader.strings(root, "dtypes", task.dtypes); !s.is_ok()) return s;
  YAML::Node shapes = root["shapes"];
  if (!shapes) return reader.error(root, "missing required key 'shapes' ({visible: [...], held_out: [...]})");
  if (Status s = reader.check_keys(shapes, {"visible", "held_out", "small"}, "shapes"); !s.is_ok()) return s;
  if (!shapes["visible"]) return reader.error(shapes, "shapes.visible is required: the agent tests on these");
  if (Status s = reader.shapes(shapes["visible"], "visible", task.visible_shapes); !s.is_ok()) return s;
  if (shapes["held_out"])
    if (Status s = reader.shapes(shapes["held_out"], "held-out", task.held_out_shapes); !s.is_ok()) return s;
  if (shapes["small"])
    if (Status s = reader.shapes(shapes["small"], "small", task.small_shapes); !s.is_ok()) return s;
  if (task.visible_shapes.empty()) return reader.error(shapes["visible"], "shapes.visible must not be empty");
  if (YAML::Node inputs = root["inputs"]) {
    if (Status s = reader.inputs(inputs, task.inputs_json); !s.is_ok()) return s;
  }

  if (YAML::Node tolerance = root["tolerance"]) {
    if (!tolerance.IsMap()) return reader.error(tolerance, "tolerance must map dtype -> {atol, rtol}");
    for (const auto& pair : tolerance) {
      if (Status s = reader.check_keys(pair.second, {"atol", "rtol"}, "tolerance." + pair.first.as<std::string>());
          !s.is_ok())
        return s;
      Tolerance value;
      try {
        if (pair.second["atol"]) value.atol = pair.second["atol"].as<double>();
        if (pair.second["rtol"]) value.rtol = pair.second["rtol"].as<double>();
      } catch (const YAML::Exception&) {
        return reader.error(pair.second, "atol and rtol must be numbers");
      }
      task.tolerance[pair.first.as<std::string>()] = value;
    }
  }
  if (Status s = reader.string(root, "flops", task.flops_formula, false); !s.is_ok()) return s;
  if (Status s = reader.string(root, "bytes", task.bytes_formula, false); !s.is_ok()) return s;
  if (Status s = reader.string(root, "compute_unit", task.compute_unit, false); !s.is_ok()) return s;
  static const std::vector<std::string> units = {"tensor", "tf32", "simt", "int", "alu", "issue", "l2-gather",
                                                 "memory"};
  if (!task.compute_unit.empty() && std::find(units.begin(), units.end(), task.compute_unit) == units.end())
    return reader.error(root["compute_unit"], "compute_unit '" + task.compute_unit +
                                                  "' must be tensor, tf32, simt, int, alu, issue, l2-gather or memory" +
                                                  did_you_mean(task.compute_unit, units));
  if (Status s = check_bytes_scale_with_dtype(reader, root, task); !s.is_ok()) return s;
  if (Status s = reader.strings(root, "allowed_library_kernels", task.allowed_library_kernels); !s.is_ok()) return s;
  if (Status s = reader.strings(root, "tags", task.tags); !s.is_ok()) return s;
  if (YAML::Node exempt = root["audit_exempt"])
    if (Status s = reader.audit_exempt(exempt, task.audit_exemptions); !s.is_ok()) return s;
  if (YAML::Node searched = root["ood_search"])
    if (Status s = reader.ood_search(searched); !s.is_ok()) return s;

  for (const auto& [file, slot] : {std::pair{"reference.py", &task.reference_path}, std::pair{"oracle.py", &task.oracle_path},
                                   std::pair{"triton_baseline.py", &task.triton_baseline_path}})
    if (fs::exists(folder / file)) *slot = (folder / file).string();
  return task;
}

}  // namespace tritongym::suite_directory
