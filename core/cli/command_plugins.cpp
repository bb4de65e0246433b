// `tritongym plugins list` (manifests only, no plugin code runs) and `plugins doctor` (loads each library once, with
// every plugin its manifest declares).
#include <boost/json.hpp>

#include <iostream>

#include "cli/arguments.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "cli/plugin_loading.hpp"
#include "plugins/manifest.hpp"

namespace tritongym::cli {

namespace po = boost::program_options;

namespace {

boost::json::object manifest_json(const plugins::PluginManifest& manifest) {
  boost::json::array config;
  for (const auto& field : manifest.config) {
    boost::json::object entry{{"name", field.name}, {"type", field.type}, {"description", field.description}};
    if (!field.default_value.empty()) entry["default"] = boost::json::parse(field.default_value);
    config.push_back(std::move(entry));
  }
  return {{"id", manifest.id},
          {"kind", plugins::kind_name(manifest.kind)},
          {"version", manifest.version},
          {"description", manifest.description},
          {"library", manifest.library_path()},
          {"library_ids", boost::json::value_from(manifest.library_ids)},  // every plugin of that library
          {"manifest", manifest.manifest_path},
          {"config", config}};
}

std::string first_sentence(const std::string& text) {
  size_t end = text.find(". ");
  std::string sentence = end == std::string::npos ? text : text.substr(0, end + 1);
  while (!sentence.empty() && (sentence.back() == '\n' || sentence.back() == ' ')) sentence.pop_back();
  return sentence;
}

int list(const CliContext& context, const po::variables_map& values) {
  auto scan = plugins::scan_manifests(plugins::plugin_search_paths(context.plugin_paths));
  std::string kind = values.count("kind") ? values["kind"].as<std::string>() : "";
  if (!kind.empty() && !plugins::parse_kind(kind)) {
    print_error(Status(StatusCode::invalid_argument, "unknown kind '" + kind + "'" +
                                                         did_you_mean(kind, plugins::kind_names())));
    return kExitUsage;
  }
  std::vector<const plugins::PluginManifest*> shown;
  for (const auto& manifest : scan.manifests)
    if (kind.empty() || kind == plugins::kind_name(manifest.kind)) shown.push_back(&manifest);
  if (values.count("json")) {
    boost::json::array plugins;
    for (const auto* manifest : shown) plugins.push_back(manifest_json(*manifest));
    boost::json::array errors;
    for (const auto& error : scan.errors) errors.push_back({{"where", error.location()}, {"message", error.message()}});
    print_json(std::cout, boost::json::object{{"plugins", plugins}, {"manifest_errors", errors}});
  } else {
    std::vector<std::vector<std::string>> rows;
    for (const auto* manifest : shown)
      rows.push_back({manifest->id, plugins::kind_name(manifest->kind), manifest->version, manifest->library,
                      first_sentence(manifest->description)});
    print_table(std::cout, {"id", "kind", "version", "library", "description"}, rows);
    for (const auto& error : scan.errors) print_error(error);
  }
  return scan.errors.empty() ? kExitOk : kExitConfigError;
}

int doctor(const CliContext& context, const po::variables_map& values) {
  plugins::Registry registry;
  plugins::LoadReport report = plugins::load_plugins(plugins::plugin_search_paths(context.plugin_paths), registry);
  if (values.count("json")) {
    boost::json::array plugins;
    for (const auto& plugin : report.plugins) {
      boost::json::object entry = manifest_json(plugin.manifest);
      entry["status"] = plugin.loaded ? "loaded" : "refused";
      entry["reason"] = plugin.message;
      plugins.push_back(std::move(entry));
    }
    boost::json::array errors;
    for (const auto& error : report.manifest_errors)
      errors.push_back({{"where", error.location()}, {"message", error.message()}});
    print_json(std::cout, boost::json::object{{"plugins", plugins}, {"manifest_errors", errors}});
  } else {
    std::vector<std::vector<std::string>> rows;
    for (const auto& plugin : report.plugins)
      rows.push_back({plugin.loaded ? "loaded" : "REFUSED", plugin.manifest.id, plugins::kind_name(plugin.manifest.kind),
                      plugin.loaded ? plugin.manifest.library_path() : plugin.message});
    print_table(std::cout, {"status", "id", "kind", "library / reason"}, rows);
    for (const auto& error : report.manifest_errors) print_error(error);
    std::cout << "\n" << report.loaded_count() << " of " << report.plugins.size() << " plugins loaded\n";
  }
  bool clean = report.loaded_count() == report.plugins.size() && report.manifest_errors.empty();
  return clean ? kExitOk : kExitPluginError;
}

}  // namespace

int command_plugins(const CliContext& context, const Arguments& arguments) {
  po::options_description options("plugins options");
  options.add_options()("action", po::value<std::string>(), "list | doctor")("json", "print JSON")(
      "kind", po::value<std::string>(), "list: only this kind (backend, tool, executor, suite, dsl, workflow)");
  po::positional_options_description positional;
  positional.add("action", 1);
  int exit_code = kExitOk;
  std::string usage = "tritongym plugins list [--json] [--kind KIND] | tritongym plugins doctor [--json]";
  auto values = parse_arguments(usage, options, positional, arguments, exit_code);
  if (!values) return exit_code;
  std::string action = values->count("action") ? (*values)["action"].as<std::string>() : "";
  if (action == "list") return list(context, *values);
  if (action == "doctor") return doctor(context, *values);
  std::cerr << "error: " << (action.empty() ? "missing action" : "unknown action '" + action + "'")
            << did_you_mean(action, {"list", "doctor"}) << "\nusage: " << usage << "\n";
  return kExitUsage;
}

}  // namespace tritongym::cli
