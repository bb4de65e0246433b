// Checks a model's tool-call arguments against the tool's JSON Schema before the tool sees them:
// valid JSON, an object, required properties present, property types right. The error text is
// what the model reads.
#pragma once

#include <string>

#include "tritongym/sdk/status.hpp"

namespace tritongym::episode {

// Ok, or invalid_argument with a message for the model ("argument 'code' must be a string").
Status check_tool_arguments(const std::string& arguments_json, const std::string& parameters_schema_json);

}  // namespace tritongym::episode
