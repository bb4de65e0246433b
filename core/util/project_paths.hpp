// Where the project's data folders (tasks/, workflows/, examples/) are, wherever the binary runs from.
#pragma once

#include <string>

namespace tritongym::util {

// TRITONGYM_HOME if set; else the first ancestor of the executable's folder that holds tasks/ and
// workflows/ (a build tree: build/bin/tritongym -> the checkout); else <prefix>/share/tritongym.
std::string project_root();

}  // namespace tritongym::util
