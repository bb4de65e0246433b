#include "plugins/registry.hpp"

namespace tritongym::plugins {

Registry::~Registry() {
  slots_.clear();
  for (auto& library : libraries_) new std::shared_ptr<boost::dll::shared_library>(std::move(library));  // never freed
}

void Registry::keep_alive(std::shared_ptr<boost::dll::shared_library> library) {
  libraries_.push_back(std::move(library));
}

bool Registry::contains(PluginKind kind, const std::string& id) const {
  auto found = slots_.find(id);
  return found != slots_.end() && found->second.kind == kind;
}

std::vector<std::string> Registry::ids(PluginKind kind) const {
  std::vector<std::string> ids;
  for (const auto& [id, slot] : slots_)
    if (slot.kind == kind) ids.push_back(id);
  return ids;
}

const Registry::Origin* Registry::origin(const std::string& id) const {
  auto found = slots_.find(id);
  return found == slots_.end() ? nullptr : &found->second.origin;
}

Status Registry::unknown_id(PluginKind kind, const std::string& id) const {
  auto found = slots_.find(id);
  if (found != slots_.end())
    return Status(StatusCode::not_found, "'" + id + "' is a " + kind_name(found->second.kind) + " plugin, not a " +
                                             kind_name(kind));
  std::vector<std::string> known = ids(kind);
  // Users often write the short name ("one-shot"); match against the last part of ids too.
  std::string suggestion = closest_match(id, known);
  if (suggestion.empty()) {
    for (const auto& candidate : known) {
      std::string tail = candidate.substr(candidate.rfind('.') + 1);
      if (!closest_match(id, {tail}).empty()) suggestion = candidate;
    }
  }
  std::string message = "unknown " + std::string(kind_name(kind)) + " '" + id + "'";
  if (!suggestion.empty()) message += " (did you mean '" + suggestion + "'?)";
  else if (known.empty()) message += "; no " + std::string(kind_name(kind)) + " plugin is loaded";
  else {
    message += "; loaded: ";
    for (size_t i = 0; i < known.size(); ++i) message += (i ? ", " : "") + known[i];
  }
  message += " (see `tritongym plugins doctor`)";
  return Status(StatusCode::not_found, message);
}

}  // namespace tritongym::plugins
