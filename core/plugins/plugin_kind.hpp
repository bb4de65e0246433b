// The six kinds of plugin and the SDK interface each one implements.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tritongym/sdk/plugin.hpp"

namespace tritongym::plugins {

enum class PluginKind { backend, tool, executor, suite, dsl, workflow };

const char* kind_name(PluginKind kind);
std::optional<PluginKind> parse_kind(std::string_view name);
const std::vector<std::string>& kind_names();

template <class Interface> struct KindOf;
template <> struct KindOf<ModelBackend> { static constexpr PluginKind value = PluginKind::backend; };
template <> struct KindOf<Tool> { static constexpr PluginKind value = PluginKind::tool; };
template <> struct KindOf<Executor> { static constexpr PluginKind value = PluginKind::executor; };
template <> struct KindOf<Suite> { static constexpr PluginKind value = PluginKind::suite; };
template <> struct KindOf<Dsl> { static constexpr PluginKind value = PluginKind::dsl; };
template <> struct KindOf<Workflow> { static constexpr PluginKind value = PluginKind::workflow; };

}  // namespace tritongym::plugins
