// Loads a script file (YAML) into a ScriptFile, with errors at file:line:column.
#pragma once

#include <string>

#include "script.hpp"
#include "tritongym/sdk/status.hpp"

namespace tritongym::backend_scripted {

Result<ScriptFile> load_script_file(const std::string& path);

// Reads every content_file into content (relative to `base_dir`), so that playing a reply never
// touches the disk.
Status inline_content_files(std::vector<ScriptedReply>& replies, const std::string& base_dir);

}  // namespace tritongym::backend_scripted
